// Generated workloads for the scaling measurements (issue 12, docs/scaling.md): a random
// layered DAG of bounded degree.
//
// Entry point: MakeRandomLayeredDag(RandomDagOptions). Ops come in layers of `layer_width`;
// every activation is a `size` x `size` tensor. An op of layer i reads from the outputs of the
// `reach` layers before it (layer 0 reads the graph's activation inputs): a MatMul (half of the
// ops) reads one activation as its left operand and, as its right, another activation or a fresh
// weight (a graph input); a Pointwise op reads one to `max_inputs` activations. No tensor gets
// more than `max_readers` readers, so every op has at most max(2, max_inputs) inputs and
// max_readers consumers: the degree is bounded whatever the size. Ops are numbered layer by
// layer (a topological order). Same options, same problem. Hardware as the stack's: fast memory
// 300000, bandwidth 20, native tile 128x128.
//
// May depend on: core.
#ifndef TILESCHED_EXPERIMENT_RANDOM_DAG_H_
#define TILESCHED_EXPERIMENT_RANDOM_DAG_H_

#include <cstdint>

#include "tilesched/problem.h"
#include "tilesched/status.h"

namespace tilesched::experiment {

struct RandomDagOptions {
  int ops = 1000;
  int layer_width = 8;   // ops per layer
  int reach = 2;         // an op reads outputs of at most this many layers back
  int max_inputs = 2;    // most inputs of a Pointwise op
  int max_readers = 3;   // most readers of one tensor
  int64_t size = 256;    // every activation is size x size
  uint64_t seed = 1;
};

// Fails (with the option's name) when an option is out of range.
Result<Problem> MakeRandomLayeredDag(const RandomDagOptions& options);

}  // namespace tilesched::experiment

#endif  // TILESCHED_EXPERIMENT_RANDOM_DAG_H_
