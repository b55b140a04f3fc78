// Time limits kept (issue 12, item 4): `tilesched schedule` and `mlsys` given --time-limit 0.3
// exit 0 with a valid schedule written, on the largest contest benchmarks and on a generated
// stack of 64 transformer blocks. Only a loose bound is asserted (a loaded 2-core machine,
// sanitizers); bench/time_limit_bench.cc measures the overshoot, docs/scaling.md records it.
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "build_kind.h"
#include "test_files.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"

namespace tilesched {
namespace {

using testing::RunTool;
using testing::ScratchDir;

constexpr double kLimitSeconds = 0.3;
// How much later than its limit a run may exit: a few hundred ms in a Release build (the target
// is 50 ms; this machine is shared), no timing claim beyond a hang in instrumented builds.
constexpr double kMarginSeconds = testing::kInstrumentedBuild ? 30 : 0.7;

std::string BenchmarkPath(int n) {
  return std::string(TILESCHED_SOURCE_DIR) + "/data/benchmarks/mlsys-2026-" + std::to_string(n) +
         ".json";
}

// Runs argv, then checks: exit 0, a schedule the evaluator accepts in `out`, and the loose bound.
void ExpectKeptLimit(const std::string& problem_path, const std::vector<std::string>& argv,
                     const std::string& out, const ScratchDir& dir) {
  const auto start = std::chrono::steady_clock::now();
  const testing::ToolRun run = RunTool(argv, dir.path(), {}, std::chrono::seconds(120));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::testing::Test::RecordProperty("seconds", std::to_string(seconds));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_LE(seconds, kLimitSeconds + kMarginSeconds) << "time limit " << kLimitSeconds;
  auto problem = LoadProblem(problem_path);
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  auto schedule = LoadSolution(out);
  ASSERT_TRUE(schedule.ok()) << schedule.status().message();
  auto evaluation = Evaluate(*problem, *schedule, {});
  ASSERT_TRUE(evaluation.ok()) << evaluation.status().message();
}

TEST(TimeLimit, ScheduleKeepsItOnTheLargestBenchmarks) {
  const ScratchDir dir("time_limit");
  for (int bench : {17, 21, 22}) {
    SCOPED_TRACE("benchmark " + std::to_string(bench));
    const std::string out = dir.File("out" + std::to_string(bench) + ".json");
    ExpectKeptLimit(BenchmarkPath(bench),
                    {TILESCHED_BINARY, "schedule", BenchmarkPath(bench), "-o", out, "--time-limit",
                     std::to_string(kLimitSeconds), "--threads", "2", "--quiet"},
                    out, dir);
  }
}

TEST(TimeLimit, MlsysKeepsItOnTheLargestBenchmark) {
  const ScratchDir dir("time_limit_mlsys");
  const std::string out = dir.File("out.json");
  ExpectKeptLimit(BenchmarkPath(21),
                  {TILESCHED_MLSYS, BenchmarkPath(21), out, "--time-limit",
                   std::to_string(kLimitSeconds), "--threads", "2"},
                  out, dir);
}

TEST(TimeLimit, ScheduleKeepsItOnAGeneratedStack) {
  const ScratchDir dir("time_limit_stack");
  const std::string problem = dir.File("stack64.json");
  const testing::ToolRun generate = RunTool(
      {TILESCHED_BINARY, "generate", "stack", "--blocks", "64", "-o", problem}, dir.path());
  ASSERT_EQ(generate.code, 0) << generate.err;
  const std::string out = dir.File("out.json");
  ExpectKeptLimit(problem,
                  {TILESCHED_BINARY, "schedule", problem, "-o", out, "--time-limit",
                   std::to_string(kLimitSeconds), "--threads", "2", "--quiet"},
                  out, dir);
}

TEST(Generate, StackHasFifteenOpsPerBlockAndRejectsBadCounts) {
  const ScratchDir dir("generate");
  const std::string problem_path = dir.File("stack.json");
  const testing::ToolRun ok = RunTool(
      {TILESCHED_BINARY, "generate", "stack", "--blocks", "4", "-o", problem_path}, dir.path());
  ASSERT_EQ(ok.code, 0) << ok.err;
  auto problem = LoadProblem(problem_path);
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  EXPECT_EQ(problem->num_ops(), 4 * 15);
  EXPECT_EQ(problem->hardware().fast_memory_capacity, 300000);
  const testing::ToolRun bad =
      RunTool({TILESCHED_BINARY, "generate", "stack", "--blocks", "0"}, dir.path());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--blocks"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace tilesched
