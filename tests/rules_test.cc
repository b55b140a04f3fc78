// The validity rules of SPEC.md section 3 and the reuse rule of section 5, table-driven.
//
// Each rule has at least one valid and one invalid case on a small hand-made problem. Invalid
// cases check that the message names the right subgraph, op, tensor, tile or k-step; valid
// cases check the exact total latency, with the arithmetic of SPEC.md sections 4-6 beside it.
// Unless noted: bandwidth 10, native 128, default modes (contest, full_k, k_limit=native).
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.h"
#include "tilesched/cost_model.h"
#include "tilesched/demand.h"
#include "tilesched/evaluate.h"

namespace tilesched {
namespace {

using testing::ProblemBuilder;
using testing::Sched;
using testing::Sg;

constexpr Granularity kG128{128, 128, 1};

// --- Problems (tensor ids in creation order; all tensors 128x128 unless noted) -------------

// PW0(T0)->T1, PW1(T1)->T2.
Problem Chain2(int64_t capacity, double c0, double c1) {
  ProblemBuilder b(capacity, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, c0);
  b.Pointwise({t1}, t2, c1);
  return b.Build();
}
// PW0(T0)->T1, PW1(T1)->T2, PW2(T2)->T3; costs 1000, 500, 2000.
Problem Chain3(int64_t capacity) {
  ProblemBuilder b(capacity, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 1000);
  b.Pointwise({t1}, t2, 500);
  b.Pointwise({t2}, t3, 2000);
  return b.Build();
}
// PW0(T0)->T1, PW1(T1)->T2, PW2(T1,T2)->T3; costs 4000, 2000, 6000, cap 50000.
Problem Diamond() {
  ProblemBuilder b(50000, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 4000);
  b.Pointwise({t1}, t2, 2000);
  b.Pointwise({t1, t2}, t3, 6000);
  return b.Build();
}
// PW0(T0)->T1, PW1(T0)->T2: two graph outputs sharing only their input; costs 300, 400.
Problem SharedInput(int64_t capacity) {
  ProblemBuilder b(capacity, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 300);
  b.Pointwise({t0}, t2, 400);
  return b.Build();
}
// PW0(T0)->T1, PW1(T1)->T2, MM2(T1, T3 128x64)->T4 128x64; costs 1000, 500, 2000, cap 50000.
Problem MixedShapes() {
  ProblemBuilder b(50000, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 64), t4 = b.Tensor(128, 64);
  b.Pointwise({t0}, t1, 1000);
  b.Pointwise({t1}, t2, 500);
  b.MatMul(t1, t3, t4, 2000);
  return b.Build();
}
// MM0(T0,T1)->T2, PW1(T0)->T3: two sinks of one shape, both reading T0; costs 1500, 200.
Problem MatMulAndPointwiseOnLhs() {
  ProblemBuilder b(70000, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 128);
  b.MatMul(t0, t1, t2, 1500);
  b.Pointwise({t0}, t3, 200);
  return b.Build();
}
// PW0(T0)->T1 of `rows` x 128, cost 100 (or `cost`).
Problem OnePointwise(int64_t rows, int64_t capacity, double cost = 100) {
  ProblemBuilder b(capacity, 10);
  const int t0 = b.Tensor(rows, 128), t1 = b.Tensor(rows, 128);
  b.Pointwise({t0}, t1, cost);
  return b.Build();
}
// MM0(T0 128xK, T1 Kx128)->T2, cost 1000, cap 100000.
Problem MatMulK(int64_t k) {
  ProblemBuilder b(100000, 10);
  const int t0 = b.Tensor(128, k), t1 = b.Tensor(k, 128), t2 = b.Tensor(128, 128);
  b.MatMul(t0, t1, t2, 1000);
  return b.Build();
}
// MM0(A 128x64, B 64x128)->Q, MM1(C, D)->R, PW2(Q,R)->S: two split roots with K = 64 and 128;
// costs 4000, 8000, 500, cap 100000.
Problem TwoRoots() {
  ProblemBuilder b(100000, 10);
  const int a = b.Tensor(128, 64), bb = b.Tensor(64, 128), q = b.Tensor(128, 128),
            c = b.Tensor(128, 128), d = b.Tensor(128, 128), r = b.Tensor(128, 128),
            s = b.Tensor(128, 128);
  b.MatMul(a, bb, q, 4000);
  b.MatMul(c, d, r, 8000);
  b.Pointwise({q, r}, s, 500);
  return b.Build();
}
// MM0(T0 128x256, T1 256x128)->T2, PW1(T2,T3)->T4 (SPEC.md E1's graph); costs 1000, 200.
Problem MatMulEpilogue(int64_t capacity) {
  ProblemBuilder b(capacity, 10);
  const int t0 = b.Tensor(128, 256), t1 = b.Tensor(256, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 128), t4 = b.Tensor(128, 128);
  b.MatMul(t0, t1, t2, 1000);
  b.Pointwise({t2, t3}, t4, 200);
  return b.Build();
}
// PW0(T0)->T1, MM1(T1,T2)->T3: a Pointwise prologue on the LHS; costs 400, 3000, cap 100000.
Problem Prologue() {
  ProblemBuilder b(100000, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 128);
  b.Pointwise({t0}, t1, 400);
  b.MatMul(t1, t2, t3, 3000);
  return b.Build();
}
// MM0(A 256x128, B 128x256)->C 256x256, cost 2000, cap 50000: 2x2 tiles of 128x128.
Problem WideMatMul() {
  ProblemBuilder b(50000, 10);
  const int a = b.Tensor(256, 128), bb = b.Tensor(128, 256), c = b.Tensor(256, 256);
  b.MatMul(a, bb, c, 2000);
  return b.Build();
}
// MM0(T0,T1)->T2, PW1(T1)->T3: T1 is read by k-slice rows (RHS) and by tile rows (Pointwise);
// costs 400, 100, cap 50000.
Problem MixedDemand() {
  ProblemBuilder b(50000, 10);
  const int t0 = b.Tensor(128, 128), t1 = b.Tensor(128, 128), t2 = b.Tensor(128, 128),
            t3 = b.Tensor(128, 128);
  b.MatMul(t0, t1, t2, 400);
  b.Pointwise({t1}, t3, 100);
  return b.Build();
}

Subgraph WithOrder(Subgraph sg, std::vector<int64_t> order) {
  sg.traversal = std::move(order);
  return sg;
}

CostModes Algebra() { return {Rules::kAlgebra, MatmulReduction::kFullK, KLimit::kNative}; }
CostModes KLimitReduction() {
  return {Rules::kContest, MatmulReduction::kFullK, KLimit::kReduction};
}

// --- The table -------------------------------------------------------------------------------

const double kInvalid = std::nan("");

struct RuleCase {
  std::string name;
  std::function<Problem()> problem;
  Schedule schedule;
  double total;                     // expected total latency; kInvalid when invalid
  std::vector<std::string> errors;  // substrings the error message must contain
  CostModes modes = {};
};

class RuleCaseTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(RuleCaseTest, Holds) {
  const RuleCase& c = GetParam();
  const Problem problem = c.problem();
  auto result = Evaluate(problem, c.schedule, c.modes);
  if (std::isnan(c.total)) {
    ASSERT_FALSE(result.ok()) << c.name << " should be invalid; got total " << result->total;
    for (const std::string& part : c.errors) {
      EXPECT_NE(result.status().message().find(part), std::string::npos)
          << c.name << ": '" << part << "' not in: " << result.status().message();
    }
  } else {
    ASSERT_TRUE(result.ok()) << c.name << ": " << result.status().message();
    EXPECT_NEAR(result->total, c.total, 1e-9 * c.total) << c.name;
  }
}

std::string CaseName(const ::testing::TestParamInfo<RuleCase>& info) { return info.param.name; }

// Rule 3.1: every op in some subgraph; an op in several is recomputed and charged each time.
std::vector<RuleCase> Coverage() {
  auto p = [] { return Chain2(50000, 5000, 100); };
  return {
      {"op_missing", p, Sched({Sg({0}, kG128)}), kInvalid, {"op 1", "rule 3.1"}},
      {"no_subgraphs", p, Schedule{}, kInvalid, {"rule 3.1"}},
      // T0 in, T2 out: 32768/10 = 3276.8 < 5000+100.
      {"fused_once", p, Sched({Sg({0, 1}, kG128)}), /*5000+100=*/5100, {}},
      {"ops_in_any_order", p, Sched({Sg({1, 0}, kG128)}), /*5000+100=*/5100, {}},
      // PW0 alone (compute 5000 > 3276.8), then PW0 again fused with PW1 (5100 > 3276.8).
      {"recomputation_charged_twice", p, Sched({Sg({0}, kG128), Sg({0, 1}, kG128)}),
       /*5000+5100=*/10100, {}},
  };
}

// Rule 3.2: non-empty, no duplicate op, connected through shared tensors.
std::vector<RuleCase> Structure() {
  return {
      {"empty_subgraph", [] { return Chain2(50000, 1000, 100); },
       Sched({Sg({0, 1}, kG128), Sg({}, kG128)}), kInvalid, {"subgraph 1", "no ops"}},
      {"duplicate_op", [] { return Chain2(50000, 1000, 100); }, Sched({Sg({0, 1, 0}, kG128)}),
       kInvalid, {"subgraph 0", "op 0", "twice"}},
      // Ops 0 and 2 of a chain: op 1, which would link them, is elsewhere.
      {"disconnected", [] { return Chain3(40000); }, Sched({Sg({0, 2}, kG128), Sg({1}, kG128)}),
       kInvalid, {"subgraph 0", "[0, 2]", "not connected"}},
      // Whole chain: T0 in, T3 out: 32768/10 = 3276.8 < 1000+500+2000.
      {"chain_connected", [] { return Chain3(40000); }, Sched({Sg({0, 1, 2}, kG128)}),
       /*1000+500+2000=*/3500, {}},
      // Both read T0 only: connected. T0 loaded once, T1 and T2 stored: 49152/10 > 300+400.
      // Working set 16384 + 2 tile buffers 32768 = 49152 <= 50000.
      {"shared_input_connects", [] { return SharedInput(50000); }, Sched({Sg({0, 1}, kG128)}),
       /*(16384+2*16384)/10=*/4915.2, {}},
  };
}

// Rule 3.3: all sinks of a subgraph have one shape.
std::vector<RuleCase> Sinks() {
  return {
      // Sinks T2 (128x128) and T4 (128x64).
      {"sinks_differ", MixedShapes, Sched({Sg({0, 1, 2}, {128, 128, 128})}), kInvalid,
       {"subgraph 0", "tensor 2", "tensor 4", "differ in shape"}},
      // [0,2]: only sink T4 (128x64; T1 128x128 is internal), one clipped tile, one step. PW0
      // computes T1 for MM2's slice (1000*1*128/128) and MM2 2000; loads T0 16384 and T3 8192,
      // stores T4 8192: 32768/10 = 3276.8 > 3000. T1 is retained for [1]: loads nothing,
      // stores T2: 1638.4 > 500. Working sets 24576+16384+8192 = 49152 and 16384+16384.
      {"internal_tensor_shape_may_differ", MixedShapes,
       Sched({Sg({0, 2}, {128, 128, 128}, {1}), Sg({1}, kG128)}), /*3276.8+1638.4=*/4915.2, {}},
      // Sinks T2 and T3 share a shape; MM0's LHS slice (k=128) and PW1's tile of T0 are the
      // same slice, loaded once: (16384+16384 loads + 2*16384 stores)/10 > 1500+200.
      {"same_shape_sinks", MatMulAndPointwiseOnLhs, Sched({Sg({0, 1}, {128, 128, 128})}),
       /*65536/10=*/6553.6, {}},
  };
}

// Rule 3.4: tile and k bounds.
std::vector<RuleCase> Bounds() {
  auto mm = [] { return MatMulK(128); };
  auto mm256 = [] { return MatMulK(256); };
  auto mm64 = [] { return MatMulK(64); };
  auto pw = [] { return OnePointwise(128, 1000, /*cost=*/1000); };
  auto chain = [] { return Chain2(35000, 4000, 100); };
  return {
      {"w_zero", mm, Sched({Sg({0}, {0, 128, 128})}), kInvalid,
       {"subgraph 0", "w=0", "rule 3.4"}},
      {"w_above_native", mm, Sched({Sg({0}, {129, 128, 128})}), kInvalid, {"w=129", "rule 3.4"}},
      {"h_zero", mm, Sched({Sg({0}, {128, 0, 128})}), kInvalid, {"h=0", "rule 3.4"}},
      {"h_above_native", mm, Sched({Sg({0}, {128, 256, 128})}), kInvalid,
       {"h=256", "rule 3.4"}},
      // 128 tiles of 128x1 (or 1x128): each pays a whole native tile, 1000 > (128+128)/10.
      {"w_one", pw, Sched({Sg({0}, {1, 128, 1})}), /*128*1000=*/128000, {}},
      {"h_one", pw, Sched({Sg({0}, {128, 1, 1})}), /*128*1000=*/128000, {}},
      {"k_zero_with_split_root", mm, Sched({Sg({0}, {128, 128, 0})}), kInvalid,
       {"subgraph 0", "k=0", "rule 3.4"}},
      {"k_above_native", mm256, Sched({Sg({0}, {128, 128, 129})}), kInvalid,
       {"subgraph 0", "k=129", "above native k", "rule 3.4"}},
      // K=256, k=128: 2 steps; 32768/10 = 3276.8 > 500, then (32768+16384)/10 = 4915.2.
      {"k_native_default", mm256, Sched({Sg({0}, {128, 128, 128})}), /*3276.8+4915.2=*/8192,
       {}},
      // k_limit=reduction, k=K=256: one step loading 65536 and storing 16384: 81920/10 > 1000.
      // Working set 65536 + 16384 = 81920 <= 100000.
      {"k_above_native_reduction_limit", mm256, Sched({Sg({0}, {128, 128, 256})}),
       /*81920/10=*/8192, {}, KLimitReduction()},
      // k=129: slices [0,129) and [129,256): 2*128*129 = 33024 -> 3302.4 (> 1000*129/256);
      // 2*128*127 + 16384 = 48896 -> 4889.6.
      {"k_129_reduction_limit", mm256, Sched({Sg({0}, {128, 128, 129})}),
       /*3302.4+4889.6=*/8192, {}, KLimitReduction()},
      {"k_above_split_root_K", mm64, Sched({Sg({0}, {128, 128, 128})}), kInvalid,
       {"subgraph 0", "k=128", "K=64", "split root op 0", "rule 3.4"}},
      {"k_above_split_root_K_reduction_limit", mm64, Sched({Sg({0}, {128, 128, 128})}),
       kInvalid, {"K=64", "split root op 0", "rule 3.4"}, KLimitReduction()},
      // k=K=64: one step, (8192+8192 loads + 16384 store)/10 = 3276.8 > 1000.
      {"k_equals_split_root_K", mm64, Sched({Sg({0}, {128, 128, 64})}), /*32768/10=*/3276.8,
       {}},
      // k must fit every split root: K=64 (op 0) and K=128 (op 1).
      {"k_above_K_of_one_root", TwoRoots, Sched({Sg({0, 1, 2}, {128, 128, 128})}), kInvalid,
       {"subgraph 0", "K=64", "split root op 0", "rule 3.4"}},
      // k=64: 2 steps. Step 1: MM0's only slice (4000*64/64) + MM1's first (8000*64/128) =
      // 8000 > 32768/10. Step 2: MM1's second slice 4000 + PW2 500 = 4500 > (16384+16384)/10.
      // Working set (contest): 32768 + 3 tile buffers 49152 = 81920 <= 100000.
      {"two_roots_k64", TwoRoots, Sched({Sg({0, 1, 2}, {128, 128, 64})}), /*8000+4500=*/12500,
       {}},
      // No split root: k is ignored, whatever its value. 4000+100 > 32768/10.
      {"k_ignored_zero", chain, Sched({Sg({0, 1}, {128, 128, 0})}), /*4000+100=*/4100, {}},
      {"k_ignored_negative", chain, Sched({Sg({0, 1}, {128, 128, -7})}), /*4000+100=*/4100, {}},
      {"k_ignored_huge", chain, Sched({Sg({0, 1}, {128, 128, 1000})}), /*4000+100=*/4100, {}},
  };
}

// Rule 3.5: external inputs are graph inputs, written earlier, or retained by the previous
// subgraph. Diamond: PW0(T0)->T1, PW1(T1)->T2, PW2(T1,T2)->T3, costs 4000, 2000, 6000.
std::vector<RuleCase> Availability() {
  return {
      {"read_before_produced", Diamond, Sched({Sg({1}, kG128), Sg({0}, kG128), Sg({2}, kG128)}),
       kInvalid, {"subgraph 0", "op 1", "tensor 1", "rule 3.5"}},
      // Each written: max(4000, 3276.8) + max(2000, 3276.8) + max(6000, (32768+16384)/10).
      {"written_earlier", Diamond, Sched({Sg({0}, kG128), Sg({1}, kG128), Sg({2}, kG128)}),
       /*4000+3276.8+6000=*/13276.8, {}},
      // T1 retained: [0] loads T0 (1638.4 < 4000); [1,2] loads nothing, stores T3 (< 8000).
      {"retained_by_previous", Diamond, Sched({Sg({0}, kG128, {1}), Sg({1, 2}, kG128)}),
       /*4000+8000=*/12000, {}},
      // T1 retained by subgraph 0 is gone by subgraph 2 and was never written.
      {"retained_two_subgraphs_ago", Diamond,
       Sched({Sg({0}, kG128, {1}), Sg({1}, kG128), Sg({2}, kG128)}), kInvalid,
       {"subgraph 2", "op 2", "tensor 1", "rule 3.5"}},
      // In [0,1] T1 is consumed inside, so it is no sink and is not written.
      {"internal_tensor_not_written", Diamond, Sched({Sg({0, 1}, kG128), Sg({2}, kG128)}),
       kInvalid, {"subgraph 1", "op 2", "tensor 1", "rule 3.5"}},
      // Retaining the internal T1 makes it available: [0,1] 6000 > 3276.8 (working set
      // 16384+16384+16384 = 49152); [2] loads T2, stores T3: 6000 > 3276.8.
      {"internal_tensor_retained", Diamond, Sched({Sg({0, 1}, kG128, {1}), Sg({2}, kG128)}),
       /*6000+6000=*/12000, {}},
  };
}

// Rule 3.6: only tensors produced inside are retained; a retained sink is not written unless
// it is a graph output.
std::vector<RuleCase> Retention() {
  auto chain = [] { return Chain2(35000, 1000, 100); };
  return {
      {"retain_graph_input", chain, Sched({Sg({0}, kG128, {0}), Sg({1}, kG128)}), kInvalid,
       {"subgraph 0", "tensor 0", "rule 3.6"}},
      {"retain_tensor_of_later_subgraph", chain, Sched({Sg({0}, kG128, {2}), Sg({1}, kG128)}),
       kInvalid, {"subgraph 0", "tensor 2", "rule 3.6"}},
      {"retain_tensor_of_earlier_subgraph", chain, Sched({Sg({0}, kG128), Sg({1}, kG128, {1})}),
       kInvalid, {"subgraph 1", "tensor 1", "rule 3.6"}},
      {"retain_out_of_range", chain, Sched({Sg({0}, kG128, {9}), Sg({1}, kG128)}), kInvalid,
       {"subgraph 0", "tensor id 9", "rule 3.9"}},
      // Unretained: each loads 16384 and stores 16384: 3276.8 twice.
      {"not_retained", chain, Sched({Sg({0}, kG128), Sg({1}, kG128)}), /*2*3276.8=*/6553.6, {}},
      // Retained T1 is not written: [0] loads 16384 (1638.4 > 1000), [1] stores 16384 (> 100).
      // Working sets 16384+16384 and 16384+16384 (resident T1 + one tile buffer).
      {"retained_sink_not_written", chain, Sched({Sg({0}, kG128, {1}), Sg({1}, kG128)}),
       /*1638.4+1638.4=*/3276.8, {}},
      // T1 is a graph output: written although retained, 32768/10 twice.
      {"retained_graph_output_written", [] { return SharedInput(50000); },
       Sched({Sg({0}, kG128, {1}), Sg({1}, kG128)}), /*3276.8+3276.8=*/6553.6, {}},
  };
}

// Rule 3.7: a traversal order is a permutation of the tile ids. WideMatMul has 2x2 tiles.
std::vector<RuleCase> Traversal() {
  const Subgraph sg = Sg({0}, {128, 128, 128});
  return {
      {"too_short", WideMatMul, Sched({WithOrder(sg, {0, 1, 2})}), kInvalid,
       {"subgraph 0", "3 entries", "4 tiles", "rule 3.7"}},
      {"too_long", WideMatMul, Sched({WithOrder(sg, {0, 1, 2, 3, 0})}), kInvalid,
       {"subgraph 0", "5 entries", "rule 3.7"}},
      {"repeated_tile", WideMatMul, Sched({WithOrder(sg, {0, 1, 1, 3})}), kInvalid,
       {"subgraph 0", "tile 1 twice", "rule 3.7"}},
      {"tile_out_of_range", WideMatMul, Sched({WithOrder(sg, {0, 1, 2, 4})}), kInvalid,
       {"subgraph 0", "tile 4", "out of range", "rule 3.7"}},
      {"negative_tile", WideMatMul, Sched({WithOrder(sg, {0, -1, 2, 3})}), kInvalid,
       {"subgraph 0", "tile -1", "rule 3.7"}},
      // 3 (fresh), 2 (same A rows as 3), 1 (fresh), 0 (same A rows as 1): see ReuseRule.
      {"reverse_permutation", WideMatMul, Sched({WithOrder(sg, {3, 2, 1, 0})}),
       /*4915.2+3276.8+4915.2+3276.8=*/16384, {}},
  };
}

// Rule 3.8: the working set fits at every step; the message names the tile and the k-step.
std::vector<RuleCase> WorkingSet() {
  // 320x128 in 128x128 tiles: rows of 128, 128 and 64. A full tile holds 16384 of T0 and a
  // 16384 tile buffer (32768); the clipped tile 2 holds 8192+8192.
  const Subgraph tall = Sg({0}, kG128);
  const Subgraph epilogue = Sg({0, 1}, {128, 128, 32});
  return {
      {"over_capacity_first_tile", [] { return OnePointwise(320, 20000); }, Sched({tall}),
       kInvalid,
       {"subgraph 0", "working set 32768", "capacity 20000", "tile 0", "k-step 1", "rule 3.8"}},
      // Tile 2 fits (16384); tile 1, visited next, does not.
      {"over_capacity_names_tile", [] { return OnePointwise(320, 20000); },
       Sched({WithOrder(tall, {2, 1, 0})}), kInvalid,
       {"subgraph 0", "working set 32768", "tile 1 (row 1, col 0)", "k-step 1 of 1"}},
      // Exactly at capacity: (16384+16384)/10 twice + (8192+8192)/10, all above compute 100.
      {"at_capacity", [] { return OnePointwise(320, 32768); }, Sched({tall}),
       /*3276.8+3276.8+1638.4=*/8192, {}},
      // k=32: 8 k-steps. Steps 1-7 hold 4096+4096 slices + 2 tile buffers (contest: T4's and
      // MM0's accumulator) = 40960; step 8 adds T3's tile: 57344.
      {"over_capacity_names_k_step", [] { return MatMulEpilogue(50000); }, Sched({epilogue}),
       kInvalid,
       {"subgraph 0", "working set 57344", "capacity 50000", "tile 0", "k-step 8 of 8",
        "rule 3.8"}},
      // Steps 1-7: 8192/10 = 819.2 > 1000*32/256 = 125; step 8: (8192+16384+16384)/10 = 4096.
      {"at_capacity_last_k_step", [] { return MatMulEpilogue(57344); }, Sched({epilogue}),
       /*7*819.2+4096=*/9830.4, {}},
      // Algebra: one tile buffer, step 8 holds 8192+16384+16384 = 40960.
      {"algebra_one_tile_buffer", [] { return MatMulEpilogue(50000); }, Sched({epilogue}),
       /*7*819.2+4096=*/9830.4, {}, Algebra()},
      // A retained tensor stays resident in the next subgraph: 16384 (T1) + 16384 (T0) +
      // 16384 (T2's tile buffer) = 49152.
      {"resident_counts", [] { return SharedInput(40000); },
       Sched({Sg({0}, kG128, {1}), Sg({1}, kG128)}), kInvalid,
       {"subgraph 1", "working set 49152", "capacity 40000", "rule 3.8"}},
  };
}

// Contest rule 7b: a Pointwise op read along a reduction axis covers that axis in one tile.
// Prologue: PW0(T0)->T1, MM1(T1,T2)->T3, costs 400, 3000.
std::vector<RuleCase> ReductionPointwise() {
  return {
      {"contest_w_below_width", Prologue, Sched({Sg({0, 1}, {64, 128, 64})}), kInvalid,
       {"subgraph 0", "op 0", "reduction axis", "w=64", "7b"}},
      // Algebra, 2 tiles of 128x64, 2 k-steps each. Per step PW0 computes a 128x64 strip
      // (400*1*64/128 = 200) and MM1 a slice (3000*1*1*64/128 = 1500). Step 1 loads T0's
      // 128x64 strip and T2's 64x64 slice: 12288/10 = 1228.8 < 1700; step 2 also stores the
      // 128x64 tile: 20480/10 = 2048.
      {"algebra_w_below_width", Prologue, Sched({Sg({0, 1}, {64, 128, 64})}),
       /*2*(1700+2048)=*/7496, {}, Algebra()},
      // w=128 covers T1's 128 columns: 1 tile, step 1 16384/10 = 1638.4 < 1700, step 2
      // (16384+16384)/10 = 3276.8.
      {"contest_w_covers_width", Prologue, Sched({Sg({0, 1}, {128, 128, 64})}),
       /*1700+3276.8=*/4976.8, {}},
  };
}

// Rule 3.9 (ids): op ids in range.
std::vector<RuleCase> Ids() {
  return {
      {"op_out_of_range", [] { return Chain2(50000, 1000, 100); }, Sched({Sg({0, 1, 5}, kG128)}),
       kInvalid, {"subgraph 0", "op id 5", "rule 3.9"}},
  };
}

// SPEC.md section 5, load (b): a slice identical to one the immediately previous step of the
// subgraph needed is not loaded again; partial overlaps are.
//
// WideMatMul, 2x2 tiles of 128x128, k=128 (1 step per tile): tile (r, c) needs A's row strip r
// (16384) and B's column strip c (16384) and stores 16384; compute 2000. Both strips fresh:
// 49152/10 = 4915.2; one reused: 32768/10 = 3276.8.
//
// MixedDemand: T1 is MM0's RHS (k-slice rows) and PW1's input (tile rows); tiles of 64 rows x
// 128 cols, 2 tiles. MM0 computes 400*1*1*k/128 per step, PW1 100 at the last step; the last
// step stores two 64x128 tiles (16384).
std::vector<RuleCase> Reuse() {
  const Subgraph mm = Sg({0}, {128, 128, 128});
  return {
      // 0 fresh, 1 reuses A0, 2 fresh, 3 reuses A1.
      {"raster", WideMatMul, Sched({mm}), /*4915.2+3276.8+4915.2+3276.8=*/16384, {}},
      // 0 fresh, 1 reuses A0, 3 reuses B1, 2 reuses A1.
      {"custom_order", WideMatMul, Sched({WithOrder(mm, {0, 1, 3, 2})}),
       /*4915.2+3*3276.8=*/14745.6, {}},
      // 0 fresh, 2 reuses B0, 1 fresh, 3 reuses B1.
      {"column_major", WideMatMul, Sched({WithOrder(mm, {0, 2, 1, 3})}),
       /*4915.2+3276.8+4915.2+3276.8=*/16384, {}},
      // A, B, A: tile 1 needs A0 as tile 0 did two steps before, but tile 3 between them did
      // not, so A0 is loaded again (B1 is reused from tile 3). Tile 2 shares nothing with 1.
      {"only_previous_step", WideMatMul, Sched({WithOrder(mm, {0, 3, 1, 2})}),
       /*4915.2+4915.2+3276.8+4915.2=*/18022.4, {}},
      // k = h = 64. Tile 0: step 1 loads T0[0:64,0:64] + T1[0:64,:] = 12288 (1228.8 > 200);
      // step 2 loads T0[0:64,64:128] + T1[64:128,:] = 12288, while PW1's T1[0:64,:] is the
      // slice step 1 needed: (12288+16384)/10 = 2867.2 > 300. Tile 1: step 1 loads only
      // T0[64:128,0:64] (T1[0:64,:] again): 409.6 > 200; step 2 loads T0[64:128,64:128] and
      // T1[64:128,:] (needed twice, one slice): 2867.2.
      {"identical_slice_across_kinds", MixedDemand, Sched({Sg({0, 1}, {128, 64, 64})}),
       /*1228.8+2867.2+409.6+2867.2=*/7372.8, {}},
      // k = 32, h = 64: 4 k-steps. Steps 1-3 load a 64x32 strip of T0 and a 32x128 slice of T1:
      // 6144/10 = 614.4 > 100. Step 4 loads those (6144) and PW1's 64x128 tile of T1 (8192),
      // stores 16384: 30720/10 = 3072. Tile 1's step 1 needs T1[0:32,:], inside but not equal
      // to T1[0:64,:] of the step before: a partial overlap, loaded again. (Its step 4 loads
      // both T1[96:128,:] and T1[64:128,:]: distinct slices count in full.)
      {"partial_overlap_reloaded", MixedDemand, Sched({Sg({0, 1}, {128, 64, 32})}),
       /*2*(3*614.4+3072)=*/9830.4, {}},
      // No reuse across subgraphs: both load T0 (16384) and store 16384.
      {"not_across_subgraphs", [] { return SharedInput(50000); },
       Sched({Sg({0}, kG128), Sg({1}, kG128)}), /*2*3276.8=*/6553.6, {}},
  };
}

INSTANTIATE_TEST_SUITE_P(Rule31Coverage, RuleCaseTest, ::testing::ValuesIn(Coverage()),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Rule32Structure, RuleCaseTest, ::testing::ValuesIn(Structure()),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Rule33Sinks, RuleCaseTest, ::testing::ValuesIn(Sinks()), CaseName);
INSTANTIATE_TEST_SUITE_P(Rule34Bounds, RuleCaseTest, ::testing::ValuesIn(Bounds()), CaseName);
INSTANTIATE_TEST_SUITE_P(Rule35Availability, RuleCaseTest, ::testing::ValuesIn(Availability()),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Rule36Retention, RuleCaseTest, ::testing::ValuesIn(Retention()),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Rule37Traversal, RuleCaseTest, ::testing::ValuesIn(Traversal()),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Rule38WorkingSet, RuleCaseTest, ::testing::ValuesIn(WorkingSet()),
                         CaseName);
INSTANTIATE_TEST_SUITE_P(Rule7bReductionPointwise, RuleCaseTest,
                         ::testing::ValuesIn(ReductionPointwise()), CaseName);
INSTANTIATE_TEST_SUITE_P(Rule39Ids, RuleCaseTest, ::testing::ValuesIn(Ids()), CaseName);
INSTANTIATE_TEST_SUITE_P(ReuseRule, RuleCaseTest, ::testing::ValuesIn(Reuse()), CaseName);

// --- Breakdowns ------------------------------------------------------------------------------

// Loads depend on the traversal order; the breakdown counts elements moved.
TEST(ReuseBreakdown, TraversalOrderChangesLoads) {
  const Problem problem = WideMatMul();
  const Subgraph mm = Sg({0}, {128, 128, 128});
  struct Row {
    std::vector<int64_t> order;
    int64_t loaded;
  };
  const std::vector<Row> rows = {
      {{}, /*32768+16384+32768+16384=*/98304},
      {{0, 1, 3, 2}, /*32768+3*16384=*/81920},
      {{0, 3, 1, 2}, /*32768+32768+16384+32768=*/114688},
  };
  for (const Row& row : rows) {
    auto result = Evaluate(problem, Sched({WithOrder(mm, row.order)}), CostModes{});
    ASSERT_TRUE(result.ok()) << result.status().message();
    EXPECT_EQ(result->subgraphs[0].cost.loaded, row.loaded) << ::testing::PrintToString(row.order);
    EXPECT_EQ(result->subgraphs[0].cost.stored, /*4*16384=*/65536);
  }
}

TEST(RuleBreakdown, CountsLoadedAndStored) {
  const Problem problem = WideMatMul();
  auto result = Evaluate(problem, Sched({Sg({0}, {128, 128, 128})}), CostModes{});
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->subgraphs.size(), 1u);
  const SubgraphCost& cost = result->subgraphs[0].cost;
  EXPECT_EQ(cost.tiles, 4);
  EXPECT_EQ(cost.k_steps, 1);
  EXPECT_EQ(cost.steps, 4);
  EXPECT_EQ(cost.loaded, /*32768+16384+32768+16384=*/98304);
  EXPECT_EQ(cost.stored, /*4*16384=*/65536);
  EXPECT_NEAR(cost.compute_time, /*4*2000=*/8000, 1e-9 * 8000);
  EXPECT_NEAR(cost.memory_time, /*(98304+65536)/10=*/16384, 1e-9 * 16384);
  EXPECT_NEAR(cost.latency, 16384, 1e-9 * 16384);
  EXPECT_EQ(cost.memory_bound_steps, 4);
  EXPECT_EQ(cost.compute_bound_steps, 0);
  // Both strips are needed (and held) at every step, reused or not: 16384*2 + one tile buffer.
  EXPECT_EQ(cost.peak_working_set, /*32768+16384=*/49152);
  EXPECT_EQ(result->subgraphs[0].written, std::vector<int>{2});
  EXPECT_EQ(result->subgraphs[0].split_roots, std::vector<int>{0});
}

// A retained sink moves no store; a retained graph output still does.
TEST(RuleBreakdown, RetainedSinkIsNotStoredUnlessGraphOutput) {
  {
    const Problem problem = Chain2(35000, 1000, 100);
    auto result = Evaluate(problem, Sched({Sg({0}, kG128, {1}), Sg({1}, kG128)}), CostModes{});
    ASSERT_TRUE(result.ok()) << result.status().message();
    EXPECT_EQ(result->subgraphs[0].cost.loaded, 16384);
    EXPECT_EQ(result->subgraphs[0].cost.stored, 0);
    EXPECT_TRUE(result->subgraphs[0].written.empty());
    EXPECT_EQ(result->subgraphs[1].cost.loaded, /*T1 resident=*/0);
    EXPECT_EQ(result->subgraphs[1].cost.stored, 16384);
  }
  {
    const Problem problem = SharedInput(50000);
    auto result = Evaluate(problem, Sched({Sg({0}, kG128, {1}), Sg({1}, kG128)}), CostModes{});
    ASSERT_TRUE(result.ok()) << result.status().message();
    EXPECT_EQ(result->subgraphs[0].cost.stored, /*T1, a graph output=*/16384);
    EXPECT_EQ(result->subgraphs[0].written, std::vector<int>{1});
    // Subgraph 1 holds the resident T1, T0's tile and T2's tile buffer.
    EXPECT_EQ(result->subgraphs[1].cost.peak_working_set, /*3*16384=*/49152);
  }
}

// --- Reported latencies (rule 3.9): a warning, never an error --------------------------------

Schedule Reported(std::vector<std::optional<double>> latencies) {
  Schedule s = Sched({Sg({0}, kG128), Sg({1}, kG128)});
  for (size_t i = 0; i < latencies.size(); ++i) s.subgraphs[i].reported_latency = latencies[i];
  return s;
}

bool AnyContains(const std::vector<std::string>& warnings, const std::string& part) {
  for (const std::string& w : warnings) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(RuleReportedLatency, MissingIsAWarning) {
  const Problem problem = Chain2(35000, 1000, 100);
  auto result = Evaluate(problem, Reported({}), CostModes{});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_NEAR(result->total, /*2*3276.8=*/6553.6, 1e-9 * 6553.6);
  ASSERT_EQ(result->warnings.size(), 2u);
  EXPECT_TRUE(AnyContains(result->warnings, "subgraph 0")) << result->warnings[0];
  EXPECT_TRUE(AnyContains(result->warnings, "subgraph 1")) << result->warnings[1];
  EXPECT_TRUE(AnyContains(result->warnings, "no reported latency")) << result->warnings[0];
  EXPECT_TRUE(AnyContains(result->warnings, "3276.8")) << result->warnings[0];
}

TEST(RuleReportedLatency, MatchingIsSilent) {
  const Problem problem = Chain2(35000, 1000, 100);
  // Within the relative tolerance 1e-9.
  auto result = Evaluate(problem, Reported({3276.8, 3276.8 * (1 + 1e-12)}), CostModes{});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->warnings.empty()) << result->warnings[0];
}

TEST(RuleReportedLatency, DifferingIsAWarningNotAnError) {
  const Problem problem = Chain2(35000, 1000, 100);
  auto result = Evaluate(problem, Reported({3276.8, 3000}), CostModes{});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_NEAR(result->total, /*computed, not reported: 2*3276.8=*/6553.6, 1e-9 * 6553.6);
  ASSERT_EQ(result->warnings.size(), 1u);
  const std::string& w = result->warnings[0];
  EXPECT_NE(w.find("subgraph 1"), std::string::npos) << w;
  EXPECT_NE(w.find("3000"), std::string::npos) << w;
  EXPECT_NE(w.find("3276.8"), std::string::npos) << w;
  EXPECT_NE(w.find("differs"), std::string::npos) << w;
}


// The bounds of rules 3.4 and 7b come from one place (CostModel::Bounds, which the configurator
// also enumerates from) and CheckGranularity agrees with them at every edge. Prologue: PW0's
// output T1 (128x128) is read by MM1 along its reduction axis (T1's columns).
TEST(GranularityBounds, Rule7bAndTheKLimitMatchTheCheck) {
  const Problem p = Prologue();
  auto plan = SubgraphPlan::Create(p, {0, 1});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const CostModel contest(p, CostModes{});
  const GranularityBounds b = contest.Bounds(*plan);
  EXPECT_EQ(b.min_w, /*T1's width=*/128);
  EXPECT_EQ(b.min_h, 1);
  EXPECT_EQ(b.max_w, 128);
  EXPECT_EQ(b.max_h, 128);
  EXPECT_EQ(b.min_root_extent, /*MM1's K=*/128);
  EXPECT_EQ(b.max_k, /*min(K, native k)=*/128);
  EXPECT_TRUE(contest.CheckGranularity(*plan, {b.min_w, b.max_h, b.max_k}).ok());
  const Status narrow = contest.CheckGranularity(*plan, {b.min_w - 1, b.max_h, b.max_k});
  ASSERT_FALSE(narrow.ok());
  EXPECT_NE(narrow.message().find("op 0 (Pointwise) is read along a reduction axis"),
            std::string::npos) << narrow.message();
  const Status deep = contest.CheckGranularity(*plan, {b.min_w, b.max_h, b.max_k + 1});
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.message().find("k=129 is above native k 128"), std::string::npos)
      << deep.message();
  // Under rules=algebra rule 7b does not apply; under k_limit=reduction only K bounds k.
  const CostModel algebra(p, Algebra());
  EXPECT_EQ(algebra.Bounds(*plan).min_w, 1);
  EXPECT_TRUE(algebra.CheckGranularity(*plan, {1, 1, 1}).ok());
  const CostModel reduction(p, CostModes{Rules::kContest, MatmulReduction::kFullK,
                                         KLimit::kReduction});
  EXPECT_EQ(reduction.Bounds(*plan).max_k, 128);
  const Status over_k = reduction.CheckGranularity(*plan, {128, 128, 129});
  ASSERT_FALSE(over_k.ok());
  EXPECT_NE(over_k.message().find("above the reduction K=128 of split root op 1"),
            std::string::npos) << over_k.message();
}

}  // namespace
}  // namespace tilesched
