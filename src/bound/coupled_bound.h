// The coupled bound (docs/bounds.md, "Coupled: compute and traffic of one tile choice", Lemmas
// L1-L2): a step costs at least lambda x compute + (1 - lambda) x memory for every lambda in
// [0, 1], so the capacity-aware charges with each op's own compute added (weighted) bound the
// schedule's lambda-combination; a smaller tile pays more padded compute (SPEC 5).
//
// Entry point: CoupledLowerBound(problem, modes), the part `coupled`: the largest over a few
// lambdas, or with two grid classes or more each class at its own best lambda (L2). Computed
// (else 0) only when some MatMul may run its whole reduction in one k-step.
#ifndef TILESCHED_BOUND_COUPLED_BOUND_H_
#define TILESCHED_BOUND_COUPLED_BOUND_H_

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"

namespace tilesched::bound {

double CoupledLowerBound(const Problem& problem, const CostModes& modes);

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_COUPLED_BOUND_H_
