// Lemma K3 of docs/bounds.md (strip reuse of a one-step split root, src/bound/strip_charge.h):
// hand-computed charges, the charge against the evaluator's loads over every traversal order of
// small grids (and many random orders of larger ones), and Lemmas L1-L2 (the part `coupled`) by
// hand. The brute-force families of one-step split roots whose both strips fit next to a tile only
// when the tile is small (the capacity part, K1-K3, and with heavy compute the coupled part
// strictly the largest) are in tests/bound_families_test.cc (OneStepRoots, PaddedTiles).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "build_kind.h"
#include "strip_charge.h"
#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/lower_bound.h"

namespace tilesched {
namespace {

using bound::LeastStripCharge;
using bound::StripCharge;
using testing::ProblemBuilder;
using testing::Sched;
using testing::Sg;

TEST(StripCharge, HandComputed) {
  // 4 x 4 output, 2 x 2 tiles (R = C = 2), both operands 16 elements: each row strip and each
  // column strip is worth 8; the moves can save 3 of the 4 members {8, 8 (rows), 8, 8 (cols)}:
  // 16 + 16 + 1 x 8.
  EXPECT_DOUBLE_EQ(StripCharge(4, 4, 2, 2, 16, 16), /*16+16+8=*/40);
  // 5 x 4 output (rows 2, 2, 1; R = 3, C = 2), LHS 5 x 4 = 20 (4 per row), RHS 4 x 4 = 16 (4
  // per column). Members: rows 0-1 once each (8, 8), the last row once (4), each column twice
  // (8, 8, 8, 8). (R - 1)(C - 1) = 2 stay unsaved: the cheapest, 4 + 8.
  EXPECT_DOUBLE_EQ(StripCharge(5, 4, 2, 2, 20, 16), /*20+16+4+8=*/48);
  // One grid row: every move stays in the row, only the LHS is saved: each loaded once.
  EXPECT_DOUBLE_EQ(StripCharge(2, 6, 2, 2, 12, 24), /*12+24=*/36);
  // LeastStripCharge: widths 1..2 at height 2 of the 4 x 4 case: w = 2 gives 40, w = 1
  // (C = 4) leaves 3 members of 8 (rows) or 4 (cols) unsaved: 16 + 16 + 3 x 4 = 44.
  EXPECT_DOUBLE_EQ(LeastStripCharge(4, 4, 2, 2, 16, 16, /*tile_cost=*/0, 1e9), 40);
  EXPECT_DOUBLE_EQ(StripCharge(4, 4, 2, 1, 16, 16), /*16+16+12=*/44);
  EXPECT_DOUBLE_EQ(LeastStripCharge(4, 4, 2, 2, 16, 16, /*tile_cost=*/0, /*cutoff=*/30), 30);
  // With 3 per tile: w = 2 (4 tiles) 40 + 12, w = 1 (8 tiles) 44 + 24.
  EXPECT_DOUBLE_EQ(LeastStripCharge(4, 4, 2, 2, 16, 16, /*tile_cost=*/3, 1e9), /*40+4*3=*/52);
}

// Every permutation of 0..n-1 (n <= 6), or `random` random ones plus the four named orders.
std::vector<std::vector<int64_t>> Orders(int64_t rows, int64_t cols, int random, std::mt19937_64& rng) {
  const int64_t n = rows * cols;
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::vector<int64_t>> orders;
  if (n <= 6) {
    do orders.push_back(order);
    while (std::next_permutation(order.begin(), order.end()));
    return orders;
  }
  orders.push_back(order);  // raster
  std::vector<int64_t> column_major, row_snake, column_snake;
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t r = 0; r < rows; ++r) {
      column_major.push_back(r * cols + c);
      column_snake.push_back((c % 2 == 0 ? r : rows - 1 - r) * cols + c);
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) row_snake.push_back(r * cols + (r % 2 == 0 ? c : cols - 1 - c));
  }
  orders.push_back(column_major);
  orders.push_back(row_snake);
  orders.push_back(column_snake);
  for (int i = 0; i < random; ++i) {
    std::shuffle(order.begin(), order.end(), rng);
    orders.push_back(order);
  }
  return orders;
}

// The evaluator's loads of one subgraph holding `ops` at tile h x w with k = K (one k-step),
// minimized over the orders, against the sum of the roots' K3 charges. `roots` readers of one
// LHS A (H x K) each with its own RHS, so A's charge is split among them (Lemma K2).
TEST(StripCharge, NeverAboveTheEvaluatorInAnyOrder) {
  std::mt19937_64 rng(7);
  int checked = 0, tight = 0;
  for (int trial = 0; trial < (testing::kInstrumentedBuild ? 40 : 300); ++trial) {
    const int64_t native = 2 + static_cast<int64_t>(rng() % 3);
    const int64_t height = 1 + static_cast<int64_t>(rng() % (3 * native));
    const int64_t width = 1 + static_cast<int64_t>(rng() % (3 * native));
    const int64_t k = 1 + static_cast<int64_t>(rng() % native);
    const int roots = 1 + static_cast<int>(rng() % 2);
    ProblemBuilder b(/*capacity=*/1 << 20, /*bandwidth=*/1, native);
    const int a = b.Tensor(height, k);
    std::vector<int> ops;
    for (int i = 0; i < roots; ++i) {
      const int rhs = b.Tensor(k, width), out = b.Tensor(height, width);
      ops.push_back(b.MatMul(a, rhs, out, /*cost=*/0));
    }
    const Problem p = b.Build();
    const int64_t h = 1 + static_cast<int64_t>(rng() % std::min(native, height));
    const int64_t w = 1 + static_cast<int64_t>(rng() % std::min(native, width));
    const int64_t rows = (height + h - 1) / h, cols = (width + w - 1) / w;
    const double bound = roots * StripCharge(height, width, h, w, static_cast<double>(height * k) / roots,
                                             static_cast<double>(k * width));
    int64_t least = -1;
    for (const auto& order : Orders(rows, cols, /*random=*/200, rng)) {
      auto e = Evaluate(p, Sched({Sg(ops, {w, h, k}, {}, order)}), {});
      ASSERT_TRUE(e.ok()) << e.status().message();
      const int64_t loaded = e->subgraphs[0].cost.loaded;
      ASSERT_LE(bound, static_cast<double>(loaded) * (1 + 1e-12))
          << "grid " << height << "x" << width << " tile " << h << "x" << w << " K " << k << " roots " << roots;
      least = least < 0 ? loaded : std::min(least, loaded);
      ++checked;
    }
    tight += static_cast<double>(least) <= bound * (1 + 1e-12);
  }
  std::printf("strip charge: %d orders evaluated, the bound met by the cheapest order in %d of the grids\n", checked,
              tight);
}


// A (4 x 2) @ B (2 x 4) -> O (4 x 4, written), K = 2 = native 2, base cost 10, capacity 11,
// bandwidth 1. A 2 x 2 tile holds both whole-K strips only with 2x2 + 2x2 + 4 = 12 elements, so
// the tiles are: k = 1 at 2 x 2 (4 tiles, A and B streamed twice: 16 + 16 = 32 loads), or one
// step at 1 x 2 or 2 x 1 (8 tiles; K3: 8 + 8 plus the three cheapest of the members, 2 each:
// 22 loads). Stores: 16. Traffic alone: 22 + 16 = 38; the capacity part's mixed roofline takes
// the op's compute, 10 x 2 x 2 native tiles = 40, instead. At lambda, a step costs
// at least lambda compute + (1 - lambda) memory: one step tiles (1 - lambda)(22 + 16) +
// lambda x 8 x 10 = 38 + 42 lambda, k = 1 tiles (1 - lambda)(32 + 16) + lambda x 4 x 10 =
// 48 - 8 lambda; the least of the two is largest at lambda = 0.2: 46.4.
TEST(CoupledLowerBound, HandComputedPaddedTiles) {
  ProblemBuilder b(/*capacity=*/11, /*bandwidth=*/1, /*native=*/2);
  const int a = b.Tensor(4, 2), rhs = b.Tensor(2, 4), out = b.Tensor(4, 4);
  b.MatMul(a, rhs, out, 10);
  const Problem p = b.Build();
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  EXPECT_NEAR(bounds.capacity, /*max(22+16, 40)=*/40, 1e-9);
  EXPECT_NEAR(bounds.compute, /*10*2*2=*/40, 1e-9);
  EXPECT_NEAR(bounds.coupled, /*0.8*38+0.2*80=*/46.4, 1e-9);
  EXPECT_NEAR(bounds.best(), 46.4, 1e-9);
  // 2 x 2 tiles, k = 1: per tile a step of compute 10 x 1/2 = 5 against 4 loads, and a last
  // step of 5 against 4 loads + 4 stored: 5 + 8 = 13, four tiles 52.
  auto e = Evaluate(p, Sched({Sg({0}, {2, 2, 1})}), {});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_NEAR(e->total, /*4*(5+8)=*/52, 1e-9);
}

// Lemma L2: the problem above plus PW(V) -> U, V and U 2 x 8, base cost 1: a grid of another
// shape, so its own class. That class is memory-bound: at lambda = 0 it costs 16 + 16 = 32
// (at lambda, (1 - lambda) 32 + lambda x 4 native tiles x 1); the first class at lambda = 0.2
// costs 46.4 as above: 78.4. One lambda for both is at most 72.8 (0.2: 46.4 + 0.8 x 32 + 0.8).
TEST(CoupledLowerBound, HandComputedGridClasses) {
  ProblemBuilder b(/*capacity=*/11, /*bandwidth=*/1, /*native=*/2);
  const int a = b.Tensor(4, 2), rhs = b.Tensor(2, 4), out = b.Tensor(4, 4);
  b.MatMul(a, rhs, out, 10);
  const int v = b.Tensor(2, 8), u = b.Tensor(2, 8);
  b.Pointwise({v}, u, 1);
  const Problem p = b.Build();
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  EXPECT_NEAR(bounds.capacity, /*40+32=*/72, 1e-9);
  EXPECT_NEAR(bounds.coupled, /*46.4+32=*/78.4, 1e-9);
  auto e = Evaluate(p, Sched({Sg({0}, {2, 2, 1}), Sg({1}, {2, 2, 1})}), {});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_NEAR(e->total, /*52+4*(4+4)=*/84, 1e-9);
}

// Benchmark 5's first branch alone: X (1024 x 128) @ W (128 x 512), its Pointwise epilogue,
// capacity 30000, bandwidth 15. Every tile whose whole-K step fits (128 h + 128 w + h w <=
// 30000) re-loads a strip at every move; the least charge over those tiles is at h = 53,
// w = 128: R = 20 (19 rows of 53, one of 17), C = 4. Members: each full row strip 53 x 128 =
// 6784 (three times each), the last row 17 x 128 = 2176 (3 times), each column strip
// 128 x 128 = 16384 (19 times each). The 19 x 3 = 57 unsaved: 3 x 2176 + 54 x 6784.
// Computed inside its epilogue, the MatMul is a split root whose output is not a sink, so under
// contest it keeps its own accumulator beside the sink's (Lemma J1, k = 1: 2 h w), and the
// whole-K step fits at most h = 35 with w = 128 (4480 + 16384 + 8960 = 29824): R = 30 (29 rows
// of 35, one of 9), C = 4, the 29 x 3 = 87 unsaved 3 x 1152 + 84 x 4480.
TEST(StripLowerBound, BenchmarkFiveBranch) {
  ProblemBuilder b(/*capacity=*/30000, /*bandwidth=*/15);
  const int x = b.Tensor(1024, 128), w = b.Tensor(128, 512), y = b.Tensor(1024, 512), z = b.Tensor(1024, 512);
  b.MatMul(x, w, y, 1000);
  b.Pointwise({y}, z, 200);
  const Problem p = b.Build();
  EXPECT_DOUBLE_EQ(StripCharge(1024, 512, 53, 128, 131072, 65536),
                   /*131072+65536+3*2176+54*6784=*/569472);
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  // Traffic: X and W once, Z written: (131072 + 65536 + 524288) / 15 = 48059.73.
  EXPECT_NEAR(bounds.traffic, 48059.733333, 1e-5);
  // Capacity: the strips over every fitting tile (k < K at a 128 x 128 tile costs X 4 times and
  // W 8 times, more), and Z written: (569472 + 524288) / 15 = 72917.33; with the epilogue's
  // second buffer (J1), (131072 + 65536 + 3 * 1152 + 84 * 4480 + 524288) / 15 = 73378.13.
  EXPECT_NEAR(bounds.capacity, /*(576384+524288)/15=*/73378.133333, 1e-5);
  // The best schedule found (one subgraph, 128 x 114 tiles, k = 2: X 4 times, W 9 times).
  auto e = Evaluate(p, Sched({Sg({0, 1}, {128, 114, 2})}), {});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_NEAR(e->total, /*(4*131072+9*65536+524288)/15=*/109226.666667, 1e-5);
  EXPECT_LE(bounds.best(), e->total);
}

}  // namespace
}  // namespace tilesched
