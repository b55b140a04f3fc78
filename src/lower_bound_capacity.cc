// Lemma K1 (docs/bounds.md, "Capacity: the tiles that fit"): an op's charge in a role,
// minimized over the tiles whose step can hold what the role puts in fast memory.
//
// Work per call: at most 3^4 operand choices times at most 17 sharer counts (Lemma K2) times
// min(native_h, grid_h) tile heights, each O(operands): the best width for a height is found in
// closed form (the working set is affine in the width for a fixed height), and the heights stop
// at the first one where the fewest rows and columns fit. A split root with both operands
// loaded and one k-step possible (Lemma K3) also visits, per height, two widths per column count
// until a floor on the count stops it (src/lower_bound_strip.cc).
#include "tilesched/lower_bound_capacity.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tilesched/lower_bound_strip.h"

namespace tilesched {
namespace {

enum class Arrival : int { kLoaded = 0, kResident = 1, kInside = 2 };

int64_t Ceil(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Extent of a slice dimension at the grid's first tile (rows [0, h), cols [0, w): never
// clipped smaller than min(h, grid)), for a kSlice dimension the least a k-slice can be (1)
// or, for the single-step test, the whole reduction (the operand's extent along it).
int64_t Extent(DimKind kind, int64_t tile, int64_t full, bool whole_slice) {
  if (kind == DimKind::kTile) return tile;
  if (kind == DimKind::kFull) return full;
  return whole_slice ? full : 1;
}

// The affine working set a + b * w of one step at tile height h (SPEC 6: resident tensors in
// full, the external slices needed now, at least one tile buffer or a retained sink of the
// grid's shape, which is no smaller).
struct Affine {
  double a = 0;
  double b = 0;
};

Affine WorkingSet(const std::vector<CapOperand>& ops, const std::vector<Arrival>& how, int64_t h,
                  bool whole_slice, int64_t buffers) {
  Affine ws{0, static_cast<double>(h * buffers)};
  for (size_t i = 0; i < ops.size(); ++i) {
    const CapOperand& op = ops[i];
    if (how[i] == Arrival::kResident) ws.a += op.size;
    if (how[i] != Arrival::kLoaded) continue;
    const double rows = static_cast<double>(Extent(op.rows, h, op.height, whole_slice));
    if (op.cols == DimKind::kTile) {
      ws.b += rows;
    } else {
      ws.a += rows * static_cast<double>(Extent(op.cols, 0, op.width, whole_slice));
    }
  }
  return ws;
}

// Largest tile width in [1, limit] with a + b * w <= capacity, 0 when none.
int64_t WidestFit(const Affine& ws, int64_t capacity, int64_t limit) {
  const double room = static_cast<double>(capacity) - ws.a;
  if (room < ws.b) return 0;
  const double w = std::floor(room / ws.b);
  return w >= static_cast<double>(limit) ? limit : static_cast<int64_t>(w);
}

// Lemma M3 with the grid's rows R and columns C (instead of the native-tile minimum).
double Multiplier(const CapOperand& op, double r, double c, bool forced) {
  const bool rows = op.rows == DimKind::kSlice && (op.rows_stream || forced) && !op.rows_coincide;
  const bool cols = op.cols == DimKind::kSlice && (op.cols_stream || forced) && !op.cols_coincide;
  if (op.rows == DimKind::kTile && cols) return c;
  if (op.cols == DimKind::kTile && rows) return r;
  if (op.cols == DimKind::kFull && rows) return r * c;
  if (op.rows == DimKind::kFull && cols) return r * c;
  return 1;
}

// The charge of one whole load of a loaded operand. `sharers`: the split roots that share each
// shared operand's load (Lemma K2), capped by its readers; 0 for "more than kMaxSharers", where
// only the cap by its readers is used.
double OneLoad(const CapOperand& op, int sharers) {
  if (op.shared_readers <= 0) return op.load;
  const int n = sharers > 0 ? std::min(sharers, op.shared_readers) : op.shared_readers;
  return op.load / static_cast<double>(n);
}

double LoadedCharge(const std::vector<CapOperand>& ops, const std::vector<Arrival>& how, int64_t rows,
                    int64_t cols, bool forced, int sharers) {
  double total = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (how[i] != Arrival::kLoaded) continue;
    const double m = Multiplier(ops[i], static_cast<double>(rows), static_cast<double>(cols), forced);
    total += OneLoad(ops[i], sharers) * m + ops[i].store;
  }
  return total;
}

// LoadedCharge plus the coupled part's compute on every tile of an R x C grid (Lemma L1).
double Charge(const CapContext& ctx, const std::vector<CapOperand>& ops, const std::vector<Arrival>& how,
              int64_t rows, int64_t cols, bool forced, int sharers) {
  return LoadedCharge(ops, how, rows, cols, forced, sharers) +
         ctx.tile_compute * static_cast<double>(rows) * static_cast<double>(cols);
}

// Lemma K3 applies: the op is a split root (its operands are demanded (T, S) and (S, T)), both
// are loaded, neither is streamed whatever the tile (Lemma M3) and no other demand of either
// can be a k-slice along its tile dimension. Sets the positions of the LHS and the RHS.
bool StripPair(const std::vector<CapOperand>& ops, const std::vector<Arrival>& how, size_t* lhs, size_t* rhs) {
  if (ops.size() != 2 || how[0] != Arrival::kLoaded || how[1] != Arrival::kLoaded) return false;
  auto is_lhs = [](const CapOperand& op) { return op.rows == DimKind::kTile && op.cols == DimKind::kSlice; };
  auto is_rhs = [](const CapOperand& op) { return op.rows == DimKind::kSlice && op.cols == DimKind::kTile; };
  if (is_lhs(ops[0]) && is_rhs(ops[1])) {
    *lhs = 0;
    *rhs = 1;
  } else if (is_lhs(ops[1]) && is_rhs(ops[0])) {
    *lhs = 1;
    *rhs = 0;
  } else {
    return false;
  }
  const CapOperand& l = ops[*lhs];
  const CapOperand& r = ops[*rhs];
  return !l.cols_stream && !r.rows_stream && l.tile_distinct && r.tile_distinct;
}

// Sharer counts enumerated one by one (Lemma K2); above it, one case with this many buffers.
constexpr int kMaxSharers = 16;

// The least loaded charge of one operand choice over every fitting tile; +inf when none fits.
double BestTile(const CapContext& ctx, const std::vector<CapOperand>& ops, const std::vector<Arrival>& how,
                int sharers) {
  // Every split root sharing the load holds a tile buffer (or retains its output, no smaller).
  const int64_t buffers = sharers > 0 ? sharers : kMaxSharers + 1;
  bool has_slice = false;
  for (size_t i = 0; i < ops.size(); ++i) {
    has_slice |= how[i] == Arrival::kLoaded && (ops[i].rows == DimKind::kSlice || ops[i].cols == DimKind::kSlice);
  }
  // A k-slice dimension comes from a split root r (Lemma M2) and spans r's reduction K_r when
  // one k-step covers it; a step that cannot hold those slices means r runs two or more.
  const bool may_force = has_slice;
  const int64_t h_limit = std::min(ctx.native_h, ctx.grid_h);
  const int64_t w_limit = std::min(ctx.native_w, ctx.grid_w);
  double best = std::numeric_limits<double>::infinity();
  size_t lhs = 0, rhs = 0;
  if (StripPair(ops, how, &lhs, &rhs)) {
    // Lemma K3. A tile either runs k < K (both strips re-streamed at every tile, Lemma M3; the
    // fewest columns at the widest width whose k = 1 step fits) or one step over all of K
    // (every width whose whole-K step fits, over every order). No charge is below one load of
    // each, which ends the search.
    const double stores = ops[lhs].store + ops[rhs].store;
    const double lhs_load = OneLoad(ops[lhs], sharers), rhs_load = OneLoad(ops[rhs], sharers);
    for (int64_t h = h_limit; h >= 1 && best > lhs_load + rhs_load + stores; --h) {
      const int64_t w_fit = WidestFit(WorkingSet(ops, how, h, /*whole_slice=*/false, buffers), ctx.capacity, w_limit);
      if (w_fit == 0) continue;  // a k = K step holds more than a k = 1 step
      best = std::min(best, Charge(ctx, ops, how, Ceil(ctx.grid_h, h), Ceil(ctx.grid_w, w_fit), /*forced=*/true,
                                   sharers));
      const int64_t w_single = WidestFit(WorkingSet(ops, how, h, /*whole_slice=*/true, buffers), ctx.capacity, w_limit);
      best = stores + LeastStripCharge(ctx.grid_h, ctx.grid_w, h, w_single, lhs_load, rhs_load, ctx.tile_compute,
                                       best - stores);
    }
    return best;
  }
  const int64_t fewest_cols = Ceil(ctx.grid_w, w_limit);
  // Tallest tiles first: once the fewest rows and columns fit without forced streaming, that is
  // the least charge of all (multipliers only grow with R and C), and smaller heights are skipped.
  for (int64_t h = h_limit; h >= 1; --h) {
    const int64_t rows = Ceil(ctx.grid_h, h);
    const int64_t w_fit = WidestFit(WorkingSet(ops, how, h, /*whole_slice=*/false, buffers), ctx.capacity, w_limit);
    if (w_fit == 0) continue;
    // Fewest columns that fit, at the narrowest width that gives them (the smallest step).
    const int64_t cols = Ceil(ctx.grid_w, w_fit);
    const bool least = h == h_limit && cols == fewest_cols;
    if (!may_force) {
      best = std::min(best, Charge(ctx, ops, how, rows, cols, /*forced=*/false, sharers));
      if (least) break;
      continue;
    }
    // When the slices of one k-step over all of K_r do not fit, r runs two or more k-slices at
    // every tile and the slice dimensions are streamed (Lemma M3): at the narrowest width of
    // this column count, or at every width of fewer columns too.
    const Affine single = WorkingSet(ops, how, h, /*whole_slice=*/true, buffers);
    const int64_t narrowest = Ceil(ctx.grid_w, cols);
    const bool forced = single.a + single.b * static_cast<double>(narrowest) > static_cast<double>(ctx.capacity);
    best = std::min(best, Charge(ctx, ops, how, rows, cols, forced, sharers));
    if (least && !forced) break;
    const int64_t w_single = WidestFit(single, ctx.capacity, w_limit);
    if (w_single > 0) {
      const int64_t cols_single = std::max(cols, Ceil(ctx.grid_w, w_single));
      best = std::min(best, Charge(ctx, ops, how, rows, cols_single, /*forced=*/false, sharers));
    }
  }
  return best;
}

}  // namespace

double CapacityCharge(const CapContext& ctx, const std::vector<CapOperand>& operands) {
  const size_t n = operands.size();
  std::vector<Arrival> how(n, Arrival::kLoaded);
  double best = std::numeric_limits<double>::infinity();
  // Every choice of arrival per operand (base-3 counter); unavailable choices are skipped.
  while (true) {
    bool available = true;
    double fixed = 0;
    for (size_t i = 0; i < n; ++i) {
      if (how[i] == Arrival::kResident && !operands[i].can_reside) available = false;
      if (how[i] == Arrival::kInside) {
        if (operands[i].inside < 0) available = false;
        else fixed += operands[i].inside;
      }
    }
    if (available && fixed < best) {
      // Lemma K2: n split roots share the shared operands' load (n = 1 when there are none).
      int most = 1;
      for (size_t j = 0; j < n; ++j) {
        if (how[j] == Arrival::kLoaded) most = std::max(most, operands[j].shared_readers);
      }
      for (int sharers = 1; sharers <= std::min(most, kMaxSharers); ++sharers) {
        best = std::min(best, fixed + BestTile(ctx, operands, how, sharers));
      }
      if (most > kMaxSharers) best = std::min(best, fixed + BestTile(ctx, operands, how, /*sharers=*/0));
    }
    size_t i = 0;
    while (i < n && how[i] == Arrival::kInside) how[i++] = Arrival::kLoaded;
    if (i == n) break;
    how[i] = static_cast<Arrival>(static_cast<int>(how[i]) + 1);
  }
  return best == std::numeric_limits<double>::infinity() ? -1 : best;
}

}  // namespace tilesched
