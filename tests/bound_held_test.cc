// Lemmas H1 and M4' of docs/bounds.md ("Held tensors", src/bound/held_tensors.h): benchmark 8's
// head worked through by hand, and M4' on one charge. Random problems shaped like one head of
// benchmark 8 (projections X @ Wi with a streamed reduction, a Pointwise op, MatMuls reading two
// projections; each intermediate fits in fast memory, two never do) are checked against the
// enumerator in tests/bound_families_test.cc (Heads).
#include <gtest/gtest.h>

#include "capacity_charge.h"
#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/lower_bound.h"
#include "traffic_bound.h"

namespace tilesched {
namespace {

using testing::ProblemBuilder;
using testing::Sched;
using testing::Sg;

using testing::AllModes;

// One head of benchmark 8, alone: X (128 x 256) @ W1, W2 (256 x 128) -> Q, Kp; PW(Kp) -> Kt;
// Q @ Kt -> S (graph output); capacity 25000, bandwidth 12, native 128.
Problem OneHead() {
  ProblemBuilder b(/*capacity=*/25000, /*bandwidth=*/12);
  const int x = b.Tensor(128, 256), w1 = b.Tensor(256, 128), w2 = b.Tensor(256, 128);
  const int q = b.Tensor(128, 128), kp = b.Tensor(128, 128), kt = b.Tensor(128, 128), s = b.Tensor(128, 128);
  b.MatMul(x, w1, q, 1000);
  b.MatMul(x, w2, kp, 1000);
  b.Pointwise({kp}, kt, 100);
  b.MatMul(q, kt, s, 800);
  return b.Build();
}

TEST(HeldLowerBound, OneHeadOfBenchmark8) {
  const Problem p = OneHead();
  // In units u = 16384 elements (u / 12 = 1365.33). X is read by 2 projections (M7's alpha
  // 1/2), so each projection as a split root pays 2 x 1/2 (X once: one 128-wide column fits
  // next to one tile buffer) + 2 (its W): 3; computed inside the last MatMul it pays more
  // (W1 streamed per tile, or its X slices next to a held tensor). The last MatMul reads Q and
  // Kt, of which at most one is resident (2 x 16384 + 1 > 25000). Its cheapest way: Q resident
  // and Kt computed inside by the Pointwise op, which then cannot hold Kp (Lemma H1): Kp is
  // loaded (1, once: with 32-wide tiles the whole-K step fits in the 8,616 elements left) after
  // its store (1), or, the Pointwise op being recomputed there, its loads alone (1, Lemma M7's
  // min(excess, recomputed loads)); computing Kp inside too would put X's k x 256 slices and
  // W2's 256 x w next to Q: at least 5.45 more (Lemma M4'). Charge 1. Total 3 + 3 + 0 + 1,
  // plus the output S (1): 8 u. (The capacity part lets the Pointwise op hold Kp next to Q:
  // 7 u.)
  EXPECT_NEAR(bound::HeldLowerBound(p, {}), /*8*16384/12=*/10922.666666666666, 1e-6);
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  EXPECT_NEAR(bounds.held, 10922.666666666666, 1e-6);
  EXPECT_NEAR(bounds.capacity, /*7*16384/12=*/9557.333333333333, 1e-6);
  // Schedules: Q alone (X, W1: 4, Q stored: 1), Kp alone and retained (X, W2: 4), then the
  // Pointwise op and the MatMul with Kp resident, 64-wide tiles to fit next to it (Q loaded
  // once per grid column: 2, S stored: 1): 12 u = 16384; and both
  // projections in one subgraph (64-wide tiles: X twice, W1, W2, Q and Kp stored: 10), then
  // the rest (Q and Kp loaded, S stored: 3): 13 u. Every mode's bound stays below both.
  const std::vector<Schedule> schedules = {
      Sched({Sg({0}, {128, 128, 1}), Sg({1}, {128, 128, 1}, {4}), Sg({2, 3}, {64, 128, 1})}),
      Sched({Sg({0, 1}, {64, 128, 1}), Sg({2, 3}, {128, 128, 32})})};
  auto first = Evaluate(p, schedules[0], {});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_NEAR(first->total, /*12*16384/12=*/16384, 1e-6);
  for (const Schedule& schedule : schedules) {
    for (const CostModes& m : AllModes()) {
      auto e = Evaluate(p, schedule, m);
      ASSERT_TRUE(e.ok()) << ModesString(m) << ": " << e.status().message();
      EXPECT_LE(ComputeLowerBounds(p, m).best(), e->total * (1 + 1e-9)) << ModesString(m);
    }
  }
}

// Lemma M4' on its own: an inner projection's operands next to a held 128 x 128 tensor
// (capacity 25000 - 16384 = 8616), grid 128 x 128, native 128. X (128 x 256) is read in k-slice
// rows and full columns (may coincide: M4 would keep 1), its load shared by 9 (M7's alpha); W
// (256 x 128) in full rows and tile columns, loaded once. At tile height 128 a step holds
// k x 256 of X, 256 x w of W and the 128 x w tile: 256k + 384w <= 8616. Per k: C = ceil(128 / w)
// columns and X loaded C x (1 - 2k/128) times: k=1: w=21, 7 x 126/128 = 6.89; k=4: w=19,
// 7 x 120/128 = 6.5625; k=5: w=19, 7 x 118/128 = 6.453125; k=6: w=18, C=8, 7.25; k=9: w=16,
// 8 x 110/128 = 6.875; larger k only fewer columns' worth (k=32: w=1, 128 x 58/128); lower
// tiles give more tiles (h=64, k=5: w=22, 2 x 6 = 12). The whole-K step (32768) never fits.
TEST(HeldLowerBound, CoincidingSliceKeepsMostOfItsMultiplier) {
  bound::CapContext ctx;
  ctx.grid_h = 128;
  ctx.grid_w = 128;
  ctx.native_h = 128;
  ctx.native_w = 128;
  ctx.capacity = 25000 - 16384;
  ctx.k_max = 128;
  bound::CapOperand x;
  x.rows = DimKind::kSlice;
  x.cols = DimKind::kFull;
  x.height = 128;
  x.width = 256;
  x.rows_coincide = true;
  x.few_coincide = true;
  x.load = 32768.0 / 9;
  x.size = 32768;
  bound::CapOperand w;
  w.rows = DimKind::kFull;
  w.cols = DimKind::kTile;
  w.height = 256;
  w.width = 128;
  w.load = 32768;
  w.size = 32768;
  EXPECT_NEAR(bound::CapacityCharge(ctx, {x, w}), /*32768/9*6.453125+32768=*/32768.0 / 9 * 6.453125 + 32768, 1e-6);
  // Without Lemma M4' the coinciding slice keeps no multiplier: 32768/9 + 32768.
  x.few_coincide = false;
  EXPECT_NEAR(bound::CapacityCharge(ctx, {x, w}), 32768.0 / 9 + 32768, 1e-6);
}


}  // namespace
}  // namespace tilesched
