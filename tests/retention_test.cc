// OptimizeRetention (search/retention.h): the dynamic program over a chain of stages is
// checked against every retention choice, each re-costed by RecostDraft and judged by
// Evaluate(), on small random problems in every mode; so is OptimizeChangedRetention around
// the stages an annealing move changed. ChangeIsConsistent, the check of the changed stages only
// that RecostChanged runs on every move, is compared with the whole-draft scan.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "coster.h"
#include "draft.h"
#include "moves.h"
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

// Keepable, and what stage s retains now (a move can leave a tensor the next stage also
// computes itself).
std::vector<int> Retainable(const search::Draft& draft, size_t s) {
  const std::vector<int> keep = s + 1 < draft.stages.size() ? Keepable(draft, s) : std::vector<int>{};
  std::vector<int> either;
  std::set_union(keep.begin(), keep.end(), draft.stages[s].retained.begin(),
                 draft.stages[s].retained.end(), std::back_inserter(either));
  return either;
}

// The cheapest valid draft over every subset of what boundary s may retain, at every boundary
// in [first, last) (the other boundaries as in `draft`); infinity when none is valid.
double BestOverEveryRetention(const Problem& problem, search::SubgraphCoster& coster,
                              const search::Draft& draft, size_t first, size_t last) {
  std::vector<std::vector<int>> keepable;
  size_t bits = 0;
  for (size_t s = first; s < last; ++s) {
    keepable.push_back(Retainable(draft, s));
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

// Calls body(problem, modes, coster, plans, singles) on random problems of min_ops to 7 ops
// (seeds 1 to `seeds`) in every mode, where each op fits alone.
template <typename Body>
void ForEachRandomProblem(uint64_t seeds, int min_ops, Body body) {
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    testing::RandomProblemOptions options;
    options.min_ops = min_ops;
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
      body(problem, modes, coster, plans, *singles);
    }
  }
}

TEST(Retention, DynamicProgramMatchesEveryChoiceOnSmallChains) {
  int chains = 0, improved = 0, windows = 0;
  ForEachRandomProblem(60, 3, [&](const Problem& problem, const CostModes& modes,
                                  search::SubgraphCoster& coster, search::PlanCache& plans,
                                  const search::Draft& singles) {
    for (const search::Draft& start : {singles, PairedDraft(problem, plans, coster, singles)}) {
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
  });
  std::printf("retention: %d chains, %d windows, %d improved\n", chains, windows, improved);
  EXPECT_GT(chains, 300);
  EXPECT_GT(windows, 100);
  EXPECT_GT(improved, chains / 10);  // the test compares choices that matter
}

// After each annealing move on a chain whose retention the dynamic program chose, the stages
// outside ChangedStages are the draft's as they were, and OptimizeChangedRetention finds the
// best retention over every subset at the boundaries it covers (the others as they are).
TEST(Retention, ChangedRetentionIsExactAroundEveryMove) {
  int moves = 0, exact = 0, improved = 0;
  search::Rng rng(7);
  ForEachRandomProblem(40, 4, [&](const Problem& problem, const CostModes& modes,
                                  search::SubgraphCoster& coster, search::PlanCache& plans,
                                  const search::Draft& singles) {
    search::Draft start = PairedDraft(problem, plans, coster, singles);
    search::OptimizeRetention(problem, coster, &start, 0, start.stages.size());
    for (const auto& move : search::AllMoves()) {
      for (int attempt = 0; attempt < 3; ++attempt) {
        auto next = move->Apply(start, problem, plans, rng);
        if (!next || !search::RecostChanged(problem, coster, start, &*next)) continue;
        SCOPED_TRACE(std::string("move ") + move->name());
        const search::StageRange range = search::ChangedStages(start, *next);
        const size_t na = next->stages.size(), nb = start.stages.size();
        ASSERT_LE(range.first, range.last);
        ASSERT_LE(range.last, na);
        for (size_t s = 0; s < range.first; ++s) {
          EXPECT_EQ(next->stages[s].plan, start.stages[s].plan);
          EXPECT_EQ(next->stages[s].retained, start.stages[s].retained);
        }
        for (size_t back = 0; range.last + 1 + back < na; ++back) {
          EXPECT_EQ(next->stages[na - 1 - back].plan, start.stages[nb - 1 - back].plan);
          EXPECT_EQ(next->stages[na - 1 - back].retained, start.stages[nb - 1 - back].retained);
        }
        // Every subset is an option where a boundary offers at most kMaxSubsetTensors (3)
        // tensors; a merge can make a stage that offers more, where the program is a heuristic
        // and only the brute force's minimum bounds it.
        size_t most = 0, bits = 0;
        for (size_t s = range.first; s < range.last; ++s) {
          most = std::max(most, Retainable(*next, s).size());
          bits += Retainable(*next, s).size();
        }
        if (bits > 12) continue;
        const double before = next->total;
        const double best = BestOverEveryRetention(problem, coster, *next, range.first, range.last);
        const bool fell = search::OptimizeChangedRetention(problem, coster, start, &*next);
        ExpectJudgedEqual(problem, coster, *next, modes);
        EXPECT_LE(next->total, before * (1 + 1e-12));
        EXPECT_EQ(fell, next->total < before * (1 - 1e-9));
        EXPECT_GE(next->total, best * (1 - 1e-9));
        if (most <= 3) {
          EXPECT_NEAR(next->total, best, 1e-9 * best);
          ++exact;
        }
        ++moves;
        improved += fell;
      }
    }
  });
  std::printf("changed retention: %d moves, %d exact, %d improved\n", moves, exact, improved);
  EXPECT_GT(moves, 300);
  EXPECT_GT(exact, moves / 2);
  EXPECT_GT(improved, moves / 50);  // the moves leave retention that matters
}

// ChangeIsConsistent (search/draft.h) decides from a move's changed stages what
// DraftIsConsistent decides from the whole draft. Compared on every annealing move and on
// changes no move makes (a stage dropped, moved elsewhere, repeated later, a produced tensor
// retained or released), from valid drafts of random problems of 4-16 ops.
TEST(Retention, TheCheckOfAChangeAgreesWithTheWholeScan) {
  int valid = 0, invalid = 0;
  std::mt19937_64 rng(11);
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    testing::RandomProblemOptions options;
    options.min_ops = 4;
    options.max_ops = 16;
    const Problem problem = testing::RandomProblem(seed, options);
    const CostModel model(problem, {});
    search::ModelCoster coster(model);
    search::PlanCache plans(problem);
    auto singles = search::SingletonDraft(problem, plans, coster);
    if (!singles.ok()) continue;
    for (const search::Draft& start : {*singles, PairedDraft(problem, plans, coster, *singles)}) {
      ASSERT_TRUE(search::DraftIsConsistent(problem, start));
      auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
      for (int attempt = 0; attempt < 60; ++attempt) {
        search::Draft after = start;
        const size_t n = start.stages.size(), s = pick(n);
        const int kind = static_cast<int>(pick(12));
        if (kind < 7) {  // an annealing move
          search::Rng move_rng(rng());
          if (!search::AllMoves()[static_cast<size_t>(kind)]->ApplyInto(start, problem, plans, move_rng, &after)) {
            continue;
          }
        } else if (kind == 7) {
          if (n < 2) continue;
          after.stages.erase(after.stages.begin() + static_cast<long>(s));
        } else if (kind == 8) {
          const search::Stage moved = after.stages[s];
          after.stages.erase(after.stages.begin() + static_cast<long>(s));
          after.stages.insert(after.stages.begin() + static_cast<long>(pick(n)), moved);
        } else if (kind == 9) {
          const search::Stage repeated = after.stages[s];
          after.stages.insert(after.stages.begin() + static_cast<long>(s + pick(n - s) + 1), repeated);
        } else {
          const std::vector<int>& produced = after.stages[s].plan->produced();
          const int t = produced[pick(produced.size())];
          std::vector<int>& kept = after.stages[s].retained;
          auto it = std::lower_bound(kept.begin(), kept.end(), t);
          if (it != kept.end() && *it == t) {
            kept.erase(it);
          } else {
            kept.insert(it, t);
          }
        }
        const bool expected = search::DraftIsConsistent(problem, after);
        const bool got = search::ChangeIsConsistent(problem, start, after, search::MatchEnds(start, after));
        ASSERT_EQ(got, expected) << "seed " << seed << ", change " << kind << " at stage " << s
                                 << "\nproblem: " << ProblemToJson(problem);
        ++(expected ? valid : invalid);
      }
    }
  }
  std::printf("change checks: %d valid, %d invalid\n", valid, invalid);
  EXPECT_GT(valid, 1000);
  EXPECT_GT(invalid, 1000);
}

// The program's options see only the next stage (RetentionStaysValid), so after a recomputation
// it can offer to retain, and so not write, a tensor that a later stage reads again: here P's t,
// read by Q right after P once a swap brings them together, and again by the stage that
// recomputes Q. Neither OptimizeChangedRetention nor OptimizeRetention (over the changed stages
// or the whole chain) may take that choice.
TEST(Retention, AChoiceThatALaterStageContradictsIsNotTaken) {
  testing::ProblemBuilder b(/*capacity=*/1 << 20, /*bandwidth=*/10);
  auto t = [&] { return b.Tensor(128, 128); };
  const int x = t(), tt = t(), u = t(), v = t(), y = t(), z = t();
  const int p = b.Pointwise({x}, tt, 100);  // op 0
  const int q = b.Pointwise({tt}, u, 100);  // op 1
  const int r = b.Pointwise({u}, v, 100);   // op 2
  const int s = b.Pointwise({y}, z, 100);   // op 3, unrelated
  const Problem problem = b.Build();
  const CostModel model(problem, {});
  search::ModelCoster coster(model);
  search::PlanCache plans(problem);
  auto stage = [&](std::vector<int> ops) { return search::Stage{plans.Get(ops), {}, {}}; };
  search::Draft before;
  before.stages = {stage({p}), stage({s}), stage({q}), stage({q, r})};
  ASSERT_TRUE(search::RecostDraft(problem, coster, &before));
  search::Draft after = before;
  std::swap(after.stages[1], after.stages[2]);  // {p}, {q}, {s}, {q, r}
  ASSERT_TRUE(search::RecostChanged(problem, coster, before, &after));
  // The temptation: retaining t at P -> Q saves its store and Q's load, and leaves the last
  // stage without t.
  const std::vector<int> keep_t = {tt};
  const auto p_keeps = coster.Configure(*after.stages[0].plan, keep_t, {});
  const auto q_reads = coster.Configure(*after.stages[1].plan, after.stages[1].retained, keep_t);
  ASSERT_TRUE(p_keeps && q_reads);
  EXPECT_LT(p_keeps->latency + q_reads->latency,
            after.stages[0].choice.latency + after.stages[1].choice.latency);
  search::Draft tempting = after;
  tempting.stages[0].retained = keep_t;
  EXPECT_FALSE(search::DraftIsConsistent(problem, tempting));
  // Guarded, the draft stays as it was and valid, whichever entry point runs the program.
  const search::Draft was = after;
  auto expect_unchanged = [&](const search::Draft& draft, const char* entry) {
    EXPECT_TRUE(search::DraftIsConsistent(problem, draft)) << entry;
    EXPECT_EQ(draft.total, was.total) << entry;
    for (size_t i = 0; i < draft.stages.size(); ++i) {
      EXPECT_EQ(draft.stages[i].retained, was.stages[i].retained) << entry << ", stage " << i;
      EXPECT_EQ(draft.stages[i].choice.latency, was.stages[i].choice.latency) << entry << ", stage " << i;
    }
    EXPECT_TRUE(Evaluate(problem, search::ToSchedule(draft), {}).ok()) << entry;
  };
  search::Draft changed = after;
  EXPECT_FALSE(search::OptimizeChangedRetention(problem, coster, before, &changed));
  expect_unchanged(changed, "OptimizeChangedRetention");
  search::Draft window = after;
  const search::StageRange range = search::ChangedStages(before, after);
  EXPECT_FALSE(search::OptimizeRetention(problem, coster, &window, range.first, range.last));
  expect_unchanged(window, "OptimizeRetention over the changed stages");
  search::Draft chain = after;
  EXPECT_FALSE(search::OptimizeRetention(problem, coster, &chain, 0, chain.stages.size()));
  expect_unchanged(chain, "OptimizeRetention over the whole chain");
}

}  // namespace
}  // namespace tilesched
