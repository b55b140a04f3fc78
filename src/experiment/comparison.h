// Strategy comparison: search strategies run against each other on the same problems, under
// equal budgets and several seeds, one run after another (each run has the whole machine).
//
// Entry points: RunComparison(request) runs every strategy on every problem once per seed and
// returns one row per problem and strategy: best / median / worst latency over the seeds
// (every latency is Evaluate()'s), the strategy's best against the best strategy's, the
// median time to come within 1% of the run's final result, the median evaluation rate, the
// median run time and the problem's lower bound (compare_stats.h holds the arithmetic).
// RenderComparison(table, format) lays it out as text, CSV or Markdown.
//
// May depend on: the search public API, io and core. Not on the other workflow libraries or
// the CLI.
#ifndef TILESCHED_EXPERIMENT_COMPARISON_H_
#define TILESCHED_EXPERIMENT_COMPARISON_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compare_stats.h"
#include "tilesched/search.h"
#include "tilesched/status.h"

namespace tilesched::experiment {

struct ComparisonRequest {
  std::vector<std::string> problem_paths;  // read (all of them) before the first run
  std::vector<std::string> strategies;     // names from search::StrategyNames()
  std::vector<uint64_t> seeds;
  search::SearchOptions base;  // budget, threads, modes; strategy and seed set per run
  // Called after every run ("mlsys-2026-1 greedy seed 1: 123.4 in 0.50 s (found by greedy)");
  // may be empty.
  std::function<void(const std::string&)> progress;
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

// format: "table" (aligned text with the caption), "csv" (exact numbers) or "markdown".
std::string RenderComparison(const ComparisonTable& table, const std::string& format);

}  // namespace tilesched::experiment

#endif  // TILESCHED_EXPERIMENT_COMPARISON_H_
