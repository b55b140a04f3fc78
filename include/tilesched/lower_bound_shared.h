// Lemma S1 of docs/bounds.md (a graph input shared by MatMuls whose other operands crowd the
// fast memory): in a subgraph, the loads of such an input t are split among its readers present
// there in proportion to what each holds of its own tensors in the first step of the grid's
// first tile (rule 3.8), instead of evenly (Lemma M7's alpha). A reader whose other operand is
// resident, or loaded in slices as large as the tensor, then pays nearly all of t's load.
// Used by src/lower_bound.cc (the part `shared`); public so that tests can check the pieces.
//
// Entry points: PlanSharedInputs(problem, alpha) decides which graph inputs are split this way
// and what each reader owns; MinFootprintLoad(terms, grid) is the least product of a reader's
// footprint and t's load multiplier over the tiles rule 3.4 allows.
#ifndef TILESCHED_LOWER_BOUND_SHARED_H_
#define TILESCHED_LOWER_BOUND_SHARED_H_

#include <array>
#include <cstdint>
#include <vector>

#include "tilesched/problem.h"

namespace tilesched {

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

}  // namespace tilesched

#endif  // TILESCHED_LOWER_BOUND_SHARED_H_
