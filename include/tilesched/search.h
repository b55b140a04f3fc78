// The search library's whole public API (STYLE.md: search.h): RunSearch, SearchOptions,
// SearchResult, the hooks a caller watches and steers a run with, and the strategy names.
// Everything else of the search (strategies, moves, candidates, configurator, coster, caches)
// is private to search/.
//
// Entry points: RunSearch(problem, options, hooks) runs the chosen strategy (greedy, beam,
// lns, anneal, or the portfolio of them under one budget) and returns the best schedule found,
// re-checked by Evaluate(). The observer hears of every improvement (so a caller can keep the
// best schedule on disk); `stop` ends a run early (signals, deadlines). SearchOptions is every
// knob in one documented struct with defaults (STYLE.md rule 10); ApplyConfigEntry() sets one
// key from a config file (configs/*.json) and names an unknown key or a bad value in its error.
#ifndef TILESCHED_SEARCH_H_
#define TILESCHED_SEARCH_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched::search {

// How the configurator explores one subgraph's tile sizes, split-k factors and orders.
struct ConfigureOptions {
  int max_sizes = 10;  // tile sizes tried per spatial dimension
  int max_ks = 8;      // split-k factors tried
  // Also cost the next smaller width below the largest that fits (rarely better; measured).
  bool try_smaller_width = true;
  // Also try raster, column-major and blocked orders (dominated by the snakes; see
  // search/traversal.h).
  bool all_orders = false;
};

struct SearchOptions {
  // Strategy: greedy | beam | lns | anneal | portfolio (greedy, beam, lns, then anneal) |
  // exact (best-first search with a proven bound, docs/bounds.md "The exact mode") |
  // cover (greedy, then the tier-2 bound: docs/bounds.md "Tier 2: the covering LP").
  std::string strategy = "portfolio";
  // Wall-clock budget in seconds; 0 = no time limit (then `iterations` must be set).
  double time_limit = 0;
  // Work budget: beam expansions / annealing moves per chain. With a work budget and no time
  // limit the result is the same at any thread count.
  int64_t iterations = 0;
  int threads = 0;  // 0 = all hardware threads
  uint64_t seed = 1;
  // Stop as soon as the best schedule is within this relative gap of the lower bound
  // (docs/bounds.md): 0 stops when it is proven optimal, 0.01 within 1%; negative never stops
  // early.
  double gap = 0;
  // Before searching, tier 2 of the bound (docs/bounds.md "Tier 2: the covering LP") for up to
  // this many seconds, at most half the time limit; the search then stops as soon as it meets
  // that bound (within `gap`). 0: off. Problems above 64 ops or tensors get nothing from it.
  double tier2_first = 0;

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

  // Exact search (strategy exact): above this many (w, h, k) triples a subgraph's tiles are
  // not enumerated (the configurator's choice is used, and the bound counts that subgraph at
  // its cheap lower bound); states kept before the search stops with its bound.
  int64_t exact_max_tile_configs = 4096;
  int64_t exact_max_states = 2000000;

  ConfigureOptions configure;
  CostModes modes;
};

// The budget of a run whose caller gives neither a time limit nor iterations (`tilesched
// schedule`, the Python schedule()), in seconds.
inline constexpr double kDefaultScheduleSeconds = 10;

// The strategies RunSearch knows, in the order of its strategy table (search/search.cc).
const std::vector<std::string>& StrategyNames();
// "greedy, beam, lns, anneal, portfolio" (for messages and help).
std::string StrategyList();

// Sets `key` (as written in a config file) from its JSON text value. Unknown keys fail with a
// message naming the key.
Status ApplyConfigEntry(const std::string& key, const std::string& value, SearchOptions* options);

// Documentation of the config keys (for --help and configs/README.md).
std::string ConfigKeysHelp();


// Hears about the search as it runs. Methods may be called from worker threads, one at a time.
class SearchObserver {
 public:
  virtual ~SearchObserver() = default;
  // A better schedule was found (already re-checked by Evaluate()).
  virtual void Improved(const Schedule& schedule, double total, const std::string& by) = 0;
};

// Relative rounding allowances of an "optimal" claim: sums that equal the bound may differ in
// their last bits; tier 2 reports its certificate a relative 1e-9 low (docs/bounds.md, Lemma
// T2), so a latency equal to it needs that margin too.
inline constexpr double kBoundTolerance = 1e-9;
inline constexpr double kTier2BoundTolerance = 2e-9;

struct SearchResult {
  Schedule schedule;
  double total = 0;
  std::string found_by;
  int64_t evaluations = 0;
  double seconds = 0;
  std::vector<std::string> report;  // one line per strategy phase
  // ComputeLowerBounds(problem, modes).best(), or the larger bound the strategy proved.
  double lower_bound = 0;
  double strategy_bound = 0;  // the bound the strategy proved (exact, cover); 0: none
  double gap = 0;          // total / lower_bound - 1
  bool optimal = false;    // the total equals the lower bound: proven optimal
  // Relative rounding allowance of `optimal` (total <= lower_bound x (1 + it)): kBoundTolerance,
  // or kTier2BoundTolerance when the bound is tier 2's certificate.
  double bound_tolerance = kBoundTolerance;
  bool reached_gap = false;  // the run stopped early because the gap was reached
};

// How a caller watches and steers a run; every member may be null.
struct SearchHooks {
  SearchObserver* observer = nullptr;
  const std::atomic<bool>* stop = nullptr;   // set (e.g. by a signal handler) to end the run
  std::atomic<int64_t>* evaluations = nullptr;  // live count of subgraph configurations costed
  // The caller exits right after the run (a command): the run's caches are then never freed,
  // as after a stop, since returning their many small blocks to malloc delays the exit by tens
  // of milliseconds past a time limit (docs/scaling.md, "Short limits").
  bool exiting = false;
};

// Fails when no op can be placed in fast memory at any tile size.
Result<SearchResult> RunSearch(const Problem& problem, const SearchOptions& options,
                               const SearchHooks& hooks = {});

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_H_
