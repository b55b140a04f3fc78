// Loading and judging the inputs of `report` and `dot`.
#include "judged_input.h"

#include "args.h"
#include "tilesched/io.h"

namespace tilesched::cli {

std::optional<JudgedInput> LoadJudged(const std::string& command, const std::string& problem_path,
                                      const std::string& solution_path, const CostModes& modes,
                                      int* exit_code) {
  std::vector<std::string> warnings;
  auto problem = LoadProblem(problem_path, &warnings);
  if (!problem.ok()) {
    *exit_code = Fail(command, problem.status().message(), kExitUsage);
    return std::nullopt;
  }
  auto schedule = LoadSolution(solution_path, &warnings);
  if (!schedule.ok()) {
    *exit_code = Fail(command, schedule.status().message(), kExitUsage);
    return std::nullopt;
  }
  PrintWarnings(command, warnings);
  auto evaluation = Evaluate(*problem, *schedule, modes);
  if (!evaluation.ok()) {
    *exit_code = Fail(command, "invalid schedule: " + evaluation.status().message(), kExitInvalid);
    return std::nullopt;
  }
  return JudgedInput{std::move(problem).value(), std::move(schedule).value(),
                     std::move(evaluation).value()};
}

}  // namespace tilesched::cli
