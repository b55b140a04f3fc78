// Benchmark results: the scheduler on the contest benchmarks (or on any problem files, such as
// the model-sized suite of data/large), one after the other, the Markdown results tables
// (docs/results.md, docs/results_large.md), and the golden table of deterministic runs that CI
// checks (tests/golden/results.csv).
//
// Entry points: LoadTargets(path) reads data/targets.csv; RunBenchmarks(request) runs the
// benchmarks or the problem files (each at its contest budget minus the mlsys margin, or with a
// work budget) and returns one row per problem, every latency Evaluate()'s and every bound the
// bound module's (the run's tier 1, Tier2Bound's tier 2); ResultsMarkdown() lays out the contest
// table, ProblemsMarkdown() the table of problem files; GoldenCsv() writes the golden table;
// CheckGolden() compares rows with one. A malformed targets or golden CSV is a one-line error
// naming the file, line and column.
//
// May depend on: the search public API, io and core. Not on the other workflow libraries or
// the CLI.
#ifndef TILESCHED_EXPERIMENT_RESULTS_H_
#define TILESCHED_EXPERIMENT_RESULTS_H_

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilesched/search.h"
#include "tilesched/status.h"

namespace tilesched::experiment {

// One row of data/targets.csv.
struct Target {
  int bench = 0;
  int ops = 0;
  double budget = 0;      // contest time limit, seconds
  double vinci = 0;       // 0 = invalid / unknown
  double field_best = 0;  // 0 = unknown
  double target = 0;
};

// bench,ops,budget_s,lower_bound,vinci,field_best,target (header line first; '#' comments).
Result<std::map<int, Target>> LoadTargets(const std::string& path);

struct BenchmarkRequest {
  std::vector<int> benches;   // benchmark numbers, run in this order
  std::string data_dir;       // holds mlsys-2026-<N>.json
  std::map<int, Target> targets;
  // When not empty: these problem files instead of the benchmarks, in this order, each at the
  // contest budget for its op count (ContestTierSeconds), and greedy alone on each too (the
  // rows' `greedy`; docs/results_large.md).
  std::vector<std::string> problem_paths;
  search::SearchOptions base;  // with iterations > 0 the run is deterministic
  double budget_scale = 1;    // contest budgets are multiplied by this (time-limited runs)
  // > 0: every benchmark the run did not prove optimal also gets tier 2 of the lower bound (the
  // covering LP, strategy `cover`, docs/bounds.md "Tier 2") with this many seconds; the row's
  // lower bound is the larger of the two.
  double tier2_seconds = 0;
  // Called after every problem ("benchmark 1: 367001.6 (target ..., 1.000x) in 2.0s").
  std::function<void(const std::string&)> progress;
};

struct BenchmarkRow {
  int bench = 0;  // the contest benchmark's number (0 for a problem file)
  double latency = 0, lower_bound = 0, seconds = 0;
  size_t subgraphs = 0;
  std::string found_by;
  double gap = 0;        // latency / lower_bound - 1
  bool optimal = false;  // latency equals the lower bound: proven optimal
  double tier2 = -1;     // the tier-2 bound (< 0: not run; 0: it proved nothing)
  std::string name;      // "benchmark 4", or a problem file's name without ".json"
  int ops = 0;
  double budget = 0;     // the run's time limit, seconds (0: a work budget)
  double tier1 = 0;      // the run's own bound: tier 1, or a larger one its strategy proved
  double greedy = 0;     // greedy alone (problem files; 0: not run)
  // When the run first came within 1% of its final latency (nullopt: never reported).
  std::optional<double> reach_seconds;
  // Where tier 2 by link components ran: of the latency above the split's value (summed over
  // the components whose share exceeds their value, SplitTier2Shares), the fraction in
  // components whose value tier 2's certificate meets (within a relative 1e-6), where the LP
  // prices whole subgraphs, so what is left is mostly search (< 0: not run, or no excess).
  double tier2_part_excess = -1;
};

// Fails on an unreadable benchmark or a failed search; a result Evaluate() rejects sets
// *invalid_result (may be null) besides failing.
Result<std::vector<BenchmarkRow>> RunBenchmarks(const BenchmarkRequest& request,
                                                bool* invalid_result = nullptr);

// The Markdown results table of `rows` (with how it was generated, dated `date`).
std::string ResultsMarkdown(const BenchmarkRequest& request, const std::vector<BenchmarkRow>& rows,
                            const std::string& date);

// The Markdown table of a run on problem files (docs/results_large.md): per problem its ops,
// latency, bounds (tier 1, tier 2 where it ran), latency / bound, greedy's latency, the time to
// within 1% of the final result; then the median and largest latency / bound and which problems
// improved on greedy.
std::string ProblemsMarkdown(const BenchmarkRequest& request, const std::vector<BenchmarkRow>& rows,
                             const std::string& date);

// "# ...\nbench,latency,lower_bound,gap,proven\n1,367001.6...,367001.6...,0,1\n" (17 significant
// digits). CheckGolden also reads the older two-column form (bench,latency).
std::string GoldenCsv(const BenchmarkRequest& request, const std::vector<BenchmarkRow>& rows);

struct GoldenCheck {
  bool regressed = false;            // some benchmark is worse than, or missing from, the golden
  std::vector<std::string> notes;    // one line per regression, missing benchmark or improvement
};

// `golden_text` is a golden table read from `name` (for messages).
Result<GoldenCheck> CheckGolden(const std::vector<BenchmarkRow>& rows,
                                const std::string& golden_text, const std::string& name);

}  // namespace tilesched::experiment

#endif  // TILESCHED_EXPERIMENT_RESULTS_H_
