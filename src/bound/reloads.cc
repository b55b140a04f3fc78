// Lemmas M3-M4 (with K3 and S2) of docs/bounds.md: how often a subgraph reloads an operand
// (src/bound/reloads.h).
#include "reloads.h"

#include <algorithm>

#include "tilesched/grid.h"

namespace tilesched::bound {

bool Reloads::MayCoincide(int c, int t, Slot slot, const Role& r, bool along_rows, bool first) const {
  const Tensor& tensor = p_.tensor(t);
  // A tile range of t along an axis means t spans the grid along it.
  if (along_rows && r.grid_h >= 0 && tensor.height != r.grid_h) return false;
  if (!along_rows && r.grid_w >= 0 && tensor.width != r.grid_w) return false;
  // Lemma S2: when c's slice spans t's whole extent along the other axis, an identical slice
  // needs that whole extent too, which no tile range or k-slice has here.
  const bool full_other = sharpened_ && FullAlongOther(c, t, slot, r, along_rows);
  auto tile_capable = [&](int op, Slot s) {
    if (full_other) return TileWithFull(op, s, along_rows);
    if (p_.op(op).type == OpType::kPointwise) return true;
    return along_rows ? s == Slot::kLhs : s == Slot::kRhs;
  };
  for (const Use& u : g_.Uses(t)) {
    if (u.op == c && u.slot == slot) continue;
    if (!tile_capable(u.op, u.slot)) continue;
    if (u.op != c && first && g_.Excluded(c, u.op)) continue;
    return true;
  }
  // The op itself in another role of the same subgraph (only with a fan-out downstream).
  return g_.MultiRole(c) && tile_capable(c, slot);
}

// Every reader has one of its Lemma M2 roles; c itself has a second role in one subgraph only
// with a fan-out downstream (Lemma M4).
bool Reloads::TileDistinct(int c, int t, Slot slot) const {
  const bool along_rows = slot == Slot::kLhs;
  for (const Use& u : g_.Uses(t)) {
    for (const Role& role : g_.Roles(u.op).roles) {
      const bool root = role.rows == DimKind::kTile && role.cols == DimKind::kTile;
      if (u.op == c && u.slot == slot && (root || !g_.MultiRole(c))) continue;
      const Role d = Demanded(p_.op(u.op).type, u.slot, role, g_.Root(u.op));
      if ((along_rows ? d.rows : d.cols) == DimKind::kSlice) return false;
    }
  }
  return true;
}

// Lemma S2's premise: c's slice of t (role r, `slot`) spans t's whole extent along the axis
// other than `along_rows`, longer than a tile range (rule 3.4: at most native) and than a
// k-slice (at most native k under k_limit=native; under k_limit=reduction nothing is claimed).
bool Reloads::FullAlongOther(int c, int t, Slot slot, const Role& r, bool along_rows) const {
  if (g_.modes().k_limit != KLimit::kNative) return false;
  const Hardware& hw = p_.hardware();
  const Role d = Demanded(p_.op(c).type, slot, r, g_.Root(c));
  const DimKind other = along_rows ? d.cols : d.rows;
  const int64_t extent = along_rows ? p_.tensor(t).width : p_.tensor(t).height;
  const int64_t tile = along_rows ? hw.native_w : hw.native_h;
  return other == DimKind::kFull && extent > std::max(tile, hw.native_k());
}

// Lemma S2: can op `op` demand the tensor it reads in slot s with a tile range along rows
// (`along_rows`) or columns and the full extent along the other axis, in some role (M2)?
bool Reloads::TileWithFull(int op, Slot s, bool along_rows) const {
  for (const Role& rho : g_.Roles(op).roles) {
    const Role d = Demanded(p_.op(op).type, s, rho, g_.Root(op));
    const DimKind mine = along_rows ? d.rows : d.cols;
    const DimKind other = along_rows ? d.cols : d.rows;
    if (mine == DimKind::kTile && other == DimKind::kFull) return true;
  }
  return false;
}

Streaming Reloads::StreamedBy(int c, int t, Slot slot, const Role& r, bool first) const {
  const Role d = Demanded(p_.op(c).type, slot, r, g_.Root(c));
  const bool rows_streamed = d.rows == DimKind::kSlice && d.rows_stream &&
                             !MayCoincide(c, t, slot, r, /*along_rows=*/true, first);
  const bool cols_streamed = d.cols == DimKind::kSlice && d.cols_stream &&
                             !MayCoincide(c, t, slot, r, /*along_rows=*/false, first);
  if (d.rows == DimKind::kTile && cols_streamed) return {false, true};
  if (d.cols == DimKind::kTile && rows_streamed) return {true, false};
  if (d.cols == DimKind::kFull && rows_streamed) return {true, true};
  if (d.rows == DimKind::kFull && cols_streamed) return {true, true};
  return {};
}

double Reloads::Multiplier(int c, int t, Slot slot, const Role& r, bool first) const {
  const Hardware& hw = p_.hardware();
  const Streaming s = StreamedBy(c, t, slot, r, first);
  const double rows_grid = r.grid_h > 0 ? static_cast<double>(CeilDiv(r.grid_h, hw.native_h)) : 1;
  const double cols_grid = r.grid_w > 0 ? static_cast<double>(CeilDiv(r.grid_w, hw.native_w)) : 1;
  return (s.per_row ? rows_grid : 1) * (s.per_col ? cols_grid : 1);
}

}  // namespace tilesched::bound
