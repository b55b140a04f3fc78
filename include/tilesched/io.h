// Problem and solution JSON (SPEC.md sections 1-2): the only place nlohmann_json appears.
//
// Entry points: ParseProblem / ParseSolution turn JSON text into a validated Problem or a
// Schedule, failing with one line that names the field (`inputs[3][1]: ...`), op or tensor;
// SolutionToJson writes the contest format with all five lists; ProblemToJson writes a problem
// back; ParseConfigEntries reads a flat config object. Report JSON (evaluate / info --json) is
// report_json.h.
#ifndef TILESCHED_IO_H_
#define TILESCHED_IO_H_

#include <string>
#include <utility>
#include <vector>

#include "tilesched/problem.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

Result<Problem> ParseProblem(const std::string& text);
Result<Problem> LoadProblem(const std::string& path);

// Parses a solution's structure (types, list lengths). Ids are range-checked by Evaluate().
Result<Schedule> ParseSolution(const std::string& text);
Result<Schedule> LoadSolution(const std::string& path);

// Contest-format JSON; `latencies[s]` becomes subgraph_latencies[s].
std::string SolutionToJson(const Schedule& schedule, const std::vector<double>& latencies);

// Problem back to JSON (used by sweeps and generated test problems).
std::string ProblemToJson(const Problem& problem);

// A config file: one JSON object of scalar values. Returns (key, value as JSON text) pairs in
// file order; the caller checks each key strictly.
Result<std::vector<std::pair<std::string, std::string>>> ParseConfigEntries(const std::string& text);

}  // namespace tilesched

#endif  // TILESCHED_IO_H_
