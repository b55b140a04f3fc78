// The search library's whole public API (docs/style.md: search.h): RunSearch, SearchOptions,
// SearchResult, the hooks a caller watches and steers a run with, the strategy names, and tier 2
// of the lower bound. Everything else of the search (strategies, moves, candidates,
// configurator, coster, caches, the context pricer) is private to search/.
//
// Entry points: RunSearch(problem, options, hooks) runs the chosen strategy (greedy, beam,
// lns, anneal, the portfolio of them under one budget, or the exact mode) and returns the best
// schedule found, re-checked by Evaluate(). The observer hears of every improvement (so a caller
// can keep the best schedule on disk); `stop` ends a run early (signals, deadlines). SearchOptions
// is every knob in one documented struct with defaults (docs/style.md rule 10); ApplyConfigEntry()
// sets one key from a config file (configs/*.json) and names an unknown key or a bad value in its
// error. Tier2Bound(problem, options) computes tier 2 of the lower bound (the covering LP over
// every subgraph context, docs/bounds.md "Tier 2"): a bound, not a search, but it prices the
// same subgraph contexts as the exact mode, so it lives here (src/bound/README.md says why);
// SplitTier2Bound(problem, options) the same on each link component of a large problem
// (docs/bounds.md "Tier 2 by components").
#ifndef TILESCHED_SEARCH_H_
#define TILESCHED_SEARCH_H_

#include <atomic>
#include <cstdint>
#include <optional>
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
  // Also try raster, column-major and blocked orders on every tile (dominated by the snakes
  // except in mixed plans, where raster and column-major are tried on the best tile anyway;
  // see search/traversal.h).
  bool all_orders = false;
};

struct SearchOptions {
  // Strategy: greedy | beam | lns | anneal | portfolio (greedy, beam, lns, then anneal) |
  // exact (best-first search with a proven bound, docs/bounds.md "The exact mode") |
  // cover (greedy, then Tier2Bound on the run's budget: docs/bounds.md "Tier 2: the covering LP").
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
  // Before searching, tier 2 of the bound (Tier2Bound, docs/bounds.md "Tier 2: the covering LP")
  // for up to this many seconds, at most half the time limit; the search then stops as soon as it
  // meets that bound (within `gap`). 0: off. Problems above 64 ops or 128 tensors get nothing from it.
  double tier2_first = 0;
  // After greedy, tier 2 for at most this share of the time left: of the whole problem
  // (Tier2Bound) when it is within tier 2's reach (64 ops, 1,000,000 op sets; here up to 64
  // tensors, though tier 2 reaches 128), else by link components (SplitTier2Bound,
  // docs/bounds.md "Tier 2 by components") when that pays:
  // two link components or more, at least one of them within reach. Only with
  // a time limit and without `tier2_first`; the search then stops once it meets that bound
  // (within `gap`). 0: off.
  double split_tier2 = 0.2;

  // Greedy restarts (the portfolio, after its beams, before LNS and annealing): this many greedy fusions with every
  // merge's benefit scaled by exp(greedy_noise x N(0, 1)), each with its own RNG stream from
  // `seed`, then the retention pass; 0 restarts or noise 0: off.
  int greedy_restarts = 16;
  double greedy_noise = 0.3;

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

  // Exact search (strategy exact) and tier 2: above this many (w, h, k) triples a subgraph
  // context is priced by classes of tile counts (docs/bounds.md Lemma X7) instead of tile by
  // tile; states kept before the exact search stops with its bound.
  int64_t exact_max_tile_configs = 4096;
  int64_t exact_max_states = 2000000;

  ConfigureOptions configure;
  CostModes modes;

  // A valid schedule to start from (`tilesched schedule --start`): it is judged by Evaluate()
  // (RunSearch fails on an invalid one), offered as it is and re-tiled by the configurator
  // (its subgraphs and retention with the search's own tiles and orders), before greedy. LNS
  // and annealing start from the best schedule so far, and the result is never worse than it.
  std::optional<Schedule> start;
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
  // A phase of the run begins ("greedy", "beam 64", "lns", "anneal", ...; docs/search.md,
  // "Where the time goes"); the next phase's start ends it.
  virtual void PhaseStarted(const std::string& /*phase*/) {}
};

// A run's live counters, read from another thread while it runs (progress lines, `schedule
// --trace`, bench/search_rate_bench.cc): the rates of work per phase over time.
struct SearchProgress {
  // Subgraph configurations costed by the configurator (the coster's memo misses; the
  // run's SearchResult::evaluations).
  std::atomic<int64_t> configurations{0};
  // Subgraph costings asked for, answered from the memo or not: every strategy's work passes
  // through them.
  std::atomic<int64_t> costings{0};
  // Neighbours evaluated: schedule prefixes a beam (also inside an LNS window) extended, and
  // annealing moves that produced a schedule to cost.
  std::atomic<int64_t> moves{0};
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
  // Where lower_bound comes from: "tier 1, its held part", "tier 2" (tier2_first, or split_tier2
  // on a problem within tier 2's reach), "tier 2 by link components" (split_tier2 otherwise), or
  // "proved by exact" (a strategy's proof).
  std::string bound_source;
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
  SearchProgress* progress = nullptr;  // live counters of the run's work
  // The caller exits right after the run (a command): the run's caches are then never freed,
  // as after a stop, since returning their many small blocks to malloc delays the exit by tens
  // of milliseconds past a time limit (docs/scaling.md, "Short limits").
  bool exiting = false;
};

// Fails when no op can be placed in fast memory at any tile size.
Result<SearchResult> RunSearch(const Problem& problem, const SearchOptions& options,
                               const SearchHooks& hooks = {});

// --- Tier 2 of the lower bound (docs/bounds.md, "Tier 2: the covering LP", Lemmas T1-T7) ---

// Tier 2's reach, and the exact mode's: problems of at most 64 ops (more give far more connected
// op sets than are listed) and 128 tensors (its sets are 128-bit masks, search/mask.h).
inline constexpr int kTier2MaxOps = 64, kTier2MaxTensors = 128;

// How a tier-2 run ended.
enum class Tier2Status {
  kConverged,        // the LP converged: `value` is its certified optimum
  kTimeLimit,        // the time limit or a stop request came first: the best certificate so far
  kSolverFailed,     // the LP solver returned no optimum: the best certificate so far
  kTooManyOps,       // more than 64 ops or 128 tensors: nothing proven (value 0)
  kTooManyOpSets,    // more than 1,000,000 connected op sets, less Lemma T6's (cores: or 4,096
                     // retention subsets of one; tier 2 prices those under Lemma T5)
  kTooManyContexts,  // more than 20,000,000 subgraph contexts (Tier2Options::max_contexts), also
                     // with Lemma T5's fewest retention subsets: nothing proven
};

// Whether tier 2 lists op sets up to the problem's symmetry (Lemma T7).
enum class Tier2Symmetry {
  kOff,          // every connected op set
  kWhenTooMany,  // one per orbit where every one would be more than tier 2 lists
  kAlways,       // one per orbit wherever interchangeable branches are found (tests)
};

struct Tier2Options {
  CostModes modes;
  double time_limit = 0;  // seconds; 0: until the LP converges
  int threads = 0;        // 0: all hardware threads (sub-problem bounds and contexts priced in parallel)
  const std::atomic<bool>* stop = nullptr;  // set to end the run early (a valid bound all the same)
  int64_t max_tile_configs = SearchOptions{}.exact_max_tile_configs;  // as in SearchOptions
  // Lemma T5 (docs/bounds.md): an op set with more fitting retention subsets than this is priced
  // once per resident set for all of them (as retaining nothing, less the stores retention can
  // save), instead of once per subset (at least 1). Tests lower it to exercise the lemma on small
  // problems.
  int64_t retention_subsets = 4096;
  // Above this many subgraph contexts tier 2 lists again under Lemma T5 with 64, then 4,
  // retention subsets per op set, and proves nothing if they are still too many.
  int64_t max_contexts = 20000000;
  // A quick pass first: the same ladder at this many contexts, for a bound within seconds;
  // where it went down a level to fit, the levels above are run again at max_contexts if time
  // is left, and the larger certified value is kept (each is a bound).
  int64_t quick_contexts = 5000000;
  // For a command that exits right after: the run's subgraph contexts and plans are kept,
  // reachable, until the process ends instead of being freed, which on the largest problems
  // takes a second or more after the time limit (`bound` sets it; compilers do the same with
  // their syntax trees).
  bool keep_until_exit = false;
  // Lemma T7 (docs/bounds.md): list one op set per orbit of the problem's interchangeable
  // branches, with the rows summed per orbit. kWhenTooMany (the default) does so only where
  // every op set is more than tier 2 lists, so results within that limit stay as they were.
  Tier2Symmetry symmetry = Tier2Symmetry::kWhenTooMany;
};

struct Tier2Result {
  // The certified bound on every valid schedule's latency (0: nothing proven). Reported a
  // relative 1e-9 low (docs/bounds.md, Lemma T2): compare latencies to it with
  // kTier2BoundTolerance.
  double value = 0;
  Tier2Status status = Tier2Status::kTooManyOps;
  double seconds = 0;
  // What the run did: op sets and subgraph contexts listed, contexts costed (and of them by
  // tile classes), LP rounds, LP columns.
  int64_t op_sets = 0, contexts = 0, contexts_costed = 0, class_contexts = 0, lp_rounds = 0, lp_columns = 0;
  // Op sets priced under Lemma T5 (too many retention subsets to list).
  int64_t relaxed_op_sets = 0;
  // With more than one thread: contexts priced ahead of the raises in parallel, and how many of
  // them the run used (the others cost time only; the value and the counts above are those of
  // one thread). The starting columns, each op alone, are priced in parallel too, uncounted.
  int64_t priced_ahead = 0, ahead_used = 0;
  // Lemma T7: the classes of interchangeable branches the op sets were listed up to, and their
  // branches (0: every op set listed).
  int64_t symmetry_classes = 0, symmetry_branches = 0;
};

// Tier 2 on any problem (some of whose ops may fit only fused): column generation over every
// subgraph context, with a certificate checked against every column. Deterministic for a given
// problem and modes when it converges, at any thread count.
Tier2Result Tier2Bound(const Problem& problem, const Tier2Options& options);

// One line on what a run did ("27 op sets, 383 subgraph contexts, ...; converged, bound
// 14426.399986"), or why it proved nothing.
std::string Tier2Summary(const Tier2Result& result);

// --- Tier 2 by link components (docs/bounds.md, "Tier 2 by components", Lemmas W1-W4) ---

// One link component of SplitTier2Bound: what it counts and why.
struct SplitTier2Component {
  int first_op = 0, ops = 0, tensors = 0;  // its smallest op id, its ops, the tensors they touch
  double value = 0;  // what it adds to SplitTier2Result::value: the largest of the three below
  double tier2 = 0;  // tier 2's certificate on it (Lemma W2; 0: not priced)
  double floor = 0;  // Lemma W3 (compute, graph inputs and outputs), a relative 1e-9 low
  double tier1 = 0;  // Lemma W4 (the mixed roofline restricted to it), a relative 1e-9 low
  std::string tier2_summary;  // Tier2Summary of its run: why it was or was not priced
};

struct SplitTier2Result {
  // The certified bound on every valid schedule's latency: over the link components, the
  // largest of tier 2 of each, its floor (Lemma W3) and its mixed roofline (W4). Reported a
  // relative 1e-9 low like tier 2: compare latencies to it with kTier2BoundTolerance.
  double value = 0;
  // kConverged when every component's LP converged; otherwise the first shortfall in component
  // order (kTimeLimit, kSolverFailed, kTooManyOps, kTooManyOpSets, kTooManyContexts), whose
  // component counts at its floor, its mixed roofline or its certificate so far. `value` is a
  // bound either way.
  Tier2Status status = Tier2Status::kConverged;
  double seconds = 0;
  int components = 0, converged = 0, largest = 0;  // link components, converged, ops of the largest
  // Components that are the same problem as an earlier one, priced once (their costed contexts
  // and LP rounds are counted once).
  int copies = 0;
  int64_t contexts_costed = 0, lp_rounds = 0;
  std::vector<SplitTier2Component> parts;  // per link component, in component order
};

// Tier 2 on every link component of `problem` (Lemma W1: every subgraph lies in one) as a problem
// of its own (Lemma W2), summed; components priced in parallel. Deterministic for a given
// problem and modes when every component converges.
SplitTier2Result SplitTier2Bound(const Problem& problem, const Tier2Options& options);

// One line: components, the largest, how many converged, contexts costed.
std::string SplitTier2Summary(const SplitTier2Result& result);

// Each link component's share of a schedule (`bound --split --schedule`): the sum of
// `latencies` (one per subgraph, Evaluate()'s) over the subgraphs whose ops lie in it, in the
// order of `result.parts`. By Lemmas W1-W4 a valid schedule's share of a component is at least
// its value. Fails naming the subgraph when one spans two components (W1 rules that out for a
// valid schedule: it would be a bug in the bound module) or the lengths differ.
Result<std::vector<double>> SplitTier2Shares(const Problem& problem, const CostModes& modes,
                                             const Schedule& schedule, const std::vector<double>& latencies,
                                             const SplitTier2Result& result);

// --- Tier 2 on cores, one lambda at a time (docs/bounds.md, "Cores", Lemma V6) ---

// Which admissible cuts split the graph into cores (docs/bounds.md, "Cores"): every one, or the
// subset docs/design_cores.md measured (external-shared, and glue at Pointwise outputs above
// the native tile in both dimensions).
enum class CoreCuts { kAll, kDesign };

struct CoreTier2Result {
  // The certified bound on every valid schedule's latency: the largest over `lambdas` of each
  // one's certificate (`by_lambda`; 0: nothing proven), reported a relative 1e-9 low like tier
  // 2's; `lambda` is the one it came from (-1: none).
  double value = 0, lambda = -1;
  std::vector<double> lambdas, by_lambda;
  Tier2Status status = Tier2Status::kTooManyOps;
  double seconds = 0;
  std::string summary;  // one line: cores, op sets, columns, LP rounds, status, bound
};

// Tier 2's covering LP over the op sets connected inside the cores, a subgraph that crosses
// cores paid piece by piece at lambda x compute + (1 - lambda) x memory time, at lambda 0, 1/4,
// 1/2, 3/4 and 1 in turn. Problems of at most 64 ops and 128 tensors (status kTooManyOps
// otherwise); under rules=algebra nothing is cut and it is tier 2's LP with every column listed.
// Deterministic at any thread count.
CoreTier2Result CoreTier2Bound(const Problem& problem, const Tier2Options& options, CoreCuts cuts);

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_H_
