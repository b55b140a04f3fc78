// The gap in every result and the early stop (issue 8): RunSearch stops once the incumbent is
// within SearchOptions::gap of the lower bound and says so; `tilesched bound`, `schedule
// --summary` and the golden table carry the bound, the gap and whether it is proven optimal.
#include <string>

#include <gtest/gtest.h>

#include "test_files.h"
#include "test_util.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

using testing::ProblemBuilder;

// T0 (256x512) @ T1 (512x256) -> T2: its lower bound 58982.4 is attained by 128x128 tiles with
// k = 128 (tests/lower_bound_test.cc), so the search can prove it optimal.
Problem SolvableProblem() {
  ProblemBuilder b(/*capacity=*/60000, /*bandwidth=*/10);
  const int lhs = b.Tensor(256, 512), rhs = b.Tensor(512, 256), out = b.Tensor(256, 256);
  b.MatMul(lhs, rhs, out, 1000);
  return b.Build();
}

std::string BenchmarkPath(int n) {
  return std::string(TILESCHED_SOURCE_DIR) + "/data/benchmarks/mlsys-2026-" + std::to_string(n) +
         ".json";
}

TEST(EarlyStop, StopsWhenProvenOptimal) {
  search::SearchOptions options;
  options.time_limit = 600;  // far more than needed: only the early stop ends the run
  options.threads = 2;
  auto result = search::RunSearch(SolvableProblem(), options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->reached_gap);
  EXPECT_TRUE(result->optimal);
  EXPECT_DOUBLE_EQ(result->lower_bound, /*(262144+262144+65536)/10=*/58982.4);
  EXPECT_DOUBLE_EQ(result->total, 58982.4);
  EXPECT_DOUBLE_EQ(result->gap, 0);
  // The run ended long before its time limit (a loose figure that holds on any machine).
  EXPECT_LT(result->seconds, 300);
}

TEST(EarlyStop, NegativeGapRunsTheWholeBudget) {
  search::SearchOptions options;
  options.iterations = 50;
  options.gap = -1;
  auto result = search::RunSearch(SolvableProblem(), options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_FALSE(result->reached_gap);
  EXPECT_TRUE(result->optimal);  // optimal all the same, only not stopped for it
}

TEST(EarlyStop, GapStopsWithinTheGap) {
  // Benchmark 5's best schedules are well above its bound; a gap of 10 (1000%) is reached by
  // the first schedule, so the run ends at once with a result within it.
  auto problem = LoadProblem(BenchmarkPath(5));
  ASSERT_TRUE(problem.ok());
  search::SearchOptions options;
  options.time_limit = 600;
  options.gap = 10;
  auto result = search::RunSearch(*problem, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->reached_gap);
  EXPECT_LE(result->total, result->lower_bound * 11 * (1 + 1e-9));
  EXPECT_FALSE(result->optimal);
}

// SearchOptions::tier2_first: benchmark 7's tier-1 bound (109,226.7) is below its optimum,
// 130,764.8, which tier 2 certifies (docs/bounds.md); with it the golden run (5,000
// iterations) stops proven optimal at the same latency as without it.
TEST(EarlyStop, TierTwoFirstProvesBenchmarkSeven) {
  auto problem = LoadProblem(BenchmarkPath(7));
  ASSERT_TRUE(problem.ok());
  search::SearchOptions options;
  options.iterations = 5000;
  auto plain = search::RunSearch(*problem, options);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_FALSE(plain->optimal);
  EXPECT_NEAR(plain->lower_bound, 109226.7, 0.1);
  EXPECT_DOUBLE_EQ(plain->bound_tolerance, 1e-9);

  options.tier2_first = 600;  // far more than it needs (about 0.2 s)
  auto result = search::RunSearch(*problem, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_DOUBLE_EQ(result->total, plain->total);
  EXPECT_NEAR(result->total, 130764.8, 1e-3);
  EXPECT_LE(result->lower_bound, result->total);
  EXPECT_GE(result->lower_bound, result->total * (1 - 2e-9));
  EXPECT_DOUBLE_EQ(result->bound_tolerance, 2e-9);
  EXPECT_TRUE(result->optimal);
  EXPECT_TRUE(result->reached_gap);
}

// Above 64 ops tier 2 proves nothing: the run is the one without it (benchmark 17, proven
// optimal by tier 1 all the same).
TEST(EarlyStop, TierTwoFirstLeavesLargeProblemsAlone) {
  auto problem = LoadProblem(BenchmarkPath(17));
  ASSERT_TRUE(problem.ok());
  search::SearchOptions options;
  options.iterations = 50;
  options.tier2_first = 5;
  auto result = search::RunSearch(*problem, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->optimal);
  EXPECT_DOUBLE_EQ(result->bound_tolerance, 1e-9);
  EXPECT_NEAR(result->lower_bound, 4966400.0, 1e-3);
}

TEST(BoundCommand, PrintsTheBoundAsJson) {
  const testing::ScratchDir dir;
  const std::string problem = BenchmarkPath(1);
  const testing::ToolRun run = testing::RunTool({TILESCHED_BINARY, "bound", problem, "--json"}, dir.path());
  ASSERT_EQ(run.code, 0) << run.err;
  for (const char* key : {"\"lower_bound\": 367001.6", "\"compute\": 112000.0", "\"traffic\":",
                          "\"io\":", "\"shared\":", "\"time_s\":", "\"rules\": \"contest\"",
                          "\"matmul_reduction\": \"full_k\"", "\"k_limit\": \"native\""}) {
    EXPECT_NE(run.out.find(key), std::string::npos) << key << " in\n" << run.out;
  }
  const testing::ToolRun text = testing::RunTool({TILESCHED_BINARY, "bound", problem, "--rules", "algebra"}, dir.path());
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("rules=algebra"), std::string::npos) << text.out;
  const testing::ToolRun bad = testing::RunTool({TILESCHED_BINARY, "bound", dir.File("missing.json")}, dir.path());
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(testing::CountOf(bad.err, "\n"), 1) << bad.err;
}

TEST(ScheduleCommand, SummaryHasBoundGapAndProof) {
  const testing::ScratchDir dir;
  const std::string problem = BenchmarkPath(1);
  const std::string summary = dir.File("summary.json");
  const testing::ToolRun run = testing::RunTool(
      {TILESCHED_BINARY, "schedule", problem, "-o", dir.File("s.json"), "--time-limit", "60",
       "--summary", summary},
      dir.path());
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string json = testing::Slurp(summary);
  // Benchmark 1's best schedule (367001.6) equals its bound, so the run stops proven optimal.
  for (const char* key : {"\"latency\": 367001.6", "\"lower_bound\": 367001.6", "\"gap\": 0.0",
                          "\"optimal\": true", "\"found_by\":", "\"time_s\":", "\"modes\":"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << " in\n" << json;
  }
  EXPECT_NE(run.err.find("(optimal)"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("solved after"), std::string::npos) << run.err;
}

// `schedule --tier2-first SEC` on benchmark 7: the summary says optimal, with tier 2's bound.
TEST(ScheduleCommand, TierTwoFirstInTheSummary) {
  const testing::ScratchDir dir;
  const std::string problem = BenchmarkPath(7);
  const std::string summary = dir.File("summary.json");
  const testing::ToolRun run = testing::RunTool(
      {TILESCHED_BINARY, "schedule", problem, "-o", dir.File("s.json"), "--iterations", "5000",
       "--tier2-first", "600", "--summary", summary},
      dir.path());
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string json = testing::Slurp(summary);
  for (const char* key :
       {"\"latency\": 130764.", "\"lower_bound\": 130764.", "\"optimal\": true"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << " in\n" << json;
  }
  EXPECT_NE(run.err.find("(optimal)"), std::string::npos) << run.err;
  const testing::ToolRun bad = testing::RunTool(
      {TILESCHED_BINARY, "schedule", problem, "--tier2-first", "-1"}, dir.path());
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--tier2-first must not be negative"), std::string::npos) << bad.err;
  EXPECT_EQ(testing::CountOf(bad.err, "\n"), 1) << bad.err;
}

}  // namespace
}  // namespace tilesched
