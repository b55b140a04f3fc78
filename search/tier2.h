// Tier 2's column generation on one problem (docs/bounds.md, "Tier 2: the covering LP", Lemmas
// T1-T7), with the relaxations under which a link component of a larger problem is priced as a
// problem of its own (Lemma W2, "Tier 2 by components") and Lemma T5's limits.
//
// Entry point: RunCoveringLp(problem, modes, budget, max_tile_configs, relaxation). Tier2Bound
// and RunCover (search/tier2.cc) call it with no W2 relaxation; SplitTier2Bound
// (search/split_tier2.cc) once per component.
#ifndef TILESCHED_SEARCH_TIER2_H_
#define TILESCHED_SEARCH_TIER2_H_

#include <cstdint>

#include "context.h"
#include "context_pricer.h"
#include "tilesched/cost_model.h"
#include "tilesched/problem.h"
#include "tilesched/search.h"

namespace tilesched::search {

// Lemma W2: what a component's own problem may do that the larger problem allows; and Lemma
// T5's limits, for every problem.
struct Tier2Relaxation {
  // Tensors (ids of the component's problem) produced outside the component: they may be
  // resident when a context starts, with no flow row (their producer's subgraph is elsewhere).
  Mask free_resident = 0;
  // Graph outputs of the component's problem that the larger problem may retain instead of
  // writing: every column holding one as a sink is priced its store lower (Lemma X9).
  Mask rebate = 0;
  // Lemma T5: an op set with more fitting retention subsets than this gets one column per
  // resident set for all of them (Tier2Options::retention_subsets; below 1 counts as 1).
  int64_t retention_subsets = 4096;
  int64_t max_contexts = 20000000;  // Tier2Options::max_contexts
  int64_t quick_contexts = 5000000;  // Tier2Options::quick_contexts
  Tier2Symmetry symmetry = Tier2Symmetry::kWhenTooMany;  // Tier2Options::symmetry (Lemma T7)
};

// Column generation over every subgraph context of `problem`, with a certificate checked
// against every column (Lemmas T1-T7; W2 with a relaxation). Its value bounds the latency of
// every valid schedule of `problem`, or with a relaxation the subgraphs of the component. Where
// more than `relaxation.max_contexts` contexts would be listed it lists again with Lemma T5 at
// 64, then 4, retention subsets per op set (each only if below `retention_subsets`). That
// ladder runs first at `relaxation.quick_contexts`; when it had to go down a level for that,
// and time is left, the levels above are tried again at max_contexts, and the larger value is
// kept.
// `keep_until_exit`: Tier2Options::keep_until_exit.
Tier2Result RunCoveringLp(const Problem& problem, const CostModes& modes, const Budget& budget,
                          int64_t max_tile_configs, const Tier2Relaxation& relaxation = {},
                          bool keep_until_exit = false);

// SearchOptions::split_tier2's test: two link components or more, at least one of them within
// tier 2's reach (ContextPricer::Fits) (search/split_tier2.cc).
bool SplitTier2Pays(const Problem& problem, const CostModes& modes);

// "converged", "stopped", "too large", ... (for summaries).
const char* Tier2StatusName(Tier2Status status);

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_TIER2_H_
