// Compare statistics: medians, spreads and time to within a tolerance of a run's result.
#include "compare_stats.h"

#include <algorithm>
#include <cassert>

namespace tilesched::experiment {

double Median(std::vector<double> values) {
  assert(!values.empty());
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

Spread SpreadOf(const std::vector<double>& values) {
  assert(!values.empty());
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return {*low, Median(values), *high};
}

std::optional<double> TimeToWithin(const std::vector<Improvement>& timeline, double final_total,
                                   double tolerance) {
  const double threshold = final_total * (1 + tolerance);
  for (const Improvement& step : timeline) {
    if (step.total <= threshold) return step.seconds;
  }
  return std::nullopt;
}

StrategySummary SummarizeRuns(const std::vector<RunRecord>& runs, double tolerance) {
  assert(!runs.empty());
  StrategySummary summary;
  summary.runs = static_cast<int>(runs.size());
  std::vector<double> latencies, reach_times, rates, seconds;
  for (const RunRecord& run : runs) {
    latencies.push_back(run.latency);
    if (auto t = TimeToWithin(run.timeline, run.latency, tolerance)) reach_times.push_back(*t);
    rates.push_back(run.seconds > 0 ? static_cast<double>(run.evaluations) / run.seconds : 0);
    seconds.push_back(run.seconds);
  }
  summary.latency = SpreadOf(latencies);
  if (!reach_times.empty()) summary.time_to_within = Median(reach_times);
  summary.evaluations_per_second = Median(rates);
  summary.seconds = Median(seconds);
  return summary;
}

std::vector<double> RatiosToBest(const std::vector<double>& values) {
  assert(!values.empty());
  const double best = *std::min_element(values.begin(), values.end());
  std::vector<double> ratios;
  for (double v : values) ratios.push_back(v / best);
  return ratios;
}

}  // namespace tilesched::experiment
