// Lemma M8 of docs/bounds.md (a resident operand and a retained output that cannot fit
// together): an attention head's tail worked through by hand, and random tails against the
// brute-force enumerator (tests/brute_force.h) in all eight modes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bound_problems.h"
#include "brute_force.h"
#include "build_kind.h"
#include "test_util.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "traffic_bound.h"

namespace tilesched {
namespace {

using testing::AllModes;
using testing::ProblemBuilder;

// testing::AttentionTail() (tests/bound_problems.h).
TEST(RetainedPairs, AttentionTailByHand) {
  // In units of s, default modes. Every MatMul is a split root with K = 512 > 128: four
  // k-steps, so its LHS is loaded once per grid column and its RHS once per grid row, 4 times
  // each (M3). Softmax feeds P @ V's reduction axis, longer than the native tile, so under
  // contest rule 7b it is never computed inside P @ V (M5). M7 alone: softmax loads S (1) and
  // retains P; P @ V takes P resident (0) and loads V (4); A @ Wo takes A resident (0), loads
  // Wo (4) and stores Y (1): 10. But P resident and A retained would share one fast memory
  // (2 s > 303,000). M8 on (P @ V, A @ Wo):
  //   (a) P @ V's first subgraph retains A, so P is not resident there: loaded (4) after its
  //       store (1). Extra 5.
  //   (b) A is not resident in A @ Wo's first subgraph: loaded (4) after its store (1), or
  //       P @ V computed inside (V streamed per tile there, 16, less P @ V's charge 4). Extra 5.
  //   (c) a later subgraph recomputes P @ V with A a retained sink: P @ V a split root there,
  //       loading P (read by P @ V alone) 4 times and V (read by P @ V alone) 4 times: 8.
  // Gain min(5, 5, 8) = 5: 15 s = 393,216, the optimum (test
  // Tier2.SeesThatAResidentInputAndARetainedOutputMustFitTogether runs the exact mode: softmax
  // stores P, P @ V loads P and V and retains A, A @ Wo loads Wo and stores Y).
  const Problem p = testing::AttentionTail();
  bound::TrafficBound traffic(p, {});
  EXPECT_DOUBLE_EQ(traffic.Run(), 15.0 * 262144);
  EXPECT_DOUBLE_EQ(traffic.PairGain(), 5.0 * 262144);
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  EXPECT_DOUBLE_EQ(bounds.traffic, 15.0 * 262144 / 10);
  EXPECT_DOUBLE_EQ(bounds.best(), 15.0 * 262144 / 10);
}

// The same tail without the capacity problem: with room for P and A together (capacity
// 600,000), no case of M8 exists and nothing is added.
TEST(RetainedPairs, NoGainWhenBothFit) {
  const Problem p = testing::AttentionTail(/*capacity=*/600000);
  bound::TrafficBound traffic(p, {});
  traffic.Run();
  EXPECT_EQ(traffic.PairGain(), 0);
}

// Random tails: P = PW(S) or X1 @ W1; V a graph input or X2 @ W2 (X2 sometimes X1); A = P @ V;
// Y = A @ Wo; sometimes a Pointwise op after Y, reading P too. Capacity between one r x r
// tensor and two; natives 2-3, so the enumerator's candidate sets stay small.
Problem RetainedTailProblem(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::vector<int64_t> values) { return values[rng() % values.size()]; };
  const testing::TinyHead h = testing::PickTinyHead(rng);
  const int64_t native = h.native, r = h.r, k = h.k;
  ProblemBuilder b(std::max<int64_t>(h.capacity, 4), h.bandwidth, native);
  int p = -1, x1 = -1;
  if (rng() % 2 == 0) {
    const int s = b.Tensor(r, r);
    p = b.Tensor(r, r);
    b.Pointwise({s}, p, static_cast<double>(pick({1, 3})));
  } else {
    x1 = b.Tensor(r, k);
    const int w1 = b.Tensor(k, r);
    p = b.Tensor(r, r);
    b.MatMul(x1, w1, p, static_cast<double>(pick({1, 2})));
  }
  int v = -1;
  if (rng() % 2 == 0) {
    v = b.Tensor(r, r);
  } else {
    const int x2 = x1 >= 0 && rng() % 2 == 0 ? x1 : b.Tensor(r, k);
    const int w2 = b.Tensor(k, r);
    v = b.Tensor(r, r);
    b.MatMul(x2, w2, v, 1);
  }
  const int a = b.Tensor(r, r);
  b.MatMul(p, v, a, static_cast<double>(pick({1, 2})));
  const int64_t cols = pick({r, native});
  const int wo = b.Tensor(r, cols), y = b.Tensor(r, cols);
  b.MatMul(a, wo, y, 1);
  if (cols == r && rng() % 3 == 0) {
    const int z = b.Tensor(r, r);
    b.Pointwise({y, p}, z, 1);
  }
  return b.Build();
}

TEST(RetainedPairs, BelowBruteForceOptimumOnRandomTails) {
  const int problems = testing::kInstrumentedBuild ? 8 : 200;
  testing::BruteForceLimits limits;
  limits.full_cost_calls = 10000;
  limits.max_cost_calls = 400000;
  int runs = 0, gained = 0, raised = 0, equal = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(problems); ++seed) {
    const Problem p = RetainedTailProblem(seed);
    for (const CostModes& m : AllModes()) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + ModesString(m));
      const testing::BruteForceResult optimum = testing::BruteForceOptimum(p, m, limits);
      ASSERT_TRUE(optimum.error.empty()) << optimum.error;
      if (!optimum.found) continue;
      ++runs;
      bound::TrafficBound traffic(p, m);
      traffic.Run();
      gained += traffic.PairGain() > 0;
      const LowerBounds bounds = ComputeLowerBounds(p, m);
      ASSERT_LE(bounds.best(), optimum.total * (1 + 1e-9))
          << "the bound is above the optimum\nproblem: " << ProblemToJson(p)
          << "\noptimum: " << SolutionToJson(optimum.schedule, {});
      // Every part that Lemma M8 adds to, one by one.
      for (const double part : {bounds.traffic, bounds.capacity, bounds.shared, bounds.held}) {
        ASSERT_LE(part, optimum.total * (1 + 1e-9)) << "a part is above the optimum\nproblem: " << ProblemToJson(p);
      }
      // Without the lemma's gain, would the traffic part be the bound? (How often M8 matters.)
      const double without = (traffic.Run() - traffic.PairGain()) / p.hardware().slow_memory_bandwidth;
      raised += traffic.PairGain() > 0 && bounds.traffic >= bounds.best() * (1 - 1e-9) &&
                without < bounds.best() * (1 - 1e-9);
      equal += bounds.best() >= optimum.total * (1 - 1e-9);
    }
  }
  std::printf("RetainedTails: %d problems, %d runs with a valid schedule, M8 adds to the traffic part in %d, "
              "sets the bound in %d; the bound equals the optimum in %d\n",
              problems, runs, gained, raised, equal);
  EXPECT_GT(runs, problems * 4);
  // The family exists to exercise the lemma.
  EXPECT_GE(gained, runs / 25);
  EXPECT_GT(raised, 0);
}

}  // namespace
}  // namespace tilesched
