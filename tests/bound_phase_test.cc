// The phase bound (docs/bounds.md, Lemmas P1-P6; src/bound/phase_bound.h): hand-computed values
// in each mode. The brute-force family of split MatMuls with heavy epilogues, where the phase
// part is the largest part of the bound, is in tests/bound_families_test.cc (SplitEpilogues).
#include <algorithm>

#include <gtest/gtest.h>

#include "phase_bound.h"
#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/lower_bound.h"

namespace tilesched {
namespace {

using bound::PhaseLowerBound;
using testing::ProblemBuilder;
using testing::Sched;
using testing::Sg;

// T0 (128x512) @ T1 (512x128) -> T2, PW(T2) -> T3 (128x128), costs 1000 and 5000, capacity
// 70000, bandwidth 10, native 128.
Problem SplitWithEpilogue() {
  ProblemBuilder b(/*capacity=*/70000, /*bandwidth=*/10);
  const int lhs = b.Tensor(128, 512), rhs = b.Tensor(512, 128), mid = b.Tensor(128, 128), out = b.Tensor(128, 128);
  b.MatMul(lhs, rhs, mid, 1000);
  b.Pointwise({mid}, out, 5000);
  return b.Build();
}

TEST(PhaseBound, HandComputedSplitRootWithEpilogue) {
  const Problem p = SplitWithEpilogue();
  // P3: K = 512 > 128, s = 4; T0 once per grid column (1), T1 once per grid row (1), 3/4 of
  // them before the last step: 3/4 x 131072 / 10. P2: the epilogue on last steps, 5000 x 1.
  EXPECT_DOUBLE_EQ(PhaseLowerBound(p, {}), /*9830.4+5000=*/14830.4);
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  EXPECT_DOUBLE_EQ(bounds.phase, 14830.4);
  // The mixed roofline can only pair the epilogue's compute with the MatMul's loads:
  // (131072 + 16384) / 10 = 14745.6. The phase part is the bound.
  EXPECT_DOUBLE_EQ(bounds.mixed, 14745.6);
  EXPECT_DOUBLE_EQ(bounds.best(), 14830.4);
  // One subgraph, k = 128: three steps of 32768 loads (3276.8 > 250), then 32768 loads + 16384
  // stored (4915.2) against 250 + 5000 compute: 3 x 3276.8 + 5250.
  const double total = [&] {
    auto evaluation = Evaluate(p, Sched({Sg({0, 1}, {128, 128, 128})}), {});
    EXPECT_TRUE(evaluation.ok()) << evaluation.status().message();
    return evaluation.ok() ? evaluation->total : -1;
  }();
  EXPECT_DOUBLE_EQ(total, 15080.4);
  EXPECT_LE(bounds.best(), total);
  // Algebra: the epilogue has no MatMul reader, so nothing changes.
  CostModes algebra;
  algebra.rules = Rules::kAlgebra;
  EXPECT_DOUBLE_EQ(PhaseLowerBound(p, algebra), 14830.4);
  // k_limit=reduction: K + 1 = 513 fits in 70000, no two steps are forced: the epilogue only.
  CostModes reduction;
  reduction.k_limit = KLimit::kReduction;
  EXPECT_DOUBLE_EQ(PhaseLowerBound(p, reduction), 5000);
}

TEST(PhaseBound, PrologueOnlyUnderContestRules) {
  // PW0(T0 128x512) -> T1, T1 @ T2 (512x128) -> T3, PW2(T3) -> T4: PW0 feeds the reduction axis.
  ProblemBuilder b(/*capacity=*/70000, /*bandwidth=*/10);
  const int t0 = b.Tensor(128, 512), t1 = b.Tensor(128, 512), t2 = b.Tensor(512, 128);
  const int t3 = b.Tensor(128, 128), t4 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 300);
  b.MatMul(t1, t2, t3, 1000);
  b.Pointwise({t3}, t4, 5000);
  const Problem p = b.Build();
  // Contest: PW0 cannot be a prologue (w >= 512 > 128, rule 7b), so it computes tiles on last
  // steps (300 x 4 tiles); T1 (65536 < capacity) may be resident, so only T2 is streamed:
  // 3/4 x 65536 / 10 = 4915.2; the epilogue 5000.
  EXPECT_DOUBLE_EQ(PhaseLowerBound(p, {}), 1200 + 4915.2 + 5000);
  // Algebra: PW0 may run as a prologue at every k-step (value 0), and may compute T1 inside
  // the MatMul's subgraph, so T1 is not streamed either; T2 still is.
  CostModes algebra;
  algebra.rules = Rules::kAlgebra;
  EXPECT_DOUBLE_EQ(PhaseLowerBound(p, algebra), 4915.2 + 5000);
}

TEST(PhaseBound, TileOnlyCoReaderAndMemoryRule) {
  // T0 (128x512) @ T1 (512x128) -> T2 (128x128) and PW1(T0) -> T3 (128x512), cost 1000 and 100.
  ProblemBuilder b(/*capacity=*/70000, /*bandwidth=*/10);
  const int t0 = b.Tensor(128, 512), t1 = b.Tensor(512, 128), t2 = b.Tensor(128, 128), t3 = b.Tensor(128, 512);
  b.MatMul(t0, t1, t2, 1000);
  b.Pointwise({t0}, t3, 100);
  const Problem p = b.Build();
  // Rule "last": T0 shares the MatMul with a tile-only reader, slices 1..2 of 4 (P4): 2/4 x
  // 65536; T1 alone, slices 0..2 (P3): 3/4 x 65536; PW1's 4 tiles x 100 (P2).
  const double last = (32768 + 49152) / 10.0 + 400;
  // Rule "memory" (P6): T0 slices 1..3 (1 - 128/512), T1 whole, the outputs T2 and T3.
  const double memory = (49152 + 65536 + 16384 + 65536) / 10.0;
  for (Rules rules : {Rules::kContest, Rules::kAlgebra}) {
    CostModes m;
    m.rules = rules;
    EXPECT_DOUBLE_EQ(PhaseLowerBound(p, m), std::max(last, memory));
  }
  EXPECT_DOUBLE_EQ(PhaseLowerBound(p, {}), 19660.8);
  // k_limit=reduction: 513 elements fit, no step is forced; only the outputs' stores remain.
  CostModes reduction;
  reduction.k_limit = KLimit::kReduction;
  EXPECT_DOUBLE_EQ(PhaseLowerBound(p, reduction), (16384 + 65536) / 10.0);
}


}  // namespace
}  // namespace tilesched
