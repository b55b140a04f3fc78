// Lemma K1 of docs/bounds.md (capacity-aware charges): the working set of one step bounds
// the tile, so an op's charge in a role is minimized over the tiles that fit, not over the
// native tile alone. Used by the traffic pass's capacity-aware variants (traffic_bound.cc);
// tests/bound_capacity_test.cc checks it on hand-made cases.
//
// Entry point: CapacityCharge(context, operands): the least charge of one op in one role over
// every way its operands can arrive (loaded, resident, computed inside) and every tile h x w
// whose step can hold what that choice puts in fast memory.
#ifndef TILESCHED_BOUND_CAPACITY_CHARGE_H_
#define TILESCHED_BOUND_CAPACITY_CHARGE_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "tilesched/demand.h"

namespace tilesched::bound {

// One distinct operand of the op, read in one slot.
struct CapOperand {
  DimKind rows = DimKind::kTile;  // kinds of the slice the op demands (Lemma M2)
  DimKind cols = DimKind::kTile;
  int64_t height = 0;  // the operand's extents (a kFull dimension spans them)
  int64_t width = 0;
  bool rows_stream = false;  // streamed along rows / cols in every subgraph (Lemma M3)
  bool cols_stream = false;
  bool rows_coincide = false;  // Lemma M4: a k-slice may equal a tile range along rows / cols
  bool cols_coincide = false;
  // Lemma K3: no other demand of the tensor in a subgraph can be a k-slice along its tile
  // dimension (a tile range then equals only the same tile range or the whole extent).
  bool tile_distinct = false;
  // Lemma M4': where a k-slice may coincide, at most two slices per tile are spared, so the
  // multiplier is kept at (1 - 2k / K) of M3's (and at least 1) instead of dropped to 1; the
  // charge is then minimized over the subgraph's k as well.
  bool few_coincide = false;
  double load = 0;   // share x size: the charge of one full load (Lemma M7's alpha)
  // > 0: Lemma K2's shared operand: `load` is the whole size, split among the split roots that
  // read it in the subgraph (at most this many), each of which holds a tile buffer.
  int shared_readers = 0;
  double store = 0;  // added when loaded (Lemma M1's share), 0 when none
  double size = 0;
  bool can_reside = false;  // produced by an op (rule 3.6)
  double inside = -1;       // charge when computed inside by its producer; < 0: impossible
  // Lemma H1 (optional, one entry per operand of the call): the charge when computed inside
  // while operand j is resident, so that j is held in full at every step of the subgraph and
  // the producer's own charge is priced with it; < 0: impossible. Empty: `inside` always.
  std::vector<double> inside_when;
  // Lemma H2 (optional): the charge when computed inside with no big tensor resident anywhere
  // in the producer's cone (< -1: not given), and the operands (bit j) whose producers' cones
  // read no big tensor in common with this one's: of operands computed inside that are
  // pairwise such, at most one cone holds a big tensor.
  double inside_alone = -2;
  uint32_t apart = 0;
  // Lemma M10: the operands (bit j) that are never resident together with this one.
  uint32_t not_resident_with = 0;
  // Lemma J1 (optional): the charge computed inside when k = 1, 2, ... of the operands that
  // have one are computed inside (entry k - 1); those producers are split roots whose outputs
  // are not sinks, so the step holds CapContext::join_buffers(k) buffers.
  std::vector<double> inside_by_count;
};

// Lemma J1: the loaded slice of a graph input that another split root of the subgraph reads at
// the same step (its k-slice is min(k, reduction): `reduction` is the smaller of the two roots'
// reductions), LHS (rows of the tile x the slice) or RHS (the slice x columns of the tile).
struct StepSlice {
  bool lhs = true;
  int64_t reduction = 1;
  bool operator<(const StepSlice& o) const { return lhs != o.lhs ? lhs < o.lhs : reduction < o.reduction; }
  bool operator==(const StepSlice& o) const { return lhs == o.lhs && reduction == o.reduction; }
};

struct CapContext {
  int64_t grid_h = 0;  // the role's grid (both known)
  int64_t grid_w = 0;
  int64_t native_h = 0;
  int64_t native_w = 0;
  int64_t capacity = 0;
  // Lemma L1 (coupled part): added per tile of the grid, the op's compute on one tile in
  // element units; 0 outside the coupled part.
  double tile_compute = 0;
  // Largest k a subgraph may use (rule 3.4: native k under k_limit=native); Lemma M4' only.
  int64_t k_max = std::numeric_limits<int64_t>::max() / 4;
  // Lemma J1: tile buffers the subgraph holds at least (besides Lemma K2's sharers), and the
  // slices other split roots hold at the same step.
  int64_t least_buffers = 1;
  std::vector<StepSlice> step_slices;
  // Lemma J1: the buffers of k split roots that are not sinks: k + 1 under contest (rule 7a:
  // each keeps its own beside the sink's), k under algebra.
  bool contest = true;
  int64_t join_buffers(int64_t k) const { return contest ? k + 1 : std::max<int64_t>(k, 1); }
};

// Lemma K1: the least charge over operand choices and fitting tiles; a negative value when no
// tile fits any choice (the caller then keeps the capacity-blind charge). With a shared operand
// (Lemma K2) also over the number n of split roots sharing its load: n tile buffers, 1/n each.
double CapacityCharge(const CapContext& ctx, const std::vector<CapOperand>& operands);

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_CAPACITY_CHARGE_H_
