// Lemma K3 of docs/bounds.md (strip reuse of a one-step split root): hand-computed charges,
// the charge against the evaluator's loads over every traversal order of small grids (and many
// random orders of larger ones), and a brute-force family of one-step split roots whose both
// strips fit next to a tile only when the tile is small, where the capacity part (K1-K3) is
// strictly the largest part, checked against the enumerator's optimum in all eight modes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "brute_force.h"
#include "build_kind.h"
#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/lower_bound_strip.h"

namespace tilesched {
namespace {

using testing::ProblemBuilder;
using testing::Sched;
using testing::Sg;

std::vector<CostModes> AllModes() {
  std::vector<CostModes> modes;
  for (Rules rules : {Rules::kContest, Rules::kAlgebra}) {
    for (MatmulReduction reduction : {MatmulReduction::kFullK, MatmulReduction::kNativeK}) {
      for (KLimit limit : {KLimit::kNative, KLimit::kReduction}) modes.push_back({rules, reduction, limit});
    }
  }
  return modes;
}

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
  EXPECT_DOUBLE_EQ(LeastStripCharge(4, 4, 2, 2, 16, 16, 1e9), 40);
  EXPECT_DOUBLE_EQ(StripCharge(4, 4, 2, 1, 16, 16), /*16+16+12=*/44);
  EXPECT_DOUBLE_EQ(LeastStripCharge(4, 4, 2, 2, 16, 16, /*cutoff=*/30), 30);
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

// One split root A (H x K) @ B (K x W) with K <= native (a one-step tile is allowed), output
// several natives in both directions, sometimes a Pointwise epilogue, a second root sharing A,
// or a Pointwise reader of A; fast memory too small for a native tile with both strips.
Problem OneStepRootProblem(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::vector<int64_t> values) { return values[rng() % values.size()]; };
  const int64_t native = pick({2, 3, 4});
  const int64_t k = pick({native - 1, native});
  const int64_t height = pick({native + 1, 2 * native, 2 * native + 1});
  const int64_t width = pick({native + 1, 2 * native});
  // A native tile with both whole-K strips needs 2 native K + native^2; leave room for less.
  const int64_t full = 2 * native * k + native * native;
  const int64_t capacity = pick({full - 1, full - native, 2 * k + native + 2, 3 * k + 2 * native});
  const double bandwidth = std::vector<double>{0.25, 1, 4}[rng() % 3];
  ProblemBuilder b(std::max<int64_t>(capacity, 2 * k + 2), bandwidth, native);
  const int a = b.Tensor(height, k);
  const int rhs = b.Tensor(k, width), out = b.Tensor(height, width);
  b.MatMul(a, rhs, out, static_cast<double>(pick({1, 2})));
  const int64_t variant = static_cast<int64_t>(rng() % 4);
  if (variant == 1) {
    const int done = b.Tensor(height, width);
    b.Pointwise({out}, done, 1);
  } else if (variant == 2) {
    const int rhs2 = b.Tensor(k, width), out2 = b.Tensor(height, width);
    b.MatMul(a, rhs2, out2, 1);
  } else if (variant == 3) {
    const int copy = b.Tensor(height, k);
    b.Pointwise({a}, copy, 1);
  }
  return b.Build();
}

TEST(StripLowerBound, BelowBruteForceOptimumOnOneStepRoots) {
  const int wanted = testing::kInstrumentedBuild ? 15 : 150;
  testing::BruteForceLimits limits;
  limits.full_cost_calls = 20000;
  limits.max_cost_calls = 400000;
  int runs = 0, exhaustive = 0, largest = 0, default_largest = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(wanted); ++seed) {
    const Problem p = OneStepRootProblem(seed);
    for (const CostModes& m : AllModes()) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + ModesString(m));
      const testing::BruteForceResult optimum = testing::BruteForceOptimum(p, m, limits);
      ASSERT_TRUE(optimum.error.empty()) << optimum.error;
      if (!optimum.found) continue;
      ++runs;
      exhaustive += optimum.exhaustive;
      const LowerBounds bounds = ComputeLowerBounds(p, m);
      ASSERT_LE(bounds.best(), optimum.total * (1 + 1e-9))
          << "bound above the optimum\nproblem: " << ProblemToJson(p)
          << "\noptimum: " << SolutionToJson(optimum.schedule, {});
      const double others = std::max({bounds.compute, bounds.io, bounds.traffic, bounds.mixed, bounds.phase});
      if (bounds.capacity > others * (1 + 1e-9)) {
        ++largest;
        default_largest += m == CostModes{};
      }
    }
  }
  std::printf("one-step roots: %d runs (%d exhaustive), capacity part strictly the largest in %d (%d in the "
              "default modes)\n",
              runs, exhaustive, largest, default_largest);
  EXPECT_GT(runs, wanted * 6);
  EXPECT_GT(largest, runs / 5);
}

// Benchmark 5's first branch alone: X (1024 x 128) @ W (128 x 512), its Pointwise epilogue,
// capacity 30000, bandwidth 15. Every tile whose whole-K step fits (128 h + 128 w + h w <=
// 30000) re-loads a strip at every move; the least charge over those tiles is at h = 53,
// w = 128: R = 20 (19 rows of 53, one of 17), C = 4. Members: each full row strip 53 x 128 =
// 6784 (three times each), the last row 17 x 128 = 2176 (3 times), each column strip
// 128 x 128 = 16384 (19 times each). The 19 x 3 = 57 unsaved: 3 x 2176 + 54 x 6784.
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
  // W 8 times, more), and Z written: (569472 + 524288) / 15 = 72917.33.
  EXPECT_NEAR(bounds.capacity, /*(569472+524288)/15=*/72917.333333, 1e-5);
  // The best schedule found (one subgraph, 128 x 114 tiles, k = 2: X 4 times, W 9 times).
  auto e = Evaluate(p, Sched({Sg({0, 1}, {128, 114, 2})}), {});
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_NEAR(e->total, /*(4*131072+9*65536+524288)/15=*/109226.666667, 1e-5);
  EXPECT_LE(bounds.best(), e->total);
}

}  // namespace
}  // namespace tilesched
