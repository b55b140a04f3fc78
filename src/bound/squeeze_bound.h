// The squeeze bound (docs/bounds.md, "Squeeze: what is held shrinks the tile", Lemmas R1-R4).
//
// A resident operand costs no traffic, but it stays in fast memory at every step, so the tiles
// that fit shrink and every small tile pays a whole native tile of compute (SPEC 5-6). Each
// op gets, in its first subgraph, one (compute, traffic) pair per way its operands arrive,
// its output leaves and its readers join it, at the tiles that fit; every step costs at least
// lambda x compute + (1 - lambda) x memory, with one lambda per class of ops that can be first
// in one subgraph together (Lemma M6 separates the classes).
//
// Entry point: SqueezeLowerBound(problem, modes), the part `squeeze` of LowerBounds.
#ifndef TILESCHED_BOUND_SQUEEZE_BOUND_H_
#define TILESCHED_BOUND_SQUEEZE_BOUND_H_

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"

namespace tilesched::bound {

// Lemmas R1-R4 of docs/bounds.md: a lower bound on every valid schedule under `modes`.
// 0 above 1,000 ops (its class computation is quadratic in ops).
double SqueezeLowerBound(const Problem& problem, const CostModes& modes);

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_SQUEEZE_BOUND_H_
