// Cost-model throughput (Google Benchmark): the three calls the search makes most, on the
// typical subgraphs of a few contest benchmarks, without the search's memo in front of them.
//
// The subgraphs are those of the greedy schedule of each benchmark (fused subgraphs as the
// search proposes them, deterministic and found in milliseconds), each in its context: its
// tile, traversal and retention, and the previous subgraph's retained tensors as resident.
// Every benchmark iteration visits all subgraphs of the schedule once.
//
// BM_Cost/N: CostModel::Cost(), the full latency with its breakdown (counter costs/s).
// BM_PeakWorkingSet/N: CostModel::PeakWorkingSet(), the feasibility check (counter checks/s).
// BM_ConfiguratorBest/N: Configurator::Best(), the best tile, split-k and order of a subgraph
//   (many PeakWorkingSet and Cost calls each; counter configs/s).
// All report `subgraphs` (per schedule) and `ops`.
//
// Run all: ./build/bench/cost_model_bench --benchmark_min_time=0.05
#include <benchmark/benchmark.h>

#include "bench_paths.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "configure.h"
#include "tilesched/cost_model.h"
#include "tilesched/demand.h"
#include "tilesched/io.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

// One subgraph of a schedule, ready for the cost model.
struct Case {
  SubgraphPlan plan;
  Granularity granularity;
  std::vector<int64_t> traversal;
  std::vector<int> retained;  // sorted
  std::vector<int> resident;  // sorted: the previous subgraph's retained tensors
};

struct Fixture {
  Problem problem;
  std::vector<Case> cases;
};

// The greedy schedule of benchmark `n`, cut into cost-model inputs; nullptr (with `error` set)
// when the benchmark cannot be read or scheduled.
std::unique_ptr<Fixture> LoadFixture(int n, std::string* error) {
  auto problem = LoadProblem(BenchmarkPath(n));
  if (!problem.ok()) {
    *error = problem.status().message();
    return nullptr;
  }
  auto fixture = std::make_unique<Fixture>(Fixture{std::move(problem).value(), {}});
  search::SearchOptions options;
  options.strategy = "greedy";
  auto result = search::RunSearch(fixture->problem, options);
  if (!result.ok()) {
    *error = result.status().message();
    return nullptr;
  }
  std::vector<int> resident;
  for (const Subgraph& sg : result->schedule.subgraphs) {
    auto plan = SubgraphPlan::Create(fixture->problem, sg.ops);
    if (!plan.ok()) {
      *error = plan.status().message();
      return nullptr;
    }
    std::vector<int> retained = sg.retained;
    std::sort(retained.begin(), retained.end());
    fixture->cases.push_back(
        {std::move(plan).value(), sg.granularity, sg.traversal, retained, resident});
    resident = retained;
  }
  return fixture;
}

void SetCommonCounters(benchmark::State& state, const Fixture& fixture, const char* rate_name,
                       int64_t calls) {
  state.counters[rate_name] =
      benchmark::Counter(static_cast<double>(calls), benchmark::Counter::kIsRate);
  state.counters["subgraphs"] = static_cast<double>(fixture.cases.size());
  state.counters["ops"] = fixture.problem.num_ops();
}

// Loads the fixture of benchmark state.range(0) and times `call(case)` over all its subgraphs,
// where `call = make_call(model)` returns an error message ("" when fine).
template <typename MakeCall>
void TimeOverCases(benchmark::State& state, const char* rate_name, MakeCall make_call) {
  std::string error;
  const auto fixture = LoadFixture(static_cast<int>(state.range(0)), &error);
  if (!fixture) {
    state.SkipWithError(error.c_str());
    return;
  }
  const CostModel model(fixture->problem, CostModes{});
  auto call = make_call(model);
  int64_t calls = 0;
  for (auto _ : state) {
    for (const Case& c : fixture->cases) {
      if (const std::string failure = call(c); !failure.empty()) {
        state.SkipWithError(failure.c_str());
        return;
      }
      ++calls;
    }
  }
  SetCommonCounters(state, *fixture, rate_name, calls);
}

void BM_Cost(benchmark::State& state) {
  TimeOverCases(state, "costs/s", [](const CostModel& model) {
    return [&model](const Case& c) -> std::string {
      auto cost = model.Cost(c.plan, c.granularity, c.traversal, c.retained, c.resident);
      if (!cost.ok()) return cost.status().message();
      benchmark::DoNotOptimize(cost->latency);
      return "";
    };
  });
}

void BM_PeakWorkingSet(benchmark::State& state) {
  TimeOverCases(state, "checks/s", [](const CostModel& model) {
    return [&model](const Case& c) -> std::string {
      benchmark::DoNotOptimize(model.PeakWorkingSet(c.plan, c.granularity, c.retained, c.resident));
      return "";
    };
  });
}

void BM_ConfiguratorBest(benchmark::State& state) {
  TimeOverCases(state, "configs/s", [](const CostModel& model) {
    auto configurator = std::make_shared<const search::Configurator>(model);
    return [configurator](const Case& c) -> std::string {
      auto choice = configurator->Best(c.plan, c.retained, c.resident);
      if (!choice) return "a subgraph of the greedy schedule has no configuration";
      benchmark::DoNotOptimize(choice->latency);
      return "";
    };
  });
}

// Small (1, 5), mid-sized (9, 13) and the largest (17, 21) of the 24 benchmarks.
void Problems(benchmark::internal::Benchmark* b) {
  for (int n : {1, 5, 9, 13, 17, 21}) b->Arg(n);
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_Cost)->Apply(Problems);
BENCHMARK(BM_PeakWorkingSet)->Apply(Problems);
BENCHMARK(BM_ConfiguratorBest)->Apply(Problems);

}  // namespace
}  // namespace tilesched

BENCHMARK_MAIN();
