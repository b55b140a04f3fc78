// Hardware sweeps: grid axes and ranges, point order, shards, the row schema in CSV and JSON
// Lines, merging shards, strict sweep definitions, the parallel point runner, resuming the
// output file; then `tilesched sweep` / `tilesched merge` end to end as child processes
// (TILESCHED_BINARY): rows checked against separate `schedule` + `evaluate --json` runs,
// shards merged equal one run, SIGKILL + --resume equal one run, SIGTERM stops cleanly, and bad
// input fails with one line and exit 2.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "build_kind.h"
#include "plot_sweep.h"
#include "point_runner.h"
#include "sweep_config.h"
#include "sweep_grid.h"
#include "sweep_log.h"
#include "sweep.h"
#include "sweep_rows.h"
#include "sweep_run.h"
#include "test_files.h"
#include "tilesched/file_util.h"
#include "tilesched/flat_json.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/search.h"

namespace tilesched::sweep {
namespace {

namespace fs = std::filesystem;
// The plot reader must accept what the sweep writes.
using report::ParseSweepCsv;
using report::SweepRequiredColumns;
using Clock = std::chrono::steady_clock;

// --- Grid axes ---------------------------------------------------------------------------

struct IntegerAxisCase {
  std::string text;
  std::vector<int64_t> values;  // expected when `error` is empty
  std::string error;            // expected part of the message
};

TEST(SweepGrid, IntegerAxes) {
  const IntegerAxisCase cases[] = {
      {"20000,40000", {20000, 40000}, ""},
      {"5", {5}, ""},
      {" 10 , 20 ", {10, 20}, ""},
      {"20000:320000:x2", {20000, 40000, 80000, 160000, 320000}, ""},
      // The stop is inclusive when a step lands on it, an upper limit otherwise.
      {"20000:100000:x2", {20000, 40000, 80000}, ""},
      {"1:9:+2", {1, 3, 5, 7, 9}, ""},
      {"1:10:+2", {1, 3, 5, 7, 9}, ""},
      {"7:7:+1", {7}, ""},
      {"10,20:40:x2,100", {10, 20, 40, 100}, ""},
      // Generated values of an integer axis round to nearest: 10, 15, 22.5, 33.75.
      {"10:40:x1.5", {10, 15, 23, 34}, ""},
      {"", {}, "no values"},
      {"1,,2", {}, "empty item"},
      {"abc", {}, "expected a number, got 'abc'"},
      {"1.5", {}, "expected an integer"},
      {"0", {}, "from 1"},
      {"1:2", {}, "bad range '1:2'"},
      {"1:5:2", {}, "bad range"},
      {"1:5:x", {}, "bad range"},
      {"1:5:*2", {}, "bad range"},
      {"a:5:x2", {}, "bad range"},
      {"8:2:x2", {}, "starts above its stop"},
      {"1:8:x1", {}, "factor above 1"},
      {"0:8:x2", {}, "start above 0"},
      {"1:8:+0", {}, "step above 0"},
      {"1:8:+-1", {}, "step above 0"},
      {"4,2:8:x2", {}, "value 4 appears twice"},
      {"1:1e9:+1", {}, "more than 100000 values"},
  };
  for (const IntegerAxisCase& c : cases) {
    auto values = ParseIntegerAxis(c.text, "--capacity", /*min_value=*/1);
    if (c.error.empty()) {
      ASSERT_TRUE(values.ok()) << c.text << ": " << values.status().message();
      EXPECT_EQ(*values, c.values) << c.text;
    } else {
      ASSERT_FALSE(values.ok()) << c.text;
      EXPECT_NE(values.status().message().find(c.error), std::string::npos)
          << c.text << ": " << values.status().message();
      // Every message names the setting it is about.
      EXPECT_EQ(values.status().message().rfind("--capacity: ", 0), 0u) << values.status().message();
    }
  }
}

TEST(SweepGrid, NumberAxes) {
  auto tenths = ParseNumberAxis("0.1:0.3:+0.1", "--bandwidth");
  ASSERT_TRUE(tenths.ok()) << tenths.status().message();
  // Snapped to 12 digits: the third value is 0.3, not 0.30000000000000004.
  EXPECT_EQ(*tenths, (std::vector<double>{0.1, 0.2, 0.3}));
  auto geometric = ParseNumberAxis("2.5:20:x2", "--bandwidth");
  ASSERT_TRUE(geometric.ok());
  EXPECT_EQ(*geometric, (std::vector<double>{2.5, 5, 10, 20}));
  EXPECT_FALSE(ParseNumberAxis("0", "--bandwidth").ok());
  EXPECT_FALSE(ParseNumberAxis("-1", "--bandwidth").ok());
  EXPECT_FALSE(ParseNumberAxis("inf", "--bandwidth").ok());
  EXPECT_FALSE(ParseNumberAxis("10,10.0", "--bandwidth").ok());
  EXPECT_EQ(ShortestNumber(20), "20");
  EXPECT_EQ(ShortestNumber(0.1), "0.1");
  EXPECT_EQ(ShortestNumber(539859.2), "539859.2");
}

TEST(SweepGrid, ModeAxes) {
  auto rules = ParseRulesAxis("contest,algebra", "--rules");
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(*rules, (std::vector<Rules>{Rules::kContest, Rules::kAlgebra}));
  auto reduction = ParseMatmulReductionAxis("native_k", "--matmul-reduction");
  ASSERT_TRUE(reduction.ok());
  EXPECT_EQ(*reduction, std::vector<MatmulReduction>{MatmulReduction::kNativeK});
  auto limit = ParseKLimitAxis("reduction, native", "--k-limit");
  ASSERT_TRUE(limit.ok());
  EXPECT_EQ(*limit, (std::vector<KLimit>{KLimit::kReduction, KLimit::kNative}));
  auto twice = ParseRulesAxis("contest,contest", "--rules");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("appears twice"), std::string::npos);
  auto unknown = ParseKLimitAxis("native,sideways", "--k-limit");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message().rfind("--k-limit: ", 0), 0u) << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("sideways"), std::string::npos);
}

TEST(SweepGrid, PointOrderIsProblemsThenHardwareThenModesThenSeeds) {
  SweepGrid grid;
  grid.problems = {"a.json", "b.json"};
  grid.capacity = {100, 200, 300};
  grid.native = {64, 128};
  grid.k_limit = {KLimit::kNative, KLimit::kReduction};
  grid.seeds = {1, 2};
  // 2 problems x 3 capacities x (bandwidth unset) x 2 natives x 2 k limits x 2 seeds.
  ASSERT_EQ(grid.size(), /*2*3*1*2*1*1*2*2=*/48);
  const GridPoint p0 = grid.At(0);
  EXPECT_EQ(p0.problem, 0);
  EXPECT_EQ(p0.capacity, 100);
  EXPECT_FALSE(p0.bandwidth.has_value());
  EXPECT_EQ(p0.native, 64);
  EXPECT_EQ(p0.seed, 1u);
  EXPECT_EQ(grid.At(1).seed, 2u);                             // seeds vary fastest
  EXPECT_EQ(grid.At(2).modes.k_limit, KLimit::kReduction);    // then k_limit
  EXPECT_EQ(grid.At(4).native, 128);                          // then native
  EXPECT_EQ(grid.At(8).capacity, 200);                        // then capacity
  EXPECT_EQ(grid.At(24).problem, 1);                          // problems slowest
  const GridPoint last = grid.At(47);
  EXPECT_EQ(std::make_tuple(last.problem, *last.capacity, *last.native, last.seed),
            std::make_tuple(1, int64_t{300}, int64_t{128}, uint64_t{2}));
  EXPECT_EQ(last.modes.k_limit, KLimit::kReduction);
  // Every index is a different point.
  std::set<std::tuple<int, int64_t, int64_t, int, uint64_t>> seen;
  for (int64_t i = 0; i < grid.size(); ++i) {
    const GridPoint p = grid.At(i);
    EXPECT_EQ(p.index, i);
    seen.insert({p.problem, *p.capacity, *p.native, static_cast<int>(p.modes.k_limit), p.seed});
  }
  EXPECT_EQ(static_cast<int64_t>(seen.size()), grid.size());

  SweepGrid huge = grid;
  huge.capacity.assign(50000, 1);
  huge.bandwidth.assign(50000, 1.0);
  EXPECT_FALSE(huge.CheckSize().ok());
  SweepGrid none;
  EXPECT_FALSE(none.CheckSize().ok());
}

TEST(SweepGrid, ShardsPartitionTheGrid) {
  for (int64_t size : {1, 7, 17, 24}) {
    for (int64_t count = 1; count <= 5; ++count) {
      std::vector<int> hits(static_cast<size_t>(size), 0);
      for (int64_t index = 0; index < count; ++index) {
        const Shard shard{index, count};
        for (int64_t p : ShardPoints(size, shard)) {
          EXPECT_TRUE(shard.Contains(p));
          EXPECT_EQ(p % count, index);
          ++hits[static_cast<size_t>(p)];
        }
      }
      for (int64_t p = 0; p < size; ++p) {
        EXPECT_EQ(hits[static_cast<size_t>(p)], 1) << "point " << p << " of " << size << ", " << count << " shards";
      }
    }
  }
  struct ShardCase {
    std::string text;
    bool ok;
    int64_t index, count;
  };
  const ShardCase cases[] = {{"0/1", true, 0, 1}, {"2/3", true, 2, 3}, {"7/8", true, 7, 8},
                             {"3/3", false, 0, 0}, {"-1/3", false, 0, 0}, {"1", false, 0, 0},
                             {"1/0", false, 0, 0}, {"a/b", false, 0, 0}, {"1/2x", false, 0, 0},
                             {"/2", false, 0, 0}};
  for (const ShardCase& c : cases) {
    auto shard = ParseShard(c.text);
    ASSERT_EQ(shard.ok(), c.ok) << c.text;
    if (c.ok) {
      EXPECT_EQ(shard->index, c.index);
      EXPECT_EQ(shard->count, c.count);
    } else {
      EXPECT_NE(shard.status().message().find("--shard"), std::string::npos);
    }
  }
}

// --- Rows, files, merge ------------------------------------------------------------------

SweepRow Row(int64_t point, int64_t of, const std::string& status = "ok") {
  SweepRow row = NewSweepRow(point, of);
  const std::vector<std::string> cells = {
      "mlsys-2026-1", "20000", "20", "128", "", "", "contest", "full_k", "native", "1", "portfolio",
      status, status == "ok" ? "419430.4000000001" : "", "112000",
      status == "ok" ? "3.744914" : "", status == "ok" ? "2.744914" : "",
      status == "ok" ? "5" : "", status == "ok" ? "0.000000" : "",
      "0.036", status == "ok" ? "" : "op 0 (MatMul), tile \"1x1\": too big"};
  for (size_t c = 0; c < cells.size(); ++c) row.cells[c + 2] = cells[c];
  return row;
}

TEST(SweepRows, SchemaIsTheDocumentedOne) {
  std::string header;
  for (const std::string& c : SweepColumns()) header += (header.empty() ? "" : ",") + c;
  EXPECT_EQ(header,
            "point,of,problem,capacity,bandwidth,native,matmul_throughput,vector_throughput,rules,"
            "matmul_reduction,k_limit,seed,strategy,status,latency,lower_bound,ratio,gap,subgraphs,compute_bound_share,wall_s,message");
  EXPECT_EQ(SweepHeader(SweepFormat::kCsv), header + "\n");
  EXPECT_EQ(SweepHeader(SweepFormat::kJsonl), "");
  EXPECT_EQ(SweepColumns()[kSweepKeyColumns - 1], "strategy");
  // Every column `tilesched plot` needs is in the schema.
  for (const std::string& c : SweepRequiredColumns()) {
    EXPECT_NE(std::find(SweepColumns().begin(), SweepColumns().end(), c), SweepColumns().end()) << c;
  }
}

TEST(SweepRows, CsvAndJsonLinesRoundTripTheSameCells) {
  const std::vector<SweepRow> rows = {Row(0, 3), Row(1, 3, "infeasible"), Row(2, 3, "error")};
  for (SweepFormat format : {SweepFormat::kCsv, SweepFormat::kJsonl}) {
    std::string text = SweepHeader(format);
    for (const SweepRow& row : rows) {
      const std::string line = FormatSweepRow(row, format);
      EXPECT_EQ(line.find('\n'), line.size() - 1) << "one row, one line";
      text += line;
    }
    auto file = ParseSweepFile(text, "rows");
    ASSERT_TRUE(file.ok()) << file.status().message();
    EXPECT_EQ(file->format, format);
    ASSERT_EQ(file->rows.size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(file->rows[i].cells, rows[i].cells) << SweepFormatName(format) << " row " << i;
      EXPECT_EQ(file->rows[i].point, rows[i].point);
      EXPECT_EQ(file->rows[i].of, 3);
    }
  }
  // The message with a comma and quotes is quoted in CSV; JSON Lines writes null for empty
  // numbers and keeps number texts as written ("0.000000", not 0.0).
  const std::string csv = FormatSweepRow(Row(1, 3, "infeasible"), SweepFormat::kCsv);
  EXPECT_NE(csv.find(",\"op 0 (MatMul), tile \"\"1x1\"\": too big\"\n"), std::string::npos) << csv;
  const std::string json = FormatSweepRow(Row(0, 3), SweepFormat::kJsonl);
  EXPECT_NE(json.find("\"compute_bound_share\":0.000000,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"message\":\"\""), std::string::npos) << json;
  const std::string json_infeasible = FormatSweepRow(Row(1, 3, "infeasible"), SweepFormat::kJsonl);
  EXPECT_NE(json_infeasible.find("\"latency\":null,"), std::string::npos) << json_infeasible;
  // Control characters never split a row.
  SweepRow broken = Row(0, 1, "error");
  broken.cells.back() = "first line\nsecond line";
  EXPECT_EQ(FormatSweepRow(broken, SweepFormat::kCsv).find('\n'),
            FormatSweepRow(broken, SweepFormat::kCsv).size() - 1);
  // What `tilesched plot` reads from a sweep file.
  std::string text = SweepHeader(SweepFormat::kCsv);
  for (const SweepRow& row : rows) text += FormatSweepRow(row, SweepFormat::kCsv);
  auto points = ParseSweepCsv(text, "sweep.csv");
  ASSERT_TRUE(points.ok()) << points.status().message();
  ASSERT_EQ(points->size(), 1u);  // the ok row
  EXPECT_DOUBLE_EQ(points->front().latency, 419430.4000000001);
}

TEST(SweepRows, BadFilesNameTheLine) {
  const std::string header = SweepHeader(SweepFormat::kCsv);
  const std::string good = FormatSweepRow(Row(0, 2), SweepFormat::kCsv);
  std::string bad_latency = good;
  bad_latency.replace(bad_latency.find("419430.4000000001"), 17, "fast");
  std::string bad_status = good;
  bad_status.replace(bad_status.find(",ok,"), 4, ",fine,");
  std::string json = FormatSweepRow(Row(0, 2), SweepFormat::kJsonl);
  std::string json_unknown = json;
  json_unknown.replace(json_unknown.find("\"wall_s\""), 8, "\"wall_t\"");
  std::string json_string_number = json;
  json_string_number.replace(json_string_number.find("\"native\":128"), 12, "\"native\":\"128\"");
  struct Case {
    std::string text, error;
  };
  const Case cases[] = {
      {"point,of\n", "f line 1: expected the sweep header"},
      {header + "1,2,3\n", "f line 2: expected 22 cells, got 3"},
      {header + good + bad_latency, "f line 3: latency: expected a number, got 'fast'"},
      {header + bad_status, "f line 2: status: expected ok, infeasible or error"},
      {header + FormatSweepRow(Row(2, 2), SweepFormat::kCsv), "point 2 is not below of 2"},
      {header + good.substr(0, good.size() - 1), "f line 2: the last line has no newline"},
      {json_unknown, "f line 1: wall_t: not a sweep column"},
      {json_string_number, "native: expected a number or null, got a string"},
      {json + "{\"point\":1}\n", "f line 2: of: missing"},
      {json + "[1]\n", "f line 2: expected a JSON object"},
  };
  for (const Case& c : cases) {
    auto file = ParseSweepFile(c.text, "f");
    ASSERT_FALSE(file.ok()) << c.text;
    EXPECT_NE(file.status().message().find(c.error), std::string::npos)
        << "expected '" << c.error << "' in: " << file.status().message();
  }
  auto empty = ParseSweepFile("", "f");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->rows.empty());
}

NamedRows Rows(const std::string& name, std::vector<int64_t> points, int64_t of) {
  NamedRows named{name, {}};
  int line = 1;
  for (int64_t p : points) {
    named.rows.push_back(Row(p, of));
    named.rows.back().line = ++line;
  }
  return named;
}

TEST(SweepMerge, CompleteShardsComeOutSortedByPoint) {
  auto merged = MergeSweepRows({Rows("s0", {0, 3, 6}, 7), Rows("s1", {1, 4}, 7), Rows("s2", {5, 2}, 7)});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  ASSERT_EQ(merged->size(), 7u);
  for (int64_t p = 0; p < 7; ++p) EXPECT_EQ((*merged)[static_cast<size_t>(p)].point, p);
}

TEST(SweepMerge, MissingDuplicatedAndForeignPointsAreNamed) {
  struct Case {
    std::vector<NamedRows> files;
    std::string error;
  };
  const Case cases[] = {
      {{Rows("s0", {0, 2}, 4), Rows("s1", {1}, 4)}, "point 3 of 4 is missing (looked in s0, s1)"},
      {{Rows("s0", {0, 2}, 4), Rows("s1", {3}, 4)}, "point 1 of 4 is missing"},
      {{Rows("s0", {0, 1, 2}, 4), Rows("s1", {1, 3}, 4)},
       "point 1 of 4 appears twice: s0 line 3 and s1 line 2"},
      // The smallest point with a problem is reported first.
      {{Rows("s0", {0, 2, 3, 3}, 4)}, "point 1 of 4 is missing"},
      {{Rows("s0", {0, 1}, 2), Rows("s1", {0}, 3)}, "s1 line 2: of is 3 but s0 line 2: of is 2"},
      {{Rows("s0", {}, 2)}, "no rows"},
  };
  for (const Case& c : cases) {
    auto merged = MergeSweepRows(c.files);
    ASSERT_FALSE(merged.ok()) << c.error;
    EXPECT_NE(merged.status().message().find(c.error), std::string::npos)
        << "expected '" << c.error << "' in: " << merged.status().message();
  }
}

// --- Sweep definitions -------------------------------------------------------------------

TEST(SweepDefinition, StrictKeysAndValues) {
  struct Case {
    std::string text, error;
  };
  const Case cases[] = {
      {R"({"capacity": [1], "capacit": [2]})", "def.json: capacit: unknown key (known: description, problems"},
      {R"({"strategy": ["beam", "greedy"]})", "def.json: strategy: expected a single value, got a list"},
      {R"({"capacity": [[1, 2]]})", "def.json: capacity[0]: expected a number or a string, got a list"},
      {R"({"capacity": {"from": 1}})", "def.json: capacity: expected a number or a string or a list"},
      {R"({"seeds": [1, true]})", "def.json: seeds[1]: expected a number or a string, got a boolean"},
      {R"({"native": null})", "def.json: native: expected"},
      {R"({"capacity": []})", "def.json: capacity: empty list"},
      {R"({"problems": []})", "def.json: problems: empty list"},
      {R"({"capacity": 1, "capacity": 2})", "def.json: capacity: appears twice"},
      {R"([1, 2])", "def.json: expected a JSON object, got a list"},
      {R"({"capacity": 1)", "def.json: malformed JSON"},
  };
  for (const Case& c : cases) {
    SweepSettings settings;
    const Status s = ApplySweepDefinition(c.text, "def.json", &settings);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.message().find(c.error), std::string::npos)
        << "expected '" << c.error << "' in: " << s.message();
  }
}

TEST(SweepDefinition, ListsJoinIntoTheFlagSyntax) {
  SweepSettings settings;
  const Status s = ApplySweepDefinition(
      R"({"description": "x", "problems": ["a.json", "b,c.json"], "capacity": [20000, "40000:160000:x2"],
          "bandwidth": 2.50, "rules": ["contest", "algebra"], "seeds": "1:3:+1", "iterations": 300,
          "format": "jsonl"})",
      "def.json", &settings);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(settings.problems, (std::vector<std::string>{"a.json", "b,c.json"}));
  EXPECT_EQ(settings.capacity.text, "20000,40000:160000:x2");
  EXPECT_EQ(settings.capacity.source, "def.json: capacity");
  EXPECT_EQ(settings.bandwidth.text, "2.50");  // numbers keep their text
  auto plan = BuildSweepPlan(settings);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->grid.capacity, (std::vector<int64_t>{20000, 40000, 80000, 160000}));
  EXPECT_EQ(plan->grid.bandwidth, std::vector<double>{2.5});
  EXPECT_EQ(plan->grid.seeds, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(plan->grid.size(), /*2 problems*4*1*1*2*1*1*3=*/48);
  EXPECT_EQ(plan->search.iterations, 300);
  EXPECT_EQ(plan->search.time_limit, 0);  // a work budget alone: deterministic
  EXPECT_TRUE(plan->format_set);
  EXPECT_EQ(plan->format, SweepFormat::kJsonl);

  // Errors in values name where the value came from.
  settings.capacity = {"1:2:3", "def.json: capacity"};
  auto bad = BuildSweepPlan(settings);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("def.json: capacity: bad range", 0), 0u) << bad.status().message();
  settings.capacity = {"20000", "--capacity"};
  settings.strategy = {"sideways", "--strategy"};
  bad = BuildSweepPlan(settings);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--strategy: unknown strategy 'sideways'"), std::string::npos);

  // Defaults: every problem's own hardware, contest modes, seed 1, 2 s per point.
  SweepSettings plain;
  plain.problems = {"a.json"};
  auto defaults = BuildSweepPlan(plain);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->grid.size(), 1);
  EXPECT_EQ(defaults->search.time_limit, kDefaultPointSeconds);
  EXPECT_EQ(defaults->search.strategy, "portfolio");
  EXPECT_FALSE(defaults->format_set);
}

TEST(SweepDefinition, SearchPresetFillsWhatTheSweepLeavesUnset) {
  search::SearchOptions preset;
  preset.strategy = "beam";
  preset.time_limit = 5;
  preset.seed = 7;
  preset.threads = 3;
  preset.beam_width = 4;
  preset.modes.rules = Rules::kAlgebra;
  SweepSettings settings;
  settings.problems = {"a.json"};
  auto plan = BuildSweepPlan(settings, preset);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->grid.seeds, std::vector<uint64_t>{7});
  EXPECT_EQ(plan->grid.rules, std::vector<Rules>{Rules::kAlgebra});
  EXPECT_EQ(plan->search.strategy, "beam");
  EXPECT_EQ(plan->search.time_limit, 5);
  EXPECT_EQ(plan->search.beam_width, 4);
  EXPECT_EQ(plan->search.threads, 0);  // points run side by side
  // The sweep's own settings win; --iterations replaces the preset's time budget.
  settings.seeds = {"1,2", "--seeds"};
  settings.rules = {"contest", "--rules"};
  settings.iterations = {"100", "--iterations"};
  plan = BuildSweepPlan(settings, preset);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->grid.seeds, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(plan->grid.rules, std::vector<Rules>{Rules::kContest});
  EXPECT_EQ(plan->search.iterations, 100);
  EXPECT_EQ(plan->search.time_limit, 0);
  SweepSettings from_file;
  ASSERT_TRUE(ApplySweepDefinition(R"({"search_config": "configs/fast.json"})", "d", &from_file).ok());
  EXPECT_EQ(from_file.search_config.text, "configs/fast.json");
}

TEST(SweepDefinition, ShippedDefinitionsAreValid) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TILESCHED_SOURCE_DIR) / "configs/sweeps")) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    auto text = ReadFile(entry.path().string());
    ASSERT_TRUE(text.ok());
    SweepSettings settings;
    const Status s = ApplySweepDefinition(*text, entry.path().filename().string(), &settings);
    ASSERT_TRUE(s.ok()) << s.message();
    auto plan = BuildSweepPlan(settings);
    ASSERT_TRUE(plan.ok()) << entry.path() << ": " << plan.status().message();
    EXPECT_GT(plan->grid.size(), 1) << entry.path();
    for (const std::string& problem : plan->grid.problems) {
      EXPECT_TRUE(fs::exists(fs::path(TILESCHED_SOURCE_DIR) / problem)) << entry.path() << ": " << problem;
    }
  }
  EXPECT_GE(count, 2);
}

TEST(SweepIo, JsonLinesKeepNumberTextsAndRefuseStructure) {
  auto fields = ParseFlatJsonLine(R"({"a":0.000000,"b":2e4,"c":-3,"d":null,"e":"x\"y"})");
  ASSERT_TRUE(fields.ok()) << fields.status().message();
  ASSERT_EQ(fields->size(), 5u);
  EXPECT_EQ((*fields)[0].text, "0.000000");
  EXPECT_EQ((*fields)[1].text, "2e4");
  EXPECT_EQ((*fields)[2].text, "-3");
  EXPECT_EQ((*fields)[3].kind, JsonScalar::kNull);
  EXPECT_EQ((*fields)[4].text, "x\"y");
  EXPECT_EQ(FlatJsonLine(*fields), R"({"a":0.000000,"b":2e4,"c":-3,"d":null,"e":"x\"y"})");
  EXPECT_FALSE(ParseFlatJsonLine(R"({"a":[1]})").ok());
  EXPECT_FALSE(ParseFlatJsonLine(R"({"a":true})").ok());
  EXPECT_FALSE(ParseFlatJsonLine(R"({"a":1,"a":2})").ok());
  EXPECT_FALSE(ParseFlatJsonLine(R"({"a":1} {"b":2})").ok());
  // Deep nesting is refused when it opens, without building anything.
  EXPECT_FALSE(ParseListConfig(std::string(100000, '[')).ok());
}

// --- Point runner and output file --------------------------------------------------------

TEST(SweepRunner, EveryPointRunsOnceAtAnyJobCount) {
  for (int jobs : {1, 2, 8}) {
    std::vector<std::atomic<int>> calls(37);
    sweep::RunPoints(37, jobs, [&](int64_t i) { calls[static_cast<size_t>(i)].fetch_add(1); });
    for (size_t i = 0; i < calls.size(); ++i) EXPECT_EQ(calls[i].load(), 1) << "jobs " << jobs << " point " << i;
  }
  std::atomic<int> none{0};
  sweep::RunPoints(0, 2, [&](int64_t) { none.fetch_add(1); });
  EXPECT_EQ(none.load(), 0);
}

TEST(SweepRunner, StopEndsBeforeTheNextPoint) {
  std::atomic<bool> stop{false};
  std::atomic<int> calls{0};
  sweep::RunPoints(
      1000, 2,
      [&](int64_t) {
        if (calls.fetch_add(1) + 1 >= 5) stop.store(true);
      },
      &stop);
  // Each of the two pullers may start at most one more point after the stop is set.
  EXPECT_GE(calls.load(), 5);
  EXPECT_LE(calls.load(), 7);
  calls = 0;
  sweep::RunPoints(10, 2, [&](int64_t) { calls.fetch_add(1); }, &stop);
  EXPECT_EQ(calls.load(), 0);
}

std::string TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() /
                       ("tilesched_sweep_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

using testing::Slurp;

TEST(SweepLogFile, ResumeKeepsRowsAndCutsThePartialLine) {
  const std::string dir = TempDir("log");
  const std::string path = dir + "/rows.csv";
  {
    auto opened = SweepLog::Open(path, SweepFormat::kCsv, /*resume=*/true);  // no file yet
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    EXPECT_TRUE(opened->kept.empty());
    ASSERT_TRUE(opened->log->Append(Row(0, 3)).ok());
    ASSERT_TRUE(opened->log->Append(Row(2, 3)).ok());
    ASSERT_TRUE(opened->log->Close().ok());
  }
  const std::string complete = Slurp(path);
  EXPECT_EQ(complete, SweepHeader(SweepFormat::kCsv) + FormatSweepRow(Row(0, 3), SweepFormat::kCsv) +
                          FormatSweepRow(Row(2, 3), SweepFormat::kCsv));
  // A row cut short by a kill.
  {
    std::ofstream out(path, std::ios::app);
    out << "1,3,mlsys-20";
  }
  {
    auto opened = SweepLog::Open(path, SweepFormat::kCsv, /*resume=*/true);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    EXPECT_TRUE(opened->truncated);
    ASSERT_EQ(opened->kept.size(), 2u);
    EXPECT_EQ(opened->kept[0].point, 0);
    EXPECT_EQ(opened->kept[1].point, 2);
    EXPECT_EQ(Slurp(path), complete);
    ASSERT_TRUE(opened->log->Append(Row(1, 3)).ok());
    ASSERT_TRUE(opened->log->Close().ok());
  }
  EXPECT_EQ(Slurp(path), complete + FormatSweepRow(Row(1, 3), SweepFormat::kCsv));
  // Resuming as the other format is refused and leaves the file alone.
  auto other = SweepLog::Open(path, SweepFormat::kJsonl, /*resume=*/true);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("holds csv rows"), std::string::npos);
  // Without --resume the file starts over with its header.
  {
    auto fresh = SweepLog::Open(path, SweepFormat::kCsv, /*resume=*/false);
    ASSERT_TRUE(fresh.ok());
    EXPECT_TRUE(fresh->kept.empty());
  }
  EXPECT_EQ(Slurp(path), SweepHeader(SweepFormat::kCsv));
  fs::remove_all(dir);
}

// --- End to end --------------------------------------------------------------------------

std::string Benchmark(int n) {
  return std::string(TILESCHED_SOURCE_DIR) + "/data/benchmarks/mlsys-2026-" + std::to_string(n) + ".json";
}

// Starts `tilesched ARGS` with stdout and stderr redirected to files.
pid_t Start(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  std::vector<std::string> argv = {TILESCHED_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::SpawnChild(argv, out, err);
}

// Exit code, or 128 + signal; kills the child after `limit`.
int Finish(pid_t pid, std::chrono::seconds limit = std::chrono::seconds(60)) {
  const int status = testing::WaitChild(pid, limit);
  if (status == -1) {
    ADD_FAILURE() << "child did not finish in time";
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

using Outcome = testing::ToolRun;

// Runs `tilesched ARGS` to completion with its output captured in files under `dir`.
Outcome RunTool(const std::string& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {TILESCHED_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::RunTool(argv, dir);
}

std::vector<SweepRow> ReadRows(const std::string& path) {
  auto file = ParseSweepFile(Slurp(path), path);
  EXPECT_TRUE(file.ok()) << file.status().message();
  return file.ok() ? file->rows : std::vector<SweepRow>{};
}

// Rows by point with wall_s blanked (the only column that differs between equal runs).
std::vector<std::vector<std::string>> Comparable(std::vector<SweepRow> rows) {
  std::sort(rows.begin(), rows.end(), [](const SweepRow& a, const SweepRow& b) { return a.point < b.point; });
  std::vector<std::vector<std::string>> cells;
  for (SweepRow& row : rows) {
    row.cells[SweepColumn("wall_s")].clear();
    cells.push_back(row.cells);
  }
  return cells;
}

double Number(const SweepRow& row, const char* column) {
  return std::strtod(row.cells[SweepColumn(column)].c_str(), nullptr);
}

// Benchmarks 1, 3, 4 x capacity {1 (fits nothing), 300, 20000, 40000} x bandwidth {10, 20}.
std::vector<std::string> GridArgs() {
  return {Benchmark(1), Benchmark(3), Benchmark(4), "--capacity", "1,300,20000:40000:x2",
          "--bandwidth", "10,20", "--iterations", "200"};
}
constexpr int64_t kGridPoints = /*3 problems * 4 capacities * 2 bandwidths=*/24;

TEST(SweepEndToEnd, RowsMatchSeparateScheduleAndEvaluateRuns) {
  const std::string dir = TempDir("rows");
  const std::string output = dir + "/sweep.csv";
  std::vector<std::string> args = {"sweep"};
  for (const std::string& a : GridArgs()) args.push_back(a);
  args.insert(args.end(), {"--jobs", "2", "-o", output});
  const Outcome sweep = RunTool(dir, args);
  ASSERT_EQ(sweep.code, 0) << sweep.err;
  const std::vector<SweepRow> rows = ReadRows(output);
  ASSERT_EQ(static_cast<int64_t>(rows.size()), kGridPoints);
  const char* names[] = {"mlsys-2026-1", "mlsys-2026-3", "mlsys-2026-4"};
  const char* capacities[] = {"1", "300", "20000", "40000"};
  int ok = 0;
  for (int64_t i = 0; i < kGridPoints; ++i) {
    const SweepRow& row = rows[static_cast<size_t>(i)];
    auto cell = [&](const char* column) { return row.cells[SweepColumn(column)]; };
    // Sorted by point, in grid order: problems, capacity, bandwidth.
    EXPECT_EQ(row.point, i);
    EXPECT_EQ(row.of, kGridPoints);
    EXPECT_EQ(cell("problem"), names[i / 8]);
    EXPECT_EQ(cell("capacity"), capacities[i / 2 % 4]);
    EXPECT_EQ(cell("bandwidth"), i % 2 ? "20" : "10");
    EXPECT_EQ(cell("native"), "128");
    EXPECT_EQ(cell("rules") + cell("matmul_reduction") + cell("k_limit"), "contestfull_knative");
    EXPECT_EQ(cell("seed"), "1");
    EXPECT_EQ(cell("strategy"), "portfolio");
    EXPECT_FALSE(cell("lower_bound").empty());
    if (cell("capacity") == "1") {
      EXPECT_EQ(cell("status"), "infeasible") << "point " << i;
      EXPECT_NE(cell("message").find("fits in fast memory at no tile size"), std::string::npos);
      EXPECT_TRUE(cell("latency").empty() && cell("ratio").empty() && cell("subgraphs").empty() &&
                  cell("compute_bound_share").empty());
      // The reason is on stderr too.
      EXPECT_NE(sweep.err.find("point " + std::to_string(i) + " ("), std::string::npos);
      continue;
    }
    ASSERT_EQ(cell("status"), "ok") << "point " << i << ": " << cell("message");
    ++ok;
    EXPECT_TRUE(cell("message").empty());
    const double latency = Number(row, "latency");
    const double bound = Number(row, "lower_bound");
    EXPECT_GE(latency, bound * (1 - 1e-12)) << "point " << i;
    EXPECT_NEAR(Number(row, "ratio"), latency / bound, 1e-6);
    EXPECT_GE(Number(row, "subgraphs"), 1);
    EXPECT_GE(Number(row, "compute_bound_share"), 0);
    EXPECT_LE(Number(row, "compute_bound_share"), 1);

    // The same point by hand: the problem on the point's hardware, scheduled and evaluated
    // by separate commands with the same budget and seed.
    auto base = LoadProblem(Benchmark(i < 8 ? 1 : i < 16 ? 3 : 4));
    ASSERT_TRUE(base.ok());
    Hardware hw = base->hardware();
    hw.fast_memory_capacity = std::stoll(cell("capacity"));
    hw.slow_memory_bandwidth = Number(row, "bandwidth");
    auto point_problem = base->WithHardware(hw);
    ASSERT_TRUE(point_problem.ok());
    const std::string problem_path = dir + "/point" + std::to_string(i) + ".json";
    const std::string solution_path = dir + "/point" + std::to_string(i) + ".solution.json";
    ASSERT_TRUE(WriteFileAtomic(problem_path, ProblemToJson(*point_problem)).ok());
    const Outcome schedule = RunTool(dir, {"schedule", problem_path, "--iterations", "200", "--seed",
                                       cell("seed"), "-o", solution_path, "--quiet"});
    ASSERT_EQ(schedule.code, 0) << schedule.err;
    const Outcome evaluate = RunTool(dir, {"evaluate", problem_path, solution_path, "--json"});
    ASSERT_EQ(evaluate.code, 0) << evaluate.err;
    const size_t at = evaluate.out.find("\"total_latency\":");
    ASSERT_NE(at, std::string::npos) << evaluate.out;
    const double evaluated = std::strtod(evaluate.out.c_str() + at + 16, nullptr);
    // Rows hold latencies to 12 significant digits (no rounding noise of the sums).
    EXPECT_NEAR(latency, evaluated, 1e-11 * evaluated) << "point " << i << " (" << cell("problem") << ", capacity "
                                  << cell("capacity") << ", bandwidth " << cell("bandwidth") << ")";
  }
  EXPECT_EQ(ok, 18);
  // `tilesched plot` reads the file.
  auto points = ParseSweepCsv(Slurp(output), output);
  ASSERT_TRUE(points.ok()) << points.status().message();
  EXPECT_EQ(points->size(), 18u);
  fs::remove_all(dir);
}

// A row's bound is the larger of tier 1 and the search's own (here tier 2 through the search
// preset's tier2_first): benchmark 7 at capacity 40,000 is then proven optimal, where tier 1
// is 18.9% below the latency.
TEST(SweepEndToEnd, SearchBoundRaisesTheRowBound) {
  const std::string dir = TempDir("tier2");
  const std::string output = dir + "/sweep.csv";
  const std::string preset = dir + "/tier2.json";
  ASSERT_TRUE(WriteFileAtomic(preset, "{\"tier2_first\": 600}\n").ok());
  const Outcome sweep = RunTool(dir, {"sweep", Benchmark(7), "--capacity", "40000", "--iterations",
                                      "2000", "--config", preset, "-o", output});
  ASSERT_EQ(sweep.code, 0) << sweep.err;
  const std::vector<SweepRow> rows = ReadRows(output);
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_EQ(rows[0].cells[SweepColumn("status")], "ok") << rows[0].cells[SweepColumn("message")];
  auto base = LoadProblem(Benchmark(7));
  ASSERT_TRUE(base.ok());
  Hardware hw = base->hardware();
  hw.fast_memory_capacity = 40000;
  auto point = base->WithHardware(hw);
  ASSERT_TRUE(point.ok());
  const double tier1 = ComputeLowerBounds(*point, CostModes{}).best();
  const double latency = Number(rows[0], "latency"), bound = Number(rows[0], "lower_bound");
  EXPECT_GT(bound, tier1 * 1.1);
  EXPECT_LE(bound, latency);
  EXPECT_GE(bound, latency * (1 - 2e-9));
  EXPECT_NEAR(Number(rows[0], "gap"), 0, 1e-6);
  fs::remove_all(dir);
}

TEST(SweepEndToEnd, ThreeShardsMergedEqualOneRun) {
  const std::string dir = TempDir("shards");
  std::vector<std::string> base = {"sweep"};
  for (const std::string& a : GridArgs()) base.push_back(a);
  // One shard as JSON Lines: merge reads both formats.
  const std::vector<std::string> outputs = {dir + "/shard0.jsonl", dir + "/shard1.csv", dir + "/shard2.csv"};
  std::vector<pid_t> pids;
  for (int i = 0; i < 3; ++i) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--shard", std::to_string(i) + "/3", "--jobs", "1", "-o", outputs[static_cast<size_t>(i)]});
    pids.push_back(Start(args, dir + "/out" + std::to_string(i), dir + "/err" + std::to_string(i)));
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Finish(pids[static_cast<size_t>(i)]), 0) << Slurp(dir + "/err" + std::to_string(i));
    for (const SweepRow& row : ReadRows(outputs[static_cast<size_t>(i)])) EXPECT_EQ(row.point % 3, i);
  }
  EXPECT_EQ(Slurp(outputs[0]).front(), '{');
  std::vector<std::string> whole_args = base;
  whole_args.insert(whole_args.end(), {"-o", dir + "/whole.csv"});
  ASSERT_EQ(RunTool(dir, whole_args).code, 0);

  const Outcome merge = RunTool(dir, {"merge", outputs[2], outputs[0], outputs[1], "-o", dir + "/merged.csv"});
  ASSERT_EQ(merge.code, 0) << merge.err;
  const std::vector<SweepRow> merged = ReadRows(dir + "/merged.csv");
  ASSERT_EQ(static_cast<int64_t>(merged.size()), kGridPoints);
  for (size_t i = 0; i < merged.size(); ++i) EXPECT_EQ(merged[i].point, static_cast<int64_t>(i));
  EXPECT_EQ(Comparable(merged), Comparable(ReadRows(dir + "/whole.csv")));
  // JSON Lines out: the same cells.
  ASSERT_EQ(RunTool(dir, {"merge", outputs[0], outputs[1], outputs[2], "-o", dir + "/merged.jsonl"}).code, 0);
  EXPECT_EQ(Slurp(dir + "/merged.jsonl").front(), '{');
  EXPECT_EQ(Comparable(ReadRows(dir + "/merged.jsonl")), Comparable(merged));

  // A missing shard or a shard given twice: exit 2, one line naming the point and files, no output.
  const Outcome missing = RunTool(dir, {"merge", outputs[0], outputs[2], "-o", dir + "/bad.csv"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err, "tilesched merge: point 1 of 24 is missing (looked in " + outputs[0] + ", " +
                             outputs[2] + ")\n");
  const Outcome twice = RunTool(dir, {"merge", outputs[0], outputs[1], outputs[2], outputs[1], "-o", dir + "/bad.csv"});
  EXPECT_EQ(twice.code, 2);
  EXPECT_NE(twice.err.find("point 1 of 24 appears twice: " + outputs[1] + " line 2 and " + outputs[1]),
            std::string::npos) << twice.err;
  EXPECT_FALSE(fs::exists(dir + "/bad.csv"));
  fs::remove_all(dir);
}

// Slow enough points (tiny capacities) that a kill lands mid-way.
std::vector<std::string> SlowSweep(const std::string& output) {
  return {"sweep", Benchmark(1), "--capacity", "50:250:+50", "--iterations", "200", "--jobs", "1",
          "-o", output};
}
constexpr size_t kSlowPoints = 5;

// Waits until `path` holds at least `rows` complete rows (after its header line).
bool WaitForRows(const std::string& path, size_t rows, std::chrono::seconds limit) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    const std::string text = Slurp(path);
    if (static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) >= rows + 1) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

TEST(SweepEndToEnd, SigkillKeepsCompleteRowsAndResumeFinishes) {
  const std::string dir = TempDir("kill");
  const std::string output = dir + "/sweep.csv";
  const std::string reference = dir + "/reference.csv";
  // The uninterrupted run to compare with, beside the one to be killed.
  const pid_t reference_pid = Start(SlowSweep(reference), dir + "/ref.out", dir + "/ref.err");
  const pid_t pid = Start(SlowSweep(output), dir + "/out", dir + "/err");
  ASSERT_TRUE(WaitForRows(output, 2, std::chrono::seconds(30)));
  kill(pid, SIGKILL);
  EXPECT_EQ(Finish(pid), 128 + SIGKILL);
  ASSERT_EQ(Finish(reference_pid), 0) << Slurp(dir + "/ref.err");
  const std::vector<SweepRow> expected = ReadRows(reference);
  ASSERT_EQ(expected.size(), kSlowPoints);

  // Every row on disk is complete and equals the reference's row for its point.
  std::string text = Slurp(output);
  ASSERT_EQ(text.back(), '\n');
  const std::vector<SweepRow> kept = ReadRows(output);
  ASSERT_GE(kept.size(), 2u);
  ASSERT_LT(kept.size(), kSlowPoints) << "the sweep finished before the kill";
  for (const SweepRow& row : kept) {
    EXPECT_EQ(Comparable({row}), Comparable({expected[static_cast<size_t>(row.point)]}));
  }
  // As if killed in the middle of writing a row: --resume cuts the partial line.
  {
    std::ofstream out(output, std::ios::app);
    out << "4,5,mlsys-2026-1,250,20,128,con";
  }
  std::vector<std::string> resume = SlowSweep(output);
  resume.push_back("--resume");
  const Outcome resumed = RunTool(dir, resume);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("cut off a partial last line"), std::string::npos);
  const std::vector<SweepRow> finished = ReadRows(output);
  EXPECT_EQ(Comparable(finished), Comparable(expected));
  // Kept rows were not run again: their wall times are the killed run's.
  for (const SweepRow& row : kept) {
    EXPECT_EQ(finished[static_cast<size_t>(row.point)].cells[SweepColumn("wall_s")],
              row.cells[SweepColumn("wall_s")]);
  }
  // Resuming a finished sweep runs nothing and changes nothing but the order (already sorted).
  const std::string before = Slurp(output);
  ASSERT_EQ(RunTool(dir, resume).code, 0);
  EXPECT_EQ(Slurp(output), before);
  // Resuming with another grid is refused, naming the row.
  std::vector<std::string> other = resume;
  other[3] = "50:200:+50";
  const Outcome mismatch = RunTool(dir, other);
  EXPECT_EQ(mismatch.code, 2);
  EXPECT_NE(mismatch.err.find("of is 5 but this sweep has 4 points"), std::string::npos) << mismatch.err;
  EXPECT_EQ(Slurp(output), before);
  fs::remove_all(dir);
}

TEST(SweepEndToEnd, SigtermStopsAfterWritingFinishedRows) {
  const std::string dir = TempDir("term");
  const std::string output = dir + "/sweep.jsonl";
  const pid_t pid = Start(SlowSweep(output), dir + "/out", dir + "/err");
  // JSON Lines has no header line, so "1 row after the header" means two rows here.
  ASSERT_TRUE(WaitForRows(output, 1, std::chrono::seconds(30)));
  const auto signalled = Clock::now();
  kill(pid, SIGTERM);
  EXPECT_EQ(Finish(pid), 128 + SIGTERM) << Slurp(dir + "/err");
  // Promptness only where a wall-clock figure means something (the uninstrumented build, with a
  // margin for a loaded 2-core machine); bench/stop_bench.cc measures it (BM_SweepSigtermToExit).
  if (!testing::kInstrumentedBuild) {
    EXPECT_LT(Clock::now() - signalled, std::chrono::seconds(5));
  }
  EXPECT_NE(Slurp(dir + "/err").find("--resume"), std::string::npos);
  const std::vector<SweepRow> kept = ReadRows(output);
  EXPECT_GE(kept.size(), 2u);
  EXPECT_LT(kept.size(), kSlowPoints);
  for (const SweepRow& row : kept) EXPECT_EQ(row.cells[SweepColumn("status")], "ok");
  fs::remove_all(dir);
}

TEST(SweepEndToEnd, BadInputFailsWithOneLineAndNoOutput) {
  const std::string dir = TempDir("bad");
  const std::string output = dir + "/never.csv";
  const std::string unknown_key = dir + "/unknown.json";
  const std::string bad_value = dir + "/value.json";
  std::ofstream(unknown_key) << R"({"problems": [")" << Benchmark(1) << R"("], "capacty": [1000]})";
  std::ofstream(bad_value) << R"({"capacity": "1000:10:x2"})";
  const std::string bad_preset = dir + "/preset.json";
  std::ofstream(bad_preset) << R"({"beam_widht": 4})";
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const Case cases[] = {
      {{"--plan", unknown_key}, "capacty: unknown key"},
      {{"--plan", bad_value, Benchmark(1)}, "value.json: capacity: range '1000:10:x2' starts above its stop"},
      {{"--plan", dir + "/absent.json"}, "absent.json: cannot open"},
      {{"--plan", Benchmark(1)}, "mlsys-2026-1.json: this is a problem file, not a sweep plan"},
      {{Benchmark(1), "--config", unknown_key}, "unknown.json: this is a sweep plan, not a search preset"},
      {{Benchmark(1), "--strategy", "sideways"}, "--strategy: unknown strategy 'sideways'"},
      {{Benchmark(1), "--config", bad_preset}, "preset.json: unknown config key 'beam_widht'"},
      {{dir + "/absent_problem.json"}, "absent_problem.json: cannot open"},
      {{Benchmark(1), "--capacity", "1,x"}, "--capacity: expected a number, got 'x'"},
      {{Benchmark(1), "--shard", "3/3"}, "--shard: expected I/N"},
      {{Benchmark(1), "--native", "0"}, "--native: values must be integers from 1"},
      {{Benchmark(1), "--format", "xml"}, "--format: expected csv or jsonl"},
      {{Benchmark(1), "--jobs", "many"}, "--jobs expects an integer"},
      {{Benchmark(1), "--colour"}, "unknown option --colour"},
      {{}, "no problem files"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"sweep"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"-o", output});
    const Outcome outcome = RunTool(dir, args);
    EXPECT_EQ(outcome.code, 2) << c.error;
    EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
    EXPECT_EQ(outcome.err.rfind("tilesched sweep: ", 0), 0u) << outcome.err;
    EXPECT_NE(outcome.err.find(c.error), std::string::npos) << "expected '" << c.error << "' in: " << outcome.err;
    EXPECT_FALSE(fs::exists(output)) << c.error;
  }
  const Outcome no_output = RunTool(dir, {"sweep", Benchmark(1)});
  EXPECT_EQ(no_output.code, 2);
  EXPECT_NE(no_output.err.find("-o FILE is required"), std::string::npos);
  const Outcome garbage_shard = RunTool(dir, {"merge", unknown_key, "-o", output});
  EXPECT_EQ(garbage_shard.code, 2);
  EXPECT_NE(garbage_shard.err.find("unknown.json line 1"), std::string::npos) << garbage_shard.err;
  EXPECT_FALSE(fs::exists(output));
  for (const char* command : {"sweep", "merge"}) {
    const Outcome help = RunTool(dir, {command, "--help"});
    EXPECT_EQ(help.code, 0);
    EXPECT_NE(help.out.find(std::string("usage: tilesched ") + command), std::string::npos);
  }
  // --dry-run lists the shard's points without running them.
  const Outcome dry = RunTool(dir, {"sweep", Benchmark(1), Benchmark(3), "--capacity", "1000:4000:x2",
                                "--shard", "1/2", "--dry-run"});
  ASSERT_EQ(dry.code, 0) << dry.err;
  EXPECT_EQ(dry.out,
            "point,of,problem,capacity,bandwidth,native,matmul_throughput,vector_throughput,rules,"
            "matmul_reduction,k_limit,seed,strategy\n"
            "1,6,mlsys-2026-1,2000,20,128,,,contest,full_k,native,1,portfolio\n"
            "3,6,mlsys-2026-3,1000,10,128,,,contest,full_k,native,1,portfolio\n"
            "5,6,mlsys-2026-3,4000,10,128,,,contest,full_k,native,1,portfolio\n");
  fs::remove_all(dir);
}


// --- The library entry points, without the CLI -----------------------------------------------

// A plan of 2 capacities x 2 seeds over benchmark 1 with a work budget (deterministic rows).
SweepPlan SmallPlan() {
  SweepSettings settings;
  settings.problems = {Benchmark(1)};
  settings.capacity = {"40000,80000", "--capacity"};
  settings.seeds = {"1,2", "--seeds"};
  settings.strategy = {"greedy", "--strategy"};
  settings.iterations = {"50", "--iterations"};
  auto plan = BuildSweepPlan(settings);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? *plan : SweepPlan{};
}

TEST(SweepLibrary, RunSweepPlanWritesEveryPointSortedWithEvaluatorLatencies) {
  testing::ScratchDir dir("tilesched_sweep_library");
  SweepRequest request;
  request.plan = SmallPlan();
  request.output = dir.File("rows.csv");
  request.jobs = 2;
  auto outcome = RunSweepPlan(request);
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_EQ(outcome->points, 4);
  EXPECT_EQ(outcome->written, 4);
  EXPECT_FALSE(outcome->stopped());
  EXPECT_EQ(outcome->by_status.at("ok"), 4);
  const std::vector<SweepRow> rows = ReadRows(request.output);
  ASSERT_EQ(rows.size(), 4u);
  auto problem = LoadProblem(Benchmark(1));
  ASSERT_TRUE(problem.ok());
  for (size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& row = rows[i];
    EXPECT_EQ(row.point, static_cast<int64_t>(i));  // the completed file is sorted by point
    // The row's latency is the evaluator's total of the search this point ran.
    const GridPoint point = request.plan.grid.At(row.point);
    auto at_point = problem->WithHardware(PointHardware(*problem, point));
    ASSERT_TRUE(at_point.ok());
    search::SearchOptions options = request.plan.search;
    options.seed = point.seed;
    auto found = search::RunSearch(*at_point, options);
    ASSERT_TRUE(found.ok()) << found.status().message();
    auto evaluation = Evaluate(*at_point, found->schedule, options.modes);
    ASSERT_TRUE(evaluation.ok());
    // To 12 significant digits: the evaluator's sum without its last-bit rounding noise.
    char latency[64];
    std::snprintf(latency, sizeof(latency), "%.12g", evaluation->total);
    EXPECT_EQ(row.cells[SweepColumn("latency")], latency);
  }

  // Resuming a complete file runs nothing and leaves the rows as they are.
  const std::string before = Slurp(request.output);
  request.resume = true;
  auto again = RunSweepPlan(request);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->written, 4);
  EXPECT_EQ(Slurp(request.output), before);
}

TEST(SweepLibrary, ShardsMergeIntoTheFullSweepAndDryRunListsTheShard) {
  testing::ScratchDir dir("tilesched_sweep_library_shards");
  const SweepPlan plan = SmallPlan();
  std::vector<std::string> shards;
  for (int64_t i = 0; i < 2; ++i) {
    SweepRequest request;
    request.plan = plan;
    request.shard = {i, 2};
    request.output = dir.File("shard" + std::to_string(i) + ".csv");
    auto outcome = RunSweepPlan(request);
    ASSERT_TRUE(outcome.ok()) << outcome.status().message();
    EXPECT_EQ(outcome->points, 2);
    shards.push_back(request.output);
  }
  auto merged = MergeSweepFiles(shards, dir.File("all.jsonl"), std::nullopt);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(*merged, 4u);
  SweepRequest full;
  full.plan = plan;
  full.output = dir.File("full.csv");
  ASSERT_TRUE(RunSweepPlan(full).ok());
  EXPECT_EQ(Comparable(ReadRows(dir.File("all.jsonl"))), Comparable(ReadRows(full.output)));

  auto csv = DryRunCsv(plan, Shard{1, 2});
  ASSERT_TRUE(csv.ok()) << csv.status().message();
  EXPECT_EQ(testing::CountOf(*csv, "\n"), /*header + points 1 and 3=*/3) << *csv;
  EXPECT_EQ(csv->rfind("point,of,problem,", 0), 0u) << *csv;

  // Bad input fails before anything runs, naming the file.
  SweepPlan missing = plan;
  missing.grid.problems = {dir.File("none.json")};
  SweepRequest bad;
  bad.plan = missing;
  bad.output = dir.File("bad.csv");
  auto failed = RunSweepPlan(bad);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("none.json"), std::string::npos);
  EXPECT_FALSE(fs::exists(bad.output));
}

// Without an output file (the Python sweep()) the rows are only returned: the same rows a file
// gets, and each is what running its point alone (RunSweepPlanPoint, sweep(executor=...)) gives.
TEST(SweepLibrary, RowsInMemoryAndOnePointAtATime) {
  testing::ScratchDir dir("tilesched_sweep_library_memory");
  SweepRequest to_file;
  to_file.plan = SmallPlan();
  to_file.output = dir.File("rows.csv");
  auto written = RunSweepPlan(to_file);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(Comparable(written->rows), Comparable(ReadRows(to_file.output)));
  SweepRequest in_memory;
  in_memory.plan = SmallPlan();
  auto kept = RunSweepPlan(in_memory);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(kept->written, 4);
  EXPECT_EQ(Comparable(kept->rows), Comparable(written->rows));
  // It wrote nothing: the directory holds the first run's file only.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
  for (int64_t point = 0; point < 4; ++point) {
    auto row = RunSweepPlanPoint(in_memory.plan, point);
    ASSERT_TRUE(row.ok()) << row.status().message();
    ASSERT_TRUE(row->has_value());
    EXPECT_EQ(Comparable({**row}), Comparable({kept->rows[static_cast<size_t>(point)]}));
  }
  EXPECT_FALSE(RunSweepPlanPoint(in_memory.plan, 4).ok());
  in_memory.resume = true;
  EXPECT_FALSE(RunSweepPlan(in_memory).ok());  // resume needs the file
  in_memory.resume = false;
  in_memory.jobs = 1025;
  EXPECT_EQ(RunSweepPlan(in_memory).status().message(), "--jobs must be in [0, 1024]");
}

// AssembleSweepPlan: the whole way from settings to a plan, for `tilesched sweep` and Python.
TEST(SweepLibrary, AssembleSweepPlanFromSettingsAndFiles) {
  testing::ScratchDir dir("tilesched_sweep_assemble");
  SweepSettings settings;
  EXPECT_EQ(AssembleSweepPlan(settings, "").status().message(),
            "no problem files: give PROBLEM.json arguments or a --plan with problems");
  const std::string plan_path = dir.File("plan.json");
  testing::Spit(plan_path, "{\"problems\": [\"" + Benchmark(1) + "\"], \"capacity\": [40000], "
                                "\"search_config\": \"" + dir.File("preset.json") + "\"}");
  testing::Spit(dir.File("preset.json"), "{\"strategy\": \"beam\", \"iterations\": 7}");
  ASSERT_TRUE(LoadSweepPlanFile(plan_path, &settings).ok());
  auto plan = AssembleSweepPlan(settings, "");
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->grid.capacity, (std::vector<int64_t>{40000}));
  EXPECT_EQ(plan->search.strategy, "beam");  // from the preset
  EXPECT_EQ(plan->search.iterations, 7);
  settings.matmul_throughput = {"1e6", "--matmul-throughput"};
  EXPECT_EQ(AssembleSweepPlan(settings, "").status().message(),
            "--matmul-throughput and --vector-throughput need --hardware HW.json");
  const std::string hardware = std::string(TILESCHED_SOURCE_DIR) + "/configs/hardware/contest_like.json";
  auto retargeted = AssembleSweepPlan(settings, hardware);
  ASSERT_TRUE(retargeted.ok()) << retargeted.status().message();
  EXPECT_EQ(retargeted->grid.hardware, hardware);
  EXPECT_GT(retargeted->grid.matmul_reference, 0);
  SweepSettings other;
  const Status wrong_kind = LoadSweepPlanFile(Benchmark(1), &other);
  EXPECT_EQ(wrong_kind.message(), Benchmark(1) + ": this is a problem file, not a sweep plan");
}

}  // namespace
}  // namespace tilesched::sweep
