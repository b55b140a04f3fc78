// RunPoints: the parallel point runner of the sweep library.
//
// Entry point: RunPoints(n_points, jobs, fn, stop) calls fn(i) once for every point i in
// [0, n_points), at most `jobs` at a time, on a oneTBB arena of `jobs` threads. Points are
// handed out in index order, so a sweep that is stopped or killed has finished a prefix-like
// set of points. Each call is isolated: a thread waiting inside one point's own parallel
// search never picks up another point, so a point's wall time is its own. The search inside
// fn must run with SearchOptions.threads = 0 (no process-wide thread limit of its own).
#ifndef TILESCHED_SWEEP_POINT_RUNNER_H_
#define TILESCHED_SWEEP_POINT_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <functional>

namespace tilesched::sweep {

// Threads used when `jobs` is 0: all the cores oneTBB sees (respects CPU affinity masks,
// so a Slurm task gets its allocation, not the whole node).
int DefaultJobs();

// Runs fn(i) for every i in [0, n_points) unless `stop` (may be null) becomes true: then no
// further point starts and RunPoints returns when the running ones have returned. fn must not
// throw. jobs <= 0 means DefaultJobs(); more jobs than cores oversubscribes (for the run, a
// process-wide oneTBB limit is raised to `jobs`).
void RunPoints(int64_t n_points, int jobs, const std::function<void(int64_t)>& fn,
               const std::atomic<bool>* stop = nullptr);

}  // namespace tilesched::sweep

#endif  // TILESCHED_SWEEP_POINT_RUNNER_H_
