// SearchTrace: the timeline of one search run for `tilesched schedule --trace FILE`: where the
// time goes, phase by phase (docs/search.md, "Where the time goes").
//
// Entry points: SearchTrace(progress) starts a sampler thread that reads the run's live
// counters (search::SearchProgress) every 0.25 s; PhaseStarted() and Improved() add the run's
// events as they happen (ScheduleRunner's observer forwards them); Finish() stops the sampler
// and returns the CSV:
//
//   time_s,event,phase,best,found_by,configurations,costings,moves
//
// one row per event: `start`, `phase` (a phase begins: greedy, beam W, lns, anneal, ...),
// `improved` (a new best schedule), `sample` (every 0.25 s), `end`. Times count from the
// trace's start (just before the search); the three counters are cumulative (rates are their
// differences over time): configurations costed by the configurator, costings asked for (memo
// hits included), neighbours evaluated (beam extensions, annealing moves).
#ifndef TILESCHED_CLI_SEARCH_TRACE_H_
#define TILESCHED_CLI_SEARCH_TRACE_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "tilesched/search.h"

namespace tilesched::cli {

class SearchTrace {
 public:
  explicit SearchTrace(const search::SearchProgress& progress);
  ~SearchTrace();
  SearchTrace(const SearchTrace&) = delete;
  SearchTrace& operator=(const SearchTrace&) = delete;

  void PhaseStarted(const std::string& phase);
  void Improved(double total, const std::string& by);
  // Stops the sampler (idempotent) and returns the CSV text with a final `end` row.
  std::string Finish();

 private:
  void Row(const char* event);  // with mutex_ held
  void Sample();

  const search::SearchProgress& progress_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool finished_ = false;
  std::string phase_;
  double best_ = 0;
  std::string found_by_;
  std::ostringstream csv_;
  std::thread sampler_;
};

}  // namespace tilesched::cli

#endif  // TILESCHED_CLI_SEARCH_TRACE_H_
