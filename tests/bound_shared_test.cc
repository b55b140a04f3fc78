// Lemmas S1-S3 of docs/bounds.md (the part `shared`: a graph input shared by MatMuls whose other
// operands crowd the fast memory): the least footprint-weighted load by hand; a small problem and
// benchmark 13 in miniature computed by hand and checked against the enumerator
// (src/bound/shared_inputs.h). The brute-force family (several MatMuls reading one graph input,
// their other operands produced tensors that fit alone but not two together), where the shared
// part must often be strictly the largest, is in tests/bound_families_test.cc (SharedWeights).
#include <algorithm>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "brute_force.h"
#include "mixed_bound.h"
#include "shared_inputs.h"
#include "test_util.h"
#include "tilesched/lower_bound.h"

namespace tilesched {
namespace {

using bound::FootprintGrid;
using bound::MinFootprintLoad;
using bound::SharedLowerBound;
using testing::AllModes;
using testing::ProblemBuilder;

TEST(MinFootprintLoad, TileTimesCountIsAtLeastTheExtent) {
  FootprintGrid grid;
  grid.grid_h = 128;
  grid.grid_w = 4096;
  grid.native_h = 128;
  grid.native_w = 128;
  grid.per_row = true;
  // A resident 128 x 4096 operand: the load counts R = ceil(128 / h') >= 1 rows.
  EXPECT_DOUBLE_EQ(MinFootprintLoad({{false, 524288, false, 1}}, grid), /*524288 x R=1=*/524288);
  // Its slice h' x 4096 (tile rows, full columns): h' x ceil(128 / h') >= 128, at h' = 128 or
  // any divisor of 128.
  EXPECT_DOUBLE_EQ(MinFootprintLoad({{true, 1, false, 4096}}, grid), /*128x4096=*/524288);
  // h' x 1 (a k-slice of one column at least): 128 again over the rows.
  EXPECT_DOUBLE_EQ(MinFootprintLoad({{true, 1, false, 1}}, grid), 128);
  // Not streamed by rows: the smallest tile, h' = 1.
  grid.per_row = false;
  EXPECT_DOUBLE_EQ(MinFootprintLoad({{true, 1, false, 4096}}, grid), 4096);
  // Both axes, a clipped grid: 5 x 7 over tiles of at most 2 x 2. Per axis the product
  // extent x count is 5 at h' = 1 (5 rows) and 6 at h' = 2 (3 rows): the minimum is 5 x 7.
  FootprintGrid small;
  small.grid_h = 5;
  small.grid_w = 7;
  small.native_h = 2;
  small.native_w = 2;
  small.per_row = true;
  small.per_col = true;
  EXPECT_DOUBLE_EQ(MinFootprintLoad({{true, 1, true, 1}}, small), /*5x7=*/35);
  // A constant term makes larger tiles cheaper: (10 + h'w') R C is least at 2 x 2 tiles:
  // (10 + 4) x 3 x 4 = 168 (1 x 1: 11 x 35 = 385; 2 x 1: 12 x 21 = 252; 1 x 2: 12 x 20 = 240).
  EXPECT_DOUBLE_EQ(MinFootprintLoad({{false, 10, false, 1}, {true, 1, true, 1}}, small), 168);
  // Unknown grid extents: h' = w' = 1 and no counts.
  EXPECT_DOUBLE_EQ(MinFootprintLoad({{true, 1, false, 6}}, FootprintGrid{}), 6);
  EXPECT_DOUBLE_EQ(MinFootprintLoad({}, small), 0);
}

// Two chains X_i (2 x 4) -> PW -> A_i (2 x 4) -> A_i @ W -> O_i (2 x 4, graph outputs), W (4 x 4)
// a graph input; native 2, capacity 12 (an A fits, two do not: 16 > 11), bandwidth 1, tiny
// costs. In units of elements:
//   - PW_i loads X_i once: 8.
//   - The MatMul has K = 4 > 2: two k-steps, A's (tile, slice) columns re-streamed per grid column
//     (C = ceil(4 / 2) = 2), W's (slice, tile) rows per grid row (R = 1 at h' = 2). W is split
//     (8 / 11 of the capacity beats the even share 1/2). A arrives
//       loaded: 2 x 8 + store 8, plus W's share of the footprint h' x 1 x R >= 2: 16 x 2/11;
//       resident: 0 plus 16 x 8/11 = 128/11;
//       computed inside (rules=algebra only: under contest rule 7b a Pointwise op with a
//       proportional dimension of 4 > native 2 cannot be fused): PW_i in role (tile, slice)
//       re-streams X_i twice (16) against its own 8: 8, plus the share of X_i's slice h' x 1:
//       16 x 2/11 = 32/11.
//   - Each O_i is written: 8.
// Total 2 x (8 + 128/11 + 8) = 32 + 256/11 = 55.27 (contest), 2 x (8 + 8 + 32/11 + 8) = 48 + 64/11
// = 53.82 (algebra); Lemma M7 alone gives each MatMul half of W and A resident: 2 x (8 + 8 + 8) = 48.
Problem TwoChains() {
  ProblemBuilder b(/*capacity=*/12, /*bandwidth=*/1, /*native=*/2);
  const int w = b.Tensor(4, 4);
  for (int i = 0; i < 2; ++i) {
    const int x = b.Tensor(2, 4), a = b.Tensor(2, 4), o = b.Tensor(2, 4);
    b.Pointwise({x}, a, 0.001);
    b.MatMul(a, w, o, 0.001);
  }
  return b.Build();
}

TEST(SharedLowerBound, HandComputedTwoChains) {
  const Problem p = TwoChains();
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  EXPECT_NEAR(bounds.traffic, /*2x(8+8+8)=*/48, 1e-9);
  EXPECT_NEAR(bounds.shared, /*32+256/11=*/55.272727273, 1e-6);
  EXPECT_NEAR(SharedLowerBound(p, {}), bounds.shared, 1e-12);
  CostModes algebra;
  algebra.rules = Rules::kAlgebra;
  EXPECT_NEAR(SharedLowerBound(p, algebra), /*48+64/11=*/53.818181818, 1e-6);
  for (const CostModes& m : AllModes()) {
    const testing::BruteForceResult optimum = testing::BruteForceOptimum(p, m);
    ASSERT_TRUE(optimum.error.empty()) << optimum.error;
    ASSERT_TRUE(optimum.found);
    EXPECT_LE(ComputeLowerBounds(p, m).best(), optimum.total * (1 + 1e-9)) << ModesString(m);
  }
}

// Benchmark 13 in miniature: two chains T_i (2 x 6) @ W0 (6 x 6) -> A_i @ W1 (6 x 6) -> B_i @ v_i
// (6 x 2), outputs summed; native 2, capacity 20 (an A_i of 12 fits, two do not). Lemma S3
// drops the first MatMul's role under the third (all 36 elements of W0 at once), Lemma S2 keeps
// W0 re-streamed in its role under the second, and S1 splits W1. The part must be the largest
// and stay below the enumerator's optimum in every mode. By hand (K = 6 > 2: three k-steps; W0
// is not split, its readers' other operands being graph inputs; W1 is, 12/19 > 1/2):
//   - first MatMul as a split root (grid 2 x 6): T_i re-streamed per grid column, 3 x 12 = 36,
//     plus half of W0 once, 18: 54 (under the second MatMul: T_i once 12 + W0 re-streamed
//     3 x 18 = 66 by S2; under the third: impossible by S3; without them both would be 12 + 18);
//   - second MatMul, A_i resident: 36 x 12/19 = 432/19 (as a root, W1 once per grid row, R = 1
//     at h' = 2; under the third MatMul, per tile, R = C = 1 at the 2 x 2 tile); loaded or
//     computed inside costs more (48 + 36 x 2/19, and 66 - 54 + 36 x 12/19);
//   - third MatMul: v_i once, 12 (B_i resident); the sum: its output, 4, written.
// 2 x (54 + 432/19 + 12) + 4 = 3448/19 = 181.47; the other parts give 124.
TEST(SharedLowerBound, BenchmarkThirteenInMiniature) {
  ProblemBuilder b(/*capacity=*/20, /*bandwidth=*/1, /*native=*/2);
  const int w0 = b.Tensor(6, 6), w1 = b.Tensor(6, 6);
  std::vector<int> outs;
  for (int i = 0; i < 2; ++i) {
    const int t = b.Tensor(2, 6), a = b.Tensor(2, 6), bb = b.Tensor(2, 6), v = b.Tensor(6, 2), o = b.Tensor(2, 2);
    b.MatMul(t, w0, a, 1);
    b.MatMul(a, w1, bb, 1);
    b.MatMul(bb, v, o, 1);
    outs.push_back(o);
  }
  b.Pointwise({outs[0], outs[1]}, b.Tensor(2, 2), 0.1);
  const Problem p = b.Build();
  for (const CostModes& m : AllModes()) {
    const LowerBounds bounds = ComputeLowerBounds(p, m);
    const testing::BruteForceResult optimum = testing::BruteForceOptimum(p, m);
    ASSERT_TRUE(optimum.error.empty()) << optimum.error;
    ASSERT_TRUE(optimum.found);
    std::printf("miniature benchmark 13, %s: shared %.4f, others %.4f, optimum %.4f\n", ModesString(m).c_str(),
                bounds.shared,
                std::max({bounds.compute, bounds.io, bounds.traffic, bounds.mixed, bounds.phase, bounds.capacity}),
                optimum.total);
    EXPECT_LE(bounds.best(), optimum.total * (1 + 1e-9)) << ModesString(m);
    if (m.k_limit == KLimit::kNative) {
      EXPECT_NEAR(bounds.shared, /*2x(54+432/19+12)+4=*/181.473684211, 1e-6) << ModesString(m);
    }
  }
}


}  // namespace
}  // namespace tilesched
