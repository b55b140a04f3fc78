// The transformer-like stack of stack.h.
#include "stack.h"

#include <utility>
#include <vector>

namespace tilesched::experiment {

namespace {

// Base costs per native tile, as in the contest benchmarks (data/benchmarks: MatMul 2000,
// Pointwise 500).
constexpr double kMatMulCost = 2000;
constexpr double kPointwiseCost = 500;

struct StackBuilder {
  std::vector<Tensor> tensors;
  std::vector<Op> ops;

  int AddTensor(int64_t height, int64_t width) {
    tensors.push_back(tilesched::Tensor{width, height});
    return static_cast<int>(tensors.size()) - 1;
  }
  int MatMul(int lhs, int rhs) {
    const int out = AddTensor(tensors[lhs].height, tensors[rhs].width);
    ops.push_back({OpType::kMatMul, {lhs, rhs}, out, kMatMulCost});
    return out;
  }
  int Pointwise(std::vector<int> inputs) {
    const int out = AddTensor(tensors[inputs[0]].height, tensors[inputs[0]].width);
    ops.push_back({OpType::kPointwise, std::move(inputs), out, kPointwiseCost});
    return out;
  }
};

}  // namespace

Result<Problem> MakeTransformerStack(int blocks, int64_t seq, int64_t width) {
  StackBuilder b;
  int x = b.AddTensor(seq, width);
  for (int i = 0; i < blocks; ++i) {
    const int wq = b.AddTensor(width, width), wk_t = b.AddTensor(width, width);
    const int context_t = b.AddTensor(width, seq), wv = b.AddTensor(width, width);
    const int wo = b.AddTensor(width, width), w1 = b.AddTensor(width, 4 * width);
    const int w3 = b.AddTensor(width, 4 * width), w2 = b.AddTensor(4 * width, width);
    const int n1 = b.Pointwise({x});
    const int q = b.MatMul(n1, wq);
    const int k_t = b.MatMul(wk_t, context_t);
    const int v = b.MatMul(n1, wv);
    const int scores = b.MatMul(q, k_t);
    const int probs = b.Pointwise({scores});
    const int attended = b.MatMul(probs, v);
    const int projected = b.MatMul(attended, wo);
    const int r1 = b.Pointwise({projected, x});
    const int n2 = b.Pointwise({r1});
    const int h = b.MatMul(n2, w1);
    const int u = b.MatMul(n2, w3);
    const int gated = b.Pointwise({h, u});
    const int down = b.MatMul(gated, w2);
    x = b.Pointwise({down, r1});
  }
  Hardware hw;
  hw.fast_memory_capacity = 300000;
  hw.slow_memory_bandwidth = 20;
  hw.native_w = hw.native_h = 128;
  return Problem::Create(std::move(b.tensors), std::move(b.ops), hw);
}


}  // namespace tilesched::experiment
