// Cost model: the pure pieces (table-driven) and a differential test of the fast evaluator
// against the naive step-by-step reference on random problems and schedules.
#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "random_problem.h"
#include "reference_evaluator.h"
#include "test_util.h"
#include "tilesched/cost_model.h"
#include "tilesched/demand.h"
#include "tilesched/evaluate.h"
#include "tilesched/grid.h"

namespace tilesched {
namespace {

TEST(CostPieces, SpatialFactorPadsToNative) {
  EXPECT_EQ(SpatialFactor(/*d=*/64, /*native=*/128), /*ceil(64/128)=*/1.0);
  EXPECT_EQ(SpatialFactor(128, 128), 1.0);
  EXPECT_EQ(SpatialFactor(129, 128), /*ceil(129/128)=*/2.0);
  EXPECT_EQ(SpatialFactor(1, 128), 1.0);
}

TEST(CostPieces, ProportionalFactorDoesNotPad) {
  EXPECT_DOUBLE_EQ(ProportionalFactor(32, 128), /*32/128=*/0.25);
  EXPECT_DOUBLE_EQ(ProportionalFactor(256, 128), /*256/128=*/2.0);
}

TEST(CostPieces, ReductionFactorByMode) {
  // full_k: a 32-slice of K=256 pays 32/256; native_k: 32/128.
  EXPECT_DOUBLE_EQ(ReductionFactor(MatmulReduction::kFullK, 32, 256, 128), /*32/256=*/0.125);
  EXPECT_DOUBLE_EQ(ReductionFactor(MatmulReduction::kNativeK, 32, 256, 128), /*32/128=*/0.25);
  // An inner MatMul computes all of K: full_k pays 1, native_k K/native_k.
  EXPECT_DOUBLE_EQ(ReductionFactor(MatmulReduction::kFullK, 256, 256, 128), 1.0);
  EXPECT_DOUBLE_EQ(ReductionFactor(MatmulReduction::kNativeK, 256, 256, 128), /*256/128=*/2.0);
}

TEST(CostPieces, StepLatencyIsRoofline) {
  EXPECT_DOUBLE_EQ(StepLatency(/*compute=*/1000, /*load=*/16384, /*store=*/16384, /*bw=*/10),
                   /*32768/10=*/3276.8);
  EXPECT_DOUBLE_EQ(StepLatency(3000, 16384, 0, 10), /*3000 > 1638.4*/ 3000);
}

TEST(CostPieces, TileBuffersByRules) {
  // One sink, one non-sink split root (an epilogue after the accumulator).
  EXPECT_EQ(TileBuffers(Rules::kAlgebra, 1, 1, 1), /*max(1,1)=*/1);
  EXPECT_EQ(TileBuffers(Rules::kContest, 1, 1, 1), /*1+1=*/2);
  // Two sinks that are both split roots (E10).
  EXPECT_EQ(TileBuffers(Rules::kAlgebra, 2, 2, 0), 2);
  EXPECT_EQ(TileBuffers(Rules::kContest, 2, 2, 0), 2);
}

TEST(Grid, ClipsEdgeTiles) {
  const Grid grid(/*width=*/100, /*height=*/70, /*w=*/32, /*h=*/32);
  EXPECT_EQ(grid.rows(), 3);
  EXPECT_EQ(grid.cols(), 4);
  EXPECT_EQ(grid.RowInterval(2), (Interval{64, 70}));
  EXPECT_EQ(grid.ColInterval(3), (Interval{96, 100}));
  EXPECT_TRUE(grid.RowClipped(2));
  EXPECT_FALSE(grid.RowClipped(1));
  EXPECT_EQ(SliceInterval(/*j=*/2, /*k=*/48, /*extent=*/128), (Interval{96, 128}));
}

void ExpectSameVerdict(const Problem& problem, const Schedule& schedule, const CostModes& modes,
                       uint64_t seed) {
  testing::ReferenceModes ref_modes;
  ref_modes.contest = modes.rules == Rules::kContest;
  ref_modes.native_k = modes.matmul_reduction == MatmulReduction::kNativeK;
  ref_modes.k_reduction = modes.k_limit == KLimit::kReduction;
  const testing::ReferenceResult expected = testing::ReferenceEvaluate(problem, schedule, ref_modes);
  const auto actual = Evaluate(problem, schedule, modes);
  ASSERT_EQ(actual.ok(), expected.valid)
      << "seed " << seed << " " << ModesString(modes) << ": fast says "
      << (actual.ok() ? "valid" : actual.status().message()) << ", reference says "
      << (expected.valid ? "valid" : expected.reason);
  if (!expected.valid) return;
  ASSERT_EQ(actual->subgraphs.size(), expected.latencies.size());
  const CostModel model(problem, modes);
  std::vector<int> resident;
  for (size_t s = 0; s < expected.latencies.size(); ++s) {
    std::vector<int> retained = schedule.subgraphs[s].retained;
    std::sort(retained.begin(), retained.end());
    retained.erase(std::unique(retained.begin(), retained.end()), retained.end());
    auto plan = SubgraphPlan::Create(problem, schedule.subgraphs[s].ops);
    EXPECT_EQ(model.PeakWorkingSet(*plan, schedule.subgraphs[s].granularity, retained, resident),
              expected.peak_working_set[s])
        << "seed " << seed << " subgraph " << s << " " << ModesString(modes);
    resident = retained;
    EXPECT_NEAR(actual->subgraphs[s].cost.latency, expected.latencies[s],
                1e-9 * std::max(1.0, expected.latencies[s]))
        << "seed " << seed << " subgraph " << s << " " << ModesString(modes);
    const SubgraphCost& c = actual->subgraphs[s].cost;
    EXPECT_NEAR(c.compute_bound_time + c.memory_bound_time, c.latency, 1e-9 * std::max(1.0, c.latency));
    EXPECT_EQ(actual->subgraphs[s].cost.loaded, expected.loaded[s])
        << "seed " << seed << " subgraph " << s << " " << ModesString(modes);
    EXPECT_EQ(actual->subgraphs[s].cost.peak_working_set, expected.peak_working_set[s])
        << "seed " << seed << " subgraph " << s << " " << ModesString(modes);
    // Recomputation figures: the cost model's per-op sums, through its repeated-step shortcuts,
    // against the reference's step-by-step count.
    ASSERT_EQ(c.op_work.size(), schedule.subgraphs[s].ops.size());
    double op_time_sum = 0;
    for (const OpWork& w : c.op_work) {
      const auto e = expected.op_elements[s].find(w.op);
      const auto t = expected.op_time[s].find(w.op);
      ASSERT_NE(e, expected.op_elements[s].end()) << "seed " << seed << " op " << w.op;
      EXPECT_NEAR(w.elements, e->second, 1e-9 * std::max(1.0, e->second))
          << "seed " << seed << " subgraph " << s << " op " << w.op << " " << ModesString(modes);
      EXPECT_NEAR(w.compute_time, t->second, 1e-9 * std::max(1.0, t->second))
          << "seed " << seed << " subgraph " << s << " op " << w.op << " " << ModesString(modes);
      EXPECT_EQ(w.output_size, problem.tensor(problem.op(w.op).output).size());
      // Every op of a subgraph computes its whole output at least once.
      EXPECT_GE(ComputedRelativeToOnce(w), 1 - 1e-9) << "seed " << seed << " op " << w.op;
      op_time_sum += w.compute_time;
    }
    EXPECT_EQ(expected.op_elements[s].size(), c.op_work.size()) << "seed " << seed;
    EXPECT_NEAR(op_time_sum, c.compute_time, 1e-9 * std::max(1.0, c.compute_time))
        << "seed " << seed << " subgraph " << s;
  }
}

TEST(CostModelDifferential, MatchesNaiveReferenceOnRandomSchedules) {
  int valid = 0;
  for (uint64_t seed = 0; seed < 600; ++seed) {
    const Problem problem = testing::RandomProblem(seed);
    std::mt19937_64 rng(seed * 7919 + 1);
    Schedule schedule = testing::RandomSchedule(problem, seed);
    testing::RandomizeTraversals(problem, &schedule, rng);
    for (const CostModes& modes :
         {CostModes{}, CostModes{Rules::kAlgebra, MatmulReduction::kFullK, KLimit::kNative},
          CostModes{Rules::kAlgebra, MatmulReduction::kNativeK, KLimit::kReduction}}) {
      ExpectSameVerdict(problem, schedule, modes, seed);
      if (::testing::Test::HasFatalFailure()) return;
    }
    valid += Evaluate(problem, schedule, CostModes{}).ok();
  }
  // The generator must produce enough valid schedules for the comparison to mean something.
  EXPECT_GT(valid, 100);
}

// Residual add over a square MatMul with h == k: the tile rows of X coincide with k-slices of
// X at some steps, which the evaluator must deduplicate exactly (SPEC.md section 5).
TEST(CostModelDifferential, CoincidingTileRowsAndKSlices) {
  for (int64_t h : {16, 32, 64}) {
    for (int64_t k : {16, 32, 64}) {
      testing::ProblemBuilder b(/*capacity=*/200000, /*bandwidth=*/10, /*native=*/64);
      const int x = b.Tensor(128, 128), w = b.Tensor(128, 128), y = b.Tensor(128, 128),
                z = b.Tensor(128, 128);
      b.MatMul(w, x, y, 1000);  // y = W @ X: X is read by k-slice rows
      b.Pointwise({y, x}, z, 100);  // z = y + X: X is read by tile rows
      const Problem problem = b.Build();
      for (int64_t wdt : {32, 64}) {
        Schedule schedule = testing::Sched({testing::Sg({0, 1}, {wdt, h, k})});
        ExpectSameVerdict(problem, schedule, CostModes{}, static_cast<uint64_t>(h * 1000 + k));
        ExpectSameVerdict(problem, schedule, {Rules::kAlgebra}, static_cast<uint64_t>(h * 1000 + k));
      }
    }
  }
}

// y = X @ X with w == h == k: at k-step j = r + 1 of tile (r, r + 1), the LHS slice (rows of
// tile row r, k-slice j) is the very slice the RHS read one step before (k-slice r, columns of
// tile column r + 1), so it is not loaded again.
TEST(CostModelDifferential, SquareMatMulReusesAcrossOperandRoles) {
  for (int64_t t : {8, 16, 32}) {
    testing::ProblemBuilder b(/*capacity=*/200000, /*bandwidth=*/1, /*native=*/64);
    const int x = b.Tensor(64, 64), y = b.Tensor(64, 64);
    b.MatMul(x, x, y, 10);
    const Problem problem = b.Build();
    ExpectSameVerdict(problem, testing::Sched({testing::Sg({0}, {t, t, t})}), CostModes{},
                      static_cast<uint64_t>(t));
  }
}

// Y = (X @ W) @ (X @ V), fused: X is read by tile rows (for X @ W) and by k-slice rows (for
// X @ V), both over all columns. At k-step r + 1 of tile row r, X's tile-row strip is the
// k-slice strip of the step before.
TEST(CostModelDifferential, SharedOperandOfTwoInnerMatMuls) {
  for (int64_t t : {8, 16, 32}) {
    testing::ProblemBuilder b(/*capacity=*/400000, /*bandwidth=*/1, /*native=*/64);
    const int x = b.Tensor(64, 64), w = b.Tensor(64, 64), v = b.Tensor(64, 64),
              a = b.Tensor(64, 64), bb = b.Tensor(64, 64), y = b.Tensor(64, 64);
    b.MatMul(x, w, a, 10);
    b.MatMul(x, v, bb, 10);
    b.MatMul(a, bb, y, 10);
    const Problem problem = b.Build();
    for (int64_t width : {t, 64L}) {
      ExpectSameVerdict(problem, testing::Sched({testing::Sg({0, 1, 2}, {width, t, t})}),
                        CostModes{}, static_cast<uint64_t>(t));
    }
  }
}

}  // namespace
}  // namespace tilesched
