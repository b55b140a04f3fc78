// Report JSON: the machine-readable output of `tilesched evaluate --json` and `tilesched info
// --json` (a judged schedule with its breakdown, a problem with its lower bounds). Separate
// from io.h, whose formats (problem, solution, config) need neither the evaluator nor the
// lower bounds. Implemented in src/io.cc with the other nlohmann_json code.
//
// Entry points: EvaluationToJson / InvalidEvaluationToJson, ProblemInfoToJson.
#ifndef TILESCHED_REPORT_JSON_H_
#define TILESCHED_REPORT_JSON_H_

#include <string>

#include "tilesched/cost_model.h"
#include "tilesched/evaluate.h"
#include "tilesched/lower_bound.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"

namespace tilesched {

// Machine-readable evaluation (`tilesched evaluate --json`): validity, total, breakdown; for a
// problem with model names, each subgraph's `label` and `op_names`.
std::string EvaluationToJson(const Problem& problem, const Schedule& schedule, const Evaluation& evaluation,
                             const CostModes& modes, const LowerBounds& bounds);
std::string InvalidEvaluationToJson(const std::string& error, const CostModes& modes);
// Machine-readable problem summary (`tilesched info --json`); ops and tensors carry `name`
// when the problem has model names.
std::string ProblemInfoToJson(const Problem& problem, const LowerBounds& bounds,
                              const CostModes& modes);

}  // namespace tilesched

#endif  // TILESCHED_REPORT_JSON_H_
