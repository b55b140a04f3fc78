// Compute and I/O lower bounds.
#include "tilesched/lower_bound.h"

#include "tilesched/graph.h"

namespace tilesched {

double OpComputeOnce(const Problem& problem, int o, MatmulReduction mode) {
  const Op& op = problem.op(o);
  const Hardware& hw = problem.hardware();
  const Tensor& out = problem.tensor(op.output);
  double cost = op.base_cost * ProportionalFactor(out.height, hw.native_h) *
                ProportionalFactor(out.width, hw.native_w);
  if (op.type == OpType::kMatMul) {
    const int64_t k = problem.reduction_extent(o);
    cost *= ReductionFactor(mode, k, k, hw.native_k());
  }
  return cost;
}

LowerBounds ComputeLowerBounds(const Problem& problem, const CostModes& modes) {
  LowerBounds bounds;
  for (int o = 0; o < problem.num_ops(); ++o) {
    bounds.compute += OpComputeOnce(problem, o, modes.matmul_reduction);
  }
  int64_t traffic = 0;
  for (int t : problem.graph().graph_inputs()) traffic += problem.tensor(t).size();
  for (int t : problem.graph().graph_outputs()) traffic += problem.tensor(t).size();
  bounds.io = static_cast<double>(traffic) / problem.hardware().slow_memory_bandwidth;
  return bounds;
}

}  // namespace tilesched
