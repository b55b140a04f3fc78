// The lower bound with its parts, as text.
#include "bound_text.h"

#include <algorithm>

#include "tilesched/table.h"

namespace tilesched::cli {

std::string BoundText(const LowerBounds& bounds, const CostModes& modes, double tier2,
                      const std::string& tier2_note) {
  const bool tier2_sets = tier2 > bounds.best();
  std::string out = "lower bound " + FormatNumber(std::max(bounds.best(), tier2)) + " (" +
                    ModesString(modes) + "), set by " +
                    (tier2_sets ? std::string("tier 2") : BestPart(bounds).name) + "\n";
  for (const BoundPart& part : Parts(bounds)) {
    std::string label = std::string(part.name) + ":";
    label.resize(10, ' ');
    out += "  " + label + FormatNumber(part.value) + "\n";
  }
  if (tier2 >= 0) out += "  tier 2:   " + FormatNumber(tier2) + " (covering LP; " + tier2_note + ")\n";
  return out;
}

}  // namespace tilesched::cli
