// OptimizeRetention (search/retention.h): the dynamic program over a chain of stages is
// checked against every retention choice, each re-costed by RecostDraft and judged by
// Evaluate(), on small random problems in every mode.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "coster.h"
#include "draft.h"
#include "plan_cache.h"
#include "random_problem.h"
#include "retention.h"
#include "test_util.h"
#include "tilesched/cost_model.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"

namespace tilesched {
namespace {

// The tensors stage s produces that stage s + 1 reads: what boundary s may retain.
std::vector<int> Keepable(const search::Draft& draft, size_t s) {
  std::vector<int> keepable;
  const SubgraphPlan& cur = *draft.stages[s].plan;
  const SubgraphPlan& next = *draft.stages[s + 1].plan;
  std::set_intersection(cur.produced().begin(), cur.produced().end(),
                        next.external_inputs().begin(), next.external_inputs().end(),
                        std::back_inserter(keepable));
  return keepable;
}

// The cheapest valid draft over every subset at every boundary in [first, last) (the other
// boundaries as in `draft`); infinity when none is valid.
double BestOverEveryRetention(const Problem& problem, search::SubgraphCoster& coster,
                              const search::Draft& draft, size_t first, size_t last) {
  std::vector<std::vector<int>> keepable;
  size_t bits = 0;
  for (size_t s = first; s < last; ++s) {
    keepable.push_back(s + 1 < draft.stages.size() ? Keepable(draft, s) : std::vector<int>{});
    bits += keepable.back().size();
  }
  double best = std::numeric_limits<double>::infinity();
  for (uint64_t mask = 0; mask < (uint64_t{1} << bits); ++mask) {
    search::Draft trial = draft;
    size_t bit = 0;
    for (size_t k = 0; k < keepable.size(); ++k) {
      std::vector<int>& retained = trial.stages[first + k].retained;
      retained.clear();
      for (int t : keepable[k]) {
        if (mask >> bit++ & 1) retained.push_back(t);
      }
    }
    if (search::RecostDraft(problem, coster, &trial)) best = std::min(best, trial.total);
  }
  return best;
}

// Each op alone, then neighbouring stages fused where the pair fits (a coarser chain).
search::Draft PairedDraft(const Problem& problem, search::PlanCache& plans,
                          search::SubgraphCoster& coster, const search::Draft& singles) {
  search::Draft paired;
  for (size_t s = 0; s < singles.stages.size(); ++s) {
    const search::Stage& stage = singles.stages[s];
    if (s + 1 < singles.stages.size()) {
      std::vector<int> ops = stage.plan->ops();
      const std::vector<int>& more = singles.stages[s + 1].plan->ops();
      ops.insert(ops.end(), more.begin(), more.end());
      std::sort(ops.begin(), ops.end());
      const SubgraphPlan* plan = plans.Get(ops);
      if (plan && coster.Configure(*plan, {}, {})) {
        paired.stages.push_back({plan, {}, {}});
        ++s;
        continue;
      }
    }
    paired.stages.push_back({stage.plan, {}, {}});
  }
  if (!search::RecostDraft(problem, coster, &paired)) return singles;
  return paired;
}

// The DP's draft is valid, re-costs to the total it reports, and Evaluate() agrees.
void ExpectJudgedEqual(const Problem& problem, search::SubgraphCoster& coster,
                       const search::Draft& draft, const CostModes& modes) {
  search::Draft again = draft;
  ASSERT_TRUE(search::RecostDraft(problem, coster, &again));
  EXPECT_NEAR(again.total, draft.total, 1e-9 * draft.total);
  auto evaluation = Evaluate(problem, search::ToSchedule(draft), modes);
  ASSERT_TRUE(evaluation.ok()) << evaluation.status().message();
  EXPECT_NEAR(evaluation->total, draft.total, 1e-9 * draft.total);
}

TEST(Retention, DynamicProgramMatchesEveryChoiceOnSmallChains) {
  int chains = 0, improved = 0, windows = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    testing::RandomProblemOptions options;
    options.min_ops = 3;
    options.max_ops = 7;
    const Problem problem = testing::RandomProblem(seed, options);
    for (const CostModes& modes : testing::AllModes()) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + ModesString(modes) + "\nproblem: " +
                   ProblemToJson(problem));
      const CostModel model(problem, modes);
      search::ModelCoster coster(model);
      search::PlanCache plans(problem);
      auto singles = search::SingletonDraft(problem, plans, coster);
      if (!singles.ok()) continue;  // an op fits only fused
      for (const search::Draft& start : {*singles, PairedDraft(problem, plans, coster, *singles)}) {
        const size_t n = start.stages.size();
        // The whole chain, then a window inside it (its first stage after a kept retention).
        for (auto [first, last] : {std::pair<size_t, size_t>{0, n}, {n / 3, n - 1}}) {
          if (first >= last) continue;
          const double before = start.total;
          const double best = BestOverEveryRetention(problem, coster, start, first, last);
          search::Draft draft = start;
          const bool fell = search::OptimizeRetention(problem, coster, &draft, first, last);
          ExpectJudgedEqual(problem, coster, draft, modes);
          // Never worse than the choice it started from, and exact: every boundary of these
          // chains offers at most kMaxSubsetTensors tensors, so every subset is an option.
          EXPECT_LE(draft.total, before * (1 + 1e-12));
          EXPECT_EQ(fell, draft.total < before * (1 - 1e-9));
          EXPECT_NEAR(draft.total, best, 1e-9 * best);
          improved += fell;
          ++(first == 0 ? chains : windows);
        }
      }
    }
  }
  std::printf("retention: %d chains, %d windows, %d improved\n", chains, windows, improved);
  EXPECT_GT(chains, 300);
  EXPECT_GT(windows, 100);
  EXPECT_GT(improved, chains / 10);  // the test compares choices that matter
}

}  // namespace
}  // namespace tilesched
