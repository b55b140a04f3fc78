// JSON of lower bounds and of a scheduling run's outcome (docs/bounds.md).
//
// Entry points: LowerBoundsToJson(bounds, modes, seconds) is what `tilesched bound --json`
// prints; ScheduleSummaryToJson(summary) is the file `tilesched schedule --summary FILE` writes.
#ifndef TILESCHED_SUMMARY_JSON_H_
#define TILESCHED_SUMMARY_JSON_H_

#include <string>
#include <vector>

#include "tilesched/cost_model.h"
#include "tilesched/lower_bound.h"

namespace tilesched {

// One link component of tier 2 by components (the CLI copies it from SplitTier2Component,
// tilesched/search.h): what it counts and why.
struct SplitComponentJson {
  int first_op = 0, ops = 0, tensors = 0;
  double value = 0, tier2 = 0, floor = 0, mixed = 0;
  std::string tier2_summary;
  double schedule_share = -1;  // `bound --schedule`: its subgraphs' latencies (< 0: none given)
};

// {"lower_bound", every tier-1 part, "set_by", "modes", "time_s"}, "tier2" when tier2 >= 0 and
// "split" (tier 2 by link components) when split >= 0, with "split_components" (one object per
// component: first_op, ops, tensors, value, tier2, floor, mixed, tier2_summary, and
// schedule_share when given); lower_bound is the largest of them. "schedule_latency" when
// schedule_latency >= 0 (`bound --schedule`); "cores" (tier 2 on cores) when cores >= 0.
std::string LowerBoundsToJson(const LowerBounds& bounds, const CostModes& modes, double seconds,
                              double tier2 = -1, double split = -1,
                              const std::vector<SplitComponentJson>& components = {},
                              double schedule_latency = -1, double cores = -1);

struct ScheduleSummary {
  double latency = 0;
  double lower_bound = 0;
  double gap = 0;
  bool optimal = false;  // latency equals the lower bound (proven)
  std::string found_by;
  double time_s = 0;
  int subgraphs = 0;
  CostModes modes;
};

// {"latency", "lower_bound", "gap", "optimal", "found_by", "time_s", "subgraphs", "modes"}
std::string ScheduleSummaryToJson(const ScheduleSummary& summary);

}  // namespace tilesched

#endif  // TILESCHED_SUMMARY_JSON_H_
