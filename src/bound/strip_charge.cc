// Lemma K3 (docs/bounds.md, "Capacity: the tiles that fit"): the strips a one-step split root
// loads over any traversal order.
//
// Why the count holds (the lemma has the SPEC reasons): a tile's LHS strip is saved only by a
// move from a tile of the same grid row, its RHS strip only by a move from the same column. In
// any order the moves inside one row form vertex-disjoint paths on its C tiles (at most C - 1
// moves), those inside one column at most R - 1, and all moves number R C - 1. So the saved
// strips are at most the R C - 1 most valuable of the multiset "each row's LHS strip C - 1
// times, each column's RHS strip R - 1 times"; that multiset has 2 R C - R - C members, so what
// is left unsaved of the naive C loads of the LHS and R of the RHS is at least one load of each
// plus the (R - 1)(C - 1) cheapest members.
#include "strip_charge.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace tilesched::bound {

double StripCharge(int64_t grid_h, int64_t grid_w, int64_t h, int64_t w, double lhs_charge, double rhs_charge) {
  const int64_t rows = (grid_h + h - 1) / h, cols = (grid_w + w - 1) / w;
  const int64_t last_h = grid_h - (rows - 1) * h, last_w = grid_w - (cols - 1) * w;
  const double per_row = lhs_charge / static_cast<double>(grid_h);
  const double per_col = rhs_charge / static_cast<double>(grid_w);
  // (value of one saved strip, how many times a move could save it)
  std::array<std::pair<double, int64_t>, 4> members = {{
      {per_row * static_cast<double>(h), (rows - 1) * (cols - 1)},
      {per_row * static_cast<double>(last_h), cols - 1},
      {per_col * static_cast<double>(w), (rows - 1) * (cols - 1)},
      {per_col * static_cast<double>(last_w), rows - 1},
  }};
  std::sort(members.begin(), members.end());
  int64_t unsaved = (rows - 1) * (cols - 1);
  double total = lhs_charge + rhs_charge;
  for (const auto& [value, count] : members) {
    const int64_t take = std::min(unsaved, count);
    total += value * static_cast<double>(take);
    unsaved -= take;
  }
  return total;
}

double LeastStripCharge(int64_t grid_h, int64_t grid_w, int64_t h, int64_t w_max, double lhs_charge,
                        double rhs_charge, double tile_cost, double cutoff) {
  const int64_t rows = (grid_h + h - 1) / h;
  const double row_strip = lhs_charge / static_cast<double>(grid_h) * static_cast<double>(h);
  const double per_col = rhs_charge / static_cast<double>(grid_w);
  double best = cutoff;
  // Column counts from the fewest up. The widths with C columns are W / C <= w < W / (C - 1);
  // on them the counts of the members are fixed and each member's value is affine in w, so the
  // sum of the cheapest ones is a minimum of affine functions (concave): its least value is at
  // one end of the class. Of the (R - 1)(C - 1) unsaved members at most C - 1 are the last
  // row's and R - 1 the last column's; the others are worth at least
  // min(row strip, per_col x W / C) (an unclipped column is at least W / C wide). That floor
  // never falls as C grows, and neither does the cost per tile, so the loop stops once it
  // reaches the best charge found.
  for (int64_t w = w_max; w >= 1;) {
    const int64_t cols = (grid_w + w - 1) / w;
    const int64_t plain = (rows - 1) * (cols - 1) - (rows - 1) - (cols - 1);
    const double tiles = tile_cost * static_cast<double>(rows) * static_cast<double>(cols);
    const double floor =
        tiles + lhs_charge + rhs_charge +
        (plain > 0 ? static_cast<double>(plain) *
                         std::min(row_strip, per_col * static_cast<double>(grid_w) / static_cast<double>(cols))
                   : 0.0);
    if (floor >= best) break;
    const int64_t narrowest = (grid_w + cols - 1) / cols;
    best = std::min(best, tiles + StripCharge(grid_h, grid_w, h, w, lhs_charge, rhs_charge));
    best = std::min(best, tiles + StripCharge(grid_h, grid_w, h, narrowest, lhs_charge, rhs_charge));
    w = narrowest - 1;
  }
  return best;
}

}  // namespace tilesched::bound
