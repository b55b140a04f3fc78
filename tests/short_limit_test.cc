// Short time limits (issue 12, items 3 and 4): under a time limit the portfolio runs its narrow
// beam (a small candidate pool) right after greedy, before the full pool is enumerated; without
// one it does not (the work-budget runs of the golden table are unchanged). A run whose caller
// exits after it (SearchHooks::exiting: its caches are never freed) returns the same schedule.
// No timing is asserted: scripts/time_limit_table.py measures, docs/scaling.md records.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

Problem Benchmark(int n) {
  auto problem = LoadProblem(std::string(TILESCHED_SOURCE_DIR) + "/data/benchmarks/mlsys-2026-" +
                             std::to_string(n) + ".json");
  EXPECT_TRUE(problem.ok()) << problem.status().message();
  return *problem;
}

// Index of the first report line containing `text`, or -1.
int LineOf(const std::vector<std::string>& report, const std::string& text) {
  for (size_t i = 0; i < report.size(); ++i) {
    if (report[i].find(text) != std::string::npos) return static_cast<int>(i);
  }
  return -1;
}

TEST(ShortLimit, NarrowBeamRunsBeforeTheFullPoolUnderATimeLimit) {
  const Problem problem = Benchmark(8);
  search::SearchOptions options;
  options.time_limit = 1.0;
  options.threads = 2;
  auto result = search::RunSearch(problem, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const int greedy = LineOf(result->report, "greedy retention: ");
  const int narrow = LineOf(result->report, "narrow candidates: ");
  const int full = LineOf(result->report, "] candidates: ");
  ASSERT_GE(greedy, 0);
  ASSERT_GE(narrow, 0);
  ASSERT_GE(full, 0);
  EXPECT_LT(greedy, narrow);
  EXPECT_LT(narrow, full);
  EXPECT_TRUE(Evaluate(problem, result->schedule, options.modes).ok());
}

TEST(ShortLimit, NoNarrowBeamWithAWorkBudget) {
  const Problem problem = Benchmark(8);
  search::SearchOptions options;
  options.iterations = 200;
  auto result = search::RunSearch(problem, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(LineOf(result->report, "narrow candidates: "), -1);
}

TEST(ShortLimit, AnExitingRunReturnsTheSameSchedule) {
  const Problem problem = Benchmark(5);
  search::SearchOptions options;
  options.iterations = 300;
  options.seed = 3;
  std::vector<std::string> schedules;
  for (bool exiting : {false, true}) {
    search::SearchHooks hooks;
    hooks.exiting = exiting;
    auto result = search::RunSearch(problem, options, hooks);
    ASSERT_TRUE(result.ok()) << result.status().message();
    schedules.push_back(SolutionToJson(result->schedule, {}));
  }
  EXPECT_EQ(schedules[0], schedules[1]);
}

}  // namespace
}  // namespace tilesched
