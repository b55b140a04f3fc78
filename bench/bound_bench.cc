// Lower-bound speed (Google Benchmark): ComputeLowerBounds() on the 24 contest problems, in the
// default modes (docs/bounds.md; the aim is well under 50 ms at 150 ops).
//
// BM_LowerBound/N: benchmark N (its op count is reported as the "ops" counter).
#include <benchmark/benchmark.h>

#include "bench_paths.h"

#include <string>

#include "tilesched/io.h"
#include "tilesched/lower_bound.h"

namespace tilesched {
namespace {

void BM_LowerBound(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto problem = LoadProblem(BenchmarkPath(n));
  if (!problem.ok()) {
    state.SkipWithError(problem.status().message().c_str());
    return;
  }
  double bound = 0;
  for (auto _ : state) {
    bound = ComputeLowerBounds(*problem, CostModes{}).best();
    benchmark::DoNotOptimize(bound);
  }
  state.counters["ops"] = problem->num_ops();
  state.counters["bound"] = bound;
}

BENCHMARK(BM_LowerBound)->DenseRange(1, 24)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace tilesched

BENCHMARK_MAIN();
