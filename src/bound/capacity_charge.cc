// Lemma K1 (docs/bounds.md, "Capacity: the tiles that fit"): an op's charge in a role,
// minimized over the tiles whose step can hold what the role puts in fast memory.
//
// Work per call: at most 3^4 operand choices times at most 17 sharer counts (Lemma K2) times
// min(native_h, grid_h) tile heights, each O(operands): the best width for a height is found in
// closed form (the working set is affine in the width for a fixed height), and the heights stop
// at the first one where the fewest rows and columns fit. A split root with both operands
// loaded and one k-step possible (Lemma K3) also visits, per height, two widths per column count
// until a floor on the count stops it (strip_charge.cc).
#include "capacity_charge.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "strip_charge.h"

namespace tilesched::bound {
namespace {

enum class Arrival : int { kLoaded = 0, kResident = 1, kInside = 2 };

int64_t Ceil(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Extent of a slice dimension at the grid's first tile (rows [0, h), cols [0, w): never
// clipped smaller than min(h, grid)), for a kSlice dimension the least a first k-slice can be
// (min(k_least, K), k_least >= 1 the least k considered) or, for the single-step test, the
// whole reduction (the operand's extent along it).
int64_t Extent(DimKind kind, int64_t tile, int64_t full, bool whole_slice, int64_t k_least) {
  if (kind == DimKind::kTile) return tile;
  if (kind == DimKind::kFull) return full;
  return whole_slice ? full : std::min(k_least, full);
}

// The affine working set a + b * w of one step at tile height h (SPEC 6: resident tensors in
// full, the external slices needed now, at least one tile buffer or a retained sink of the
// grid's shape, which is no smaller).
struct Affine {
  double a = 0;
  double b = 0;
};

Affine WorkingSet(const CapContext& ctx, const std::vector<CapOperand>& ops, const std::vector<Arrival>& how,
                  int64_t h, bool whole_slice, int64_t buffers, int64_t k_least) {
  Affine ws{0, static_cast<double>(h * buffers)};
  // Lemma J1: other split roots' graph-input slices at the same step.
  for (const StepSlice& s : ctx.step_slices) {
    const double k = static_cast<double>(whole_slice ? s.reduction : std::min(k_least, s.reduction));
    if (s.lhs) ws.a += static_cast<double>(h) * k;
    else ws.b += k;
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    const CapOperand& op = ops[i];
    if (how[i] == Arrival::kResident) ws.a += op.size;
    if (how[i] != Arrival::kLoaded) continue;
    const double rows = static_cast<double>(Extent(op.rows, h, op.height, whole_slice, k_least));
    if (op.cols == DimKind::kTile) {
      ws.b += rows;
    } else {
      ws.a += rows * static_cast<double>(Extent(op.cols, 0, op.width, whole_slice, k_least));
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

// Lemma M3 with the grid's rows R and columns C (instead of the native-tile minimum); where a
// k-slice may coincide (M4), 1, or under Lemma M4' the share (1 - 2k/K) of it for k <= k_most.
double Multiplier(const CapOperand& op, double r, double c, bool forced, int64_t k_most) {
  const bool rows = op.rows == DimKind::kSlice && (op.rows_stream || forced);
  const bool cols = op.cols == DimKind::kSlice && (op.cols_stream || forced);
  double base = 1;
  bool coincide = false;
  int64_t extent = 1;  // K: the operand's extent along its streamed dimension
  if (op.rows == DimKind::kTile && cols) {
    base = c, coincide = op.cols_coincide, extent = op.width;
  } else if (op.cols == DimKind::kTile && rows) {
    base = r, coincide = op.rows_coincide, extent = op.height;
  } else if (op.cols == DimKind::kFull && rows) {
    base = r * c, coincide = op.rows_coincide, extent = op.height;
  } else if (op.rows == DimKind::kFull && cols) {
    base = r * c, coincide = op.cols_coincide, extent = op.width;
  }
  if (!coincide) return base;
  if (!op.few_coincide) return 1;
  const double kept = 1 - 2 * static_cast<double>(k_most) / static_cast<double>(extent);
  return std::max(1.0, base * kept);
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
                    int64_t cols, bool forced, int sharers, int64_t k_most) {
  double total = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (how[i] != Arrival::kLoaded) continue;
    const double m = Multiplier(ops[i], static_cast<double>(rows), static_cast<double>(cols), forced, k_most);
    total += OneLoad(ops[i], sharers) * m + ops[i].store;
  }
  return total;
}

// LoadedCharge plus the coupled part's compute on every tile of an R x C grid (Lemma L1).
double Charge(const CapContext& ctx, const std::vector<CapOperand>& ops, const std::vector<Arrival>& how,
              int64_t rows, int64_t cols, bool forced, int sharers, int64_t k_most) {
  return LoadedCharge(ops, how, rows, cols, forced, sharers, k_most) +
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

// The least loaded charge of one operand choice over every fitting tile with k in
// [k_least, k_most]; +inf when none fits.
double BestTileForK(const CapContext& ctx, const std::vector<CapOperand>& ops, const std::vector<Arrival>& how,
                    int sharers, int64_t k_least, int64_t k_most) {
  // Every split root sharing the load holds a tile buffer (or retains its output, no smaller).
  // Lemma J1: the split roots a join computes inside hold a buffer each, besides the sink's.
  const int64_t buffers = std::max<int64_t>(sharers > 0 ? sharers : kMaxSharers + 1, ctx.least_buffers);
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
      const int64_t w_fit =
          WidestFit(WorkingSet(ctx, ops, how, h, /*whole_slice=*/false, buffers, k_least), ctx.capacity, w_limit);
      if (w_fit == 0) continue;  // a k = K step holds more than a k = 1 step
      best = std::min(best, Charge(ctx, ops, how, Ceil(ctx.grid_h, h), Ceil(ctx.grid_w, w_fit), /*forced=*/true,
                                   sharers, k_most));
      const int64_t w_single =
          WidestFit(WorkingSet(ctx, ops, how, h, /*whole_slice=*/true, buffers, k_least), ctx.capacity, w_limit);
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
    const int64_t w_fit =
        WidestFit(WorkingSet(ctx, ops, how, h, /*whole_slice=*/false, buffers, k_least), ctx.capacity, w_limit);
    if (w_fit == 0) continue;
    // Fewest columns that fit, at the narrowest width that gives them (the smallest step).
    const int64_t cols = Ceil(ctx.grid_w, w_fit);
    const bool least = h == h_limit && cols == fewest_cols;
    if (!may_force) {
      best = std::min(best, Charge(ctx, ops, how, rows, cols, /*forced=*/false, sharers, k_most));
      if (least) break;
      continue;
    }
    // When the slices of one k-step over all of K_r do not fit, r runs two or more k-slices at
    // every tile and the slice dimensions are streamed (Lemma M3): at the narrowest width of
    // this column count, or at every width of fewer columns too.
    const Affine single = WorkingSet(ctx, ops, how, h, /*whole_slice=*/true, buffers, k_least);
    const int64_t narrowest = Ceil(ctx.grid_w, cols);
    const bool forced = single.a + single.b * static_cast<double>(narrowest) > static_cast<double>(ctx.capacity);
    best = std::min(best, Charge(ctx, ops, how, rows, cols, forced, sharers, k_most));
    if (least && !forced) break;
    const int64_t w_single = WidestFit(single, ctx.capacity, w_limit);
    if (w_single > 0) {
      const int64_t cols_single = std::max(cols, Ceil(ctx.grid_w, w_single));
      best = std::min(best, Charge(ctx, ops, how, rows, cols_single, /*forced=*/false, sharers, k_most));
    }
  }
  return best;
}

// BestTileForK over every k: one range [1, inf) unless a loaded operand uses Lemma M4', then
// ranges [k, k + max(0, k/4 - 1)] up to min(ctx.k_max, the largest extent K of such an
// operand's streamed dimension), each priced at its least k for the working set and its most
// for the spared share; the last one reaches every larger k (whose share is at most 0, or
// which rule 3.4 excludes). At most 5 ln(K) + 4 ranges.
double BestTile(const CapContext& ctx, const std::vector<CapOperand>& ops, const std::vector<Arrival>& how,
                int sharers) {
  int64_t k_top = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (how[i] != Arrival::kLoaded || !ops[i].few_coincide) continue;
    if (ops[i].rows == DimKind::kSlice && ops[i].rows_coincide) k_top = std::max(k_top, ops[i].height);
    if (ops[i].cols == DimKind::kSlice && ops[i].cols_coincide) k_top = std::max(k_top, ops[i].width);
  }
  constexpr int64_t kAnyK = std::numeric_limits<int64_t>::max() / 4;
  k_top = std::min(k_top, ctx.k_max);
  if (k_top == 0) return BestTileForK(ctx, ops, how, sharers, /*k_least=*/1, kAnyK);
  double best = std::numeric_limits<double>::infinity();
  for (int64_t k = 1; k <= k_top;) {
    const int64_t next = k + std::max<int64_t>(1, k / 4);
    const int64_t k_most = next > k_top ? kAnyK : next - 1;
    best = std::min(best, BestTileForK(ctx, ops, how, sharers, k, k_most));
    k = next;
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
    // Lemma J1: how many producers that make their readers' step hold a buffer each are inside.
    int64_t joined = 0;
    for (size_t i = 0; i < n; ++i) joined += how[i] == Arrival::kInside && !operands[i].inside_by_count.empty();
    auto inside_of = [&](size_t i) {
      return operands[i].inside_by_count.empty() ? operands[i].inside
                                                 : operands[i].inside_by_count[static_cast<size_t>(joined - 1)];
    };
    for (size_t i = 0; i < n; ++i) {
      if (how[i] == Arrival::kResident && !operands[i].can_reside) available = false;
      // Lemma M10: two operands that are never resident in one subgraph.
      for (size_t j = 0; j < n && how[i] == Arrival::kResident; ++j) {
        if (how[j] == Arrival::kResident && (operands[i].not_resident_with >> j & 1)) available = false;
      }
      if (how[i] == Arrival::kInside) {
        double inside = inside_of(i);
        // Lemma H1: a resident operand is held at every step, also while the producer computes.
        for (size_t j = 0; j < operands[i].inside_when.size() && inside >= 0; ++j) {
          if (j != i && how[j] == Arrival::kResident) {
            const double when = operands[i].inside_when[j];
            inside = when < 0 ? -1 : std::max(inside, when);
          }
        }
        if (inside < 0) available = false;
        else fixed += inside;
      }
    }
    // Lemma H2: with no resident operand, of pairwise apart operands computed inside at most
    // one holds a big tensor; the others are priced without one.
    if (available) {
      bool any_resident = false, all_apart = true;
      int inside_count = 0;
      for (size_t i = 0; i < n; ++i) {
        any_resident |= how[i] == Arrival::kResident;
        if (how[i] != Arrival::kInside) continue;
        ++inside_count;
        if (operands[i].inside_alone < 0) all_apart = false;
        for (size_t j = 0; j < n; ++j) {
          if (j != i && how[j] == Arrival::kInside && !(operands[i].apart >> j & 1)) all_apart = false;
        }
      }
      if (!any_resident && inside_count >= 2 && all_apart) {
        // The least over which one holds: its own charge, the others' alone (>= their own).
        double least = std::numeric_limits<double>::infinity();
        for (size_t holder = 0; holder < n; ++holder) {
          if (how[holder] != Arrival::kInside) continue;
          double sum = 0;
          for (size_t i = 0; i < n; ++i) {
            if (how[i] != Arrival::kInside) continue;
            sum += i == holder ? inside_of(i) : std::max(operands[i].inside_alone, inside_of(i));
          }
          least = std::min(least, sum);
        }
        double own = 0;
        for (size_t i = 0; i < n; ++i) {
          if (how[i] == Arrival::kInside) own += inside_of(i);
        }
        if (least == std::numeric_limits<double>::infinity()) available = false;
        else fixed += least - own;
      }
    }
    if (available && fixed < best) {
      // Lemma K2: n split roots share the shared operands' load (n = 1 when there are none).
      int most = 1;
      for (size_t j = 0; j < n; ++j) {
        if (how[j] == Arrival::kLoaded) most = std::max(most, operands[j].shared_readers);
      }
      // Lemma J1: the producers computed inside keep a buffer each beside the sink's.
      CapContext step = ctx;
      if (joined > 0) step.least_buffers = std::max(step.least_buffers, ctx.join_buffers(joined));
      for (int sharers = 1; sharers <= std::min(most, kMaxSharers); ++sharers) {
        best = std::min(best, fixed + BestTile(step, operands, how, sharers));
      }
      if (most > kMaxSharers) best = std::min(best, fixed + BestTile(step, operands, how, /*sharers=*/0));
    }
    size_t i = 0;
    while (i < n && how[i] == Arrival::kInside) how[i++] = Arrival::kLoaded;
    if (i == n) break;
    how[i] = static_cast<Arrival>(static_cast<int>(how[i]) + 1);
  }
  return best == std::numeric_limits<double>::infinity() ? -1 : best;
}

}  // namespace tilesched::bound
