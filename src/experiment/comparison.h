// Strategy comparison: search strategies run against each other on the same problems, under
// equal budgets and several seeds, one run after another (each run has the whole machine).
//
// Entry points: RunComparison(request) runs every strategy on every problem once per seed and
// returns one row per problem and strategy: best / median / worst latency over the seeds
// (every latency is Evaluate()'s), the strategy's best against the best strategy's, the
// median time to come within 1% of the run's final result, the median evaluation rate, the
// median run time and the problem's lower bound (compare_stats.h holds the arithmetic).
// RenderComparison(table, format) lays it out as text, CSV, JSON Lines or Markdown. What a
// caller (`tilesched compare`, the Python compare()) asks for is read by
// DefaultComparisonStrategies, ParseStrategyList, ParseSeedList and SetComparisonBudget.
//
// May depend on: the search public API, io and core. Not on the other workflow libraries or
// the CLI.
#ifndef TILESCHED_EXPERIMENT_COMPARISON_H_
#define TILESCHED_EXPERIMENT_COMPARISON_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compare_stats.h"
#include "tilesched/search.h"
#include "tilesched/status.h"

namespace tilesched::experiment {

// Wall-clock budget of one run when none is given (seconds).
inline constexpr double kDefaultRunSeconds = 2;

// What runs when no strategies are named: every strategy that searches. `cover` computes a
// bound and keeps greedy's schedule, so it is compared only when asked for.
std::vector<std::string> DefaultComparisonStrategies();
// "greedy,beam": known strategy names, each once, at least one (messages name --strategies).
Result<std::vector<std::string>> ParseStrategyList(const std::string& text);
// "1,2,3": non-negative integers, each once, at least one (messages name --seeds).
Result<std::vector<uint64_t>> ParseSeedList(const std::string& text);
// One budget kind per comparison: the one given explicitly (not both) must be positive and
// replaces the other (a search preset's); with neither given, the preset's budget stands, or
// kDefaultRunSeconds without one.
Status SetComparisonBudget(bool time_limit_given, bool iterations_given,
                           search::SearchOptions* base);

struct ComparisonRequest {
  std::vector<std::string> problem_paths;  // read (all of them) before the first run
  // Names from search::StrategyNames(); by default every strategy that searches.
  std::vector<std::string> strategies = DefaultComparisonStrategies();
  std::vector<uint64_t> seeds = {1, 2, 3};
  search::SearchOptions base;  // budget, threads, modes; strategy and seed set per run
  // Called after every run ("mlsys-2026-1 greedy seed 1: 123.4 in 0.50 s (found by greedy)");
  // may be empty.
  std::function<void(const std::string&)> progress;
  // Set (e.g. by a signal handler) to end the comparison: the running search stops and
  // RunComparison fails with "stopped". May be null.
  const std::atomic<bool>* stop = nullptr;
};

struct ComparisonRow {
  std::string problem, strategy;
  StrategySummary summary;
  double ratio_to_best = 0;
  double lower_bound = 0;
};

struct ComparisonTable {
  std::vector<ComparisonRow> rows;  // problems in request order, strategies within
  std::string caption;              // budget, seeds, threads and modes of the runs
};

// Fails on an unreadable problem or a failed search. A schedule Evaluate() rejects sets
// *invalid_schedule (may be null) besides failing.
Result<ComparisonTable> RunComparison(const ComparisonRequest& request,
                                      bool* invalid_schedule = nullptr);

// format: "table" (aligned text with the caption), "csv" (exact numbers), "jsonl" (the CSV's
// columns, one JSON object per row; numbers as numbers, an empty cell as null) or "markdown".
std::string RenderComparison(const ComparisonTable& table, const std::string& format);

}  // namespace tilesched::experiment

#endif  // TILESCHED_EXPERIMENT_COMPARISON_H_
