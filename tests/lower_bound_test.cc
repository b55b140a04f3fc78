// Lower bounds (docs/bounds.md): hand-computed values of each lemma, and schedules that attain
// them (so the bound is tight there). Admissibility on random problems is checked against a
// brute-force enumerator in tests/bound_admissibility_test.cc.
#include <string>

#include <gtest/gtest.h>

#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"

namespace tilesched {
namespace {

using testing::ProblemBuilder;
using testing::Sched;
using testing::Sg;

CostModes Modes(Rules rules, KLimit k_limit = KLimit::kNative) {
  CostModes modes;
  modes.rules = rules;
  modes.k_limit = k_limit;
  return modes;
}

double Total(const Problem& problem, const Schedule& schedule, const CostModes& modes) {
  auto evaluation = Evaluate(problem, schedule, modes);
  EXPECT_TRUE(evaluation.ok()) << evaluation.status().message();
  return evaluation.ok() ? evaluation->total : -1;
}

// T0 (256x512) @ T1 (512x256) -> T2 (256x256), cost 1000, capacity 60000, bandwidth 10.
Problem SplitMatMul() {
  ProblemBuilder b(/*capacity=*/60000, /*bandwidth=*/10);
  const int lhs = b.Tensor(256, 512), rhs = b.Tensor(512, 256), out = b.Tensor(256, 256);
  b.MatMul(lhs, rhs, out, 1000);
  return b.Build();
}

TEST(LowerBound, SplitRootReStreamsBothOperands) {
  const Problem p = SplitMatMul();
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  // Lemma C1: 1000 x (256/128) x (256/128) x 1.
  EXPECT_DOUBLE_EQ(bounds.compute, /*1000*2*2=*/4000);
  // Lemma M1/M3 with multiplier 1: (131072 + 131072 + 65536) / 10.
  EXPECT_DOUBLE_EQ(bounds.io, /*327680/10=*/32768);
  // Lemma M3: K = 512 > native 128, so every tile streams its whole LHS row strip and RHS
  // column strip: T0 x 2 grid columns + T1 x 2 grid rows + the T2 store.
  EXPECT_DOUBLE_EQ(bounds.traffic, /*(262144+262144+65536)/10=*/58982.4);
  // 128x128 tiles, k = 128: 4 tiles x 4 steps of 32768 loads, plus 4 stores of 16384.
  const Schedule best = Sched({Sg({0}, {128, 128, 128})});
  EXPECT_DOUBLE_EQ(Total(p, best, {}), bounds.best());
}

TEST(LowerBound, KLimitReductionMayRunUnsplit) {
  // Under k_limit=reduction, k = 512 would fit (513 <= 60000), so Lemma M3 does not apply.
  const LowerBounds bounds = ComputeLowerBounds(SplitMatMul(), Modes(Rules::kContest, KLimit::kReduction));
  EXPECT_DOUBLE_EQ(bounds.traffic, /*(131072+131072+65536)/10=*/32768);
}

TEST(LowerBound, FusedPointwiseChainMovesOnlyGraphInputsAndOutputs) {
  // SPEC 8 case 1: PW0(T0) -> T1, PW1(T1) -> T2, all 128x128; 1B ([[0,1]]) costs 3276.8.
  ProblemBuilder b(/*capacity=*/35000, /*bandwidth=*/10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 1000);
  b.Pointwise({t1}, t2, 100);
  const Problem p = b.Build();
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  EXPECT_DOUBLE_EQ(bounds.traffic, /*(16384+16384)/10=*/3276.8);
  EXPECT_DOUBLE_EQ(Total(p, Sched({Sg({0, 1}, {128, 128, 1})}), {}), bounds.best());
}

// SPEC 8 E4: PW0(T0 128x256) -> T1, MM1(T1, T2 256x128) -> T3, costs 300, 1000, capacity 60000.
Problem PrologueProblem() {
  ProblemBuilder b(/*capacity=*/60000, /*bandwidth=*/10);
  const int t0 = b.Tensor(128, 256), t1 = b.Tensor(128, 256), t2 = b.Tensor(256, 128),
            t3 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 300);
  b.MatMul(t1, t2, t3, 1000);
  return b.Build();
}

TEST(LowerBound, ContestForbidsThePrologueButTheIntermediateFitsResident) {
  const Problem p = PrologueProblem();
  // Lemma M5: under contest rules PW0 cannot feed MM1's reduction axis (256 > 128) inside a
  // subgraph. T1 (32768 elements) fits in fast memory, so it may be retained (Lemma M7,
  // resident): only T0, T2 and the T3 store must move.
  const LowerBounds contest = ComputeLowerBounds(p, Modes(Rules::kContest));
  EXPECT_DOUBLE_EQ(contest.traffic, /*(32768+32768+16384)/10=*/8192);
  // [[0],[1]] retaining T1: PW0 loads T0 and writes nothing (32768/10 = 3276.8); MM1 with
  // k = 64 (T1 32768 + T2 slice 8192 + tile 16384 = 57344 fits) loads 8192 per step (819.2 x 3)
  // and stores T3 at the last ((8192+16384)/10 = 2457.6).
  const Schedule retained = Sched({Sg({0}, {128, 128, 1}, {1}), Sg({1}, {128, 128, 64})});
  EXPECT_DOUBLE_EQ(Total(p, retained, Modes(Rules::kContest)), contest.best());
  // Under algebra the prologue may also be fused: SPEC E4's 8192 again.
  const LowerBounds algebra = ComputeLowerBounds(p, Modes(Rules::kAlgebra));
  EXPECT_DOUBLE_EQ(algebra.traffic, 8192);
  const Schedule fused = Sched({Sg({0, 1}, {128, 128, 64})});
  EXPECT_DOUBLE_EQ(Total(p, fused, Modes(Rules::kAlgebra)), algebra.best());
}

TEST(LowerBound, ContestSpillsAnIntermediateTooLargeToRetain) {
  // As above with capacity 32768: T1 (32768) plus anything MM1 needs no longer fits, so under
  // contest rules T1 is stored and loaded again: T0 32768 + T1 store 32768 + T1 load 32768
  // (1 grid column) + T2 32768 (1 grid row) + T3 store 16384.
  ProblemBuilder b(/*capacity=*/32768, /*bandwidth=*/10);
  const int t0 = b.Tensor(128, 256), t1 = b.Tensor(128, 256), t2 = b.Tensor(256, 128),
            t3 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 300);
  b.MatMul(t1, t2, t3, 1000);
  const Problem p = b.Build();
  EXPECT_DOUBLE_EQ(ComputeLowerBounds(p, Modes(Rules::kContest)).traffic, /*147456/10=*/14745.6);
  // [[0],[1]]: PW0's 2 tiles load and store 16384 each (2 x 3276.8); MM1 with k = 64
  // (slices 8192 + 8192 + tile 16384 = 32768 fit) loads 16384 per step (3 x 1638.4) and stores
  // T3 at the last ((16384+16384)/10 = 3276.8): the bound is attained.
  const Schedule split = Sched({Sg({0}, {128, 128, 1}), Sg({1}, {128, 128, 64})});
  EXPECT_DOUBLE_EQ(Total(p, split, Modes(Rules::kContest)), /*6553.6+4915.2+3276.8=*/14745.6);
}

TEST(LowerBound, CertifiesBenchmarkOne) {
  // docs/bounds.md works this through: 28 x 262144 elements / 20 = 367001.6, the latency of the
  // best known schedule.
  auto problem = LoadProblem(std::string(TILESCHED_SOURCE_DIR) + "/data/benchmarks/mlsys-2026-1.json");
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  const LowerBounds bounds = ComputeLowerBounds(*problem, {});
  EXPECT_DOUBLE_EQ(bounds.compute, /*3*32000+2*8000=*/112000);
  EXPECT_NEAR(bounds.traffic, /*28*262144/20=*/367001.6, 1e-6);
  EXPECT_NEAR(bounds.best(), 367001.6, 1e-6);
}

TEST(LowerBound, GapIsRelativeExcess) {
  EXPECT_NEAR(Gap(110, 100), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(Gap(100, 100), 0);
  EXPECT_DOUBLE_EQ(Gap(0, 0), 0);
}

}  // namespace
}  // namespace tilesched
