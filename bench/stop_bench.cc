// Promptness (Google Benchmark): SIGTERM to exit of `tilesched schedule` and `mlsys` running on
// a contest benchmark, best schedule written; start to first schedule on disk; SIGTERM to exit
// of a sweep. These are the figures the kill-safety and sweep tests only bound loosely
// (tests/kill_test.cc, tests/sweep_test.cc); the stop target is about 200 ms.
//
// BM_SigtermToExit/B/C: benchmark B, C = 0 for `tilesched schedule`, 1 for `mlsys`; manual time
// is the wall time from the signal to the child's exit.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include "bench_paths.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

using tilesched::BenchmarkPath;

pid_t Spawn(const std::vector<std::string>& argv) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

void BM_SigtermToExit(benchmark::State& state) {
  const int bench = static_cast<int>(state.range(0));
  const bool contest = state.range(1) != 0;
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("tilesched_stop_bench_" + std::to_string(getpid()) + ".json")).string();
  for (auto _ : state) {
    std::filesystem::remove(out);
    const pid_t pid =
        contest ? Spawn({TILESCHED_MLSYS, BenchmarkPath(bench), out, "--time-limit", "60", "--quiet"})
                : Spawn({TILESCHED_BINARY, "schedule", BenchmarkPath(bench), "-o", out,
                         "--time-limit", "60", "--quiet"});
    // Stop in the middle of the search (after candidate enumeration and the first beams).
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    const auto signalled = std::chrono::steady_clock::now();
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    const auto exited = std::chrono::steady_clock::now();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !std::filesystem::exists(out)) {
      state.SkipWithError("the stopped run failed or wrote no schedule");
      break;
    }
    state.SetIterationTime(std::chrono::duration<double>(exited - signalled).count());
  }
  std::filesystem::remove(out);
}

BENCHMARK(BM_SigtermToExit)
    ->ArgsProduct({{13, 21}, {0, 1}})
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

// BM_FirstSchedule/B/C: from the start of the child to its first schedule on disk (the anytime
// output the kill-safety test relies on); C as above.
void BM_FirstSchedule(benchmark::State& state) {
  const int bench = static_cast<int>(state.range(0));
  const bool contest = state.range(1) != 0;
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("tilesched_first_bench_" + std::to_string(getpid()) + ".json")).string();
  for (auto _ : state) {
    std::filesystem::remove(out);
    const auto started = std::chrono::steady_clock::now();
    const pid_t pid =
        contest ? Spawn({TILESCHED_MLSYS, BenchmarkPath(bench), out, "--time-limit", "60", "--quiet"})
                : Spawn({TILESCHED_BINARY, "schedule", BenchmarkPath(bench), "-o", out,
                         "--time-limit", "60", "--quiet"});
    while (!std::filesystem::exists(out) &&
           std::chrono::steady_clock::now() - started < std::chrono::seconds(30)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const auto first = std::chrono::steady_clock::now();
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!std::filesystem::exists(out)) {
      state.SkipWithError("no schedule on disk within 30 s");
      break;
    }
    state.SetIterationTime(std::chrono::duration<double>(first - started).count());
  }
  std::filesystem::remove(out);
}

BENCHMARK(BM_FirstSchedule)
    ->ArgsProduct({{13, 21}, {0, 1}})
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);

// BM_SweepSigtermToExit: SIGTERM to exit of a one-job `tilesched sweep` on benchmark 1 at tiny
// capacities (the stop the sweep kill test bounds loosely): running points are abandoned.
void BM_SweepSigtermToExit(benchmark::State& state) {
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("tilesched_sweep_bench_" + std::to_string(getpid()) + ".csv")).string();
  for (auto _ : state) {
    std::filesystem::remove(out);
    const pid_t pid = Spawn({TILESCHED_BINARY, "sweep", BenchmarkPath(1), "--capacity", "50:250:+50",
                             "--iterations", "200", "--jobs", "1", "--quiet", "-o", out});
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto signalled = std::chrono::steady_clock::now();
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    const auto exited = std::chrono::steady_clock::now();
    const bool stopped = WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM;
    const bool finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!stopped && !finished) {
      state.SkipWithError("the stopped sweep failed");
      break;
    }
    state.SetIterationTime(std::chrono::duration<double>(exited - signalled).count());
  }
  std::filesystem::remove(out);
}

BENCHMARK(BM_SweepSigtermToExit)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
