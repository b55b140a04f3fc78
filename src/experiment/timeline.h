// TimelineRecorder: the improvements a search run reports, with the time each was found; what
// the time-to-quality columns of `tilesched compare` and of the results tables are computed from
// (TimeToWithin, compare_stats.h).
//
// Entry point: TimelineRecorder(start), a SearchObserver to pass in SearchHooks; Timeline()
// returns the improvements heard so far, in order.
#ifndef TILESCHED_EXPERIMENT_TIMELINE_H_
#define TILESCHED_EXPERIMENT_TIMELINE_H_

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "compare_stats.h"
#include "tilesched/search.h"

namespace tilesched::experiment {

class TimelineRecorder : public search::SearchObserver {
 public:
  // Times count from `start` (just before the run).
  explicit TimelineRecorder(std::chrono::steady_clock::time_point start) : start_(start) {}
  void Improved(const Schedule& schedule, double total, const std::string& by) override;
  std::vector<Improvement> Timeline() const;

 private:
  std::chrono::steady_clock::time_point start_;
  mutable std::mutex mutex_;
  std::vector<Improvement> timeline_;
};

}  // namespace tilesched::experiment

#endif  // TILESCHED_EXPERIMENT_TIMELINE_H_
