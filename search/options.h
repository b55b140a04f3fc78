// SearchOptions: every knob of the scheduler in one documented struct with defaults
// (STYLE.md rule 10), plus strict parsing of configs/*.json presets.
//
// Entry points: SearchOptions (defaults are the product's defaults), ApplyConfigEntry() sets
// one key from a config file and names an unknown key or a bad value in its error.
#ifndef TILESCHED_SEARCH_OPTIONS_H_
#define TILESCHED_SEARCH_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "configure.h"
#include "tilesched/cost_model.h"
#include "tilesched/status.h"

namespace tilesched::search {

struct SearchOptions {
  // Strategy: greedy | beam | lns | anneal | portfolio (greedy, beam, lns, then anneal).
  std::string strategy = "portfolio";
  // Wall-clock budget in seconds; 0 = no time limit (then `iterations` must be set).
  double time_limit = 0;
  // Work budget: beam expansions / annealing moves per chain. With a work budget and no time
  // limit the result is the same at any thread count.
  int64_t iterations = 0;
  int threads = 0;  // 0 = all hardware threads
  uint64_t seed = 1;

  // Beam search.
  int beam_width = 16;        // states kept per layer (the portfolio widens it while time lasts)
  int beam_max_width = 1024;  // widest beam the portfolio tries
  int anchors = 3;            // ready ops a state may start its next subgraph from
  // Candidate subgraphs.
  int max_subgraph_ops = 6;     // largest connected op set enumerated
  int max_candidates_per_op = 400;  // cap on enumerated sets containing one op
  int max_candidates = 200000;      // cap on all enumerated sets (large graphs get fewer per op)

  // Large-neighbourhood search: windows of consecutive subgraphs re-optimized by a beam.
  int lns_width = 16;       // beam width inside a window
  int lns_max_stages = 8;   // longest window (subgraphs)
  int lns_max_ops = 16;     // most ops in a window

  // Annealing.
  int anneal_chains = 2;          // independent chains (own RNG streams), run in parallel
  double anneal_start_temp = 0.003;  // initial temperature, relative to the incumbent's latency
  double anneal_end_temp = 0.00003;
  // Moves without a new best after which a chain restarts from its best schedule.
  int64_t anneal_restart = 20000;

  ConfigureOptions configure;
  CostModes modes;
};

// Strategies `tilesched schedule --strategy` accepts.
const std::vector<std::string>& StrategyNames();

// Sets `key` (as written in a config file) from its JSON text value. Unknown keys fail with a
// message naming the key.
Status ApplyConfigEntry(const std::string& key, const std::string& value, SearchOptions* options);

// Documentation of the config keys (for --help and configs/README.md).
std::string ConfigKeysHelp();

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_OPTIONS_H_
