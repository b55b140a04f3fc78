// Problem and solution JSON (SPEC.md sections 1-2): the only place nlohmann_json appears.
//
// Entry points: ParseProblem / ParseSolution turn JSON text into a validated Problem or a
// Schedule, failing with one line that names the field (`inputs[3][1]: ...`), op or tensor;
// SolutionToJson writes the contest format with all five lists; ProblemToJson writes a problem
// back; ParseConfigEntries reads a flat config object and ApplyConfigFile a config file entry
// by entry (a search preset: `--config`, a sweep plan's `search_config`); JsonFileKind tells
// which of the project's files a text is, for messages. Report JSON (evaluate / info --json) is
// report_json.h.
//
// Unknown keys: problem and solution files are the contest's format, which other tools write
// too. Their keys are read, the extra keys `tilesched import` writes (ProblemExtraKeys) are
// accepted, and any other key is accepted with a warning naming it (appended to `warnings`
// when it is given). The project's own config files (search presets, hardware descriptions,
// sweep plans) refuse an unknown key with an error naming it.
#ifndef TILESCHED_IO_H_
#define TILESCHED_IO_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tilesched/problem.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

Result<Problem> ParseProblem(const std::string& text, std::vector<std::string>* warnings = nullptr);
Result<Problem> LoadProblem(const std::string& path, std::vector<std::string>* warnings = nullptr);

// Keys a problem file may carry beyond the contest's nine, accepted without a warning: the
// model names `tilesched import` writes (docs/import.md).
const std::vector<std::string>& ProblemExtraKeys();

// Parses a solution's structure (types, list lengths). Ids are range-checked by Evaluate().
Result<Schedule> ParseSolution(const std::string& text, std::vector<std::string>* warnings = nullptr);
Result<Schedule> LoadSolution(const std::string& path, std::vector<std::string>* warnings = nullptr);

// Which of the project's JSON files `text` looks like, by its keys: "a problem file", "a
// solution file", "a sweep plan", "a hardware description", or "" (not JSON, or none of these).
// Readers add it to their error when a file of another kind was given.
std::string JsonFileKind(const std::string& text);

// `error` from reading `path` as `expected` ("a search preset"), with the path in front; when the
// text is another of the project's files, says which instead ("this is a problem file, not a
// sweep plan").
Status FileReadError(const Status& error, const std::string& path, const std::string& text,
                     const std::string& expected);

// nlohmann's exception text without its "[json.exception.parse_error.101] " prefix.
std::string ReadableJsonError(const std::string& what);

// Contest-format JSON; `latencies[s]` becomes subgraph_latencies[s].
std::string SolutionToJson(const Schedule& schedule, const std::vector<double>& latencies);

// Problem back to JSON (used by sweeps and generated test problems).
std::string ProblemToJson(const Problem& problem);

// A config file: one JSON object of scalar values. Returns (key, value as JSON text) pairs in
// file order; the caller checks each key strictly.
Result<std::vector<std::pair<std::string, std::string>>> ParseConfigEntries(const std::string& text);

// Reads the config file at `path` (ParseConfigEntries) and hands each (key, JSON text value) to
// `apply` in file order, which checks it strictly (search::ApplyConfigEntry for a search
// preset). Errors name the path, or say which other kind of file it is (FileReadError, with
// `expected`: "a search preset").
Status ApplyConfigFile(const std::string& path, const std::string& expected,
                       const std::function<Status(const std::string&, const std::string&)>& apply);

}  // namespace tilesched

#endif  // TILESCHED_IO_H_
