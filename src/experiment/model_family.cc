// The model families of model_family.h.
#include "model_family.h"

#include <random>
#include <string>
#include <utility>

namespace tilesched::experiment {

namespace {

// configs/hardware/contest_like.json's throughputs (docs/import.md formulas).
constexpr double kMacsPerTime = 2048;
constexpr double kVectorElementsPerTime = 64;
// Work per element of the Pointwise ops, by docs/import.md's formulas with contest_like's
// operator costs (Add 1, Div 2, Exp, Sqrt, Sigmoid 4): LayerNormalization = 2 ReduceMean + Sub
// + Mul + Add + Sqrt; Softmax = ReduceMax + Sub + Exp + ReduceSum + Div; an activation is one
// Sigmoid (SiLU's multiply is the Pointwise op's second input, counted per extra input).
constexpr double kNormOps = 9;
constexpr double kSoftmaxOps = 9;
constexpr double kActivationOps = 4;
constexpr double kAddOps = 1;

struct Builder {
  explicit Builder(const Hardware& hw)
      : tile_elements(static_cast<double>(hw.native_w) * static_cast<double>(hw.native_h)) {}
  double tile_elements;  // base costs are per native tile
  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  ProblemNames names;

  int Input(int64_t rows, int64_t cols, std::string name) {
    tensors.push_back(Tensor{cols, rows});
    names.tensors.push_back(std::move(name));
    return static_cast<int>(tensors.size()) - 1;
  }
  int MatMul(int lhs, int rhs, const std::string& name) {
    const int out = Input(tensors[lhs].height, tensors[rhs].width, name);
    const double k = static_cast<double>(tensors[lhs].width);
    ops.push_back({OpType::kMatMul, {lhs, rhs}, out, tile_elements * k / kMacsPerTime});
    names.ops.push_back(name);
    return out;
  }
  int Pointwise(std::vector<int> inputs, double ops_per_element, const std::string& name) {
    const int out = Input(tensors[inputs[0]].height, tensors[inputs[0]].width, name);
    const double per_element = ops_per_element + static_cast<double>(inputs.size()) - 1;
    ops.push_back({OpType::kPointwise, std::move(inputs), out,
                   tile_elements * per_element / kVectorElementsPerTime});
    names.ops.push_back(name);
    return out;
  }
  Result<Problem> Finish(const Hardware& hardware) {
    auto problem = Problem::Create(std::move(tensors), std::move(ops), hardware);
    if (!problem.ok()) return problem.status();
    return problem->WithNames(std::move(names));
  }
};

Status CheckHardware(const Hardware& hw) {
  if (hw.fast_memory_capacity <= 0 || !(hw.slow_memory_bandwidth > 0) || hw.native_w <= 0 ||
      hw.native_h <= 0) {
    return Status::Error("hardware: capacity, bandwidth and native tile must be positive");
  }
  return Status::Ok();
}

// A gated feed-forward block on n (S x D) with weights named after `prefix`; returns d (S x D).
int GatedBlock(Builder& b, int n, int64_t width, int64_t ffn, const std::string& prefix) {
  const int w1 = b.Input(width, ffn, prefix + ".w1"), w3 = b.Input(width, ffn, prefix + ".w3");
  const int w2 = b.Input(ffn, width, prefix + ".w2");
  const int u = b.MatMul(n, w1, prefix + ".up");
  const int v = b.MatMul(n, w3, prefix + ".gate");
  const int g = b.Pointwise({u, v}, kActivationOps, prefix + ".act_mul");
  return b.MatMul(g, w2, prefix + ".down");
}

}  // namespace

Result<Problem> MakeTransformerFamily(const TransformerFamilyOptions& o) {
  if (o.layers < 1) return Status::Error("layers: must be at least 1");
  if (o.seq < 1 || o.width < 1 || o.ffn < 1) return Status::Error("seq, width, ffn: must be positive");
  if (o.heads < 1 || o.width % o.heads != 0) {
    return Status::Error("heads: must be at least 1 and divide the width " + std::to_string(o.width));
  }
  if (o.moe_every < 0 || o.experts < 1) return Status::Error("moe-every, experts: out of range");
  if (Status s = CheckHardware(o.hardware); !s.ok()) return s;
  // std::mt19937_64's output is fixed by the standard (not so its distributions), so a seed
  // gives the same problem everywhere.
  std::mt19937_64 rng(o.seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL);
  const int64_t head = o.width / o.heads;
  Builder b(o.hardware);
  int x = b.Input(o.seq, o.width, "x");
  const int mem = b.Input(o.seq, o.width, "memory");
  const int mem_t = b.Input(o.width, o.seq, "memory^T");
  for (int layer = 0; layer < o.layers; ++layer) {
    const std::string l = "layer" + std::to_string(layer);
    const int n1 = b.Pointwise({x}, kNormOps, l + ".norm1");
    std::vector<int> sum = {x};
    for (int h = 0; h < o.heads; ++h) {
      const std::string p = l + ".head" + std::to_string(h);
      const int wq = b.Input(o.width, head, p + ".wq"), wk_t = b.Input(head, o.width, p + ".wk^T");
      const int wv = b.Input(o.width, head, p + ".wv"), wo = b.Input(head, o.width, p + ".wo");
      const int q = b.MatMul(n1, wq, p + ".q");
      const int k_t = b.MatMul(wk_t, mem_t, p + ".k^T");
      const int v = b.MatMul(mem, wv, p + ".v");
      const int scores = b.MatMul(q, k_t, p + ".scores");
      const int probs = b.Pointwise({scores}, kSoftmaxOps, p + ".softmax");
      const int attended = b.MatMul(probs, v, p + ".attend");
      sum.push_back(b.MatMul(attended, wo, p + ".out"));
    }
    const int r1 = b.Pointwise(sum, kAddOps, l + ".residual1");
    const int n2 = b.Pointwise({r1}, kNormOps, l + ".norm2");
    int down;
    if (o.moe_every > 0 && (layer + 1) % o.moe_every == 0) {
      const int wr = b.Input(o.width, o.experts, l + ".router.w");
      const int router = b.MatMul(n2, wr, l + ".router");
      b.Pointwise({router}, kSoftmaxOps, l + ".gates");  // a graph output: the routing weights
      std::vector<int> experts;
      for (int e = 0; e < o.experts; ++e) {
        experts.push_back(GatedBlock(b, n2, o.width, o.ffn, l + ".expert" + std::to_string(e)));
      }
      down = b.Pointwise(experts, kAddOps, l + ".experts_sum");
    } else {
      const bool gated = o.mlp == MlpKind::kGated || (o.mlp == MlpKind::kMixed && rng() % 2 == 0);
      if (gated) {
        down = GatedBlock(b, n2, o.width, o.ffn, l + ".mlp");
      } else {
        const int w1 = b.Input(o.width, o.ffn, l + ".mlp.w1"), w2 = b.Input(o.ffn, o.width, l + ".mlp.w2");
        const int u = b.MatMul(n2, w1, l + ".mlp.up");
        const int g = b.Pointwise({u}, kActivationOps, l + ".mlp.act");
        down = b.MatMul(g, w2, l + ".mlp.down");
      }
    }
    x = b.Pointwise({down, r1}, kAddOps, l + ".residual2");
  }
  return b.Finish(o.hardware);
}

Result<Problem> MakeDeepMlp(const DeepMlpOptions& o) {
  if (o.layers < 1) return Status::Error("layers: must be at least 1");
  if (o.seq < 1 || o.widths.empty()) return Status::Error("seq, widths: must be given");
  for (int64_t w : o.widths) {
    if (w < 1) return Status::Error("widths: must be positive");
  }
  if (Status s = CheckHardware(o.hardware); !s.ok()) return s;
  std::mt19937_64 rng(o.seed * 0x9e3779b97f4a7c15ULL + 0x1d8e4e27c47d124fULL);
  Builder b(o.hardware);
  int x = b.Input(o.seq, o.widths[rng() % o.widths.size()], "x");
  for (int layer = 0; layer < o.layers; ++layer) {
    const std::string l = "layer" + std::to_string(layer);
    const int64_t width = o.widths[rng() % o.widths.size()];
    const int w = b.Input(b.tensors[x].width, width, l + ".w");
    const int u = b.MatMul(x, w, l + ".linear");
    int y = b.Pointwise({u}, kActivationOps, l + ".act");
    if (width == b.tensors[x].width) y = b.Pointwise({y, x}, kAddOps, l + ".residual");
    x = y;
  }
  return b.Finish(o.hardware);
}

}  // namespace tilesched::experiment
