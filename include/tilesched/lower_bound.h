// Lower bounds on any valid schedule's total latency (used by `info`, results and tests).
//
// Entry point: ComputeLowerBounds(problem, modes). Compute: every op computed once, each
// dimension paying exactly d / native (SPEC.md section 5; a padded spatial dimension only
// costs more). I/O: every graph input read once and every graph output written once. Any
// schedule's total is at least the larger of the two, since a step costs at least its compute
// and at least its traffic.
#ifndef TILESCHED_LOWER_BOUND_H_
#define TILESCHED_LOWER_BOUND_H_

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"

namespace tilesched {

struct LowerBounds {
  double compute = 0;
  double io = 0;
  double best() const { return compute > io ? compute : io; }
};

// Compute cost of op o computed once in full.
double OpComputeOnce(const Problem& problem, int o, MatmulReduction mode);

LowerBounds ComputeLowerBounds(const Problem& problem, const CostModes& modes);

}  // namespace tilesched

#endif  // TILESCHED_LOWER_BOUND_H_
