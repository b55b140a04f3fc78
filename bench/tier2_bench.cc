// Tier-2 speed (Google Benchmark): the covering LP of docs/bounds.md "Tier 2" (Tier2Bound, as
// `tilesched bound --tier2` runs it) on the contest benchmarks that tier 1 does not prove optimal and
// that it covers (at most 64 ops), one run each, one thread for the pricing's own loop. These
// take seconds, not milliseconds (benchmark 8 about 30 s, 5 about 100 s), hence a binary of
// their own beside bound_bench.
//
// BM_TierTwo/N: benchmark N; counters: "bound" the certified value, "within_limit" 1 when the
// LP converged before its 600-s limit (Tier2Status::kConverged), "ops" the op count.
#include <benchmark/benchmark.h>

#include "bench_paths.h"

#include <string>

#include "tilesched/io.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

void BM_TierTwo(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto problem = LoadProblem(BenchmarkPath(n));
  if (!problem.ok()) {
    state.SkipWithError(problem.status().message().c_str());
    return;
  }
  search::Tier2Options options;
  options.time_limit = 600;
  search::Tier2Result result;
  for (auto _ : state) result = search::Tier2Bound(*problem, options);
  state.counters["ops"] = problem->num_ops();
  state.counters["bound"] = result.value;
  state.counters["within_limit"] = result.status == search::Tier2Status::kConverged ? 1 : 0;
}

BENCHMARK(BM_TierTwo)
    ->Arg(4)
    ->Arg(5)
    ->Arg(6)
    ->Arg(7)
    ->Arg(8)
    ->Arg(11)
    ->Arg(12)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tilesched

BENCHMARK_MAIN();
