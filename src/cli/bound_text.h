// The lower bound as the commands print it: the value, the part that sets it, and every part
// (Parts(), include/tilesched/lower_bound.h), so that a bound printed anywhere is explained by
// what is printed next to it. Used by `bound` and `info`; `evaluate` and `report` name the
// setting part on their one line.
//
// Entry point: BoundText(bounds, modes, certified).
#ifndef TILESCHED_CLI_BOUND_TEXT_H_
#define TILESCHED_CLI_BOUND_TEXT_H_

#include <string>
#include <vector>

#include "tilesched/cost_model.h"
#include "tilesched/lower_bound.h"

namespace tilesched::cli {

// A certified bound beyond tier 1 (tier 2, tier 2 by link components), as one line.
struct CertifiedBound {
  std::string name;  // "tier 2", "split"
  std::string what;  // "covering LP"
  double value = 0;
  std::string note;  // what the run did
};

// "lower bound X (modes), set by P" and one line per part, then one line per certified bound;
// X is the largest of them all.
std::string BoundText(const LowerBounds& bounds, const CostModes& modes,
                      const std::vector<CertifiedBound>& certified = {});

}  // namespace tilesched::cli

#endif  // TILESCHED_CLI_BOUND_TEXT_H_
