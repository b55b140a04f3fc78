// Lemmas S1-S3 of docs/bounds.md ("Shared inputs: loads split by what each reader holds"): in a
// subgraph, the loads of a graph input t shared by MatMuls whose other operands crowd the fast
// memory are split among its readers present there in proportion to what each holds of its own
// tensors in the first step of the grid's first tile (rule 3.8), instead of evenly (Lemma M7's
// alpha). A reader whose other operand is resident, or loaded in slices as large as the tensor,
// then pays nearly all of t's load. The part `shared` of LowerBounds (traffic_bound.h's variant
// kShared).
//
// Entry points: PlanSharedInputs(problem, alpha) decides which graph inputs are split this way
// and what each reader owns; MinFootprintLoad(terms, grid) is the least product of a reader's
// footprint and t's load multiplier over the tiles rule 3.4 allows; SharedInputCharges prices
// one operand's arrivals with its footprint's share (S1) and drops the roles whose graph-input
// slices cannot fit (S3).
#ifndef TILESCHED_BOUND_SHARED_INPUTS_H_
#define TILESCHED_BOUND_SHARED_INPUTS_H_

#include <array>
#include <cstdint>
#include <vector>

#include "reloads.h"
#include "role_graph.h"
#include "tilesched/problem.h"

namespace tilesched::bound {

// The slice of one owned tensor needed at the first step of tile 0 (rows [0, h'), cols
// [0, w')): a tile dimension is h' (w'), any other dimension a fixed extent (a full extent, or
// 1 for a k-slice, which has at least one element).
struct FootprintTerm {
  bool rows_tile = false;
  int64_t rows = 1;
  bool cols_tile = false;
  int64_t cols = 1;
};

// The role's grid and how t's loads grow with it (Lemma M3: once per grid row and/or column).
struct FootprintGrid {
  int64_t grid_h = -1;  // -1: unknown (merged roles); then h' = 1 and R = 1 are assumed
  int64_t grid_w = -1;
  int64_t native_h = 1;
  int64_t native_w = 1;
  bool per_row = false;  // t is loaded R = ceil(grid_h / h') times over
  bool per_col = false;  // t is loaded C = ceil(grid_w / w') times over
};

// min over h' in [1, min(native_h, grid_h)], w' in [1, min(native_w, grid_w)] of
// (sum of the terms at h', w') x R^per_row x C^per_col.
double MinFootprintLoad(const std::vector<FootprintTerm>& terms, const FootprintGrid& grid);

struct SharedPlan {
  // Per tensor: a graph input whose loads are split by footprints (Lemma S1).
  std::vector<bool> split;
  // Per op and input position p (0 = LHS, 1 = RHS of a MatMul): the tensors the op owns towards
  // the split tensor it reads at p (its other operand, and that operand's producer's inputs),
  // pairwise disjoint among the readers of that tensor; empty when the op does not share it.
  std::vector<std::array<std::vector<int>, 2>> owned;
};

// `alpha_load[t]`: Lemma M7's even share of t's load. A graph input is split when some reader
// owns a resident-capable operand whose share of the capacity exceeds that even share (either
// choice is sound; this one picks the stronger for the typical reader).
SharedPlan PlanSharedInputs(const Problem& problem, const std::vector<double>& alpha_load);

// Lemmas S1 and S3 over a role graph: the charges of the traffic pass's variant kShared.
class SharedInputCharges {
 public:
  SharedInputCharges(const RoleGraph& roles, const Reloads& reloads)
      : g_(roles), reloads_(reloads), p_(roles.problem()), plan_(PlanSharedInputs(p_, roles.AlphaLoads())) {}

  // Lemma S1: t's loads are charged through its readers' footprints only.
  bool Split(int t) const { return plan_.split[static_cast<size_t>(t)]; }
  // MatMul c reads a split tensor at position 1 - pos (it owns tensors towards it).
  bool OwnsTowards(int c, int pos) const {
    return !plan_.owned[static_cast<size_t>(c)][static_cast<size_t>(1 - pos)].empty();
  }
  // Lemma S3: a graph input is loaded wherever it is read (never produced, never resident, rule
  // 3.6), so in role r op c holds its slice of each graph input (full extents whole, other
  // dimensions at least 1) next to at least one element of tile buffer or retained sink (rule
  // 3.8); a role where that exceeds the capacity never occurs.
  bool GraphInputSlicesFit(int c, const Role& r) const;
  // Lemma S1: the charge of operand x, at position `pos` of MatMul c in role r, when the tensor
  // t at the other position is split: each way x can arrive (`loaded`, `resident`, `inside`:
  // costs as Lemma M7; +infinity or < 0 when impossible) plus that arrival's footprint's share
  // of t's loads, the least of them.
  double Arrival(int c, const Role& r, int pos, double loaded, double resident, double inside, bool first) const;

 private:
  FootprintTerm SliceTerm(int v, const Role& d) const;

  const RoleGraph& g_;
  const Reloads& reloads_;
  const Problem& p_;
  const SharedPlan plan_;
};

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_SHARED_INPUTS_H_
