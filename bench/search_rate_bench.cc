// Search work over time (Google Benchmark): the default portfolio on a ~700-op problem that greedy
// does not solve (data/large/tf-11x8-tight.json: 696 ops, greedy 28% above the bound), run for
// kSeconds on 2 threads while a sampler reads the run's live counters (search::SearchProgress).
// Issue 24 asks that the search not stall: the rate of work after 10 s at least half of the rate
// in the first 2 s.
//
// BM_SearchRate: one run per iteration. Counters, each a rate per second over a stretch of the
// run: configurations (subgraph configurations the configurator costed: memo misses), costings
// (subgraph costings asked for, memo hits included) and moves (neighbours evaluated: beam
// extensions, annealing moves), in the first 2 s (`*_0_2`) and from 10 s to the end (`*_10_end`),
// and their ratios (`*_ratio`, after / first); latency and greedy's latency at the end.
//
// Run: ./build/bench/search_rate_bench   (about 14 s)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "tilesched/io.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

constexpr double kSeconds = 14;
constexpr double kEarlyEnd = 2, kLateStart = 10;

struct Counts {
  double seconds = 0;
  int64_t configurations = 0, costings = 0, moves = 0;
};

Counts Read(const search::SearchProgress& progress, double seconds) {
  return {seconds, progress.configurations.load(), progress.costings.load(), progress.moves.load()};
}

void BM_SearchRate(benchmark::State& state) {
  auto problem = LoadProblem(std::string(TILESCHED_SOURCE_DIR) + "/data/large/tf-11x8-tight.json");
  if (!problem.ok()) {
    state.SkipWithError(problem.status().message().c_str());
    return;
  }
  search::SearchOptions options;
  options.time_limit = kSeconds;
  options.threads = 2;
  options.gap = -1;  // the whole budget
  for (auto _ : state) {
    search::SearchProgress progress;
    search::SearchHooks hooks;
    hooks.progress = &progress;
    Counts early, late;
    // Samples at 2 s and 10 s of wall time from the search's start (the run's first act).
    const auto start = std::chrono::steady_clock::now();
    std::thread sampler([&] {
      auto at = [&](double s) {
        return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(s));
      };
      std::this_thread::sleep_until(at(kEarlyEnd));
      early = Read(progress, kEarlyEnd);
      std::this_thread::sleep_until(at(kLateStart));
      late = Read(progress, kLateStart);
    });
    auto result = search::RunSearch(*problem, options, hooks);
    const Counts end = Read(progress,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    sampler.join();
    if (!result.ok()) {
      state.SkipWithError(result.status().message().c_str());
      return;
    }
    auto rate = [](const Counts& a, const Counts& b, int64_t Counts::*field) {
      return static_cast<double>(b.*field - a.*field) / std::max(1e-9, b.seconds - a.seconds);
    };
    const Counts zero;
    for (const auto& [name, field] : {std::pair{"configurations", &Counts::configurations},
                                      std::pair{"costings", &Counts::costings},
                                      std::pair{"moves", &Counts::moves}}) {
      const double first = rate(zero, early, field), after = rate(late, end, field);
      state.counters[std::string(name) + "_0_2"] = first;
      state.counters[std::string(name) + "_10_end"] = after;
      state.counters[std::string(name) + "_ratio"] = first > 0 ? after / first : 0;
    }
    state.counters["latency"] = result->total;
    state.counters["lower_bound"] = result->lower_bound;
  }
  search::SearchOptions greedy = options;
  greedy.strategy = "greedy";
  greedy.time_limit = 0;
  auto greedy_result = search::RunSearch(*problem, greedy);
  if (greedy_result.ok()) state.counters["greedy"] = greedy_result->total;
  state.counters["ops"] = problem->num_ops();
}

BENCHMARK(BM_SearchRate)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

}  // namespace
}  // namespace tilesched

BENCHMARK_MAIN();
