// Tier 2 on cores at a fixed lambda (CoreLpBound, docs/bounds.md "Cores", Lemma V6): below the
// brute-force optimum of random problems in the four contest modes, under every admissible cut
// and under the design's cuts, at lambda 0, 1/2 and 1; with no cut it is tier 2's LP over every
// column (never above Tier2Bound, whose columns carry extra bounds); a deliberately wrong cut set
// (every Pointwise output taken as glue) must overshoot some optimum, so the harness can fail.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bound_problems.h"
#include "brute_force.h"
#include "build_kind.h"
#include "context.h"
#include "core_lp.h"
#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

constexpr double kTolerance = 1e-9;
constexpr std::array<double, 3> kLambdas = {0.0, 0.5, 1.0};
constexpr int64_t kMaxTileConfigs = 100000;

std::vector<CostModes> ContestModes() {
  std::vector<CostModes> modes;
  for (const CostModes& m : testing::AllModes()) {
    if (m.rules == Rules::kContest) modes.push_back(m);
  }
  return modes;
}

search::CoreLpResult CoreLp(const Problem& problem, const CostModes& modes, const CoreSplit& split) {
  const search::Budget budget(0, nullptr);
  return search::CoreLpBound(problem, modes, split, budget, kLambdas, kMaxTileConfigs);
}

double Tier2(const Problem& problem, const CostModes& modes) {
  search::Tier2Options options;
  options.modes = modes;
  options.threads = 1;
  return search::Tier2Bound(problem, options).value;
}

int Count(const std::vector<int>& of) { return of.empty() ? 0 : *std::max_element(of.begin(), of.end()) + 1; }

TEST(CoreLp, BelowBruteForceOptimumOnRandomProblems) {
  const int wanted = testing::kInstrumentedBuild ? 8 : 120;
  struct Run {
    testing::BruteForceResult optimum;
    std::array<search::CoreLpResult, 2> core;  // every admissible cut, the design's cuts
    std::array<int, 2> cores;
    int components = 0;
    double tier2 = 0;
  };
  int64_t runs = 0, split_runs = 0, at_tier2 = 0, at_optimum = 0, pieces_priced = 0;
  double kept = 0;  // sum over split runs of (core LP - tier 1) / (tier 2 - tier 1), where tier 2 rises
  int64_t kept_runs = 0;
  // Seeds from 11,001: other problems than the other bound tests'.
  const int problems = testing::CheckRandomBoundProblems<Run>(
      11001, wanted, ContestModes(),
      [](const Problem& problem, const CostModes& m) {
        Run run;
        run.optimum = testing::BruteForceOptimum(problem, m, testing::AdmissibilityLimits());
        const std::array<CoreSplit, 2> splits = {Cores(problem, m, AdmissibleCuts(problem, m)),
                                                 Cores(problem, m, DesignCuts(problem, m))};
        for (size_t i = 0; i < 2; ++i) {
          run.core[i] = CoreLp(problem, m, splits[i]);
          run.cores[i] = splits[i].count;
        }
        run.components = Count(LinkComponents(problem, m));
        run.tier2 = Tier2(problem, m);
        return run;
      },
      [&](const Problem& problem, size_t mi, const Run& run) {
        ++runs;
        const double tier1 = ComputeLowerBounds(problem, ContestModes()[mi]).best();
        for (size_t i = 0; i < 2; ++i) {
          const search::CoreLpResult& core = run.core[i];
          SCOPED_TRACE(i == 0 ? "every admissible cut" : "the design's cuts");
          EXPECT_EQ(core.status, search::Tier2Status::kConverged) << search::CoreLpSummary(core);
          ASSERT_EQ(core.by_lambda.size(), kLambdas.size());
          for (size_t l = 0; l < kLambdas.size(); ++l) {
            ASSERT_LE(core.by_lambda[l], run.optimum.total * (1 + kTolerance))
                << "lambda " << kLambdas[l] << ": core LP " << core.by_lambda[l] << " exceeds the optimum "
                << run.optimum.total << "\nproblem: " << ProblemToJson(problem)
                << "\noptimum: " << SolutionToJson(run.optimum.schedule, {});
          }
          pieces_priced += core.pieces_priced;
        }
        const search::CoreLpResult& all = run.core[0];
        if (run.cores[0] > run.components) {
          ++split_runs;
          if (run.tier2 > tier1 * (1 + 1e-6)) {
            kept += std::clamp((all.value - tier1) / (run.tier2 - tier1), -1.0, 2.0);
            ++kept_runs;
          }
        }
        at_tier2 += all.value >= run.tier2 * (1 - 1e-6);
        at_optimum += all.value >= run.optimum.total * (1 - 1e-6);
      });
  std::printf("core LP: %d problems, %lld runs, %lld with more cores than link components; under every "
              "admissible cut at tier 2 in %lld, at the optimum in %lld; where tier 2 rises above tier 1 "
              "in a split run, the core LP keeps %.3f of the rise on average (%lld runs); %lld pieces priced\n",
              problems, static_cast<long long>(runs), static_cast<long long>(split_runs),
              static_cast<long long>(at_tier2), static_cast<long long>(at_optimum),
              kept_runs > 0 ? kept / static_cast<double>(kept_runs) : 0.0, static_cast<long long>(kept_runs),
              static_cast<long long>(pieces_priced));
  EXPECT_GE(problems, wanted);
  EXPECT_GT(split_runs, runs / 10);  // the cuts are exercised
  EXPECT_GT(pieces_priced, 0);
}

// No cut: the op sets are tier 2's, every column is listed, and none carries more than its
// context's own bound, so the value is never above tier 2's (which also uses Lemmas X5 and X9),
// and equal to it where those add nothing.
TEST(CoreLp, WithoutCutsItIsTier2sLp) {
  const int wanted = testing::kInstrumentedBuild ? 4 : 40;
  struct Run {
    testing::BruteForceResult optimum;
    search::CoreLpResult core;
    double tier2 = 0;
  };
  int64_t runs = 0, equal = 0;
  const int problems = testing::CheckRandomBoundProblems<Run>(
      12001, wanted, testing::AllModes(),
      [](const Problem& problem, const CostModes& m) {
        Run run;
        run.optimum = testing::BruteForceOptimum(problem, m, testing::AdmissibilityLimits());
        run.core = CoreLp(problem, m, Cores(problem, m, {}));
        run.tier2 = Tier2(problem, m);
        return run;
      },
      [&](const Problem& problem, size_t, const Run& run) {
        ++runs;
        EXPECT_EQ(run.core.piece_columns, 0);
        EXPECT_EQ(run.core.status, search::Tier2Status::kConverged);
        // Every lambda is the same LP here.
        for (double v : run.core.by_lambda) EXPECT_NEAR(v, run.core.value, 1e-6 * run.core.value);
        ASSERT_LE(run.core.value, run.tier2 * (1 + 1e-6)) << ProblemToJson(problem);
        ASSERT_LE(run.core.value, run.optimum.total * (1 + kTolerance)) << ProblemToJson(problem);
        equal += run.core.value >= run.tier2 * (1 - 1e-6);
      });
  std::printf("core LP without cuts: %d problems, %lld runs, equal to tier 2 in %lld\n", problems,
              static_cast<long long>(runs), static_cast<long long>(equal));
  EXPECT_GE(problems, wanted);
  EXPECT_GT(equal, runs / 2);
}

// A review's case: a Pointwise output read as LHS by two MatMuls of inner dimension 4 > native 2
// is external-shared; retained by [0], it is resident for both pieces of [1, 2], whose flow
// coefficients must then add up to at most 1 (a coefficient of 1 each makes the optimum's point
// infeasible and the LP overshoot). The optimum [0] retaining it, then [1, 2], is 400, and the LP
// meets it.
TEST(CoreLp, TwoPiecesReadOneResidentInput) {
  auto problem = ParseProblem(R"({"widths": [4, 4, 1, 1, 1, 1], "heights": [4, 4, 4, 4, 4, 4],
    "op_types": ["Pointwise", "MatMul", "MatMul"], "inputs": [[0], [1, 2], [1, 4]], "outputs": [[1], [3], [5]],
    "base_costs": [1, 1, 1], "fast_memory_capacity": 40, "slow_memory_bandwidth": 0.1,
    "native_granularity": [2, 2]})");
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  auto schedule = ParseSolution(R"({"subgraphs": [[0], [1, 2]], "granularities": [[2, 2, 1], [1, 2, 2]],
    "tensors_to_retain": [[1], []], "traversal_orders": [[0, 1, 3, 2], null]})");
  ASSERT_TRUE(schedule.ok()) << schedule.status().message();
  const CostModes m;
  auto evaluation = Evaluate(*problem, *schedule, m);
  ASSERT_TRUE(evaluation.ok()) << evaluation.status().message();
  EXPECT_DOUBLE_EQ(evaluation->total, 400.0);
  const CoreSplit split = Cores(*problem, m, AdmissibleCuts(*problem, m));
  EXPECT_EQ(split.cut[1], CutKind::kExternalShared);
  const search::CoreLpResult core = CoreLp(*problem, m, split);
  EXPECT_GT(core.piece_columns, 0);
  EXPECT_LE(core.value, 400.0 * (1 + kTolerance));
  EXPECT_GE(core.value, 400.0 * (1 - 1e-6));
}

// Every Pointwise output with a reader taken as glue, whatever its demanded region: pieces are
// then priced with regions they need not have, and some optimum must be overshot.
TEST(CoreLp, AWrongCutSetOvershoots) {
  int64_t runs = 0, above = 0;
  const CostModes m = ContestModes().front();
  for (uint64_t seed = 11001; seed < 11001 + 120 && above == 0; ++seed) {  // stops at the first overshoot
    const Problem problem = testing::RandomProblem(seed, testing::BoundProblemOptions(seed));
    const testing::BruteForceResult optimum = testing::BruteForceOptimum(problem, m, testing::AdmissibilityLimits());
    if (!optimum.found) continue;
    CoreSplit wrong;
    wrong.cut.assign(static_cast<size_t>(problem.num_tensors()), CutKind::kKept);
    for (int o = 0; o < problem.num_ops(); ++o) {
      if (problem.op(o).type == OpType::kPointwise) {
        wrong.cut[static_cast<size_t>(problem.op(o).output)] = CutKind::kGlue;
      }
    }
    ++runs;
    above += CoreLp(problem, m, wrong).value > optimum.total * (1 + 1e-6);
  }
  std::printf("wrong cuts: %lld problems, the optimum overshot in %lld\n", static_cast<long long>(runs),
              static_cast<long long>(above));
  EXPECT_GT(above, 0);
}

}  // namespace
}  // namespace tilesched
