// Tier 2 by link components (SplitTier2Bound, Lemmas W1-W3; review notes in the branch's
// closing note): below the brute-force optimum on random problems in all 8 modes, and tight on
// SPEC E4 under contest rules, where dropping either relaxation of W2 would give 11,468.8 above
// the valid 8,192.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "bound_problems.h"
#include "brute_force.h"
#include "build_kind.h"
#include "random_problem.h"
#include "spec_problems.h"
#include "test_util.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

constexpr double kTolerance = 1e-9;

search::SplitTier2Result Split(const Problem& problem, const CostModes& modes) {
  search::Tier2Options options;
  options.modes = modes;
  options.threads = 1;
  return search::SplitTier2Bound(problem, options);
}

int Components(const Problem& problem, const CostModes& modes) {
  const std::vector<int> of = LinkComponents(problem, modes);
  return of.empty() ? 0 : *std::max_element(of.begin(), of.end()) + 1;
}

TEST(SplitTier2, TightOnSpecE4UnderContestRules) {
  const Problem problem = testing::spec::E4();
  for (const CostModes& modes : testing::AllModes()) {
    if (modes.rules != Rules::kContest) continue;
    SCOPED_TRACE(ModesString(modes));
    EXPECT_EQ(Components(problem, modes), 2);
    const testing::BruteForceResult optimum = testing::BruteForceOptimum(problem, modes);
    ASSERT_TRUE(optimum.found) << optimum.error;
    EXPECT_NEAR(optimum.total, 8192, 1e-6);
    const search::SplitTier2Result split = Split(problem, modes);
    EXPECT_EQ(split.components, 2);
    EXPECT_LE(split.value, optimum.total * (1 + kTolerance));
    EXPECT_GE(split.value, 8192 * (1 - 1e-6));  // both relaxations in: exactly the optimum
  }
}

// Lemma W3: a component above tier 2's reach (64 ops) counts at its floor, the larger of its
// ops' compute and the graph inputs and outputs it moves, reported a relative 1e-9 low.
// Benchmark 17 is one component of 103 ops; its golden schedule (4,966,400) is optimal.
TEST(SplitTier2, LargeComponentCountsAtItsFloor) {
  auto problem = LoadProblem(std::string(TILESCHED_SOURCE_DIR) + "/data/benchmarks/mlsys-2026-17.json");
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  const CostModes modes;
  const search::SplitTier2Result split = Split(*problem, modes);
  EXPECT_EQ(split.components, 1);
  EXPECT_EQ(split.largest, 103);
  EXPECT_EQ(split.converged, 0);
  EXPECT_EQ(split.status, search::Tier2Status::kTooManyOps);
  const LowerBounds tier1 = ComputeLowerBounds(*problem, modes);
  EXPECT_GE(split.value, tier1.io * (1 - 2e-9));  // every graph input and output moves once
  EXPECT_LE(split.value, tier1.simple());        // the compute part pads tiles; the floor does not
  EXPECT_LE(split.value, 4966400.0);
  EXPECT_GT(split.value, 0);
}

TEST(SplitTier2, BelowBruteForceOptimumOnRandomProblems) {
  const int wanted = testing::kInstrumentedBuild ? 25 : 400;
  const std::vector<CostModes> modes = testing::AllModes();
  struct Run {
    testing::BruteForceResult optimum;
    search::SplitTier2Result split;
    int components = 0;
  };
  int64_t runs = 0, split_runs = 0, converged = 0, at_optimum = 0;
  // Seeds from 7,001: other problems than the tier-1 and tier-2 tests'.
  const int problems = testing::CheckRandomBoundProblems<Run>(
      7001, wanted, modes,
      [](const Problem& problem, const CostModes& m) {
        return Run{testing::BruteForceOptimum(problem, m, testing::AdmissibilityLimits()), Split(problem, m),
                   Components(problem, m)};
      },
      [&](const Problem& problem, size_t, const Run& run) {
        ++runs;
        split_runs += run.components >= 2;
        converged += run.split.status == search::Tier2Status::kConverged;
        EXPECT_EQ(run.split.components, run.components);
        ASSERT_LE(run.split.value, run.optimum.total * (1 + kTolerance))
            << "split tier 2 " << run.split.value << " exceeds the optimum " << run.optimum.total
            << "\nproblem: " << ProblemToJson(problem)
            << "\noptimum: " << SolutionToJson(run.optimum.schedule, {});
        if (run.split.value >= run.optimum.total * (1 - 1e-6)) ++at_optimum;
      });
  std::printf("split tier 2: %d problems, %lld runs, %lld with two link components or more, "
              "converged in %lld, equal to the optimum in %lld\n",
              problems, static_cast<long long>(runs), static_cast<long long>(split_runs),
              static_cast<long long>(converged), static_cast<long long>(at_optimum));
  EXPECT_GE(problems, wanted);
  EXPECT_EQ(converged, runs);
  // Worth something only where the problem splits.
  EXPECT_GT(split_runs, runs / 20);
}

}  // namespace
}  // namespace tilesched
