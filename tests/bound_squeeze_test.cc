// The squeeze bound (docs/bounds.md, Lemmas R1-R4; src/bound/squeeze_bound.h): a hand-computed
// value on one block of benchmark 6, and the working-set limit it rests on checked against the
// evaluator. The brute-force family (a MatMul whose LHS is a produced tensor that fits alone but
// squeezes the tiles when resident), where the squeeze part is the largest part, is in
// tests/bound_families_test.cc (ResidentOperands).
#include <algorithm>

#include <gtest/gtest.h>

#include "squeeze_bound.h"
#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/lower_bound.h"

namespace tilesched {
namespace {

using bound::SqueezeLowerBound;
using testing::ProblemBuilder;
using testing::Sched;
using testing::Sg;

// One block of benchmark 6: MM0 = T0 (128x512) @ T1 (512x256) -> T2, PW1(T2) -> T3 (128x256),
// MM2 = T3 @ T4 (256x512) -> T5, PW3(T0, T5) -> T6 (128x512, the graph output); costs 2000, 300,
// 2000, 300; capacity 45000, bandwidth 15, native 128.
Problem Benchmark6Block() {
  ProblemBuilder b(/*capacity=*/45000, /*bandwidth=*/15);
  const int t0 = b.Tensor(128, 512), t1 = b.Tensor(512, 256), t2 = b.Tensor(128, 256), t3 = b.Tensor(128, 256);
  const int t4 = b.Tensor(256, 512), t5 = b.Tensor(128, 512), t6 = b.Tensor(128, 512);
  b.MatMul(t0, t1, t2, 2000);
  b.Pointwise({t2}, t3, 300);
  b.MatMul(t3, t4, t5, 2000);
  b.Pointwise({t0, t5}, t6, 300);
  return b.Build();
}

TEST(SqueezeBound, ResidentLhsSqueezesTheTileAsTheEvaluatorSays) {
  const Problem p = Benchmark6Block();
  // T3 retained by the first subgraph, MM2 and PW3 together: T3 in full, T0's 128 x w tile
  // slice, T4's k x w slice, two tile buffers (contest: MM2 is a split root that is not a
  // sink): 32768 + 128w + kw + 256w <= 45000 holds at w = 31, k = 8 and at no k for w = 32.
  auto at = [&](int64_t w, int64_t k) {
    return Evaluate(p, Sched({Sg({0, 1}, {64, 128, 16}, {3}), Sg({2, 3}, {w, 128, k})}), {});
  };
  EXPECT_TRUE(at(31, 8).ok()) << at(31, 8).status().message();
  EXPECT_FALSE(at(32, 1).ok());
  // 17 columns of one padded native tile each: MM2 computes 17 x 2000, PW3 17 x 300.
  ASSERT_TRUE(at(31, 8).ok());
  EXPECT_DOUBLE_EQ(at(31, 8)->subgraphs[1].cost.compute_time, /*17*(2000+300)=*/39100);
}

TEST(SqueezeBound, HandComputedOnABlockOfBenchmark6) {
  const Problem p = Benchmark6Block();
  // Classes (R4): PW1 -> MM2 is never fusable (contest rule 7b: T3 is 256 > 128 wide), so
  // {MM0, PW1} and {MM2, PW3} are never first together.
  // {MM0, PW1} at lambda = 0 (both memory-heavy): T0 streamed once per grid column (K = 512 >
  // 128), T1 once. PW1 stores T3 (2 columns), or retains it, and then MM0's step holds T3 in
  // full, T0's 128 x 1 slice, T1's 1 x w slice and MM0's accumulator: 32768 + 128 + 129w <=
  // 45000 gives w <= 93, 3 columns:
  // min((2 x 65536 + 131072 + 32768) / 15, (3 x 65536 + 131072) / 15) = 19660.8.
  const double first = std::min((2 * 65536 + 131072 + 32768) / 15.0, (3 * 65536 + 131072) / 15.0);
  EXPECT_NEAR(first, 19660.8, 1e-9);
  // {MM2, PW3} at lambda = 14/50 = 0.28, cases of MM2 (compute, memory):
  //   T3 loaded, PW3 apart (4 columns, T5 stored): (8000, (4 x 32768 + 131072 + 65536) / 15)
  //   T3 loaded, PW3 joins (w <= 117: 5 columns):  (10000, (5 x 32768 + 131072) / 15)
  //   T3 resident, PW3 apart (w <= 94: 6 columns): (12000, (131072 + 65536) / 15)
  //   T3 resident, PW3 joins (w <= 31: 17 columns): (34000, 131072 / 15)
  const double l = 0.28;
  auto v = [&](double c, double elements) { return l * c + (1 - l) * elements / 15; };
  const double chi = std::min({v(8000, 327680), v(10000, 294912), v(12000, 196608), v(34000, 131072)});
  const double joined = std::min(v(10000, 294912), v(34000, 131072));
  EXPECT_NEAR(chi, /*3360+9437.184=*/12797.184, 1e-6);
  EXPECT_NEAR(joined, /*9520+6291.456=*/15811.456, 1e-6);
  // PW3 (4 tiles, 1200 at w = 128): T0 loaded and T6 stored, and T5 either loaded or computed
  // inside at MM2's extra (R3): min(v(1200, 131072) + 15811.46 - 12797.18, v(1200, 196608)).
  const double pw3 = std::min(v(1200, 131072) + joined - chi, v(1200, 196608));
  EXPECT_NEAR(pw3, /*336+6291.456+3014.272=*/9641.728, 1e-6);
  const double expected = first + chi + pw3;  // 19660.8 + 22438.912
  EXPECT_NEAR(SqueezeLowerBound(p, {}), expected, 1e-9 * expected);
  EXPECT_NEAR(expected, 42099.712, 1e-6);
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  EXPECT_GT(bounds.squeeze, std::max({bounds.compute, bounds.io, bounds.traffic, bounds.mixed, bounds.phase,
                                      bounds.capacity}));
  // The best schedule of benchmark 6's block: 19660.8 + 28398.9 (docs/bounds.md).
  auto best = Evaluate(p, Sched({Sg({0, 1}, {128, 128, 32}), Sg({2, 3}, {103, 128, 16})}), {});
  ASSERT_TRUE(best.ok()) << best.status().message();
  EXPECT_NEAR(best->total, 48059.73, 0.01);
  EXPECT_LE(bounds.best(), best->total);
}


}  // namespace
}  // namespace tilesched
