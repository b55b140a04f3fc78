// The lower bound as the commands print it: the value, the part that sets it, and every part
// (Parts(), include/tilesched/lower_bound.h), so that a bound printed anywhere is explained by
// what is printed next to it. Used by `bound` and `info`; `evaluate` and `report` name the
// setting part on their one line.
//
// Entry point: BoundText(bounds, modes, tier2).
#ifndef TILESCHED_CLI_BOUND_TEXT_H_
#define TILESCHED_CLI_BOUND_TEXT_H_

#include <string>

#include "tilesched/cost_model.h"
#include "tilesched/lower_bound.h"

namespace tilesched::cli {

// "lower bound X (modes), set by P" and one line per part; `tier2` >= 0 (a run's certified
// value) adds its line, `tier2_note` after it.
std::string BoundText(const LowerBounds& bounds, const CostModes& modes, double tier2 = -1,
                      const std::string& tier2_note = "");

}  // namespace tilesched::cli

#endif  // TILESCHED_CLI_BOUND_TEXT_H_
