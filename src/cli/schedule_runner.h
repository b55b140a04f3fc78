// ScheduleRunner: runs the search for `tilesched schedule` and `mlsys`, keeping the best
// schedule on disk as it improves (atomic replace), printing progress, and stopping cleanly on
// SIGTERM / SIGINT with the best schedule written.
#ifndef TILESCHED_CLI_SCHEDULE_RUNNER_H_
#define TILESCHED_CLI_SCHEDULE_RUNNER_H_

#include <string>

#include "tilesched/problem.h"
#include "tilesched/search.h"

namespace tilesched::cli {

struct RunnerOptions {
  std::string output;     // empty: print the schedule to stdout at the end
  bool progress = true;   // progress lines on stderr
  bool verbose = false;   // the search's report (what each strategy did) on stderr
  std::string summary;    // when set: the run's outcome as JSON (latency, bound, gap, ...)
  std::string trace;      // when set: the run's timeline as CSV (search_trace.h)
  std::string command = "schedule";
};

// Returns an exit code (0 on success).
int RunScheduler(const Problem& problem, const search::SearchOptions& options,
                 const RunnerOptions& runner);

}  // namespace tilesched::cli

#endif  // TILESCHED_CLI_SCHEDULE_RUNNER_H_
