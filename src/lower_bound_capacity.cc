// Lemma K1 (docs/bounds.md, "Capacity: the tiles that fit"): an op's charge in a role,
// minimized over the tiles whose step can hold what the role puts in fast memory.
//
// Work per call: at most 3^4 operand choices times at most 17 sharer counts (Lemma K2) times
// min(native_h, grid_h) tile heights, each O(operands): the best width for a height is found in
// closed form (the working set is affine in the width for a fixed height), and the heights stop
// at the first one where the fewest rows and columns fit.
#include "tilesched/lower_bound_capacity.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

// `sharers`: the split roots that share each shared operand's load (Lemma K2), capped by its
// readers; 0 for "more than kMaxSharers", where only the cap by its readers is used.
double LoadedCharge(const std::vector<CapOperand>& ops, const std::vector<Arrival>& how, int64_t rows,
                    int64_t cols, bool forced, int sharers) {
  double total = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (how[i] != Arrival::kLoaded) continue;
    const double m = Multiplier(ops[i], static_cast<double>(rows), static_cast<double>(cols), forced);
    double share = 1;
    if (ops[i].shared_readers > 0) {
      const int n = sharers > 0 ? std::min(sharers, ops[i].shared_readers) : ops[i].shared_readers;
      share = 1.0 / static_cast<double>(n);
    }
    total += ops[i].load * share * m + ops[i].store;
  }
  return total;
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
      best = std::min(best, LoadedCharge(ops, how, rows, cols, /*forced=*/false, sharers));
      if (least) break;
      continue;
    }
    // When the slices of one k-step over all of K_r do not fit, r runs two or more k-slices at
    // every tile and the slice dimensions are streamed (Lemma M3): at the narrowest width of
    // this column count, or at every width of fewer columns too.
    const Affine single = WorkingSet(ops, how, h, /*whole_slice=*/true, buffers);
    const int64_t narrowest = Ceil(ctx.grid_w, cols);
    const bool forced = single.a + single.b * static_cast<double>(narrowest) > static_cast<double>(ctx.capacity);
    best = std::min(best, LoadedCharge(ops, how, rows, cols, forced, sharers));
    if (least && !forced) break;
    const int64_t w_single = WidestFit(single, ctx.capacity, w_limit);
    if (w_single > 0) {
      const int64_t cols_single = std::max(cols, Ceil(ctx.grid_w, w_single));
      best = std::min(best, LoadedCharge(ops, how, rows, cols_single, /*forced=*/false, sharers));
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
