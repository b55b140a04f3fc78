// BruteForceOptimum(): the test-only exact optimum of a small problem, the reference that lower
// bounds are checked against (issue 8). It shares no code with src/bound/ or with the
// search; every cost comes from the evaluator's own pieces, and the result is re-scored by
// Evaluate().
//
// The space (SPEC.md sections 2-7), for problems of at most 16 ops and 128 tensors:
//   - any finite sequence of subgraphs; each subgraph is any op set that SubgraphPlan accepts
//     (non-empty, connected, one sink shape: rules 3.2-3.3); ops may repeat across subgraphs
//     (recomputation); every op is covered at least once (rule 3.1); every external input is a
//     graph input, written by an earlier subgraph, or retained by the previous one (rule 3.5);
//   - for each subgraph every retention subset of the tensors it produces (rule 3.6);
//   - for each subgraph every granularity of the candidate sets below that passes
//     CostModel::CheckGranularity (rules 3.4, 7b) and fits fast memory (rule 3.8);
//   - traversal orders: all permutations of the tiles when the grid has at most 4 tiles,
//     otherwise raster, column-major, row snake and column snake.
// Candidate sets. Full (the default when small): every w in 1..min(native_w, max(W, w7b)), every
// h in 1..min(native_h, max(H, h7b)) (w7b, h7b: the least tile contest rule 7b allows,
// CostModel::Bounds), every k in 1..k_max (k_max = min over split roots of K, and also
// <= native_k under k_limit=native; k = 1 alone without split roots). A tile wider than both
// gives the same grid as the larger of W and w7b (edge tiles are clipped, and rule 7b only asks
// w >= w7b), so nothing wider is needed; likewise h. When |w| x |h| x |k| of a subgraph exceeds
// limits.max_full_configs, that subgraph uses the representative sets instead: every power of
// two, the largest size, the balanced sizes ceil(D/n) for n = 1..4 tiles and every divisor of D
// (for w and h, D = W or H; for k, D = each split root's K, sizes up to k_max).
// A result is `exhaustive` only when every subgraph context it costed used the full sets.
//
// Search: uniform-cost (Dijkstra) search over states (ops covered, tensors in slow memory,
// tensors retained by the previous subgraph). No length cap is needed: latencies are >= 0, so
// the first goal state settled (all ops covered) is optimal over the whole space. Why the
// reductions lose nothing:
//   1. State: which later subgraphs are valid and what they cost depends only on the state
//      (availability needs slow memory + retained; a subgraph's cost depends on its ops, tile,
//      traversal, retention and the retained set it starts with, SPEC.md sections 5-6).
//   2. Per subgraph context (op set, retention, retained-before) only the cheapest granularity
//      and traversal is kept: neither changes which tensors are written or retained, so the
//      rest of the schedule is the same for every choice.
//   3. Lazy edges: an edge is first queued with key d + (a), re-queued at its first pop with
//      key d + max((a), (b)), and costed only when that key is popped; keys stay lower bounds,
//      so states are still settled by true distance. (a) traffic: (elements of every external input not retained before + elements
//      of every tensor written) / bandwidth; each external input is read whole at least once
//      (every sink is computed whole, so all of each input is needed), each written tensor is
//      stored whole once, and a step costs at least its traffic; (b) compute: the least compute
//      time of the op set over all its candidate granularities, fitting or not (costed with an
//      unbounded fast memory); compute does not depend on the order, retention, residency or
//      capacity (SPEC.md section 5). (Fitting granularities alone would be wrong: a resident
//      tensor read as several slices, e.g. both operands of MatMul(T, T), can make the
//      working set smaller than with nothing resident.) Each costed edge checks cost >= lb
//      and counts a violation (`lb_violations`) otherwise.
//   4. Within a granularity, orders are tried raster first; a step costs at least its compute
//      and no order changes what a step computes, so once an order is compute-bound at every
//      step, or its compute time alone reaches the best latency so far, the remaining orders of
//      that granularity are skipped.
//   5. When every slice a subgraph loads spans tile rows x tile columns, no two different tiles
//      need an identical slice, so the order cannot change the cost and only raster is tried.
//   6. A resident tensor that the subgraph neither reads nor produces changes no load and adds
//      its whole size to every step's working set (SPEC.md sections 5-6), so the options of a
//      context (granularity, working set, cheapest order) are costed once per relevant
//      resident set and filtered by capacity minus the other resident tensors; the chosen
//      option's working set is re-checked with the whole resident set.
// Costs: latencies come from CostModel::Cost on a copy of the problem with unbounded fast
// memory (capacity enters only rule 3.8), fit from CostModel::PeakWorkingSet on the problem
// itself; both are the pieces Evaluate() runs. The returned schedule is then re-scored by
// Evaluate(), which must accept it with the same total, or `error` says why.
// Reduced space: when the full space needs more than limits.full_cost_calls Cost calls, the
// search restarts in the reduced space (the four orders only, even on grids of <= 4 tiles, and
// the representative sizes everywhere); such a result is `reduced` and not exhaustive. A
// limit (`max_states`, `max_cost_calls`) cuts the search; a cut result is not exhaustive and
// may have found nothing.
#ifndef TILESCHED_TESTS_BRUTE_FORCE_H_
#define TILESCHED_TESTS_BRUTE_FORCE_H_

#include <cstdint>
#include <string>

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"

namespace tilesched::testing {

struct BruteForceLimits {
  // Above this many (w, h, k) triples a subgraph uses the representative candidate sets.
  int64_t max_full_configs = 4096;
  int64_t max_states = 200000;        // states settled
  int64_t max_cost_calls = 20000000;  // CostModel::Cost calls, in all
  int64_t full_cost_calls = 20000000;  // beyond this the reduced space is searched instead
};

struct BruteForceResult {
  bool found = false;        // a valid schedule exists in the space (within the limits)
  double total = 0;          // Evaluate()'s total of `schedule`
  Schedule schedule;         // an optimal schedule of the space, with reported latencies
  bool exhaustive = true;    // full candidate sets everywhere and no limit reached
  bool cut = false;          // a limit stopped the search
  bool reduced = false;      // the reduced space was searched (the full one was too large)
  std::string error;         // non-empty when Evaluate() disagrees with the search (a bug), or the
                             // problem is beyond the space (more than 16 ops or 128 tensors)
  int64_t states = 0;        // states settled
  int64_t contexts = 0;      // subgraph contexts costed
  int64_t cost_calls = 0;    // CostModel::Cost calls
  int64_t lb_violations = 0; // edges whose cost fell below their lazy key (must stay 0)
};

BruteForceResult BruteForceOptimum(const Problem& problem, const CostModes& modes,
                                   const BruteForceLimits& limits = {});

}  // namespace tilesched::testing

#endif  // TILESCHED_TESTS_BRUTE_FORCE_H_
