// Generated workloads for the scaling measurements (issue 12, docs/scaling.md): a
// transformer-like stack of identical blocks.
//
// Entry point: MakeTransformerStack(blocks, seq, width). A block (sequence S rows, width D),
// 15 ops:
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
// the same subgraph shape with ids shifted by a constant. Hardware: fast memory 300000,
// bandwidth 20, native tile 128x128.
//
// May depend on: core.
#ifndef TILESCHED_EXPERIMENT_STACK_H_
#define TILESCHED_EXPERIMENT_STACK_H_

#include <cstdint>

#include "tilesched/problem.h"
#include "tilesched/status.h"

namespace tilesched::experiment {

Result<Problem> MakeTransformerStack(int blocks, int64_t seq, int64_t width);

}  // namespace tilesched::experiment

#endif  // TILESCHED_EXPERIMENT_STACK_H_
