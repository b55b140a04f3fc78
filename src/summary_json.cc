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
                              double tier2, double split, const std::vector<SplitComponentJson>& components,
                              double schedule_latency, double cores) {
  nlohmann::json out = {{"lower_bound", std::max({bounds.best(), tier2, split, cores})}};
  for (const BoundPart& part : Parts(bounds)) out[part.name] = part.value;
  if (tier2 >= 0) out["tier2"] = tier2;
  if (split >= 0) {
    out["split"] = split;
    out["split_components"] = nlohmann::json::array();
    for (const SplitComponentJson& c : components) {
      out["split_components"].push_back({{"first_op", c.first_op}, {"ops", c.ops}, {"tensors", c.tensors},
                                         {"value", c.value}, {"tier2", c.tier2}, {"floor", c.floor},
                                         {"mixed", c.mixed}, {"tier2_summary", c.tier2_summary}});
      if (c.schedule_share >= 0) out["split_components"].back()["schedule_share"] = c.schedule_share;
    }
  }
  if (schedule_latency >= 0) out["schedule_latency"] = schedule_latency;
  if (cores >= 0) out["cores"] = cores;
  std::string set_by = BestPart(bounds).name;
  if (tier2 > bounds.best() && tier2 >= split) set_by = "tier2";
  if (split > bounds.best() && split > tier2) set_by = "split";
  if (cores > bounds.best() && cores > tier2 && cores > split) set_by = "cores";
  out["set_by"] = set_by;
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
