// The mixed-roofline bound (docs/bounds.md, Lemmas G1-G3) and the parts built on it: every
// subgraph costs at least the larger of its compute and its traffic, so ops that are
// compute-heavy and ops that are memory-heavy only hide each other's cost when they can be
// first in one subgraph together. A traffic pass without stores prices each op's load of its
// first subgraph; a bipartite max flow pairs the compute-heavy with the memory-heavy ops that
// may share one (Lemma G1; Lemmas G4-G6 rule pairs out); at most five passes restrict the roles
// by the pairs' cost (G2-G3).
//
// Entry points: MixedLowerBound (the part `mixed`), CapacityLowerBound (`capacity`: traffic and
// mixed with Lemma K1's charges), SharedLowerBound (`shared`: with Lemmas S1-S3),
// MixedBound(problem, modes, variant[, component_of, by_component]) (with Lemma W4's value of
// each link component when asked) and AnySharedSplit. 0 above kMaxMixedOps ops (not computed).
#ifndef TILESCHED_BOUND_MIXED_BOUND_H_
#define TILESCHED_BOUND_MIXED_BOUND_H_

#include <vector>

#include "role_graph.h"
#include "traffic_bound.h"
#include "tilesched/cost_model.h"
#include "tilesched/problem.h"

namespace tilesched::bound {

// Lemma G1 is pairwise in ops (a bipartite flow) and runs at most five traffic passes; above
// this many ops the mixed bound is not computed (0), which keeps the bound's time near-linear.
constexpr int kMaxMixedOps = 1000;
static_assert(kMaxMixedOps <= kMaxReachOps, "Lemma G1 uses Lemma M6's reachability");

// Lemmas G1-G6 with the charges of `variant`. With `component_of` (LinkComponents' ids), also
// Lemma W4: `by_component` gets, per link component, the best valid pass's bound on the
// latency of the subgraphs that lie in it. `sink_shapes` false leaves Lemma G6 out of the pairs
// (not out of Lemma M7's shares; tests compare the two).
double MixedBound(const Problem& problem, const CostModes& modes, Variant variant,
                  const std::vector<int>* component_of = nullptr, std::vector<double>* by_component = nullptr,
                  bool sink_shapes = true);

// Whether Lemma S1 splits any graph input (the shared part is computed only then).
bool AnySharedSplit(const Problem& problem);

// Lemma G1 with Lemma M7's charges.
double MixedLowerBound(const Problem& problem, const CostModes& modes);

// Lemma K1: the traffic and mixed bounds with every charge minimized over the tiles whose working
// set fits (not only the native tile); the larger of the two. The traffic pass runs twice, with
// Lemma M8's gains and with Lemma J1 instead (they never share a pass).
double CapacityLowerBound(const Problem& problem, const CostModes& modes);

// Lemmas S1-S3: the traffic and mixed bounds with the loads of a graph input shared by MatMuls
// split by what each reader holds in fast memory; the larger of the two, or 0 when no graph input
// can be split.
double SharedLowerBound(const Problem& problem, const CostModes& modes);

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_MIXED_BOUND_H_
