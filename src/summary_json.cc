// Bound and run-summary JSON.
#include "tilesched/summary_json.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace tilesched {

namespace {

nlohmann::json ModesObject(const CostModes& modes) {
  return {{"rules", RulesName(modes.rules)},
          {"matmul_reduction", MatmulReductionName(modes.matmul_reduction)},
          {"k_limit", KLimitName(modes.k_limit)}};
}

}  // namespace

std::string LowerBoundsToJson(const LowerBounds& bounds, const CostModes& modes, double seconds,
                              double tier2) {
  nlohmann::json out = {{"lower_bound", std::max(bounds.best(), tier2)}};
  for (const BoundPart& part : Parts(bounds)) out[part.name] = part.value;
  if (tier2 >= 0) out["tier2"] = tier2;
  out["set_by"] = tier2 > bounds.best() ? "tier2" : BestPart(bounds).name;
  out["modes"] = ModesObject(modes);
  out["time_s"] = seconds;
  return out.dump(2) + "\n";
}

std::string ScheduleSummaryToJson(const ScheduleSummary& s) {
  const nlohmann::json out = {{"latency", s.latency},   {"lower_bound", s.lower_bound},
                              {"gap", s.gap},           {"optimal", s.optimal},
                              {"found_by", s.found_by}, {"time_s", s.time_s},
                              {"subgraphs", s.subgraphs}, {"modes", ModesObject(s.modes)}};
  return out.dump(2) + "\n";
}

}  // namespace tilesched
