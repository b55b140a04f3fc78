// Draft: a schedule as the search builds it, a list of configured stages, convertible to a
// Schedule.
//
// Entry points: Stage (plan, retained tensors, TileChoice), Draft (stages + total),
// RecostDraft() re-configures every stage in order with the right resident set and checks
// coverage and availability, RecostChanged() does so for the stages a move changed (MatchEnds()
// finds them, ChangeIsConsistent() checks only them), ToSchedule() turns a draft into the
// solution value and DraftOf() a judged solution back into a draft (the start of
// SearchOptions::start).
#ifndef TILESCHED_SEARCH_DRAFT_H_
#define TILESCHED_SEARCH_DRAFT_H_

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "configure.h"
#include "coster.h"
#include "plan_cache.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"

namespace tilesched::search {

struct Stage {
  const SubgraphPlan* plan = nullptr;
  std::vector<int> retained;  // sorted
  TileChoice choice;
};

struct Draft {
  std::vector<Stage> stages;
  double total = 0;
};

// Whether a total is lower than `best` by more than rounding: a relative 1e-9, the one test of
// an improvement (the incumbent, LNS, annealing's chain bests, the retention program).
inline bool Improves(double total, double best) { return total < best - 1e-9 * std::max(1.0, best); }

// Re-configures each stage for its context (resident = previous stage's retained) and checks
// rules 3.1, 3.5 and 3.6. Returns false (draft unchanged in meaning) when the draft is not a
// valid schedule or some stage no longer fits.
bool RecostDraft(const Problem& problem, SubgraphCoster& coster, Draft* draft);

// How many stages at each end of `after` are those of `before` (the draft it was derived from):
// the first `front` stages have the same plans and retention, and so do the last `back`, each
// also after the same retention (so with the same resident set); front + back <= both sizes.
struct MatchedEnds {
  size_t front = 0, back = 0;
};
MatchedEnds MatchEnds(const Draft& before, const Draft& after);

// Given that `before` is a valid draft (DraftIsConsistent), whether `after` is one, with `ends`
// = MatchEnds(before, after): the same answer as DraftIsConsistent(after), found by looking at
// the changed stages (and, for a tensor they no longer write, at the stages before them) rather
// than the whole draft; the whole scan only where an op or a written tensor left the change.
bool ChangeIsConsistent(const Problem& problem, const Draft& before, const Draft& after,
                        const MatchedEnds& ends);

// Like RecostDraft, but re-configures only the stages whose ops, retention or resident set
// differ from `before` (the draft `after` was derived from; MatchEnds); the others keep their
// choices. `before` must be valid (ChangeIsConsistent checks only what changed).
bool RecostChanged(const Problem& problem, SubgraphCoster& coster, const Draft& before,
                   Draft* after);

// True when the draft's stages cover every op and read only available tensors.
bool DraftIsConsistent(const Problem& problem, const Draft& draft);

Schedule ToSchedule(const Draft& draft);

// Each op alone, in topological order, at its best configuration, retaining nothing. Fails
// (with the op's name) when some op fits at no granularity.
Result<Draft> SingletonDraft(const Problem& problem, PlanCache& plans, SubgraphCoster& coster);

// A schedule Evaluate() accepted, as a draft with its own tiles, retention and orders (the start
// of SearchOptions::start), each stage at the latency `latencies` gives (Evaluate()'s); fails
// only for a subgraph whose sinks have several shapes (rule 3.3), which Evaluate() rejects.
Result<Draft> DraftOf(PlanCache& plans, const Schedule& schedule, const std::vector<double>& latencies);

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_DRAFT_H_
