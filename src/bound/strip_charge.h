// Lemma K3 of docs/bounds.md (strip reuse of a one-step split root): when a split root's single
// k-step covers its whole reduction K, every tile needs its LHS strip (tile rows x K) and its RHS
// strip (K x tile columns), and a tile finds a strip identical in the step before only when the
// tile before is in the same grid row (the LHS strip) or the same grid column (the RHS strip),
// never both. Counting the moves of any traversal order bounds the two strips' loads from below.
// Used by Lemma K1's tile minimization (capacity_charge.cc).
//
// Entry points: StripCharge (one grid, every order) and LeastStripCharge (every width up to a
// limit at one tile height).
#ifndef TILESCHED_BOUND_STRIP_CHARGE_H_
#define TILESCHED_BOUND_STRIP_CHARGE_H_

#include <cstdint>

namespace tilesched::bound {

// A grid_h x grid_w output cut into tiles h x w (edge tiles clipped, SPEC 4). `lhs_charge`
// is the charge of one load of the whole LHS (grid_h x K), `rhs_charge` of the whole RHS
// (K x grid_w); a strip is charged in proportion to its rows (columns). Returns the least
// charge of the strips any traversal order loads: lhs_charge + rhs_charge plus the
// (R - 1)(C - 1) cheapest strips among those that a move could have saved.
double StripCharge(int64_t grid_h, int64_t grid_w, int64_t h, int64_t w, double lhs_charge, double rhs_charge);

// The least of `cutoff` and StripCharge plus `tile_cost` per tile of the grid, over the widths
// 1..w_max at height h (`cutoff` when w_max < 1); widths whose charge provably reaches `cutoff`
// are skipped.
double LeastStripCharge(int64_t grid_h, int64_t grid_w, int64_t h, int64_t w_max, double lhs_charge,
                        double rhs_charge, double tile_cost, double cutoff);

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_STRIP_CHARGE_H_
