// Lemma H1 of docs/bounds.md ("Held tensors"): a tensor retained by the previous subgraph is
// held whole at every step of the subgraph, also while the producers computed inside it for
// its readers run, so those producers are priced with less room (and cannot hold a second such
// tensor). The part `held` of LowerBounds.
//
// Entry point: HeldLowerBound(problem, modes): the traffic bound of Lemmas M1-M7 with Lemma
// K1's charges over the tiles that fit, graph inputs shared by M7's alpha (not Lemma K2), and
// every producer computed inside priced with its reader's resident operands held; / bandwidth.
// Defined in src/lower_bound.cc, whose charge recursion it extends.
#ifndef TILESCHED_LOWER_BOUND_HELD_H_
#define TILESCHED_LOWER_BOUND_HELD_H_

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"

namespace tilesched {

double HeldLowerBound(const Problem& problem, const CostModes& modes);

}  // namespace tilesched

#endif  // TILESCHED_LOWER_BOUND_HELD_H_
