// Resource limits: `tilesched schedule` on problems far beyond the contest's (10,000 ops;
// 4096x65536 tensors) must, within its time limit plus a few seconds, leave a valid schedule
// on disk or fail with a one-line message, and its peak memory must stay bounded.
// docs/reliability.md records the measured times and peak RSS.
//
// The binary runs as a child process (as in kill_test.cc); wait4() gives its peak RSS.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "build_kind.h"
#include "test_files.h"
#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using testing::ProblemBuilder;

// Time limit given to the scheduler, and how much later it may exit: the phases before the
// first budget check (parsing, candidate enumeration) and the final write.
constexpr int kTimeLimitSeconds = 5;
constexpr double kGraceSeconds = 5 * testing::kSlowdown;
// Peak RSS allowed: far above what the contest benchmarks need (docs/reliability.md), far
// below a small machine's memory.
constexpr int64_t kMaxRssKb = int64_t{3} << 20;  // 3 GiB

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() /
          ("tilesched_limits_" + std::to_string(getpid()) + "_" + name))
      .string();
}

// 10,000 ops on 128x128 tensors: a chain of 5,000 alternating MatMul (each with its own
// weight) and Pointwise ops, and 50 wide groups of 100 ops, where 50 MatMuls read one shared
// input X and each is followed by a Pointwise residual add of X.
Problem TenThousandOps() {
  ProblemBuilder b(/*capacity=*/300000, /*bandwidth=*/10);
  int x = b.Tensor(128, 128);
  for (int i = 0; i < 2500; ++i) {
    const int y = b.Tensor(128, 128);
    b.MatMul(x, b.Tensor(128, 128), y, 500);
    const int z = b.Tensor(128, 128);
    b.Pointwise({y}, z, 50);
    x = z;
  }
  for (int g = 0; g < 50; ++g) {
    const int shared = b.Tensor(128, 128);
    for (int i = 0; i < 50; ++i) {
      const int y = b.Tensor(128, 128);
      b.MatMul(shared, b.Tensor(128, 128), y, 500);
      b.Pointwise({y, shared}, b.Tensor(128, 128), 50);
    }
  }
  return b.Build();
}

// (4096x4096) @ (4096x65536), then a Pointwise op on the 4096x65536 product: 2^28 elements
// per large tensor, over 10^6 tiles at the smallest tile sizes.
Problem HugeTensors() {
  ProblemBuilder b(/*capacity=*/500000, /*bandwidth=*/10);
  const int lhs = b.Tensor(4096, 4096), rhs = b.Tensor(4096, 65536),
            product = b.Tensor(4096, 65536), out = b.Tensor(4096, 65536);
  b.MatMul(lhs, rhs, product, 1000);
  b.Pointwise({product}, out, 100);
  return b.Build();
}

struct RunOutcome {
  int wait_status = -1;        // -1: killed after the deadline
  double seconds = 0;          // until exit
  std::optional<double> first_schedule_seconds;  // until the output file appeared
  int64_t max_rss_kb = 0;
  std::string stderr_text;
};

// Runs `tilesched schedule PROBLEM -o OUT --time-limit T --quiet`, polling for OUT; kills the
// child at `deadline_seconds`.
RunOutcome RunScheduler(const std::string& problem_path, const std::string& out,
                        double deadline_seconds) {
  const std::string err_path = out + ".stderr";
  const std::vector<std::string> argv = {TILESCHED_BINARY, "schedule", problem_path, "-o", out,
                                         "--time-limit", std::to_string(kTimeLimitSeconds),
                                         "--quiet"};
  const auto start = Clock::now();
  const pid_t pid = testing::SpawnChild(argv, "", err_path);
  RunOutcome outcome;
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  int status = 0;
  rusage usage{};
  while (true) {
    if (!outcome.first_schedule_seconds && fs::exists(out)) outcome.first_schedule_seconds = elapsed();
    if (wait4(pid, &status, WNOHANG, &usage) == pid) {
      outcome.wait_status = status;
      break;
    }
    if (elapsed() > deadline_seconds) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  outcome.seconds = elapsed();
  outcome.max_rss_kb = usage.ru_maxrss;
  outcome.stderr_text = testing::Slurp(err_path);
  fs::remove(err_path);
  return outcome;
}

// Schedules `problem` from a file and checks the limits: exit in time, a valid schedule with
// the evaluator's latencies or a one-line error, bounded memory.
void ExpectWithinLimits(const Problem& problem, const std::string& name) {
  const std::string problem_path = TempPath(name + ".json");
  const std::string out = TempPath(name + ".solution.json");
  ASSERT_TRUE(WriteFileAtomic(problem_path, ProblemToJson(problem)).ok());
  fs::remove(out);
  const double allowed = kTimeLimitSeconds + kGraceSeconds;
  const RunOutcome run = RunScheduler(problem_path, out, /*deadline_seconds=*/allowed + 60);
  ::testing::Test::RecordProperty("seconds", std::to_string(run.seconds));
  ::testing::Test::RecordProperty("max_rss_kb", std::to_string(run.max_rss_kb));
  if (run.first_schedule_seconds) {
    ::testing::Test::RecordProperty("first_schedule_seconds",
                                    std::to_string(*run.first_schedule_seconds));
  }
  ASSERT_NE(run.wait_status, -1) << "still running after " << run.seconds << " s";
  EXPECT_LE(run.seconds, allowed) << "time limit " << kTimeLimitSeconds << " s, exited after "
                                  << run.seconds << " s";
  EXPECT_LE(run.max_rss_kb, kMaxRssKb) << "peak RSS " << run.max_rss_kb << " KB";
  ASSERT_TRUE(WIFEXITED(run.wait_status)) << "killed by signal " << WTERMSIG(run.wait_status)
                                          << "; stderr: " << run.stderr_text;
  if (WEXITSTATUS(run.wait_status) == 0) {
    auto schedule = LoadSolution(out);
    ASSERT_TRUE(schedule.ok()) << schedule.status().message();
    auto evaluation = Evaluate(problem, *schedule, {});
    ASSERT_TRUE(evaluation.ok()) << evaluation.status().message();
    EXPECT_TRUE(evaluation->warnings.empty()) << evaluation->warnings.front();
  } else {
    // A failure is a usage/input error with one line saying why, and no schedule file.
    EXPECT_EQ(WEXITSTATUS(run.wait_status), 2) << run.stderr_text;
    EXPECT_FALSE(run.stderr_text.empty());
    EXPECT_EQ(run.stderr_text.find('\n'), run.stderr_text.size() - 1) << run.stderr_text;
    EXPECT_FALSE(fs::exists(out));
  }
  fs::remove(out);
  fs::remove(problem_path);
}

TEST(Limits, TenThousandOpsWithinTheTimeLimit) {
  const Problem problem = TenThousandOps();
  ASSERT_EQ(problem.num_ops(), 10000);
  ExpectWithinLimits(problem, "ops10k");
}

TEST(Limits, HugeTensorsWithinTheTimeLimit) {
  const Problem problem = HugeTensors();
  ASSERT_EQ(problem.tensor(1).size(), int64_t{4096} * 65536);
  ExpectWithinLimits(problem, "huge");
}

}  // namespace
}  // namespace tilesched
