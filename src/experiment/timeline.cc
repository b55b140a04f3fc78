// TimelineRecorder: one timed entry per improvement.
#include "timeline.h"

namespace tilesched::experiment {

void TimelineRecorder::Improved(const Schedule&, double total, const std::string&) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::lock_guard<std::mutex> lock(mutex_);
  timeline_.push_back({seconds, total});
}

std::vector<Improvement> TimelineRecorder::Timeline() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timeline_;
}

}  // namespace tilesched::experiment
