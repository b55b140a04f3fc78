// `tilesched compare`: the statistics (compare_stats.h) on synthetic timelines, and the command
// end to end as a child process (TILESCHED_BINARY) on contest benchmarks 1 and 2.
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compare_stats.h"
#include "comparison.h"
#include "test_files.h"
#include "tilesched/evaluate.h"
#include "tilesched/flat_json.h"
#include "tilesched/io.h"
#include "tilesched/search.h"

namespace tilesched::experiment {
namespace {

namespace fs = std::filesystem;

// --- Statistics ------------------------------------------------------------------------------

TEST(CompareStats, Median) {
  const struct {
    std::vector<double> values;
    double median;
  } kCases[] = {
      {{7}, 7},
      {{3, 1, 2}, 2},
      {{4, 1, 3, 2}, /*(2+3)/2=*/2.5},
      {{5, 5}, 5},
      {{10, 1, 100, 1000, 2}, 10},
  };
  for (const auto& c : kCases) EXPECT_DOUBLE_EQ(Median(c.values), c.median);
}

TEST(CompareStats, SpreadIsBestMedianWorst) {
  const Spread s = SpreadOf({130, 100, 110});
  EXPECT_DOUBLE_EQ(s.best, 100);
  EXPECT_DOUBLE_EQ(s.median, 110);
  EXPECT_DOUBLE_EQ(s.worst, 130);
  const Spread two = SpreadOf({200, 100});
  EXPECT_DOUBLE_EQ(two.median, /*(100+200)/2=*/150);
}

TEST(CompareStats, TimeToWithin) {
  // Improvements of a run that ends at 100.
  const std::vector<Improvement> timeline = {{0.0, 200}, {0.5, 120}, {1.0, 101}, {2.0, 100}};
  const struct {
    std::vector<Improvement> timeline;
    double final_total;
    double tolerance;
    std::optional<double> seconds;
  } kCases[] = {
      {timeline, 100, 0.01, /*101 <= 100*1.01*/ 1.0},
      {timeline, 100, 0.0, 2.0},
      {timeline, 100, 0.2, /*120 <= 100*1.2*/ 0.5},
      {timeline, 100, 0.19, /*120 > 119*/ 1.0},
      {timeline, 100, 1.0, /*the first schedule is already within 2x*/ 0.0},
      {{}, 100, 0.01, std::nullopt},
      {{{0.0, 200}, {3.0, 150}}, 100, 0.01, /*never got close*/ std::nullopt},
  };
  for (const auto& c : kCases) {
    const std::optional<double> got = TimeToWithin(c.timeline, c.final_total, c.tolerance);
    ASSERT_EQ(got.has_value(), c.seconds.has_value()) << "tolerance " << c.tolerance;
    if (got) {
      EXPECT_DOUBLE_EQ(*got, *c.seconds) << "tolerance " << c.tolerance;
    }
  }
}

TEST(CompareStats, SummarizeRunsTakesMediansOverSeeds) {
  std::vector<RunRecord> runs(3);
  runs[0] = {/*latency=*/110, /*seconds=*/2, /*evaluations=*/1000, {{0.1, 200}, {0.4, 110}}};
  runs[1] = {100, 2, 3000, {{0.1, 150}, {0.3, 100.5}, {1.5, 100}}};
  runs[2] = {130, 4, 2000, {{0.2, 130}}};
  const StrategySummary s = SummarizeRuns(runs, 0.01);
  EXPECT_EQ(s.runs, 3);
  EXPECT_DOUBLE_EQ(s.latency.best, 100);
  EXPECT_DOUBLE_EQ(s.latency.median, 110);
  EXPECT_DOUBLE_EQ(s.latency.worst, 130);
  // Times to within 1%: 0.4, 0.3 (100.5 <= 101), 0.2 -> median 0.3.
  ASSERT_TRUE(s.time_to_within.has_value());
  EXPECT_DOUBLE_EQ(*s.time_to_within, 0.3);
  // Rates: 1000/2=500, 3000/2=1500, 2000/4=500 -> median 500.
  EXPECT_DOUBLE_EQ(s.evaluations_per_second, 500);
  EXPECT_DOUBLE_EQ(s.seconds, 2);
}

TEST(CompareStats, SummarizeRunsEdgeCases) {
  // A run of zero measured seconds has rate 0, not infinity; without any timeline point near
  // the final result there is no time to report.
  const std::vector<RunRecord> runs = {{100, 0, 50, {}}, {100, 1, 50, {{0.5, 300}}}};
  const StrategySummary s = SummarizeRuns(runs, 0.01);
  EXPECT_DOUBLE_EQ(s.evaluations_per_second, /*(0+50)/2=*/25);
  EXPECT_FALSE(s.time_to_within.has_value());
}

TEST(CompareStats, RatiosToBest) {
  const std::vector<double> ratios = RatiosToBest({200, 100, 150});
  ASSERT_EQ(ratios.size(), 3u);
  EXPECT_DOUBLE_EQ(ratios[0], 2.0);
  EXPECT_DOUBLE_EQ(ratios[1], 1.0);
  EXPECT_DOUBLE_EQ(ratios[2], 1.5);
}

// --- The command, end to end ---------------------------------------------------------------

std::string Benchmark(int n) {
  return std::string(TILESCHED_SOURCE_DIR) + "/data/benchmarks/mlsys-2026-" + std::to_string(n) +
         ".json";
}

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() /
          ("tilesched_compare_" + std::to_string(getpid()) + "_" + name))
      .string();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> Split(const std::string& line, char sep) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, sep)) cells.push_back(cell);
  return cells;
}

using Outcome = testing::ToolRun;

// Runs `tilesched compare ARGS` with stdout and stderr captured; kills it after a minute.
Outcome RunCompare(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {TILESCHED_BINARY, "compare"};
  argv.insert(argv.end(), args.begin(), args.end());
  const testing::ScratchDir dir("tilesched_compare_run");
  return testing::RunTool(argv, dir.path());
}

const std::vector<std::string> kStrategies = {"greedy", "beam", "lns", "anneal", "portfolio",
                                              "exact"};

struct CsvRow {
  std::string problem, strategy;
  int runs = 0;
  double best = 0, median = 0, worst = 0, ratio = 0, lower_bound = 0;
};

std::vector<CsvRow> ParseCsv(const std::string& text) {
  std::vector<CsvRow> rows;
  const std::vector<std::string> lines = Lines(text);
  EXPECT_FALSE(lines.empty());
  if (lines.empty()) return rows;
  EXPECT_EQ(lines[0],
            "problem,strategy,runs,best,median,worst,ratio_to_best,time_to_1pct_s,"
            "evaluations_per_s,seconds,lower_bound,ratio_to_bound");
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> c = Split(lines[i], ',');
    EXPECT_EQ(c.size(), 12u) << lines[i];
    if (c.size() != 12) continue;
    rows.push_back({c[0], c[1], std::stoi(c[2]), std::stod(c[3]), std::stod(c[4]),
                    std::stod(c[5]), std::stod(c[6]), std::stod(c[10])});
  }
  return rows;
}

TEST(CompareCommand, OneRowPerProblemAndStrategy) {
  const Outcome run = RunCompare({Benchmark(1), Benchmark(2), "--iterations", "100", "--seeds",
                                  "1,2", "--format", "csv", "--threads", "2"});
  ASSERT_EQ(run.code, 0) << run.err;
  const std::vector<CsvRow> rows = ParseCsv(run.out);
  ASSERT_EQ(rows.size(), 2 * kStrategies.size());
  std::set<std::pair<std::string, std::string>> seen;
  std::map<std::string, double> smallest_ratio;
  for (const CsvRow& r : rows) {
    EXPECT_TRUE(seen.insert({r.problem, r.strategy}).second) << r.problem << " " << r.strategy;
    EXPECT_EQ(r.runs, 2);
    EXPECT_LE(r.best, r.median);
    EXPECT_LE(r.median, r.worst);
    EXPECT_GE(r.best, r.lower_bound * (1 - 1e-9)) << "a schedule beat the lower bound";
    EXPECT_GE(r.ratio, 1.0);
    auto [it, fresh] = smallest_ratio.emplace(r.problem, r.ratio);
    if (!fresh) it->second = std::min(it->second, r.ratio);
  }
  for (const char* problem : {"mlsys-2026-1", "mlsys-2026-2"}) {
    for (const std::string& strategy : kStrategies) {
      EXPECT_EQ(seen.count({problem, strategy}), 1u) << problem << " " << strategy;
    }
    // Some strategy is the best on each problem.
    EXPECT_DOUBLE_EQ(smallest_ratio[problem], 1.0) << problem;
  }
  // One progress line per run: 2 problems x 6 strategies x 2 seeds.
  EXPECT_EQ(Lines(run.err).size(), 24u) << run.err;
}

TEST(CompareCommand, IterationBudgetsGiveTheSameLatencies) {
  const std::vector<std::string> args = {Benchmark(1), Benchmark(2), "--iterations", "100",
                                         "--seeds", "1,2", "--format", "csv", "--quiet"};
  const Outcome first = RunCompare(args);
  const Outcome second = RunCompare(args);
  ASSERT_EQ(first.code, 0) << first.err;
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(first.err, "");  // --quiet
  const std::vector<CsvRow> a = ParseCsv(first.out), b = ParseCsv(second.out);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].best, b[i].best) << a[i].problem << " " << a[i].strategy;
    EXPECT_EQ(a[i].worst, b[i].worst) << a[i].problem << " " << a[i].strategy;
  }
}

TEST(CompareCommand, TableAndMarkdownHaveOneRowPerProblemAndStrategy) {
  const std::string md_path = TempPath("table.md");
  for (const char* format : {"table", "markdown"}) {
    const Outcome run =
        RunCompare({Benchmark(1), Benchmark(2), "--iterations", "100", "--seeds", "1,2",
                    "--format", format, "--quiet", "-o", md_path});
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_EQ(run.out, "") << "the table goes to -o";
    int rows = 0;
    for (const std::string& line : Lines(testing::Slurp(md_path))) {
      rows += line.find("mlsys-2026-") != std::string::npos;
    }
    EXPECT_EQ(rows, 2 * static_cast<int>(kStrategies.size())) << format;
  }
  fs::remove(md_path);
}

TEST(CompareCommand, BadInputIsOneLineAndExitTwo) {
  const std::string missing_dir_output = TempPath("no_such_dir") + "/out.md";
  const struct {
    std::vector<std::string> args;
    std::string mentions;
  } kCases[] = {
      {{Benchmark(1), "--strategies", "greedy,nosuch", "--iterations", "10"}, "nosuch"},
      {{Benchmark(1), "--strategies", "nosuch"}, "greedy, beam, lns, anneal, portfolio"},
      {{Benchmark(1), "--seeds", "1,x"}, "--seeds"},
      {{Benchmark(1), "--format", "xml"}, "--format"},
      {{Benchmark(1), "--time-limit", "1", "--iterations", "10"}, "--iterations"},
      {{Benchmark(1), "--iterations", "0"}, "--iterations"},
      {{Benchmark(1), "--bogus"}, "--bogus"},
      {{Benchmark(1), "-o", missing_dir_output, "--iterations", "10"}, "no_such_dir"},
      {{Benchmark(1), TempPath("missing.json"), "--iterations", "10"}, "missing.json"},
      {{}, "usage"},
  };
  for (const auto& c : kCases) {
    const Outcome run = RunCompare(c.args);
    const std::string what = c.args.empty() ? "(no arguments)" : c.args.back();
    EXPECT_EQ(run.code, 2) << what;
    EXPECT_EQ(run.out, "") << what;
    ASSERT_EQ(Lines(run.err).size(), 1u) << run.err;
    EXPECT_NE(run.err.find(c.mentions), std::string::npos) << run.err;
  }
  EXPECT_FALSE(fs::exists(missing_dir_output));
}

TEST(CompareCommand, Help) {
  const Outcome run = RunCompare({"--help"});
  EXPECT_EQ(run.code, 0);
  EXPECT_NE(run.out.find("usage: tilesched compare"), std::string::npos);
  EXPECT_NE(run.out.find("--strategies"), std::string::npos);
  EXPECT_EQ(run.err, "");
}


// --- The library entry point, without the CLI -------------------------------------------------

TEST(CompareLibrary, RunComparisonSummarizesEvaluatorLatenciesPerStrategy) {
  ComparisonRequest request;
  request.problem_paths = {Benchmark(1)};
  request.strategies = {"greedy", "beam"};
  request.seeds = {1, 2};
  request.base.iterations = 50;
  std::vector<std::string> progress;
  request.progress = [&](const std::string& line) { progress.push_back(line); };
  auto table = RunComparison(request);
  ASSERT_TRUE(table.ok()) << table.status().message();
  ASSERT_EQ(table->rows.size(), 2u);
  EXPECT_EQ(progress.size(), /*2 strategies x 2 seeds=*/4u);
  EXPECT_EQ(progress.front().rfind("[1/4] mlsys-2026-1 greedy seed 1: ", 0), 0u) << progress.front();
  auto problem = LoadProblem(Benchmark(1));
  ASSERT_TRUE(problem.ok());
  double best_of_all = 1e300;
  for (const ComparisonRow& row : table->rows) {
    EXPECT_EQ(row.problem, "mlsys-2026-1");
    EXPECT_EQ(row.summary.runs, 2);
    // Best and worst are the smallest and largest of the runs' Evaluate() totals.
    std::vector<double> latencies;
    for (uint64_t seed : request.seeds) {
      search::SearchOptions options = request.base;
      options.strategy = row.strategy;
      options.seed = seed;
      auto found = search::RunSearch(*problem, options);
      ASSERT_TRUE(found.ok());
      auto evaluation = Evaluate(*problem, found->schedule, options.modes);
      ASSERT_TRUE(evaluation.ok());
      latencies.push_back(evaluation->total);
    }
    EXPECT_DOUBLE_EQ(row.summary.latency.best, std::min(latencies[0], latencies[1]));
    EXPECT_DOUBLE_EQ(row.summary.latency.worst, std::max(latencies[0], latencies[1]));
    EXPECT_GT(row.lower_bound, 0);
    EXPECT_LE(row.lower_bound, row.summary.latency.best * (1 + 1e-12));
    best_of_all = std::min(best_of_all, row.summary.latency.best);
  }
  for (const ComparisonRow& row : table->rows) {
    EXPECT_DOUBLE_EQ(row.ratio_to_best, row.summary.latency.best / best_of_all);
  }
  EXPECT_NE(table->caption.find("iterations=50; seeds 1,2"), std::string::npos) << table->caption;
  const std::string csv = RenderComparison(*table, "csv");
  EXPECT_EQ(Lines(csv).size(), /*header + 2 rows=*/3u) << csv;
  // JSON Lines (the Python compare()'s rows): the CSV's columns and cells, numbers as numbers.
  const std::vector<std::string> csv_lines = Lines(csv);
  const std::vector<std::string> header = Split(csv_lines[0], ',');
  const std::vector<std::string> json_lines = Lines(RenderComparison(*table, "jsonl"));
  ASSERT_EQ(json_lines.size(), 2u);
  for (size_t i = 0; i < json_lines.size(); ++i) {
    auto fields = ParseFlatJsonLine(json_lines[i]);
    ASSERT_TRUE(fields.ok()) << fields.status().message();
    const std::vector<std::string> cells = Split(csv_lines[i + 1], ',');
    ASSERT_EQ(fields->size(), header.size());
    for (size_t c = 0; c < header.size(); ++c) {
      EXPECT_EQ((*fields)[c].name, header[c]);
      EXPECT_EQ((*fields)[c].text, cells[c]) << header[c];
      EXPECT_EQ((*fields)[c].kind, c < 2 ? JsonScalar::kString : JsonScalar::kNumber) << header[c];
    }
  }

  // An unreadable problem fails before any run.
  request.problem_paths = {Benchmark(1), "/nonexistent/p.json"};
  progress.clear();
  auto bad = RunComparison(request);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/nonexistent/p.json"), std::string::npos);
  EXPECT_TRUE(progress.empty());
}

// What `tilesched compare` and the Python compare() ask for, read by the library.
TEST(CompareLibrary, StrategyAndSeedListsAndBudget) {
  EXPECT_EQ(DefaultComparisonStrategies(), kStrategies);
  auto strategies = ParseStrategyList("beam,greedy");
  ASSERT_TRUE(strategies.ok());
  EXPECT_EQ(*strategies, (std::vector<std::string>{"beam", "greedy"}));
  EXPECT_EQ(ParseStrategyList("beam,beam").status().message(), "--strategies: 'beam' is listed twice");
  EXPECT_NE(ParseStrategyList("nosuch").status().message().find("unknown strategy 'nosuch'"),
            std::string::npos);
  EXPECT_FALSE(ParseStrategyList("").ok());
  EXPECT_FALSE(ParseStrategyList("greedy,").ok());
  auto seeds = ParseSeedList("3,1,2");
  ASSERT_TRUE(seeds.ok());
  EXPECT_EQ(*seeds, (std::vector<uint64_t>{3, 1, 2}));
  EXPECT_EQ(ParseSeedList("1,1").status().message(), "--seeds: seed 1 is listed twice");
  EXPECT_FALSE(ParseSeedList("-1").ok());
  EXPECT_FALSE(ParseSeedList("").ok());

  search::SearchOptions base;  // no budget: the default
  ASSERT_TRUE(SetComparisonBudget(false, false, &base).ok());
  EXPECT_EQ(base.time_limit, kDefaultRunSeconds);
  base.time_limit = 5;  // a preset's budget stands
  ASSERT_TRUE(SetComparisonBudget(false, false, &base).ok());
  EXPECT_EQ(base.time_limit, 5);
  base.iterations = 40;  // iterations given: the preset's time limit goes
  ASSERT_TRUE(SetComparisonBudget(false, true, &base).ok());
  EXPECT_EQ(base.time_limit, 0);
  EXPECT_EQ(base.iterations, 40);
  EXPECT_FALSE(SetComparisonBudget(true, true, &base).ok());
  base.iterations = 0;
  EXPECT_EQ(SetComparisonBudget(false, true, &base).message(), "--iterations must be positive");
}

// A stop request ends a comparison at once, without a table.
TEST(CompareLibrary, StopEndsTheComparison) {
  ComparisonRequest request;
  request.problem_paths = {Benchmark(1)};
  request.strategies = {"anneal"};
  request.seeds = {1};
  request.base.time_limit = 60;
  std::atomic<bool> stop{true};
  request.stop = &stop;
  auto table = RunComparison(request);
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find("stopped"), std::string::npos);
}

}  // namespace
}  // namespace tilesched::experiment
