// Generated model-sized workloads (issue 24): heterogeneous transformer stacks with their
// attention heads unrolled, mixture-of-experts feed-forward layers, and deep MLPs, on any
// hardware. docs/results_large.md's suite is made of these (data/large/, scripts/
// make_large_suite.sh).
//
// Entry points: MakeTransformerFamily(TransformerFamilyOptions), MakeDeepMlp(DeepMlpOptions).
//
// A transformer layer (sequence S, width D, H heads of width D/H, feed-forward width F):
//   n1 = norm(x)                                  Pointwise           S x D
//   per head h:  q_h  = n1 @ Wq_h                 MatMul              S x D/H
//                kT_h = WkT_h @ memT              MatMul (keys of the encoder memory, a
//                                                 D x S graph input: the ops have no
//                                                 transpose, so keys come from it)  D/H x S
//                v_h  = mem @ Wv_h                MatMul (mem: the same memory, S x D)
//                s_h  = q_h @ kT_h                MatMul (scores)     S x S
//                p_h  = softmax(s_h)              Pointwise           S x S
//                a_h  = p_h @ v_h                 MatMul              S x D/H
//                o_h  = a_h @ Wo_h                MatMul (the head's rows of Wo)  S x D
//   r1 = x + sum_h o_h                            Pointwise, H + 1 inputs
//   n2 = norm(r1)                                 Pointwise
//   then one feed-forward block, by layer kind:
//   plain:  u = n2 @ W1 (S x F), g = act(u), d = g @ W2, x' = r1 + d
//   gated:  u = n2 @ W1, v = n2 @ W3, g = act(u) * v, d = g @ W2, x' = r1 + d
//   MoE (E experts, every expert run densely: the routing is data-dependent, the work
//   static): router = n2 @ Wr (S x E), gates = softmax(router) (a graph output), per expert
//   a gated block d_e, x' = r1 + sum_e d_e (one Pointwise op, E + 1 inputs).
// The memory (mem, memT) is one pair of graph inputs shared by every layer, as an encoder's
// output is in an encoder-decoder model.
//
// A deep MLP: x_{i+1} = act(x_i @ W_i) (S x D_{i+1}), with a residual add where the widths
// of x_i and x_{i+1} agree; widths drawn from a list by the seed.
//
// Base costs follow the importer's formulas (docs/import.md) on configs/hardware/
// contest_like.json's throughputs (2,048 MACs and 64 vector elements per time unit): a MatMul
// costs 128 x 128 x K / 2048 per native tile (full_k: the whole reduction), a Pointwise op
// 128 x 128 x (operations per element) / 64. The same options give the same problem.
//
// May depend on: core.
#ifndef TILESCHED_EXPERIMENT_MODEL_FAMILY_H_
#define TILESCHED_EXPERIMENT_MODEL_FAMILY_H_

#include <cstdint>
#include <vector>

#include "tilesched/problem.h"
#include "tilesched/status.h"

namespace tilesched::experiment {

// The feed-forward block of each layer: all plain, all gated, or drawn per layer by the seed.
enum class MlpKind { kPlain, kGated, kMixed };

struct TransformerFamilyOptions {
  int layers = 2;
  int64_t seq = 256;
  int64_t width = 256;
  int heads = 4;             // must divide width
  int64_t ffn = 1024;        // feed-forward width F
  MlpKind mlp = MlpKind::kMixed;
  int moe_every = 0;         // every N-th layer's feed-forward block is MoE (0: none)
  int experts = 8;
  uint64_t seed = 1;
  Hardware hardware;         // fast memory, bandwidth, native tile
};

struct DeepMlpOptions {
  int layers = 32;
  int64_t seq = 512;
  std::vector<int64_t> widths = {256, 512, 1024};  // each layer's output width, drawn by seed
  uint64_t seed = 1;
  Hardware hardware;
};

// Fail (naming the option) when an option is out of range.
Result<Problem> MakeTransformerFamily(const TransformerFamilyOptions& options);
Result<Problem> MakeDeepMlp(const DeepMlpOptions& options);

}  // namespace tilesched::experiment

#endif  // TILESCHED_EXPERIMENT_MODEL_FAMILY_H_
