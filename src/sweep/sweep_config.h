// Sweep settings: what `tilesched sweep` runs, gathered from a sweep plan file (--plan)
// (configs/sweeps/*.json) and command-line flags, then turned into a grid and search options.
//
// Entry points: ApplySweepDefinition(text, name, settings) reads a definition strictly (an
// unknown key is an error naming it), LoadSweepPlanFile(path, settings) a plan file (`--plan`);
// flags (or the keywords of the Python sweep()) then override single settings;
// BuildSweepPlan() parses every setting into the SweepGrid, SearchOptions and output format of
// the run, over a base of search options; AssembleSweepPlan(settings, hardware) is the whole
// way from settings to a runnable plan that `tilesched sweep` and the Python sweep() share
// (problems required, the search preset `search_config` loaded, a hardware description applied).
//
// Definition values mirror the flags: a key takes a list or a string in the flag's syntax.
// List items are joined with commas, so `"capacity": [20000, "40000:160000:x2"]` means
// `--capacity 20000,40000:160000:x2`. Problem paths are relative to the working directory.
#ifndef TILESCHED_SWEEP_CONFIG_H_
#define TILESCHED_SWEEP_CONFIG_H_

#include <string>
#include <vector>

#include "tilesched/search.h"
#include "sweep_grid.h"
#include "sweep_rows.h"
#include "tilesched/status.h"

namespace tilesched::sweep {

// One setting's text in flag syntax and where it came from ("--capacity" or
// "sweep.json: capacity"); an empty source means not set.
struct SweepSetting {
  std::string text;
  std::string source;
  bool set() const { return !source.empty(); }
};

struct SweepSettings {
  std::vector<std::string> problems;
  SweepSetting capacity, bandwidth, native;                  // hardware axes
  SweepSetting matmul_throughput, vector_throughput;         // need --hardware (docs/import.md)
  SweepSetting rules, matmul_reduction, k_limit, seeds;      // mode and seed axes
  SweepSetting strategy, time_limit, iterations, format;     // single values
  SweepSetting search_config;  // a search preset (configs/*.json) for every point
};

// The keys a sweep definition may have, in documented order.
const std::vector<std::string>& SweepDefinitionKeys();

// Reads a definition (a JSON object; see the file comment) into `settings`. `name` prefixes
// messages: "sweep.json: capacit: unknown key (known: problems, capacity, ...)".
Status ApplySweepDefinition(const std::string& text, const std::string& name,
                            SweepSettings* settings);

// Reads the sweep plan file at `path` into `settings` (ApplySweepDefinition); a file of
// another kind is named as such ("p.json: this is a problem file, not a sweep plan").
Status LoadSweepPlanFile(const std::string& path, SweepSettings* settings);

struct SweepPlan {
  SweepGrid grid;
  search::SearchOptions search;  // strategy and budget; seed and modes are set per point
  SweepFormat format = SweepFormat::kCsv;
  bool format_set = false;  // false: the output file's name decides
};

// Default budget per point when neither a time limit nor iterations are given (seconds).
inline constexpr double kDefaultPointSeconds = 2;

// `base` holds the search preset's options, if any: its strategy, budget, seed and modes apply
// where the settings leave them unset (its thread count does not: points run side by side,
// each search with threads = 0). Without any budget a point gets kDefaultPointSeconds.
Result<SweepPlan> BuildSweepPlan(const SweepSettings& settings,
                                 const search::SearchOptions& base = {});

// BuildSweepPlan over the search preset `settings.search_config` names (defaults when unset).
// Fails without problems. `hardware` (a hardware description's path, or empty) retargets every
// problem; the throughput axes need it (its throughputs are what the problems' base costs
// assume).
Result<SweepPlan> AssembleSweepPlan(const SweepSettings& settings, const std::string& hardware);

}  // namespace tilesched::sweep

#endif  // TILESCHED_SWEEP_CONFIG_H_
