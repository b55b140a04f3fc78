// Tier-2 speed (Google Benchmark): the covering LP of docs/bounds.md "Tier 2" (Tier2Bound, as
// `tilesched bound --tier2` runs it) on the contest benchmarks that tier 1 does not prove optimal and
// that it covers (at most 64 ops), one run each, at one and at two threads (the columns scanned
// in blocks and the contexts priced ahead in parallel; the values are the same). These take
// seconds, not milliseconds (benchmark 8 about 45 s, 5 about 120 s at one thread), hence a
// binary of their own beside bound_bench.
//
// BM_TierTwo/N/T: benchmark N at T threads; counters: "bound" the certified value,
// "within_limit" 1 when the LP converged before its 600-s limit (Tier2Status::kConverged),
// "ops" the op count, "costed" the contexts costed.
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
  options.threads = static_cast<int>(state.range(1));
  search::Tier2Result result;
  for (auto _ : state) result = search::Tier2Bound(*problem, options);
  state.counters["ops"] = problem->num_ops();
  state.counters["bound"] = result.value;
  state.counters["within_limit"] = result.status == search::Tier2Status::kConverged ? 1 : 0;
  state.counters["costed"] = static_cast<double>(result.contexts_costed);
}

BENCHMARK(BM_TierTwo)
    ->ArgsProduct({{4, 5, 6, 7, 8, 11, 12}, {1, 2}})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tilesched

BENCHMARK_MAIN();
