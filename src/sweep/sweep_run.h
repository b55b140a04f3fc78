// One sweep point: re-schedule a problem on the point's hardware and modes and describe the
// result as a row of the sweep schema (sweep_rows.h).
//
// Entry points: PointRow(problem, name, grid, index, strategy) fills the columns that
// identify a point (point .. strategy), also used to check rows kept by --resume;
// RunSweepPoint(...) runs the search for the point and fills the rest. The latency is always
// Evaluate()'s total of the schedule found; a problem that fits in fast memory at no tile
// size is an `infeasible` row, not a failure.
#ifndef TILESCHED_SWEEP_RUN_H_
#define TILESCHED_SWEEP_RUN_H_

#include <atomic>
#include <optional>
#include <string>

#include "tilesched/search.h"
#include "sweep_grid.h"
#include "sweep_rows.h"
#include "tilesched/problem.h"

namespace tilesched::sweep {

// The hardware of `point` on `base` (unset values keep the problem's own; native sets w = h).
Hardware PointHardware(const Problem& base, const GridPoint& point);

// `name` is the problem column (the file name without .json).
SweepRow PointRow(const Problem& base, const std::string& name, const SweepGrid& grid,
                  int64_t index, const std::string& strategy);

// Runs the point with `options` (its seed and modes are replaced by the point's; threads
// must be 0 when points run concurrently). Returns nullopt when `stop` (may be null) was set
// while the search ran: an interrupted point has no row, so --resume runs it again.
std::optional<SweepRow> RunSweepPoint(const Problem& base, const std::string& name,
                                      const SweepGrid& grid, int64_t index,
                                      const search::SearchOptions& options,
                                      const std::atomic<bool>* stop);

}  // namespace tilesched::sweep

#endif  // TILESCHED_SWEEP_RUN_H_
