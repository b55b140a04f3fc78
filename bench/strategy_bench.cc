// Strategy speed (Google Benchmark): each search strategy on a representative subset of the
// contest benchmarks under a fixed work budget (SearchOptions::iterations, no time limit), so
// that the time measured is the time to do that work and the latency found is the same on
// every machine.
//
// BM_Strategy/<strategy>/<benchmark>: one RunSearch() per iteration, wall time (the search runs
// on every core). Counters: latency (Evaluate()'s total of the schedule found), evaluations/s
// (subgraph configurations costed, SearchResult::evaluations, per second of run), ops.
//
// Run all: ./build/bench/strategy_bench --benchmark_min_time=0.01
#include <benchmark/benchmark.h>

#include "bench_paths.h"

#include <string>
#include <vector>

#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

// Spread over the 24 benchmarks: small (1, 5), mid-sized (9, 13) and the largest (17, 21).
constexpr int kProblems[] = {1, 5, 9, 13, 17, 21};
// Work budget: beam expansions, LNS windows, annealing moves per chain; the portfolio splits
// it (search.h). Large enough for every strategy to improve on its start, small enough that
// the whole program runs in about a minute on 2 cores.
constexpr int64_t kIterations = 200;

void RunStrategy(benchmark::State& state, const std::string& strategy, int n) {
  auto problem = LoadProblem(BenchmarkPath(n));
  if (!problem.ok()) {
    state.SkipWithError(problem.status().message().c_str());
    return;
  }
  search::SearchOptions options;
  options.strategy = strategy;
  options.iterations = kIterations;
  options.time_limit = 0;
  double latency = 0;
  int64_t evaluations = 0;
  for (auto _ : state) {
    auto result = search::RunSearch(*problem, options);
    if (!result.ok()) {
      state.SkipWithError(result.status().message().c_str());
      return;
    }
    auto evaluation = Evaluate(*problem, result->schedule, options.modes);
    if (!evaluation.ok()) {
      state.SkipWithError(evaluation.status().message().c_str());
      return;
    }
    latency = evaluation->total;
    evaluations += result->evaluations;
  }
  state.counters["latency"] = latency;
  state.counters["evaluations/s"] =
      benchmark::Counter(static_cast<double>(evaluations), benchmark::Counter::kIsRate);
  state.counters["ops"] = problem->num_ops();
}

void RegisterAll() {
  for (const std::string& strategy : search::StrategyNames()) {
    for (int n : kProblems) {
      benchmark::RegisterBenchmark(
          ("BM_Strategy/" + strategy + "/" + std::to_string(n)).c_str(),
          [strategy, n](benchmark::State& state) { RunStrategy(state, strategy, n); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
}

}  // namespace
}  // namespace tilesched

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  tilesched::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
