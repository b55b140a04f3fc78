// Per-subgraph configuration search.
#include "configure.h"

#include <algorithm>
#include <iterator>
#include <span>

#include "tilesched/grid.h"

namespace tilesched::search {

std::vector<int64_t> BalancedSizes(int64_t extent, int64_t limit, int max_count) {
  std::vector<int64_t> sizes;
  const int64_t fewest = CeilDiv(extent, std::min(limit, extent));
  // Every tile count up to twice the fewest: the balanced size of each.
  for (int64_t n = fewest; n <= 2 * fewest && static_cast<int>(sizes.size()) < max_count; ++n) {
    const int64_t size = CeilDiv(extent, n);
    if (size <= limit && (sizes.empty() || size < sizes.back())) sizes.push_back(size);
    if (size == 1) return sizes;
  }
  // Then halving down to 1, for working sets that only fit small tiles.
  int64_t size = sizes.empty() ? std::min(limit, extent) : sizes.back();
  while (size > 1) {
    size /= 2;
    if (sizes.empty() || size < sizes.back()) sizes.push_back(size);
  }
  return sizes;
}

std::vector<int64_t> Configurator::KCandidates(const SubgraphPlan& plan) const {
  if (plan.split_roots().empty()) return {1};
  const int64_t hi = *std::max_element(plan.root_extents().begin(), plan.root_extents().end());
  const int64_t limit = model_.Bounds(plan).max_k;  // rule 3.4 and the k_limit mode
  std::vector<int64_t> ks = BalancedSizes(hi, limit, options_.max_ks);
  if (ks.empty() || ks.front() != limit) ks.insert(ks.begin(), limit);
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  return ks;
}

std::optional<TileChoice> Configurator::Evaluate(const SubgraphPlan& plan, const Granularity& g,
                                                 TraversalKind traversal,
                                                 std::span<const int> retained,
                                                 std::span<const int> resident) const {
  if (!model_.CheckGranularity(plan, g).ok()) return std::nullopt;
  const Grid grid(plan.width(), plan.height(), g.w, g.h);
  stats_.costed.fetch_add(1, std::memory_order_relaxed);
  auto cost = model_.Cost(plan, g, MakeTraversal(traversal, grid.rows(), grid.cols()), retained,
                          resident);
  if (!cost.ok()) return std::nullopt;
  return TileChoice{g, traversal, cost->latency, cost->peak_working_set, /*order=*/{}};
}

std::optional<TileChoice> Configurator::Best(const SubgraphPlan& plan,
                                             std::span<const int> retained,
                                             std::span<const int> resident) const {
  stats_.calls.fetch_add(1, std::memory_order_relaxed);
  const Hardware& hw = model_.problem().hardware();
  // Rule 3.4 and, under rules=contest, 7b (a Pointwise op read along a reduction axis needs
  // the whole axis), as the evaluator derives them.
  const GranularityBounds bounds = model_.Bounds(plan);
  std::vector<int64_t> widths = BalancedSizes(plan.width(), bounds.max_w, options_.max_sizes);
  std::vector<int64_t> heights = BalancedSizes(plan.height(), bounds.max_h, options_.max_sizes);
  std::erase_if(widths, [&](int64_t w) { return w < bounds.min_w; });
  std::erase_if(heights, [&](int64_t h) { return h < bounds.min_h; });
  if (widths.empty() || heights.empty()) {
    stats_.rejected_bounds.fetch_add(1, std::memory_order_relaxed);
    stats_.infeasible.fetch_add(1, std::memory_order_relaxed);
    return std::nullopt;
  }
  const std::vector<int64_t> ks = KCandidates(plan);
  const bool has_roots = !plan.split_roots().empty();

  std::optional<TileChoice> best;
  // The two snakes always; the other orders with all_orders.
  static constexpr TraversalKind kOrders[] = {TraversalKind::kSnakeRows, TraversalKind::kSnakeCols,
                                              TraversalKind::kRaster, TraversalKind::kColumnMajor,
                                              TraversalKind::kBlocked};
  const std::span<const TraversalKind> orders(kOrders, options_.all_orders ? std::size(kOrders) : 2);
  auto consider = [&](const Granularity& g) {
    const Grid grid(plan.width(), plan.height(), g.w, g.h);
    const bool both = grid.rows() > 1 && grid.cols() > 1;
    for (TraversalKind kind : orders) {
      if (!both && kind != TraversalKind::kSnakeRows) break;
      // With one row or one column every order is raster.
      const TraversalKind used = both ? kind : TraversalKind::kRaster;
      auto choice = Evaluate(plan, g, used, retained, resident);
      if (choice && (!best || choice->latency < best->latency)) best = choice;
    }
  };
  auto fits = [&](const Granularity& g) {
    const bool ok = model_.PeakWorkingSet(plan, g, retained, resident) <= hw.fast_memory_capacity;
    if (!ok) stats_.rejected_memory.fetch_add(1, std::memory_order_relaxed);
    return ok;
  };
  // Index of the first (largest) entry of the decreasing list `values` for which `ok` holds,
  // given that it holds for the last entry.
  auto largest = [](const std::vector<int64_t>& values, auto&& ok) {
    size_t lo = 0, hi = values.size() - 1;
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (ok(values[mid])) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return hi;
  };

  // Stage 1: Pareto-maximal tiles (w, h) that fit with the smallest k. A smaller h with the
  // same largest width only adds tiles.
  const int64_t k_small = ks.back();
  std::vector<std::pair<int64_t, int64_t>> tiles;
  int64_t previous_w = -1;
  for (int64_t h : heights) {
    if (!fits({widths.back(), h, k_small})) continue;
    const size_t wi = largest(widths, [&](int64_t w) { return fits({w, h, k_small}); });
    if (widths[wi] == previous_w) continue;
    previous_w = widths[wi];
    tiles.push_back({widths[wi], h});
    if (options_.try_smaller_width && wi + 1 < widths.size()) tiles.push_back({widths[wi + 1], h});
  }
  // Stage 2: for each tile, the largest k that fits (it hides the first step's loads and the
  // last step's stores best) and the next smaller one.
  for (const auto& [w, h] : tiles) {
    if (!has_roots) {
      consider({w, h, 1});
      continue;
    }
    const size_t ki = largest(ks, [&](int64_t k) { return fits({w, h, k}); });
    consider({w, h, ks[ki]});
    if (ki + 1 < ks.size()) consider({w, h, ks[ki + 1]});
  }
  if (!best) {
    stats_.infeasible.fetch_add(1, std::memory_order_relaxed);
    return best;
  }
  // In a mixed plan a k-slice can coincide with a tile interval, and what a move saves then
  // depends on its direction (search/traversal.h): raster and column-major are tried on the
  // best tile too.
  if (!options_.all_orders && (plan.mixed_rows() || plan.mixed_cols())) {
    const Granularity g = best->granularity;
    const Grid grid(plan.width(), plan.height(), g.w, g.h);
    if (grid.rows() > 1 && grid.cols() > 1) {
      for (TraversalKind kind : {TraversalKind::kRaster, TraversalKind::kColumnMajor}) {
        auto choice = Evaluate(plan, g, kind, retained, resident);
        if (choice && choice->latency < best->latency) best = choice;
      }
    }
  }
  return best;
}

}  // namespace tilesched::search
