// Evaluator speed (Google Benchmark): Evaluate() on whole schedules of the 24 contest problems.
//
// BM_EvaluateSingletons/N: one op per subgraph, each at its best tile (as SingletonDraft picks).
// BM_EvaluateK1/N: the same schedule with k = 1 for every split root, so that every tile runs
// K k-steps (up to 4096): the evaluator must cost repeated steps once (SPEC.md section 9).
#include <benchmark/benchmark.h>

#include "bench_paths.h"

#include <string>

#include "draft.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"

namespace tilesched {
namespace {

Schedule SingletonSchedule(const Problem& problem, bool k_one) {
  const CostModel model(problem, CostModes{});
  search::PlanCache plans(problem);
  search::ModelCoster coster(model);
  auto draft = search::SingletonDraft(problem, plans, coster);
  Schedule schedule = search::ToSchedule(*draft);
  if (k_one) {
    for (Subgraph& sg : schedule.subgraphs) sg.granularity.k = 1;
  }
  return schedule;
}

void RunEvaluate(benchmark::State& state, bool k_one) {
  const int n = static_cast<int>(state.range(0));
  auto problem = LoadProblem(BenchmarkPath(n));
  if (!problem.ok()) {
    state.SkipWithError(problem.status().message().c_str());
    return;
  }
  const Schedule schedule = SingletonSchedule(*problem, k_one);
  int64_t steps = 0;
  double total = 0;
  for (auto _ : state) {
    auto evaluation = Evaluate(*problem, schedule, CostModes{});
    if (!evaluation.ok()) {
      state.SkipWithError(evaluation.status().message().c_str());
      return;
    }
    total = evaluation->total;
    steps = 0;
    for (const SubgraphReport& r : evaluation->subgraphs) steps += r.cost.steps;
    benchmark::DoNotOptimize(total);
  }
  state.counters["ops"] = problem->num_ops();
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["latency"] = total;
}

void BM_EvaluateSingletons(benchmark::State& state) { RunEvaluate(state, /*k_one=*/false); }
void BM_EvaluateK1(benchmark::State& state) { RunEvaluate(state, /*k_one=*/true); }

BENCHMARK(BM_EvaluateSingletons)->DenseRange(1, 24)->Unit(benchmark::kMicrosecond);
// The largest problems (most ops, largest tensors and reductions).
BENCHMARK(BM_EvaluateK1)->Arg(9)->Arg(13)->Arg(17)->Arg(21)->Arg(22)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace tilesched

BENCHMARK_MAIN();
