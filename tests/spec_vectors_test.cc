// Every test vector of SPEC.md section 8, table-driven, each row showing its arithmetic.
#include <cmath>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "spec_problems.h"
#include "test_util.h"
#include "tilesched/evaluate.h"

namespace tilesched {
namespace {

using testing::ProblemBuilder;
using testing::Sched;
using testing::Sg;
using namespace testing::spec;  // the problems of SPEC.md section 8

CostModes Modes(Rules rules = Rules::kContest, MatmulReduction red = MatmulReduction::kFullK,
                KLimit limit = KLimit::kNative) {
  return {rules, red, limit};
}

struct Vector {
  std::string name;
  std::function<Problem()> problem;
  Schedule schedule;
  CostModes modes;
  double total;       // expected total; NaN when the schedule is invalid
  std::string error;  // substring of the expected error
};

const double kInvalid = std::nan("");

std::vector<Vector> Vectors() {
  const Granularity g128{128, 128, 1};
  return {
      // One tile each; PW0 loads 16384 and stores 16384: 32768/10 = 3276.8 > 1000, twice.
      {"1A", [] { return Chain2(35000); }, Sched({Sg({0}, g128), Sg({1}, g128)}), Modes(),
       /*3276.8+3276.8=*/6553.6, ""},
      // Fused: loads T0, stores T2: 32768/10 = 3276.8 > 1000+100.
      {"1B", [] { return Chain2(35000); }, Sched({Sg({0, 1}, g128)}), Modes(), /*=*/3276.8, ""},
      // 4 tiles of 64x64, each compute 1100 (padding to native), traffic 8192/10 = 819.2.
      {"1C", [] { return Chain2(35000); }, Sched({Sg({0, 1}, {64, 64, 1})}), Modes(),
       /*4*1100=*/4400, ""},
      // 256x256: 4 tiles per op, each (16384+16384)/10 = 3276.8; 8 tiles.
      {"2A", [] { return Chain2(35000, 256); }, Sched({Sg({0}, g128), Sg({1}, g128)}), Modes(),
       /*8*3276.8=*/26214.4, ""},
      {"2B", [] { return Chain2(35000, 256); }, Sched({Sg({0, 1}, g128)}), Modes(),
       /*4*3276.8=*/13107.2, ""},
      // Each op alone: 3276.8 + 3276.8 + (2 loads + 1 store) 49152/10 = 4915.2.
      {"3A", Diamond, Sched({Sg({0}, g128), Sg({1}, g128), Sg({2}, g128)}), Modes(),
       /*3276.8+3276.8+4915.2=*/11468.8, ""},
      // [0,1] retains T2 (compute 3000 > 1638.4); [0,2] recomputes PW0: (16384+16384)/10.
      {"3B", Diamond, Sched({Sg({0, 1}, g128, {2}), Sg({0, 2}, g128)}), Modes(),
       /*3000+3276.8=*/6276.8, ""},
      // [0] retains T1: max(1500, 1638.4); [1,2]: compute 3000 > store 1638.4.
      {"3C", Diamond, Sched({Sg({0}, g128, {1}), Sg({1, 2}, g128)}), Modes(),
       /*1638.4+3000=*/4638.4, ""},
      // 2x2 tiles of 64x64: tiles 0 and 2 load LHS+RHS strips and store: 20480/10 = 2048;
      // tiles 1 and 3 reuse the LHS strip: (8192+4096)/10 = 1228.8 < 1500.
      {"4A", SingleMatMul, Sched({Sg({0}, {64, 64, 128})}), Modes(),
       /*2048+1500+2048+1500=*/7096, ""},
      // Order 0,1,3,2: tile 3 reuses tile 1's RHS strip, tile 2 tile 3's LHS strip.
      {"4B", SingleMatMul, Sched({Sg({0}, {64, 64, 128}, {}, {0, 1, 3, 2})}), Modes(),
       /*2048+1500+1500+1500=*/6548, ""},
      // k=128: all of T0, T1, T2 (49152) + one tile buffer (16384) = 65536 > 45000.
      {"5A", MatMulChain, Sched({Sg({0, 1}, {128, 128, 128})}), Modes(), kInvalid,
       "working set 65536"},
      // 4 k-steps; step 1 loads 16384+4096+4096: 2457.6; steps 2-3 load 8192 (819.2) under
      // compute 500+500; step 4 also stores 16384: 2457.6.
      {"5B", MatMulChain, Sched({Sg({0, 1}, {128, 128, 32})}), Modes(),
       /*2457.6+1000+1000+2457.6=*/6915.2, ""},
      // MM0: 2 k-steps each loading 32768 (3276.8 > 500), the 2nd storing 16384 (4915.2);
      // PW1 loads T2, T3 and stores T4: 4915.2.
      {"E1", E1, Sched({Sg({0}, {128, 128, 128}), Sg({1}, g128)}), Modes(),
       /*3276.8+4915.2+4915.2=*/13107.2, ""},
      // T2 retained: MM0 stores nothing (2*3276.8); PW1 loads only T3: 32768/10.
      {"E2", E1, Sched({Sg({0}, {128, 128, 128}, {2}), Sg({1}, g128)}), Modes(),
       /*6553.6+3276.8=*/9830.4, ""},
      // Contest rules: step 1 holds two 16384 slices + accumulator + epilogue tile = 65536.
      {"E3", E1, Sched({Sg({0, 1}, {128, 128, 128})}), Modes(), kInvalid, "working set 65536"},
      {"E3 algebra", E1, Sched({Sg({0, 1}, {128, 128, 128})}), Modes(Rules::kAlgebra), kInvalid,
       "working set 65536"},
      // PW0 feeds MM1's reduction (K=256) but w=128 < 256.
      {"E4", E4, Sched({Sg({0, 1}, {128, 128, 64})}), Modes(), kInvalid,
       "read along a reduction axis"},
      // Algebra: 4 k-steps, each PW0 strip 150 + MM1 slice 250, loads 16384 (1638.4); the last
      // also stores 16384: 3276.8.
      {"E4 algebra", E4, Sched({Sg({0, 1}, {128, 128, 64})}), Modes(Rules::kAlgebra),
       /*3*1638.4+3276.8=*/8192, ""},
      {"E5", E1, Sched({Sg({0}, {128, 128, 256}), Sg({1}, g128)}), Modes(), kInvalid,
       "above native k"},
      // 2 tiles x 2 k-steps, each 20000*128/256 = 10000 > traffic.
      {"E6", E6, Sched({Sg({0}, {128, 128, 128})}), Modes(), /*4*10000=*/40000, ""},
      // native_k: each k-step costs 20000*128/128.
      {"E6 native_k", E6, Sched({Sg({0}, {128, 128, 128})}),
       Modes(Rules::kContest, MatmulReduction::kNativeK), /*4*20000=*/80000, ""},
      {"E7", E6, Sched({Sg({0}, {128, 128, 256})}), Modes(), kInvalid, "above native k"},
      // k_limit=reduction: 2 tiles x 1 step of 20000; working set 32768*2+16384 = 81920.
      {"E7 reduction", E6, Sched({Sg({0}, {128, 128, 256})}),
       Modes(Rules::kContest, MatmulReduction::kFullK, KLimit::kReduction), /*2*20000=*/40000,
       ""},
      // See SPEC.md section 8: 45056/10, then 2000, 2000, (12288+16384)/10.
      {"E8", E8, Sched({Sg({0, 1}, {128, 128, 32})}), Modes(),
       /*4505.6+2000+2000+2867.2=*/11372.8, ""},
      // native_k: MM0 strips cost 4000*0.25*2 = 2000, MM1 slices 1000: compute 3000.
      {"E8 native_k", E8, Sched({Sg({0, 1}, {128, 128, 32})}),
       Modes(Rules::kContest, MatmulReduction::kNativeK), /*4505.6+3000+3000+3000=*/13505.6, ""},
      // Contest: 8192+8192+16384 (T3) + 2 tile buffers 32768 = 65536 at the last step.
      {"E9", E1, Sched({Sg({0, 1}, {128, 128, 64})}), Modes(), kInvalid, "working set 65536"},
      // Algebra: one tile buffer; steps 1-3 1638.4, step 4 (3*16384)/10 = 4915.2.
      {"E9 algebra", E1, Sched({Sg({0, 1}, {128, 128, 64})}), Modes(Rules::kAlgebra),
       /*3*1638.4+4915.2=*/9830.4, ""},
      // Steps compute 500 (MM0 strip) + 75 (PW1 strip) + 500 (MM2 slice) = 1075.
      {"E13", E13, Sched({Sg({0, 1, 2}, {128, 128, 32})}), Modes(),
       /*2457.6+1075+1075+2457.6=*/7065.2, ""},
      {"E13 algebra", E13, Sched({Sg({0, 1, 2}, {128, 128, 32})}), Modes(Rules::kAlgebra),
       /*2457.6+1075+1075+2457.6=*/7065.2, ""},
      // Tile 1 loads X slice + both weights and stores two tiles: 57344/10; tiles 2-4 load
      // 8192 and store 16384: 2457.6.
      {"E10", E10, Sched({Sg({0, 1}, {128, 64, 128})}), Modes(), /*5734.4+3*2457.6=*/13107.2,
       ""},
      // Each alone: 3276.8 + 3*1638.4 = 8192, twice.
      {"E10 split", E10, Sched({Sg({0}, {128, 64, 128}), Sg({1}, {128, 64, 128})}), Modes(),
       /*2*8192=*/16384, ""},
      {"E11", E11, Sched({Sg({0, 1, 2}, g128)}), Modes(), kInvalid, "differ in shape"},
      // PW0 retains T1: 4 x max(1000, 409.6); PW1 loads nothing and stores 4 x 409.6 > 100.
      {"E12", [] { return Chain2(30000); },
       Sched({Sg({0}, {64, 64, 1}, {1}), Sg({1}, {64, 64, 1})}), Modes(), /*4000+1638.4=*/5638.4,
       ""},
      // 16384 (T0) + 16384 (retained T1) = 32768 > 30000.
      {"E12 native tile", [] { return Chain2(30000); },
       Sched({Sg({0}, g128, {1}), Sg({1}, g128)}), Modes(), kInvalid, "working set 32768"},
  };
}

class SpecVectorTest : public ::testing::TestWithParam<Vector> {};

TEST_P(SpecVectorTest, MatchesSpec) {
  const Vector& v = GetParam();
  const Problem problem = v.problem();
  auto result = Evaluate(problem, v.schedule, v.modes);
  if (std::isnan(v.total)) {
    ASSERT_FALSE(result.ok()) << v.name << " should be invalid; got total " << result->total;
    EXPECT_NE(result.status().message().find(v.error), std::string::npos)
        << v.name << ": " << result.status().message();
  } else {
    ASSERT_TRUE(result.ok()) << v.name << ": " << result.status().message();
    EXPECT_NEAR(result->total, v.total, 1e-9 * v.total) << v.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Section8, SpecVectorTest, ::testing::ValuesIn(Vectors()),
                         [](const ::testing::TestParamInfo<Vector>& param_info) {
                           std::string name;
                           for (char c : param_info.param.name) name += std::isalnum(c) ? c : '_';
                           return name;
                         });

}  // namespace
}  // namespace tilesched
