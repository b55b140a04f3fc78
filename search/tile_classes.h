// Tile classes (docs/bounds.md Lemma X7): the tile sizes that cut one dimension into the same
// number of tiles, and a lower bound on every configuration of a class at one k, over every
// traversal order; with the floors of Lemmas X8 and X10. The context pricer
// (search/context_pricer.h, for the exact mode and tier 2) costs a context class by class
// instead of tile by tile.
//
// Entry points: DimClasses(extent, min, max), Balanced(extent, count), ClassLowerBound(...),
// TileComputeFloor(...) (Lemma X8), FirstStepSlices(...) and FirstStepFloor(...) (Lemma X10).
#ifndef TILESCHED_SEARCH_TILE_CLASSES_H_
#define TILESCHED_SEARCH_TILE_CLASSES_H_

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "mask.h"
#include "tilesched/cost_model.h"
#include "tilesched/grid.h"

namespace tilesched::search {

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
//
// Along one dimension of extent E cut into R = ceil(E / t) tiles of t: a tile [r t, (r+1) t)
// before the last ends below E, so it equals a k-slice [j k, min(E, (j+1) k)) only when the
// slice is unclipped with the same start and length: k = t (then tile 0 equals slice 0). The
// last tile [(R-1) t, E) equals one exactly when k divides its start and the slice starting
// there reaches E: k >= E - (R-1) t. (O(1); tests/exact_test.cc checks it against every tile.)
inline bool DimCoincides(int64_t extent, int64_t tile, int64_t k) {
  const int64_t last_begin = (CeilDiv(extent, tile) - 1) * tile;
  return (last_begin > 0 && k == tile) || (last_begin % k == 0 && k >= extent - last_begin);
}

inline bool HasCoincidence(const SubgraphPlan& plan, int64_t w, int64_t h, int64_t k) {
  return (plan.mixed_cols() && DimCoincides(plan.width(), w, k)) ||
         (plan.mixed_rows() && DimCoincides(plan.height(), h, k));
}

// Lemma X7: a lower bound on the latency of `plan` at every tile w of class `cw` and h of class
// `ch` (within the plan's bounds), at k, in every traversal order: the larger of (a) the
// order-free bound on the grid of the class's smallest tiles and (b) the sum of the per-tile
// bound over the balanced partitions. For a mixed plan, a bound only on the members (w, h) for
// which HasCoincidence is false. With `lambda` in [0, 1]: the same bound on the sum over the
// steps of lambda x compute + (1 - lambda) x memory (CostModel::OrderFreeBound's `lambda`; a
// per-tile cost that is nondecreasing and convex in the tile's size, as the latency is).
inline double ClassLowerBound(const CostModel& model, const SubgraphPlan& plan, const DimClass& cw,
                              const DimClass& ch, int64_t k, std::span<const int> retained,
                              std::span<const int> resident, double lambda = -1) {
  const double smallest = model.OrderFreeBound(
      plan, {cw.lo, ch.lo, k}, SmallestTilesExtent(cw, plan.width()),
      SmallestTilesExtent(ch, plan.height()), retained, resident, /*allow_mixed=*/true, lambda);
  double balanced = 0;
  for (const auto& [x, nx] : Balanced(plan.width(), cw.count)) {
    for (const auto& [y, ny] : Balanced(plan.height(), ch.count)) {
      balanced += static_cast<double>(nx * ny) *
                  model.TileBound(plan, k, x, y, cw.count == 1, ch.count == 1, retained, resident,
                                  /*allow_mixed=*/true, lambda);
    }
  }
  return std::max(smallest, balanced);
}

// Lemma X8 (docs/bounds.md): what one tile of `plan` computes at least over its k-steps, at
// every tile size, k, order and context: each split root computes every slice of its tile
// region (SPEC 4), base_cost x spatial factors >= 1 x reduction factors that sum to 1 under
// full_k and to K / native_k under native_k (SPEC 5, 7); each other Pointwise op whose region
// is the tile computes it once, at base_cost x spatial factors >= 1. Distinct ops give distinct
// (op, region) pairs. A grid of R x C tiles therefore computes, and takes, at least R x C x it.
inline double TileComputeFloor(const Problem& problem, MatmulReduction mode,
                               const SubgraphPlan& plan) {
  const int64_t native_k = problem.hardware().native_k();
  std::vector<bool> counted(static_cast<size_t>(problem.num_ops()), false);
  double floor = 0;
  for (int o : plan.split_roots()) {
    const int64_t k_extent = problem.reduction_extent(o);
    floor += problem.op(o).base_cost * ReductionFactor(mode, k_extent, k_extent, native_k);
    counted[static_cast<size_t>(o)] = true;
  }
  for (const ComputeDemand& d : plan.last_group().computes) {
    if (counted[static_cast<size_t>(d.op)] || d.rows != DimKind::kTile ||
        d.cols != DimKind::kTile || problem.op(d.op).type != OpType::kPointwise) {
      continue;
    }
    floor += problem.op(d.op).base_cost;
    counted[static_cast<size_t>(d.op)] = true;
  }
  return floor;
}

// Lemma X10 (docs/bounds.md): one slice that the first k-step of every tile reads.
struct FirstSlice {
  int tensor = -1;
  DimKind rows = DimKind::kTile, cols = DimKind::kTile;
  int64_t height = 0, width = 0;  // the tensor's
};

// The slices of every split root's demand group (each is active at k-step 0, SPEC 4), or of
// the last group when the plan has no split root (its only step is then the last); sorted by
// tensor.
inline std::vector<FirstSlice> FirstStepSlices(const Problem& problem, const SubgraphPlan& plan) {
  std::vector<FirstSlice> out;
  auto take = [&](const DemandGroup& group) {
    for (const SliceDemand& d : group.slices) {
      const Tensor& t = problem.tensor(d.tensor);
      out.push_back({d.tensor, d.rows, d.cols, t.height, t.width});
    }
  };
  if (plan.root_groups().empty()) take(plan.last_group());
  for (const DemandGroup& group : plan.root_groups()) take(group);
  std::stable_sort(out.begin(), out.end(),
                   [](const FirstSlice& a, const FirstSlice& b) { return a.tensor < b.tensor; });
  return out;
}

// Lemma X10: a lower bound on the working set of the first step of the first tile of a grid of
// w x h tiles over a plan_w x plan_h sink, at every k (SPEC 6): what is held, the tile buffers
// at the tile's size, and for each tensor not resident (bit t of `resident`; tensor ids below
// 128) the largest of its first-step slices, with a k-slice 1 long and a whole extent whole.
// `skipped(t)`: tensor t's slices are not counted (it is resident, or not read from fast memory).
template <typename Skipped>
int64_t FirstStepFloorSkipping(std::span<const FirstSlice> slices, const CostModel::HeldSpace& held,
                               Skipped&& skipped, int64_t plan_w, int64_t plan_h, int64_t w, int64_t h) {
  const int64_t width = std::min(w, plan_w), height = std::min(h, plan_h);
  int64_t total = held.held + held.buffers * width * height;
  for (size_t i = 0; i < slices.size();) {
    const int t = slices[i].tensor;
    int64_t most = 0;
    for (; i < slices.size() && slices[i].tensor == t; ++i) {
      const FirstSlice& d = slices[i];
      const int64_t r = d.rows == DimKind::kTile ? height : d.rows == DimKind::kFull ? d.height : 1;
      const int64_t c = d.cols == DimKind::kTile ? width : d.cols == DimKind::kFull ? d.width : 1;
      most = std::max(most, r * c);
    }
    if (!skipped(t)) total += most;
  }
  return total;
}

inline int64_t FirstStepFloor(std::span<const FirstSlice> slices, const CostModel::HeldSpace& held,
                              Mask resident, int64_t plan_w, int64_t plan_h, int64_t w,
                              int64_t h) {
  return FirstStepFloorSkipping(
      slices, held,
      [resident](int t) {
        assert(t >= 0 && t < Mask::kBits);  // `resident` holds one bit per tensor
        return resident.test(t);
      },
      plan_w, plan_h, w, h);
}

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_TILE_CLASSES_H_
