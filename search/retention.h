// Retention: which tensors each stage of a draft keeps in fast memory for the next stage.
//
// Entry points: RetentionStaysValid(problem, cur, next, keep) is the validity rule of one
// choice; OptimizeRetention(problem, coster, draft, first, last) chooses the retention of
// stages [first, last) of a draft whose stages (op sets and order) stay as they are. A stage's
// cost depends only on what it retains and on what the stage before it retained (its resident
// set), so the best choice along the chain is a shortest path over the boundaries (dynamic
// programming), exact over the options each boundary offers: every subset of the tensors the
// next stage reads from it when there are at most kMaxSubsetTensors of them (else none, all,
// and each alone), always with the current choice and the tensors the next stage can only get
// this way (consumed inside the stage, so never written). ChangedStages(before, after) and
// OptimizeChangedRetention(problem, coster, before, after) do the same around the stages a move
// or a re-solved window changed. Both keep a draft valid: a choice that a later stage
// contradicts is not taken.
#ifndef TILESCHED_SEARCH_RETENTION_H_
#define TILESCHED_SEARCH_RETENTION_H_

#include <cstddef>
#include <vector>

#include "coster.h"
#include "draft.h"
#include "tilesched/problem.h"

namespace tilesched::search {

// True when `cur` (followed by `next`) may retain `keep`, tensors it produces that `next`
// reads, with the schedule staying valid: a retained sink that is no graph output is not
// written to slow memory, so only `next` may read it. (Whether `next` gets every tensor it
// needs is the draft's concern: DraftIsConsistent.)
bool RetentionStaysValid(const Problem& problem, const Stage& cur, const Stage& next,
                         const std::vector<int>& keep);

// Re-chooses the retention of stages [first, last) (last <= the number of stages) and
// re-configures stages [first, last] (stage `last`, when there is one, keeps its own retention
// and starts with the new resident set). The result is never worse than the draft's current
// choice, which is among the options; returns true when the total fell. The retention of stage
// first - 1 stays as it is. `draft` must be valid; a choice that would leave it invalid (a
// tensor retained and so not written, which a later stage reads again after a recomputation:
// the options see only the next stage) is not taken, and the draft stays as it was.
bool OptimizeRetention(const Problem& problem, SubgraphCoster& coster, Draft* draft, size_t first,
                       size_t last);

// The boundaries around the stages of `after` that differ from `before` (the draft it was
// derived from, by plan or by retention; MatchEnds): [first, last) from the stage before the
// first changed stage to the stage after the last changed one, last <= after.stages.size().
// Stages before `first` and after `last` have the same plans and retention in both drafts;
// first == last when the drafts are the same.
struct StageRange {
  size_t first = 0, last = 0;
};
StageRange ChangedStages(const Draft& before, const Draft& after);

// OptimizeRetention over ChangedStages(before, after): a move that merges, splits or moves ops
// leaves the retention of the stages around it as it was, which is rarely the best for the new
// stages. `before` and `after` must be valid and `after` re-costed (RecostChanged, which checks
// it). Returns true when its total fell; as in OptimizeRetention, a choice that would leave
// `after` invalid is not taken (checked on the changed stages only, ChangeIsConsistent).
bool OptimizeChangedRetention(const Problem& problem, SubgraphCoster& coster, const Draft& before,
                              Draft* after);

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_RETENTION_H_
