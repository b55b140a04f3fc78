// Lemmas K1-K2 of docs/bounds.md (capacity-aware charges, src/bound/capacity_charge.h): a
// hand-computed charge and a problem where the capacity part certifies the optimum. The family
// of random problems shaped for it (one graph input read by several split roots, tight fast
// memory) is checked against the enumerator in tests/bound_families_test.cc (SharedInputs).
#include <gtest/gtest.h>

#include "capacity_charge.h"
#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/lower_bound.h"

namespace tilesched {
namespace {

using testing::ProblemBuilder;
using testing::Sched;
using testing::Sg;

using testing::AllModes;

// A split root T0 (128x256) @ W (256x128), K = 256 > native 128 (both operands streamed),
// capacity 25000, T0's load shared by at most 9 split roots (K2). Each of n roots holds a tile
// buffer: n*h*w + h (T0's slice, k >= 1) + w (W's slice) <= 25000. With h = 128 (one row; W is
// re-streamed once per grid row, so fewer rows never pay), T0 is loaded once per grid column:
//   n=1: w=128, C=1: 32768 + 32768 = 65536;  n=3: 24576+128+64 fits w=64, C=2: 2/3*32768 + 32768;
//   n=6: w=32, C=4: 4/6*32768 + 32768 (the same); n=9: w=21, C=7: 7/9*32768 + 32768.
TEST(CapacityCharge, SplitRootsSharingAStreamedInput) {
  bound::CapContext ctx;
  ctx.grid_h = 128;
  ctx.grid_w = 128;
  ctx.native_h = 128;
  ctx.native_w = 128;
  ctx.capacity = 25000;
  bound::CapOperand lhs;
  lhs.rows = DimKind::kTile;
  lhs.cols = DimKind::kSlice;
  lhs.height = 128;
  lhs.width = 256;
  lhs.cols_stream = true;
  lhs.load = 32768;
  lhs.size = 32768;
  lhs.shared_readers = 9;
  bound::CapOperand rhs;
  rhs.rows = DimKind::kSlice;
  rhs.cols = DimKind::kTile;
  rhs.height = 256;
  rhs.width = 128;
  rhs.rows_stream = true;
  rhs.load = 32768;
  rhs.size = 32768;
  EXPECT_NEAR(bound::CapacityCharge(ctx, {lhs, rhs}), /*2/3*32768+32768=*/54613.333333, 1e-6);
  // Not shared (the old alpha = 1): one 128x128 tile fits, each operand is loaded once.
  lhs.shared_readers = 0;
  EXPECT_NEAR(bound::CapacityCharge(ctx, {lhs, rhs}), /*32768+32768=*/65536, 1e-9);
  // W resident instead is impossible (a graph input): a tile of 1 x 1 still needs T0's slice,
  // and a capacity below one element of each operand and the tile fits nothing.
  ctx.capacity = 2;
  EXPECT_LT(bound::CapacityCharge(ctx, {lhs, rhs}), 0);
}

// Three split roots T0 @ Wi -> Oi (graph outputs), as benchmark 8's first three MatMuls.
Problem ThreeReaders() {
  ProblemBuilder b(/*capacity=*/25000, /*bandwidth=*/1);
  const int t0 = b.Tensor(128, 256);
  for (int i = 0; i < 3; ++i) {
    const int w = b.Tensor(256, 128), out = b.Tensor(128, 128);
    b.MatMul(t0, w, out, 1);
  }
  return b.Build();
}

// Each root is charged 2/3 x 32768 (T0) + 32768 (its W), and the three outputs are written:
// 3 x 54613.33 + 3 x 16384 = 212992. The schedule [[0,1,2]] with 64-wide, 128-high tiles and
// k = 1 (three tile buffers 3 x 8192 + 128 + 3 x 64 = 24896 <= 25000) loads T0 twice, each W
// once and stores the outputs: 65536 + 98304 + 49152 = 212992, every step memory-bound. The
// capacity-blind traffic bound shares T0 among all three: 180224.
TEST(CapacityLowerBound, CertifiesThreeReadersOfOneInput) {
  const Problem p = ThreeReaders();
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  EXPECT_NEAR(bounds.traffic, /*32768+3*32768+3*16384=*/180224, 1e-6);
  EXPECT_NEAR(bounds.capacity, 212992, 1e-6);
  EXPECT_NEAR(bounds.best(), 212992, 1e-6);
  const Schedule schedule = Sched({Sg({0, 1, 2}, {64, 128, 1})});
  auto evaluation = Evaluate(p, schedule, {});
  ASSERT_TRUE(evaluation.ok()) << evaluation.status().message();
  EXPECT_NEAR(evaluation->total, 212992, 1e-6);
  // In every mode the bound stays at most this schedule's latency.
  for (const CostModes& m : AllModes()) {
    auto e = Evaluate(p, schedule, m);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_LE(ComputeLowerBounds(p, m).best(), e->total * (1 + 1e-9)) << ModesString(m);
  }
}


}  // namespace
}  // namespace tilesched
