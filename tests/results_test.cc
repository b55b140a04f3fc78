// Benchmark results (src/experiment/results.h) through the library, without the CLI: a
// benchmark run against the golden table, the golden table written and read back, and
// malformed targets and golden CSVs as one-line errors naming the file, line and column.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "results.h"
#include "test_files.h"

namespace tilesched::experiment {
namespace {

using testing::ScratchDir;
using testing::Slurp;
using testing::Spit;

const std::string kSource = TILESCHED_SOURCE_DIR;

// The request of the golden test (tests/CMakeLists.txt: results --iterations 5000) for `benches`.
BenchmarkRequest GoldenRequest(std::vector<int> benches) {
  BenchmarkRequest request;
  request.benches = std::move(benches);
  request.data_dir = kSource + "/data/benchmarks";
  auto targets = LoadTargets(kSource + "/data/targets.csv");
  EXPECT_TRUE(targets.ok()) << targets.status().message();
  if (targets.ok()) request.targets = *targets;
  request.base.iterations = 5000;
  return request;
}

TEST(ResultsLibrary, TargetsTableHasTheTwentyFourBenchmarks) {
  auto targets = LoadTargets(kSource + "/data/targets.csv");
  ASSERT_TRUE(targets.ok()) << targets.status().message();
  ASSERT_EQ(targets->size(), 24u);
  EXPECT_EQ(targets->begin()->first, 1);
  EXPECT_GT(targets->at(1).target, 0);
  EXPECT_GT(targets->at(1).budget, 0);
}

// Tier 2 joins the bound of a benchmark the run does not prove optimal (4: tier 1 13,926.4,
// tier 2 14,426.4) and is shown in the table.
TEST(ResultsLibrary, TierTwoRaisesTheBoundOfBenchmarkFour) {
  BenchmarkRequest request = GoldenRequest({4});
  request.tier2_seconds = 600;
  auto rows = RunBenchmarks(request);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1u);
  const BenchmarkRow& row = (*rows)[0];
  EXPECT_NEAR(row.tier2, 14426.4, 1e-3);
  EXPECT_EQ(row.lower_bound, row.tier2);
  EXPECT_LE(row.lower_bound, row.latency);
  const std::string table = ResultsMarkdown(request, *rows, "2026-01-01");
  EXPECT_NE(table.find("| 14426.4 |"), std::string::npos) << table;
  EXPECT_NE(table.find("Latency / lower bound: median 1.104, largest 1.104 (benchmark 4)."),
            std::string::npos)
      << table;
}

// Tier 2 converges on benchmark 7 at the golden run's latency, 130,764.8 (reported a relative
// 1e-9 low, Lemma T2): the row is proven optimal with a gap of at most 2e-9.
TEST(ResultsLibrary, TierTwoProvesBenchmarkSevenOptimal) {
  BenchmarkRequest request = GoldenRequest({7});
  request.tier2_seconds = 600;
  auto rows = RunBenchmarks(request);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1u);
  const BenchmarkRow& row = (*rows)[0];
  EXPECT_NEAR(row.latency, 130764.8, 1e-3);
  EXPECT_LE(row.tier2, row.latency);
  EXPECT_GE(row.tier2, row.latency * (1 - 2e-9));
  EXPECT_TRUE(row.optimal);
  EXPECT_LE(row.gap, 2e-9);
}

TEST(ResultsLibrary, BenchmarkOneMatchesTheGoldenTable) {
  BenchmarkRequest request = GoldenRequest({1});
  std::vector<std::string> progress;
  request.progress = [&](const std::string& line) { progress.push_back(line); };
  auto rows = RunBenchmarks(request);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].bench, 1);
  EXPECT_GT((*rows)[0].lower_bound, 0);
  EXPECT_LE((*rows)[0].lower_bound, (*rows)[0].latency * (1 + 1e-12));
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_EQ(progress[0].rfind("benchmark 1: ", 0), 0u) << progress[0];

  auto check = CheckGolden(*rows, Slurp(kSource + "/tests/golden/results.csv"), "results.csv");
  ASSERT_TRUE(check.ok()) << check.status().message();
  EXPECT_FALSE(check->regressed);
  EXPECT_TRUE(check->notes.empty()) << check->notes.front();

  // The golden table written from these rows reads back as equal.
  auto same = CheckGolden(*rows, GoldenCsv(request, *rows), "new.csv");
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_FALSE(same->regressed);
  EXPECT_TRUE(same->notes.empty());
  // A worse golden latency is an improvement note; a missing benchmark is a regression.
  std::vector<BenchmarkRow> worse = *rows;
  worse[0].latency *= 2;
  auto regression = CheckGolden(worse, GoldenCsv(request, *rows), "new.csv");
  ASSERT_TRUE(regression.ok());
  EXPECT_TRUE(regression->regressed);
  ASSERT_EQ(regression->notes.size(), 1u);
  EXPECT_NE(regression->notes[0].find("benchmark 1: REGRESSION"), std::string::npos);
  auto missing = CheckGolden(*rows, "bench,latency\n2,26000\n", "other.csv");
  ASSERT_TRUE(missing.ok());
  EXPECT_TRUE(missing->regressed);
  EXPECT_EQ(missing->notes, std::vector<std::string>{"benchmark 1: not in the golden table"});
}

// A problem file (the smallest of data/large) with a work budget: its row carries greedy's
// latency beside the search's, bounds below both, and the large table lays it out.
TEST(ResultsLibrary, ProblemFilesGetGreedyAndTheirTable) {
  BenchmarkRequest request;
  request.problem_paths = {kSource + "/data/large/torch_encoder_layer.json"};
  request.base.iterations = 300;
  request.base.threads = 1;
  auto rows = RunBenchmarks(request);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 1u);
  const BenchmarkRow& row = (*rows)[0];
  EXPECT_EQ(row.bench, 0);
  EXPECT_EQ(row.name, "torch_encoder_layer");
  EXPECT_EQ(row.ops, 53);
  EXPECT_GT(row.greedy, 0);
  // The search starts from greedy's schedule, so it ends no worse.
  EXPECT_LE(row.latency, row.greedy * (1 + 1e-12));
  EXPECT_GT(row.lower_bound, 0);
  EXPECT_LE(row.lower_bound, row.latency * (1 + 1e-12));
  EXPECT_LE(row.tier1, row.lower_bound * (1 + 1e-12));
  EXPECT_LT(row.tier2, 0);  // not asked for
  ASSERT_TRUE(row.reach_seconds.has_value());
  EXPECT_LE(*row.reach_seconds, row.seconds + 1e-9);
  EXPECT_LT(row.tier2_part_excess, 0);  // tier 2 not asked for
  std::vector<BenchmarkRow> two = *rows;
  two.push_back(row);
  two.back().name = "split";
  two.back().tier2 = row.lower_bound;
  two.back().tier2_part_excess = 0.25;
  const std::string table = ProblemsMarkdown(request, two, "2026-12-04");
  EXPECT_NE(table.find("| torch_encoder_layer | 53 |"), std::string::npos) << table;
  EXPECT_NE(table.find("| in tier-2 parts |"), std::string::npos) << table;
  EXPECT_NE(table.find(" | - | "), std::string::npos) << table;
  EXPECT_NE(table.find(" | 25.0% | "), std::string::npos) << table;
}

TEST(ResultsLibrary, MalformedGoldenTableIsAOneLineError) {
  BenchmarkRow row;
  row.bench = 1;
  row.latency = 100;
  row.lower_bound = 50;
  row.seconds = 0.1;
  row.subgraphs = 1;
  row.found_by = "greedy";
  const std::vector<BenchmarkRow> rows = {row};
  struct Case {
    std::string text, error;
  };
  const Case cases[] = {
      {"bench,latency\n1,abc\n", "g.csv line 2: latency: expected a number, got 'abc'"},
      {"bench,latency\nx,100\n", "g.csv line 2: bench: expected a non-negative integer, got 'x'"},
      {"# c\nbench,latency\n1\n", "g.csv line 3: expected 5 fields (bench,latency,lower_bound,gap,proven) or 2 (bench,latency), got 1"},
      {"bench,latency\n1,\"100\n", "g.csv line 2: a quoted field is never closed"},
  };
  for (const Case& c : cases) {
    auto check = CheckGolden(rows, c.text, "g.csv");
    ASSERT_FALSE(check.ok()) << c.text;
    EXPECT_EQ(check.status().message(), c.error);
  }
}

TEST(ResultsLibrary, MalformedTargetsTableIsAOneLineError) {
  ScratchDir dir("tilesched_results_targets");
  const std::string header = "# comment\nbench,ops,budget_s,lower_bound,vinci,field_best,target\n";
  struct Case {
    std::string row, error;
  };
  const Case cases[] = {
      {"1,2,x,0,,,10\n", "line 3: budget_s: expected a number, got 'x'"},
      {"one,2,2,0,,,10\n", "line 3: bench: expected a non-negative integer, got 'one'"},
      {"1,2,2,0,,,\n", "line 3: target: expected a number, got ''"},
      {"1,2,2,0,v,,10\n", "line 3: vinci: expected a number, got 'v'"},
  };
  for (const Case& c : cases) {
    const std::string path = dir.File("targets.csv");
    Spit(path, header + c.row);
    auto targets = LoadTargets(path);
    ASSERT_FALSE(targets.ok()) << c.row;
    EXPECT_EQ(targets.status().message(), path + " " + c.error);
    EXPECT_EQ(targets.status().message().find('\n'), std::string::npos);
  }
  Spit(dir.File("ok.csv"), header + "3,4,5,0,,7.5,9\n");
  auto ok = LoadTargets(dir.File("ok.csv"));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->at(3).ops, 4);
  EXPECT_DOUBLE_EQ(ok->at(3).field_best, 7.5);
  EXPECT_DOUBLE_EQ(ok->at(3).vinci, 0);
}

}  // namespace
}  // namespace tilesched::experiment
