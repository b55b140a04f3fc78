// `tilesched generate stack`: a transformer-like stack of identical blocks as a problem JSON,
// the workload of the scaling measurements (issue 12, docs/scaling.md).
//
// Entry point: RunGenerate. A block (sequence S = 512 rows, width D = 256), 15 ops:
//   n1 = norm(x)                  Pointwise            S x D
//   q  = n1 @ Wq,  v = n1 @ Wv    MatMul               S x D
//   kT = WkT @ cT                 MatMul (K, transposed, projected from the block's context
//                                 cT, a D x S graph input: the ops have no transpose)  D x S
//   s  = q @ kT                   MatMul (scores)      S x S
//   p  = softmax(s)               Pointwise            S x S
//   a  = p @ v,  o = a @ Wo       MatMul               S x D
//   r1 = o + x                    Pointwise (residual)
//   n2 = norm(r1)                 Pointwise
//   h  = n2 @ W1, u = n2 @ W3     MatMul (4x MLP, gated)  S x 4D
//   g  = act(h) * u               Pointwise
//   d  = g @ W2                   MatMul               S x D
//   x' = d + r1                   Pointwise (residual): the next block's x
// Each block's tensors and ops follow the previous block's in the same order, so every block is
// the same subgraph shape with ids shifted by a constant.
#include <iostream>

#include "args.h"
#include "commands.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"
#include "tilesched/problem.h"

namespace tilesched::cli {

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

}  // namespace

int RunGenerate(int argc, char** argv, int first) {
  Args args("generate", "stack --blocks N [-o OUT.json]",
            "Writes a generated problem. 'stack': N identical transformer-like blocks of 15 ops\n"
            "(norm, Q, K-transposed and V projections, scores, softmax, scores x V, output\n"
            "projection, residual, norm, gated 4x MLP, residual; sequence 512, width 256),\n"
            "fast memory 300000, bandwidth 20, native tile 128x128. See docs/scaling.md.\n"
            "Exit status: 0 written, 2 usage error.",
            {{"blocks", "N", "number of blocks (1 to 100000)", ""},
             {"output", "OUT.json", "write the problem here (default: stdout)", "-o"}},
            1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  if (args.positional()[0] != "stack") {
    return Fail("generate", "unknown kind '" + args.positional()[0] + "' (known: stack)", kExitUsage);
  }
  auto blocks = args.GetInt("blocks", -1);
  if (!blocks.ok()) return Fail("generate", blocks.status().message(), kExitUsage);
  if (*blocks < 1 || *blocks > 100000) {
    return Fail("generate", "--blocks: expected 1 to 100000, got " + std::to_string(*blocks),
                kExitUsage);
  }
  auto problem = MakeTransformerStack(static_cast<int>(*blocks), /*seq=*/512, /*width=*/256);
  if (!problem.ok()) return Fail("generate", problem.status().message(), kExitInternal);
  const std::string json = ProblemToJson(*problem);
  if (!args.Has("output")) {
    std::cout << json;
    return kExitOk;
  }
  if (args.Get("output").empty()) return Fail("generate", "--output: expected a file name", kExitUsage);
  if (Status s = WriteFileAtomic(args.Get("output"), json); !s.ok()) {
    return Fail("generate", s.message(), kExitUsage);
  }
  return kExitOk;
}

}  // namespace tilesched::cli
