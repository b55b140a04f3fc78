// The lower bound with its parts, as text.
#include "bound_text.h"

#include <algorithm>

#include "tilesched/table.h"

namespace tilesched::cli {

std::string BoundText(const LowerBounds& bounds, const CostModes& modes,
                      const std::vector<CertifiedBound>& certified) {
  double best = bounds.best();
  std::string set_by = BestPart(bounds).name;
  for (const CertifiedBound& c : certified) {
    if (c.value > best) {
      best = c.value;
      set_by = c.name;
    }
  }
  std::string out = "lower bound " + FormatNumber(best) + " (" + ModesString(modes) + "), set by " + set_by + "\n";
  for (const BoundPart& part : Parts(bounds)) {
    std::string label = std::string(part.name) + ":";
    label.resize(10, ' ');
    out += "  " + label + FormatNumber(part.value) + "\n";
  }
  for (const CertifiedBound& c : certified) {
    std::string label = c.name + ":";
    label.resize(10, ' ');
    out += "  " + label + FormatNumber(c.value) + " (" + c.what + "; " + c.note + ")\n";
  }
  return out;
}

}  // namespace tilesched::cli
