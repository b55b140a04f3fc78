// Property tests of the whole scheduler on random problems (tests/random_problem.h): for every
// problem, RunSearch returns a schedule the evaluator accepts, with the evaluator's latencies,
// between the lower bound and the one-op-per-subgraph baseline; and on problems where some op
// fits in fast memory at no tile size, it fails with a message naming such an op.
//
// Seeds are fixed, so a failure reproduces; SCOPED_TRACE prints the family and seed. Problems
// are small and the work budget tiny (30 iterations), so each search takes milliseconds.
#include <algorithm>
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "build_kind.h"
#include "coster.h"
#include "draft.h"
#include "plan_cache.h"
#include "random_problem.h"
#include "tilesched/cost_model.h"
#include "tilesched/demand.h"
#include "tilesched/evaluate.h"
#include "tilesched/graph.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

using testing::RandomProblem;
using testing::RandomProblemOptions;

// Problem families: shapes around the native tile, tight and roomy memories, longer graphs.
struct Family {
  std::string name;
  RandomProblemOptions options;
  uint64_t first_seed;
  int count;
};

std::vector<Family> FeasibleFamilies() {
  RandomProblemOptions small;  // the generator's defaults: 2-8 ops, native 64
  RandomProblemOptions native128;
  native128.dims = {64, 128, 192, 256};
  native128.native = 128;
  native128.min_capacity = 20000;
  native128.max_capacity = 300000;
  RandomProblemOptions tight;  // a few hundred elements: tiles far below native
  tight.dims = {16, 24, 32, 48};
  tight.native = 32;
  tight.min_capacity = 40;
  tight.max_capacity = 800;
  RandomProblemOptions larger;
  larger.min_ops = 8;
  larger.max_ops = 14;
  larger.dims = {32, 64, 100, 128};
  return {{"small", small, 1000, 90},
          {"native128", native128, 2000, 50},
          {"tight", tight, 3000, 40},
          {"larger", larger, 4000, 30}};
}

search::SearchOptions SmallSearch(const CostModes& modes) {
  search::SearchOptions options;
  options.strategy = "portfolio";
  options.iterations = 30;
  options.threads = 0;
  options.modes = modes;
  return options;
}

// The default reading and every non-default switch of SPEC.md section 7 at least once.
const CostModes kOtherModes[] = {
    {Rules::kAlgebra, MatmulReduction::kFullK, KLimit::kNative},
    {Rules::kContest, MatmulReduction::kNativeK, KLimit::kReduction},
};

// Total of the one-op-per-subgraph schedule, judged by the evaluator.
double SingletonTotal(const Problem& problem, const search::SearchOptions& options) {
  const CostModel model(problem, options.modes);
  search::PlanCache plans(problem);
  search::ModelCoster coster(model, options.configure);
  auto draft = search::SingletonDraft(problem, plans, coster);
  EXPECT_TRUE(draft.ok()) << draft.status().message();
  if (!draft.ok()) return 0;
  auto evaluation = Evaluate(problem, search::ToSchedule(*draft), options.modes);
  EXPECT_TRUE(evaluation.ok()) << evaluation.status().message();
  return evaluation.ok() ? evaluation->total : 0;
}

// Runs the search and checks every property of a successful run; returns its schedule as JSON.
std::string CheckSearch(const Problem& problem, const search::SearchOptions& options) {
  SCOPED_TRACE(ModesString(options.modes));
  auto result = search::RunSearch(problem, options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok()) return "";
  auto evaluation = Evaluate(problem, result->schedule, options.modes);
  EXPECT_TRUE(evaluation.ok()) << evaluation.status().message();
  if (!evaluation.ok()) return "";
  // Every latency the scheduler reports is the evaluator's (SPEC.md rule 3.9).
  EXPECT_TRUE(evaluation->warnings.empty()) << evaluation->warnings.front();
  for (size_t s = 0; s < result->schedule.subgraphs.size(); ++s) {
    const Subgraph& sg = result->schedule.subgraphs[s];
    const double latency = evaluation->subgraphs[s].cost.latency;
    EXPECT_TRUE(sg.reported_latency.has_value()) << "subgraph " << s;
    if (!sg.reported_latency) continue;
    EXPECT_NEAR(*sg.reported_latency, latency, kLatencyTolerance * std::max(1.0, latency))
        << "subgraph " << s;
  }
  EXPECT_NEAR(result->total, evaluation->total, kLatencyTolerance * evaluation->total);
  const double bound = ComputeLowerBounds(problem, options.modes).best();
  EXPECT_GE(evaluation->total, bound * (1 - 1e-9)) << "below the lower bound";
  // The singleton schedule is the search's first incumbent, so the result is never worse;
  // better it can be only down to the lower bound checked above.
  const double singletons = SingletonTotal(problem, options);
  EXPECT_LE(evaluation->total, singletons * (1 + 1e-9)) << "worse than one op per subgraph";
  return SolutionToJson(result->schedule, {});
}

TEST(Property, SearchResultsAreValidAndBounded) {
  // Instrumented builds (many times slower; this test also runs under TSan) check half of each
  // family.
  const int share = testing::kInstrumentedBuild ? 2 : 1;
  int problems = 0;
  for (const Family& family : FeasibleFamilies()) {
    for (int i = 0; i < family.count / share; ++i) {
      const uint64_t seed = family.first_seed + static_cast<uint64_t>(i);
      SCOPED_TRACE("family " + family.name + ", seed " + std::to_string(seed));
      const Problem problem = RandomProblem(seed, family.options);
      const std::string first = CheckSearch(problem, SmallSearch({}));
      ++problems;
      if (i % 5 == 0) {
        // A work budget without a time limit makes a run reproducible (tilesched/search.h).
        EXPECT_EQ(CheckSearch(problem, SmallSearch({})), first) << "not deterministic";
      }
      if (i % 4 == 0) {
        for (const CostModes& modes : kOtherModes) CheckSearch(problem, SmallSearch(modes));
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  EXPECT_GE(problems, 200 / share);
}

// Smallest working set of op `o` alone: the 1x1 tile with k = 1 (the working set only grows
// with w, h and k; see CostModel::PeakWorkingSet).
int64_t SmallestWorkingSet(const Problem& problem, const CostModel& model, int o) {
  auto plan = SubgraphPlan::Create(problem, {o});
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return 0;
  return model.PeakWorkingSet(*plan, {1, 1, 1}, {}, {});
}

// Capacities of 1-3 elements: a 1x1 tile needs a slice of each distinct input and an output
// tile (a MatMul 3 elements, a Pointwise 2 or more), so some problems have an op that fits
// nowhere and others just fit. Ops run alone in slow-memory context always form a valid
// schedule, so the search must succeed exactly when every op fits alone.
TEST(Property, TinyCapacityFailsNamingAnOpThatFitsNowhere) {
  RandomProblemOptions options;
  options.min_capacity = 1;
  options.max_capacity = 3;
  const std::regex named_op("op ([0-9]+)");
  int failures = 0, successes = 0;
  for (uint64_t seed = 5000; seed < 5040; ++seed) {
    SCOPED_TRACE("capacity 1-3, seed " + std::to_string(seed));
    const Problem problem = RandomProblem(seed, options);
    const CostModel model(problem, {});
    std::vector<bool> fits_nowhere(problem.num_ops());
    bool infeasible = false;
    for (int o = 0; o < problem.num_ops(); ++o) {
      fits_nowhere[o] =
          SmallestWorkingSet(problem, model, o) > problem.hardware().fast_memory_capacity;
      infeasible = infeasible || fits_nowhere[o];
    }
    if (!infeasible) {
      CheckSearch(problem, SmallSearch({}));
      ++successes;
      continue;
    }
    ++failures;
    auto result = search::RunSearch(problem, SmallSearch({}));
    ASSERT_FALSE(result.ok()) << "a schedule of total " << result->total
                              << " although some op fits nowhere";
    const std::string message = result.status().message();
    std::smatch match;
    ASSERT_TRUE(std::regex_search(message, match, named_op)) << "names no op: " << message;
    const int op = std::stoi(match[1].str());
    ASSERT_LT(op, problem.num_ops()) << message;
    EXPECT_TRUE(fits_nowhere[op]) << "op " << op << " does fit alone: " << message;
    EXPECT_NE(message.find("fits in fast memory at no tile size"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
  }
  // The seeds cover both outcomes.
  EXPECT_GT(failures, 10);
  EXPECT_GT(successes, 0);
}

}  // namespace
}  // namespace tilesched
