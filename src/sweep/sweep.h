// The sweep library's public header: run a grid of hardware parameters, cost-model modes and
// seeds over problems, one row per point, written as the sweep goes (docs/sweeps.md).
//
// Entry point: RunSweepPlan(request) loads the plan's problems, keeps the rows of a resumed
// file that belong to this grid and shard, runs the missing points in parallel (RunPoints),
// appends each finished row at once, and, when every point of the shard is done, rewrites the
// file sorted by point; it also returns the rows (without an output file, the Python sweep(),
// it only returns them). A stop request ends it after the running points. RunSweepPlanPoint
// runs one point on its own. DryRunCsv(plan,
// shard) lists the shard's points without running any. The plan comes from the settings in
// sweep_config.h (BuildSweepPlan); rows and their formats are sweep_rows.h. MergeSweepFiles()
// joins the files of a sharded sweep.
//
// May depend on: the search public API (tilesched/search.h), io and core; oneTBB (the point
// runner). Not on the other workflow libraries or the CLI.
#ifndef TILESCHED_SWEEP_SWEEP_H_
#define TILESCHED_SWEEP_SWEEP_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sweep_config.h"
#include "sweep_grid.h"
#include "sweep_rows.h"
#include "tilesched/status.h"

namespace tilesched::sweep {

struct SweepRequest {
  SweepPlan plan;          // BuildSweepPlan()'s grid, search options and row format
  Shard shard;             // the points this process runs
  int64_t jobs = 0;        // points run in parallel, at most kMaxJobs; 0 = all cores
  std::string output;      // the rows file; empty: the rows are only returned
  bool resume = false;     // keep the rows already in `output`, run only the missing points
  std::ostream* messages = nullptr;  // progress and notes (may be null: none)
  bool progress = true;    // progress lines (notes about failed points are always written)
  bool terminal = false;   // `messages` is a terminal: one line redrawn in place
  // Set by the caller (a signal handler) to stop after the running points; the sweep sets it
  // itself when a row cannot be written. May be null.
  std::atomic<bool>* stop = nullptr;
};

// Most points one sweep runs side by side (SweepRequest::jobs).
inline constexpr int64_t kMaxJobs = 1024;

struct SweepOutcome {
  int64_t points = 0;   // points in the shard
  int64_t written = 0;  // rows in the file (kept and new)
  std::vector<SweepRow> rows;  // those rows, in point order (SweepColumns() cells)
  std::map<std::string, int64_t> by_status;  // "ok", "infeasible", "error" -> rows
  double seconds = 0;
  bool stopped() const { return written < points; }  // the file is not sorted yet
};

// Fails (before running anything, when it can) on unreadable problems, an output file that
// cannot be opened, resumed rows of another grid or shard, or a row that cannot be written.
Result<SweepOutcome> RunSweepPlan(const SweepRequest& request);

// One point of the plan run on its own, as RunSweepPlan runs it (its problem loaded and
// retargeted, the search, Evaluate()), for a caller that spreads the points over workers of its
// own (the Python sweep(executor=...)). nullopt when `stop` (may be null) was set during the
// search. Fails on a point outside the grid or an unreadable problem.
Result<std::optional<SweepRow>> RunSweepPlanPoint(const SweepPlan& plan, int64_t point,
                                                  const std::atomic<bool>* stop = nullptr);

// The identifying columns of the shard's points as CSV (header line first), in point order.
Result<std::string> DryRunCsv(const SweepPlan& plan, const Shard& shard);

// Joins shard files (CSV or JSON Lines, may be mixed) into `output`, sorted by point, after
// checking every point of the grid is there once (MergeSweepRows). `format` is "csv" or
// "jsonl"; unset, a .csv / .jsonl name decides, else the shards' format. Returns the points.
Result<size_t> MergeSweepFiles(const std::vector<std::string>& shards, const std::string& output,
                               const std::optional<std::string>& format);

}  // namespace tilesched::sweep

#endif  // TILESCHED_SWEEP_SWEEP_H_
