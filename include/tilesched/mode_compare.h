// One schedule judged under several readings of SPEC.md section 7 at once (`tilesched evaluate
// --rules contest,algebra ...`): the mode combinations, one Evaluate() per combination, and the
// side-by-side result as JSON.
//
// Entry points: ModeCombinations (comma-separated lists of the three switches -> every
// combination, in a fixed order), EvaluateModes (the schedule under each), AllValid (the exit
// status rule), FirstValid (the column differences are taken to), DescribeFailure (the rule,
// subgraph and op / tensor a rejection names) and ModeComparisonToJson. Lives in the io library because of the JSON writer; the rest uses only
// the core.
#ifndef TILESCHED_MODE_COMPARE_H_
#define TILESCHED_MODE_COMPARE_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tilesched/cost_model.h"
#include "tilesched/evaluate.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

// Every combination of the listed values ("contest,algebra"; an empty list keeps `base`'s
// value), rules varying slowest and k_limit fastest, each list in the order given. Fails on an
// unknown or repeated value, naming the switch.
Result<std::vector<CostModes>> ModeCombinations(const std::string& rules,
                                                const std::string& matmul_reduction,
                                                const std::string& k_limit,
                                                const CostModes& base = {});

struct ModeResult {
  CostModes modes;
  Result<Evaluation> evaluation;
};

std::vector<ModeResult> EvaluateModes(const Problem& problem, const Schedule& schedule,
                                      std::span<const CostModes> modes);

// True when every reading accepts the schedule (exit status 0 of `evaluate`).
bool AllValid(std::span<const ModeResult> results);
// The first accepted result (differences and ratios are to it), or null.
const Evaluation* FirstValid(std::span<const ModeResult> results);

// Where a rejection message points: its rule ("rule 3.8", "SPEC 7b"), its subgraph, the first
// op, tensor or tile it names ("op 0", "tensor 3", "tile 0"; empty when it names none), and the
// first op and the first tensor it names (the Python InvalidSchedule carries them).
struct FailureSite {
  std::string rule;
  std::optional<int> subgraph;
  std::string object;
  std::optional<int> op;      // the first op it names
  std::optional<int> tensor;  // the first tensor it names
};
FailureSite DescribeFailure(const std::string& message);

// {"valid": all valid, "modes": [{"rules", "matmul_reduction", "k_limit", "valid", "error"
// (string or null), "rule", "subgraph", "object" (null unless invalid), "total" (number or
// null), "difference" and "ratio" (to the first valid combination; null when invalid),
// "recomputation_time" (number or null)}]}.
std::string ModeComparisonToJson(std::span<const ModeResult> results);

}  // namespace tilesched

#endif  // TILESCHED_MODE_COMPARE_H_
