// Promptness of a stop (Google Benchmark): SIGTERM to exit of `tilesched schedule` and `mlsys`
// running on a contest benchmark, best schedule written. This is the figure the kill-safety
// test only bounds loosely (tests/kill_test.cc); the target is about 200 ms.
//
// BM_SigtermToExit/B/C: benchmark B, C = 0 for `tilesched schedule`, 1 for `mlsys`; manual time
// is the wall time from the signal to the child's exit.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string BenchmarkPath(int n) {
  return std::string(TILESCHED_SOURCE_DIR) + "/data/benchmarks/mlsys-2026-" + std::to_string(n) +
         ".json";
}

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

}  // namespace

BENCHMARK_MAIN();
