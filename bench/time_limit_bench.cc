// Time limits kept (Google Benchmark; issue 12, item 4): how long after its `--time-limit`
// a run exits, best schedule written. tests/time_limit_test.cc only bounds this loosely; the
// target is 50 ms at 2 threads. docs/scaling.md records the measured table.
//
// BM_Overshoot/B/C: contest benchmark B at --time-limit 0.3 --threads 2; C = 0 for
// `tilesched schedule`, 1 for `mlsys`. BM_StackOvershoot/N: a generated stack of N
// transformer blocks (`tilesched generate stack`), `tilesched schedule` at the same limit.
// Manual time is the overshoot: wall time from spawn to exit, minus the limit; repetitions give
// the median (the machine is shared: means are noisy).
#include <sys/wait.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include "bench_paths.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using tilesched::BenchmarkPath;

constexpr double kLimitSeconds = 0.3;

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("tilesched_time_limit_bench_" + std::to_string(getpid()) + "_" + name))
      .string();
}

// Runs argv to completion; returns its wall time in seconds, or a negative value on failure.
double RunTimed(const std::vector<std::string>& argv) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? seconds : -1;
}

void MeasureOvershoot(benchmark::State& state, const std::vector<std::string>& argv,
                      const std::string& out) {
  for (auto _ : state) {
    std::filesystem::remove(out);
    const double seconds = RunTimed(argv);
    if (seconds < 0 || !std::filesystem::exists(out)) {
      state.SkipWithError("the run failed or wrote no schedule");
      break;
    }
    state.SetIterationTime(std::max(0.0, seconds - kLimitSeconds));
    state.counters["exit_s"] = seconds;
  }
  std::filesystem::remove(out);
}

void BM_Overshoot(benchmark::State& state) {
  const int bench = static_cast<int>(state.range(0));
  const std::string out = TempPath("out.json");
  const std::string limit = std::to_string(kLimitSeconds);
  const std::vector<std::string> argv =
      state.range(1) != 0
          ? std::vector<std::string>{TILESCHED_MLSYS, BenchmarkPath(bench), out, "--time-limit",
                                     limit, "--threads", "2", "--quiet"}
          : std::vector<std::string>{TILESCHED_BINARY, "schedule", BenchmarkPath(bench), "-o", out,
                                     "--time-limit", limit, "--threads", "2", "--quiet"};
  MeasureOvershoot(state, argv, out);
}

void BM_StackOvershoot(benchmark::State& state) {
  const std::string problem = TempPath("stack.json");
  const std::string out = TempPath("out.json");
  if (RunTimed({TILESCHED_BINARY, "generate", "stack", "--blocks", std::to_string(state.range(0)),
                "-o", problem}) < 0) {
    state.SkipWithError("tilesched generate failed");
    return;
  }
  MeasureOvershoot(state,
                   {TILESCHED_BINARY, "schedule", problem, "-o", out, "--time-limit",
                    std::to_string(kLimitSeconds), "--threads", "2", "--quiet"},
                   out);
  std::filesystem::remove(problem);
}

BENCHMARK(BM_Overshoot)
    ->ArgsProduct({benchmark::CreateDenseRange(1, 24, 1), {0, 1}})
    ->UseManualTime()
    ->Iterations(1)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_StackOvershoot)
    ->Arg(16)
    ->Arg(64)
    ->Arg(256)
    ->UseManualTime()
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
