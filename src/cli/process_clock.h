// Process clock: how long this process has been running, counted from its exec (so that the
// dynamic loading and problem parsing before a search count against a command's time limit).
//
// Entry points: SecondsSinceProcessStart(), SearchSeconds(limit): the part of a command's
// --time-limit left for the search once startup is paid and the final write is reserved.
#ifndef TILESCHED_CLI_PROCESS_CLOCK_H_
#define TILESCHED_CLI_PROCESS_CLOCK_H_

namespace tilesched::cli {

// Seconds since the kernel started this process (/proc/self/stat, 10 ms ticks); 0 when unknown.
double SecondsSinceProcessStart();

// The search budget for a command given `limit` seconds from its start: the limit minus the
// time already spent and a reserve for the work after the deadline (final evaluation, atomic
// write, the cleanup of the phase the deadline cut), which grows with the problem's `ops`
// (never below half the limit). 0 (no limit) stays 0.
double SearchSeconds(double limit, int ops = 0);

}  // namespace tilesched::cli

#endif  // TILESCHED_CLI_PROCESS_CLOCK_H_
