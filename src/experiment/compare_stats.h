// Compare statistics: the arithmetic behind `tilesched compare`, as pure functions of the
// numbers a run leaves behind (its latency, wall time, evaluation count and the timeline of
// improvements its observer heard), so that they can be tested on synthetic timelines.
//
// Entry points: Median(), SpreadOf() (best / median / worst), TimeToWithin() (first moment a
// run's best was within a tolerance of its final result), SummarizeRuns() (one strategy on one
// problem over several seeds) and RatiosToBest() (each strategy's best against the best one).
#ifndef TILESCHED_EXPERIMENT_COMPARE_STATS_H_
#define TILESCHED_EXPERIMENT_COMPARE_STATS_H_

#include <cstdint>
#include <optional>
#include <vector>

namespace tilesched::experiment {

// A new best schedule of latency `total`, found `seconds` after the run started.
struct Improvement {
  double seconds = 0;
  double total = 0;
};

// What one search run (one strategy, problem and seed) produced.
struct RunRecord {
  double latency = 0;  // Evaluate()'s total of the run's final schedule
  double seconds = 0;  // wall time of the whole run
  int64_t evaluations = 0;
  std::vector<Improvement> timeline;  // in the order the observer heard them
};

struct Spread {
  double best = 0;
  double median = 0;
  double worst = 0;
};

// Median of a non-empty list; with an even count, the mean of the two middle values.
double Median(std::vector<double> values);

// Smallest, median and largest of a non-empty list (latencies: lower is better).
Spread SpreadOf(const std::vector<double>& values);

// "Within 1% of the run's final result" (the time-to-quality columns of `compare` and the
// results tables).
inline constexpr double kReachTolerance = 0.01;

// The time of the first improvement whose total is at most final_total * (1 + tolerance);
// nullopt when none is (an empty timeline, or one that never got close).
std::optional<double> TimeToWithin(const std::vector<Improvement>& timeline, double final_total,
                                   double tolerance);

struct StrategySummary {
  int runs = 0;
  Spread latency;
  // Medians over the runs. time_to_within is nullopt when no run's timeline reached its final
  // result (which a run that reports every improvement cannot do).
  std::optional<double> time_to_within;
  double evaluations_per_second = 0;  // a run of zero measured seconds counts as 0
  double seconds = 0;
};

// One strategy's runs (non-empty) on one problem; `tolerance` as in TimeToWithin().
StrategySummary SummarizeRuns(const std::vector<RunRecord>& runs, double tolerance);

// value / min(values) for each value of a non-empty list of positive latencies.
std::vector<double> RatiosToBest(const std::vector<double>& values);

}  // namespace tilesched::experiment

#endif  // TILESCHED_EXPERIMENT_COMPARE_STATS_H_
