// Contest budgets: the MLSys 2026 harness's time limit for a problem, and the time limit the
// scheduler gives itself under it (the one place `mlsys` and `tilesched results` get it from).
//
// Entry points: ContestTierSeconds(ops) is the harness's tier by op count; ContestTimeLimit(
// contest_seconds) subtracts the safety margin, since the harness kills the process at its
// deadline.
#ifndef TILESCHED_CONTEST_H_
#define TILESCHED_CONTEST_H_

namespace tilesched {

// <= 5 ops: 2 s, <= 20: 5 s, <= 40: 15 s, <= 70: 30 s, <= 110: 60 s, else 120 s.
double ContestTierSeconds(int ops);

// `contest_seconds` minus a margin for process start-up, the final write and a loaded machine
// (5%, at least 0.3 s), and never below 0.2 s.
double ContestTimeLimit(double contest_seconds);

}  // namespace tilesched

#endif  // TILESCHED_CONTEST_H_
