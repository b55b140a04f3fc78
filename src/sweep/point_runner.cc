// Point runner: `jobs` pullers on one task arena, each taking the next index in turn.
#include "point_runner.h"

#include <algorithm>
#include <optional>

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

namespace tilesched::sweep {

int DefaultJobs() { return std::max(1, tbb::info::default_concurrency()); }

void RunPoints(int64_t n_points, int jobs, const std::function<void(int64_t)>& fn,
               const std::atomic<bool>* stop) {
  if (n_points <= 0) return;
  if (jobs <= 0) jobs = DefaultJobs();
  // No more pullers than points: an idle puller would only hold an arena slot.
  const int pullers = static_cast<int>(std::min<int64_t>(jobs, n_points));
  std::atomic<int64_t> next{0};
  auto pull = [&] {
    for (;;) {
      if (stop && stop->load()) return;
      const int64_t i = next.fetch_add(1);
      if (i >= n_points) return;
      // Isolation keeps a thread that waits inside fn's nested parallel work from starting
      // another puller's point in the middle of this one.
      tbb::this_task_arena::isolate([&] { fn(i); });
    }
  };
  // More jobs than cores is an explicit request to oversubscribe (points that mostly wait, or
  // a node shared under a scheduler's own limits): lift oneTBB's default worker limit for the
  // run, which otherwise caps every arena at the core count.
  std::optional<tbb::global_control> oversubscribe;
  if (jobs > DefaultJobs()) {
    oversubscribe.emplace(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(jobs));
  }
  // The arena keeps all `jobs` threads even with fewer points: the searches' own parallel
  // loops use the spare ones.
  tbb::task_arena arena(jobs);
  arena.execute([&] {
    tbb::task_group group;
    for (int p = 1; p < pullers; ++p) group.run(pull);
    pull();
    group.wait();
  });
}

}  // namespace tilesched::sweep
