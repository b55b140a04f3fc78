// Scaling path (Google Benchmark): greedy fusion and retention (`--strategy greedy`, the first
// fused schedule) through RunSearch() on generated workloads of growing size, so that a loop
// that grows faster than the graph shows up as a time per op that rises with the size
// (docs/style.md rule 14; docs/scaling.md has the full table up to 100,000 ops, scripts/scaling.sh).
//
// BM_GreedyStack/<blocks>: a transformer stack of 15-op blocks (src/experiment/stack.h).
// BM_GreedyRandomDag/<ops>: a random layered DAG of bounded degree (src/experiment/random_dag.h).
// Wall time per RunSearch() at 2 threads. Counters: ops, time_per_op (wall seconds per op; flat
// when the growth is linear), configurations (subgraphs configured, not answered by the memo),
// latency_over_bound.
//
// Run: cmake --build build --target scaling_bench && ./build/bench/scaling_bench
// (about 20 s on 2 cores: the sizes stop at 15,000 ops so that it stays a quick check).
#include <benchmark/benchmark.h>

#include "random_dag.h"
#include "stack.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

void RunGreedy(benchmark::State& state, const Result<Problem>& problem) {
  if (!problem.ok()) {
    state.SkipWithError(problem.status().message().c_str());
    return;
  }
  search::SearchOptions options;
  options.strategy = "greedy";
  options.threads = 2;
  options.time_limit = 0;
  double ratio = 0;
  int64_t configurations = 0;
  for (auto _ : state) {
    auto result = search::RunSearch(*problem, options);
    if (!result.ok()) {
      state.SkipWithError(result.status().message().c_str());
      return;
    }
    ratio = result->total / result->lower_bound;
    configurations = result->evaluations;
  }
  const double ops = problem->num_ops();
  state.counters["ops"] = ops;
  // Seconds per op (printed with an SI prefix, e.g. 70us).
  state.counters["time_per_op"] = benchmark::Counter(
      ops, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["configurations"] = static_cast<double>(configurations);
  state.counters["latency_over_bound"] = ratio;
}

void BM_GreedyStack(benchmark::State& state) {
  RunGreedy(state, experiment::MakeTransformerStack(static_cast<int>(state.range(0)),
                                                    /*seq=*/512, /*width=*/256));
}
BENCHMARK(BM_GreedyStack)->Arg(1)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_GreedyRandomDag(benchmark::State& state) {
  experiment::RandomDagOptions options;
  options.ops = static_cast<int>(state.range(0));
  RunGreedy(state, experiment::MakeRandomLayeredDag(options));
}
BENCHMARK(BM_GreedyRandomDag)->Arg(15)->Arg(150)->Arg(1500)->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace tilesched

BENCHMARK_MAIN();
