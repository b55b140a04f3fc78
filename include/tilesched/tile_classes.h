// Tile classes (docs/bounds.md Lemma X7): the tile sizes that cut one dimension into the same
// number of tiles, and a lower bound on every configuration of a class at one k, over every
// traversal order. The exact mode (search/exact.cc) costs a context class by class instead of
// tile by tile.
//
// Entry points: DimClasses(extent, min, max), Balanced(extent, count), ClassLowerBound(...).
#ifndef TILESCHED_TILE_CLASSES_H_
#define TILESCHED_TILE_CLASSES_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "tilesched/cost_model.h"
#include "tilesched/grid.h"

namespace tilesched {

// The sizes lo..hi of [min, max] that cut `extent` into `count` tiles.
struct DimClass {
  int64_t count = 0, lo = 0, hi = 0;
};

// Every class of [min, max] (empty when min > max), by increasing size.
inline std::vector<DimClass> DimClasses(int64_t extent, int64_t min, int64_t max) {
  std::vector<DimClass> out;
  for (int64_t size = min; size <= max; ++size) {
    const int64_t count = CeilDiv(extent, size);
    if (!out.empty() && out.back().count == count) {
      out.back().hi = size;
    } else {
      out.push_back({count, size, size});
    }
  }
  return out;
}

// The extent of the grid of a class's smallest tiles (Lemma X7 a): count - 1 tiles of lo and
// the smallest last tile a size of the class leaves, extent - (count - 1) * hi (at least 1, at
// most lo). One tile: the whole extent, as every size of the class gives.
inline int64_t SmallestTilesExtent(const DimClass& c, int64_t extent) {
  return (c.count - 1) * c.lo + extent - (c.count - 1) * c.hi;
}

// The balanced partition of `extent` into `count` integer parts: (size, how many) pairs.
inline std::vector<std::pair<int64_t, int64_t>> Balanced(int64_t extent, int64_t count) {
  const int64_t q = extent / count, r = extent % count;
  std::vector<std::pair<int64_t, int64_t>> out;
  if (r > 0) out.push_back({q + 1, r});
  if (count - r > 0) out.push_back({q, count - r});
  return out;
}

// Whether some tile interval of `plan`'s grid at (w, h) equals a k-slice of the same extent,
// along a dimension that one tensor has both as tile and as k-slice (a mixed plan): only such
// tiles can make a tile slice identical to a k-slice (docs/bounds.md Lemma X7, mixed plans).
inline bool HasCoincidence(const SubgraphPlan& plan, int64_t w, int64_t h, int64_t k) {
  const Grid grid(plan.width(), plan.height(), w, h);
  auto coincides = [k](Interval tile, int64_t extent) {
    return tile.begin % k == 0 && SliceInterval(tile.begin / k, k, extent) == tile;
  };
  for (int64_t c = 0; plan.mixed_cols() && c < grid.cols(); ++c) {
    if (coincides(grid.ColInterval(c), plan.width())) return true;
  }
  for (int64_t r = 0; plan.mixed_rows() && r < grid.rows(); ++r) {
    if (coincides(grid.RowInterval(r), plan.height())) return true;
  }
  return false;
}

// Lemma X7: a lower bound on the latency of `plan` at every tile w of class `cw` and h of class
// `ch` (within the plan's bounds), at k, in every traversal order: the larger of (a) the
// order-free bound on the grid of the class's smallest tiles and (b) the sum of the per-tile
// bound over the balanced partitions. For a mixed plan, a bound only on the members (w, h) for
// which HasCoincidence is false.
inline double ClassLowerBound(const CostModel& model, const SubgraphPlan& plan, const DimClass& cw,
                              const DimClass& ch, int64_t k, std::span<const int> retained,
                              std::span<const int> resident) {
  const double smallest = model.OrderFreeBound(
      plan, {cw.lo, ch.lo, k}, SmallestTilesExtent(cw, plan.width()),
      SmallestTilesExtent(ch, plan.height()), retained, resident, /*allow_mixed=*/true);
  double balanced = 0;
  for (const auto& [x, nx] : Balanced(plan.width(), cw.count)) {
    for (const auto& [y, ny] : Balanced(plan.height(), ch.count)) {
      balanced += static_cast<double>(nx * ny) *
                  model.TileBound(plan, k, x, y, cw.count == 1, ch.count == 1, retained, resident,
                                  /*allow_mixed=*/true);
    }
  }
  return std::max(smallest, balanced);
}

}  // namespace tilesched

#endif  // TILESCHED_TILE_CLASSES_H_
