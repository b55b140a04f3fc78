// Large-neighbourhood search: ruin a window of consecutive subgraphs and recreate it with a
// beam over the window's ops, keeping the result when the whole schedule gets faster.
// Windows are drawn from one RNG stream seeded by the run's seed, so with a window budget the
// run is deterministic.
#include <random>

#include "context.h"

namespace tilesched::search {

void RunLns(SearchContext& ctx, int64_t windows, double stop_at) {
  ctx.Phase("lns");
  auto start = ctx.incumbent.Best();
  if (!start) return;
  Draft current = *start;
  if (!RecostDraft(ctx.problem, ctx.coster, &current)) return;
  std::mt19937_64 rng(ctx.options.seed * 0x2545f4914f6cdd1dULL + 17);
  int64_t tried = 0, improved = 0, failed = 0;
  for (int64_t i = 0; windows == 0 || i < windows; ++i) {
    if (ctx.budget.Expired() || ctx.budget.Elapsed() >= stop_at) break;
    const size_t n = current.stages.size();
    if (n < 2) break;
    const size_t longest = std::min<size_t>(n, static_cast<size_t>(std::max(2, ctx.options.lns_max_stages)));
    size_t length = std::uniform_int_distribution<size_t>(2, longest)(rng);
    const size_t first = std::uniform_int_distribution<size_t>(0, n - length)(rng);
    // Shrink the window until it holds at most lns_max_ops ops.
    size_t ops = 0, last = first;
    while (last < first + length) {
      ops += current.stages[last].plan->ops().size();
      if (ops > static_cast<size_t>(ctx.options.lns_max_ops) && last > first + 1) break;
      ++last;
    }
    ++tried;
    auto out = ReoptimizeWindow(ctx, current, first, last, ctx.options.lns_width);
    if (!out) ++failed;
    if (out && Improves(out->total, current.total)) {
      current = std::move(*out);
      ++improved;
      ctx.incumbent.Offer(current, "lns");
    }
  }
  ctx.Note("lns: " + std::to_string(tried) + " windows, " + std::to_string(improved) +
           " improvements, " + std::to_string(failed) + " with no valid schedule (or no change); best " +
           std::to_string(ctx.incumbent.BestTotal()));
}

}  // namespace tilesched::search
