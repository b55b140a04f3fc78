// Search options from the command line and config files, shared by `schedule`, `mlsys` and
// the commands that run the scheduler (sweep, compare).
#ifndef TILESCHED_CLI_SEARCH_ARGS_H_
#define TILESCHED_CLI_SEARCH_ARGS_H_

#include <vector>

#include "args.h"
#include "tilesched/search.h"

namespace tilesched::cli {

// --strategy, --time-limit, --threads, --seed, --iterations, --config and the mode switches.
std::vector<Option> SearchOptionFlags();

// Defaults <- config file (--config) <- command-line flags.
Result<search::SearchOptions> SearchOptionsFromArgs(const Args& args,
                                                    search::SearchOptions base = {});

// Reads a config file strictly into `options`.
Status LoadSearchConfig(const std::string& path, search::SearchOptions* options);

}  // namespace tilesched::cli

#endif  // TILESCHED_CLI_SEARCH_ARGS_H_
