// Moves: small named local changes of a whole schedule, used by annealing (and tested alone).
//
// Entry points: AllMoves() lists them; Move::Apply(draft, ctx, rng) returns a changed copy or
// nullopt when the move does not apply to the chosen spot (Move::ApplyInto writes it into a
// draft of the caller's). The copy's stages are not yet
// re-costed; the caller runs RecostDraft(), which also rejects invalid results.
#ifndef TILESCHED_SEARCH_MOVES_H_
#define TILESCHED_SEARCH_MOVES_H_

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "draft.h"
#include "plan_cache.h"

namespace tilesched::search {

using Rng = std::mt19937_64;

class Move {
 public:
  virtual ~Move() = default;
  virtual const char* name() const = 0;
  // Writes the changed copy into `out` (whose buffers it reuses: annealing keeps one draft per
  // chain for this) and returns true, or returns false with `out` unspecified.
  virtual bool ApplyInto(const Draft& draft, const Problem& problem, PlanCache& plans, Rng& rng,
                         Draft* out) const = 0;
  std::optional<Draft> Apply(const Draft& draft, const Problem& problem, PlanCache& plans,
                             Rng& rng) const {
    Draft out;
    if (!ApplyInto(draft, problem, plans, rng, &out)) return std::nullopt;
    return out;
  }
};

// merge, split, move-op, recompute, uncompute, retain, swap.
const std::vector<std::unique_ptr<Move>>& AllMoves();

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_MOVES_H_
