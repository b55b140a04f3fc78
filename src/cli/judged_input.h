// JudgedInput: the problem, solution and Evaluate()'s verdict that `report`, `dot` and
// `bound --schedule` start from, loaded with the house treatment of bad input (one line,
// exit 2; an invalid schedule exits 1).
#ifndef TILESCHED_CLI_JUDGED_INPUT_H_
#define TILESCHED_CLI_JUDGED_INPUT_H_

#include <optional>
#include <string>

#include "tilesched/cost_model.h"
#include "tilesched/evaluate.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"

namespace tilesched::cli {

struct JudgedInput {
  Problem problem;
  Schedule schedule;
  Evaluation evaluation;
};

// Loads both files and judges the schedule; on failure prints the error for `command` and
// sets *exit_code.
std::optional<JudgedInput> LoadJudged(const std::string& command, const std::string& problem_path,
                                      const std::string& solution_path, const CostModes& modes,
                                      int* exit_code);

}  // namespace tilesched::cli

#endif  // TILESCHED_CLI_JUDGED_INPUT_H_
