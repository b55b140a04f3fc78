// How many times over a subgraph loads an operand it reads from slow memory (docs/bounds.md,
// Lemmas M3-M4, with K3's and S2's sharpenings): a slice along a k-slice dimension of a split
// root that runs two or more k-steps per tile is loaded again for every grid row or column,
// unless another demand of the same tensor in the subgraph may make it identical to the slice
// the step before needed (M4).
//
// Entry point: Reloads(roles, sharpened) over a RoleGraph; Multiplier(...) and StreamedBy(...)
// per (op, operand, role), MayCoincide(...) (M4), TileDistinct(...) (K3).
#ifndef TILESCHED_BOUND_RELOADS_H_
#define TILESCHED_BOUND_RELOADS_H_

#include "role_graph.h"

namespace tilesched::bound {

// The grid axes along which a subgraph loads all of an operand again.
struct Streaming {
  bool per_row = false;
  bool per_col = false;
};

class Reloads {
 public:
  // `sharpened`: Lemma S2 (a slice spanning the tensor's whole extent along the other axis
  // coincides with no tile range or k-slice); the shared part's traffic passes use it.
  Reloads(const RoleGraph& roles, bool sharpened) : g_(roles), p_(roles.problem()), sharpened_(sharpened) {}

  // Lemma M4: can some other demand of tensor t in the same subgraph use tile ranges along
  // `along_rows` (true) or columns, so that a k-slice of t might equal a range the step before
  // needed? `first`: in c's first subgraph (Lemma M6 excludes descendants).
  bool MayCoincide(int c, int t, Slot slot, const Role& r, bool along_rows, bool first) const;
  // Lemma K3: in a subgraph where split root c reads t in `slot`, no demand of t other than this
  // one can be a k-slice along t's tile dimension (rows for the LHS, columns for the RHS).
  bool TileDistinct(int c, int t, Slot slot) const;
  // Lemmas M3-M4: the grid axes along which a subgraph where `c` (role r) reads t in `slot`
  // loads all of t again (once per grid row, per grid column, or per tile).
  Streaming StreamedBy(int c, int t, Slot slot, const Role& r, bool first) const;
  // Lemmas M3-M4: how many times over the elements of t such a subgraph loads, counted in
  // native tiles of the role's grid.
  double Multiplier(int c, int t, Slot slot, const Role& r, bool first) const;

 private:
  bool FullAlongOther(int c, int t, Slot slot, const Role& r, bool along_rows) const;
  bool TileWithFull(int op, Slot s, bool along_rows) const;

  const RoleGraph& g_;
  const Problem& p_;
  const bool sharpened_;
};

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_RELOADS_H_
