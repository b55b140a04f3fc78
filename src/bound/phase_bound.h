// The phase bound (docs/bounds.md, "Phase bound: the last k-step computes, the others load",
// Lemmas P1-P6).
//
// Every step costs max(compute, memory), so a schedule's latency is at least the memory of its
// non-last k-steps plus the compute of its last steps. With split roots that run two or more
// k-steps per tile, the tile-side Pointwise ops (the epilogue) compute only at a tile's last
// step, while the root's re-streamed operand slices are loaded at the steps before: the
// epilogue's compute cannot hide behind those loads. PhaseLowerBound sums, per op, a value
// that holds in the op's first subgraph whatever it is.
//
// Entry point: PhaseLowerBound(problem, modes), the part `phase` of LowerBounds.
#ifndef TILESCHED_BOUND_PHASE_BOUND_H_
#define TILESCHED_BOUND_PHASE_BOUND_H_

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"

namespace tilesched::bound {

// Lemmas P1-P6 of docs/bounds.md: a lower bound on every valid schedule under `modes`.
// Linear in ops and tensors.
double PhaseLowerBound(const Problem& problem, const CostModes& modes);

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_PHASE_BOUND_H_
