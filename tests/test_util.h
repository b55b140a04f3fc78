// Helpers for building small problems and schedules in tests.
#ifndef TILESCHED_TESTS_TEST_UTIL_H_
#define TILESCHED_TESTS_TEST_UTIL_H_

#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"

namespace tilesched::testing {

// Builds a Problem op by op: Tensor(h, w) adds a tensor (rows, cols), MatMul/Pointwise add ops.
class ProblemBuilder {
 public:
  ProblemBuilder(int64_t capacity, double bandwidth, int64_t native = 128) {
    hw_.fast_memory_capacity = capacity;
    hw_.slow_memory_bandwidth = bandwidth;
    hw_.native_w = native;
    hw_.native_h = native;
  }
  int Tensor(int64_t rows, int64_t cols) {
    tensors_.push_back({cols, rows});
    return static_cast<int>(tensors_.size()) - 1;
  }
  int MatMul(int lhs, int rhs, int out, double cost) {
    ops_.push_back({OpType::kMatMul, {lhs, rhs}, out, cost});
    return static_cast<int>(ops_.size()) - 1;
  }
  int Pointwise(std::vector<int> in, int out, double cost) {
    ops_.push_back({OpType::kPointwise, std::move(in), out, cost});
    return static_cast<int>(ops_.size()) - 1;
  }
  tilesched::Problem Build() const {
    auto p = tilesched::Problem::Create(tensors_, ops_, hw_);
    EXPECT_TRUE(p.ok()) << p.status().message();
    return std::move(p).value();
  }

 private:
  Hardware hw_;
  std::vector<tilesched::Tensor> tensors_;
  std::vector<Op> ops_;
};

// {y = x @ W, a = act(y), out = a + x} on n x n tensors (capacity 2^20, bandwidth 10): a mixed
// plan, since x is read by k-slices (the MatMul's LHS) and by tiles (the residual).
inline tilesched::Problem LinearActResidual(int64_t n) {
  ProblemBuilder b(/*capacity=*/1 << 20, /*bandwidth=*/10);
  const int x = b.Tensor(n, n), w = b.Tensor(n, n), y = b.Tensor(n, n);
  const int a = b.Tensor(n, n), out = b.Tensor(n, n);
  b.MatMul(x, w, y, 1000);
  b.Pointwise({y}, a, 100);
  b.Pointwise({a, x}, out, 100);
  return b.Build();
}

inline Subgraph Sg(std::vector<int> ops, Granularity g, std::vector<int> retained = {},
                   std::vector<int64_t> traversal = {}) {
  Subgraph sg;
  sg.ops = std::move(ops);
  sg.granularity = g;
  sg.retained = std::move(retained);
  sg.traversal = std::move(traversal);
  return sg;
}

inline Schedule Sched(std::initializer_list<Subgraph> subgraphs) {
  Schedule s;
  s.subgraphs = subgraphs;
  return s;
}

// The eight mode combinations of SPEC.md section 7, rules outermost, k_limit innermost: the
// lower-bound tests check every lemma in each.
inline std::vector<CostModes> AllModes() {
  std::vector<CostModes> modes;
  for (Rules rules : {Rules::kContest, Rules::kAlgebra}) {
    for (MatmulReduction reduction : {MatmulReduction::kFullK, MatmulReduction::kNativeK}) {
      for (KLimit limit : {KLimit::kNative, KLimit::kReduction}) modes.push_back({rules, reduction, limit});
    }
  }
  return modes;
}

}  // namespace tilesched::testing

#endif  // TILESCHED_TESTS_TEST_UTIL_H_
