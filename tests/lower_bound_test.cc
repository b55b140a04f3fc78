// Lower bounds (docs/bounds.md): hand-computed values of each lemma, and schedules that attain
// them (so the bound is tight there), and the max flow of Lemma G1 (src/bound/max_flow.h).
// Admissibility on random problems is checked against a brute-force enumerator in
// tests/bound_admissibility_test.cc and, part by part, tests/bound_families_test.cc.
#include <string>

#include <gtest/gtest.h>

#include "max_flow.h"
#include "mixed_bound.h"
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

TEST(LowerBound, PaddedTilesPayWholeNativeTiles) {
  // Lemma C2: PW0(T0 3x3) -> T1 with native 2 is cut into at least ceil(3/2) x ceil(3/2) = 4
  // tiles, each paying the whole native cost 100 (the clipped edge tiles too).
  ProblemBuilder b(/*capacity=*/1000, /*bandwidth=*/1000, /*native=*/2);
  const int t0 = b.Tensor(3, 3), t1 = b.Tensor(3, 3);
  b.Pointwise({t0}, t1, 100);
  const Problem p = b.Build();
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  EXPECT_DOUBLE_EQ(bounds.compute, /*Lemma C1: 100*1.5*1.5=*/225);
  EXPECT_DOUBLE_EQ(bounds.mixed, /*100*2*2=*/400);
  // 2x2 tiles: 4 steps of compute 100, each moving at most 8 elements (8/1000 < 100).
  EXPECT_DOUBLE_EQ(Total(p, Sched({Sg({0}, {2, 2, 1})}), {}), bounds.best());
}

TEST(LowerBound, MixedRooflineSeparatesAnUnfusablePair) {
  // PW0(T0 128x256) -> T1 (cost 10), MM1(T1, T2 256x128) -> T3 (cost 20000), capacity 30000,
  // bandwidth 10, contest rules. PW0 cannot feed MM1's reduction axis (Lemma M5) and the two read
  // no common tensor, so MM1's reach is MM1 alone: PW0 (memory-heavy) and MM1 (compute-heavy)
  // are never in one subgraph.
  ProblemBuilder b(/*capacity=*/30000, /*bandwidth=*/10);
  const int t0 = b.Tensor(128, 256), t1 = b.Tensor(128, 256), t2 = b.Tensor(256, 128),
            t3 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 10);
  b.MatMul(t1, t2, t3, 20000);
  const Problem p = b.Build();
  const LowerBounds bounds = ComputeLowerBounds(p, Modes(Rules::kContest));
  // Totals: compute 10 x 2 + 20000; traffic T0 + T1 stored + T1 loaded + T2 + T3 = 147456.
  EXPECT_DOUBLE_EQ(bounds.compute, /*20+20000=*/20020);
  EXPECT_DOUBLE_EQ(bounds.traffic, /*147456/10=*/14745.6);
  // Lemma G1: PW0 c = 20, m = T0 32768/10 = 3276.8 (L, excess 3256.8); MM1 c = 20000, m = (T1
  // 32768 + T2 32768 + T3 16384)/10 = 8192 (H, excess 11808); T1 (32768 >= capacity, never
  // resident, not fusable) is stored by a subgraph holding PW0 (Lemma G5), which MM1 can never
  // share (its reach is itself): nothing pairs, max flow 0: 3276.8 + 20000 + 3276.8 = 26553.6, the optimum
  // below. (Before G5 the store paired with MM1: 23276.8.)
  EXPECT_NEAR(bounds.mixed, 26553.6, 1e-6);
  // Lemma R4 gives each its own lambda: PW0 at 0 (T0 loaded, T1 written: 65536/10), MM1 at 1.
  EXPECT_NEAR(bounds.squeeze, /*6553.6+20000=*/26553.6, 1e-6);
  EXPECT_NEAR(bounds.best(), 26553.6, 1e-6);
  // [[0],[1]]: PW0 at 128x64 (8192 + 8192 fits) moves 16384 per tile (4 x 1638.4); MM1 at
  // k = 32 is compute-bound in each of its 8 steps (2500 > 819.2, last (8192+16384)/10 < 2500).
  const Schedule split = Sched({Sg({0}, {64, 128, 1}), Sg({1}, {128, 128, 32})});
  EXPECT_NEAR(Total(p, split, Modes(Rules::kContest)), /*6553.6+20000=*/26553.6, 1e-6);
}

TEST(LowerBound, MixedRooflineSeparatesSinksOfTwoShapes) {
  // PW0(X 128x128) -> Y0 (cost 10) and MM1(X, W 128x64) -> Y1 128x64 (cost 20000), both graph
  // outputs, capacity 30000, bandwidth 10. Both read X, so Lemma G4 links them; but a subgraph
  // holding both has the sinks Y0 (128 x 128) and Y1 (128 x 64), and all sinks of a subgraph
  // have one shape (rule 3.3): by Lemma G6 they neither pair nor share a load of X (M7).
  ProblemBuilder b(/*capacity=*/30000, /*bandwidth=*/10);
  const int x = b.Tensor(128, 128), y0 = b.Tensor(128, 128), w = b.Tensor(128, 64), y1 = b.Tensor(128, 64);
  b.Pointwise({x}, y0, 10);
  b.MatMul(x, w, y1, 20000);
  const Problem p = b.Build();
  const LowerBounds bounds = ComputeLowerBounds(p, {});
  // Lemma G1: PW0 c = 10, m = (X 16384 + Y0 16384) / 10 = 3276.8 (L); MM1 c = 20000, m = (16384
  // + W 8192 + Y1 8192) / 10 = 3276.8 (H). No pair: 3276.8 + 20000. With the pair (G6 left out
  // of G1's flow, still in M7's shares): 3276.8 + 20000 - 3266.8 = 20010.
  EXPECT_NEAR(bounds.mixed, /*3276.8+20000=*/23276.8, 1e-6);
  EXPECT_NEAR(bound::MixedBound(p, {}, bound::Variant::kPlain, nullptr, nullptr, /*sink_shapes=*/false), 20010, 1e-6);
  // [[0], [1]]: PW0 at 128 x 64 tiles loads X and writes Y0 (2 x 16384 / 10, memory-bound); MM1
  // at k = 32 computes 5000 in each of its 4 steps, more than a step's loads and the last step's
  // store ((4096 + 2048 + 8192) / 10). The bound is its latency: optimal.
  const Schedule apart = Sched({Sg({0}, {128, 64, 1}), Sg({1}, {64, 128, 32})});
  EXPECT_NEAR(Total(p, apart, {}), /*3276.8+20000=*/23276.8, 1e-6);
  EXPECT_NEAR(bounds.best(), 23276.8, 1e-6);
}

TEST(LowerBound, MixedRooflineOnBenchmarkThirteen) {
  // docs/bounds.md, Lemmas G2-G3: the 16 first MatMuls (c 160000, m (16777216 + 16777216/16)/50
  // = 356515.84) cannot pair with the compute-heavy second MatMuls (fusing costs 32x compute).
  // The rest: 16 second MatMuls (160000 vs 20971.52), 16 third ones (5000 vs 10485.76), 14
  // Pointwise adds (100 vs 0) and the last one (100 vs 16384/50 = 327.68). Flow: the L excess
  // of the third MatMuls and the last add, 16 x 5485.76 + 227.68 = 87999.84.
  auto problem = LoadProblem(std::string(TILESCHED_SOURCE_DIR) + "/data/benchmarks/mlsys-2026-13.json");
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  const LowerBounds bounds = ComputeLowerBounds(*problem, {});
  EXPECT_DOUBLE_EQ(bounds.compute, 5201500);
  EXPECT_NEAR(bounds.mixed,
              /*16*356515.84+16*160000+16*10485.76+14*100+327.68-87999.84=*/8345753.44, 1e-3);
}

TEST(MaxFlow, BipartiteWithNodeCapacities) {
  // source 0 -> a (3), b (2); a -> x; b -> x, y; x (2), y (4) -> sink 5. a fills x (2), b
  // sends its 2 to y: 4.
  bound::MaxFlow flow(6);
  flow.AddEdge(0, 1, 3);
  flow.AddEdge(0, 2, 2);
  flow.AddEdge(1, 3, 100);
  flow.AddEdge(2, 3, 100);
  flow.AddEdge(2, 4, 100);
  flow.AddEdge(3, 5, 2);
  flow.AddEdge(4, 5, 4);
  EXPECT_DOUBLE_EQ(flow.Run(0, 5), 4);
}

TEST(LowerBound, GapIsRelativeExcess) {
  EXPECT_NEAR(Gap(110, 100), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(Gap(100, 100), 0);
  EXPECT_DOUBLE_EQ(Gap(0, 0), 0);
}

}  // namespace
}  // namespace tilesched
