// The roles of every op and the graph facts built on them (src/bound/role_graph.h; Lemmas M2-M7,
// C2 of docs/bounds.md).
#include "role_graph.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "bound_graph.h"
#include "tilesched/graph.h"
#include "tilesched/grid.h"

namespace tilesched::bound {

void RoleSet::Add(const Role& r) {
  int& at = index[static_cast<size_t>(RoleKey(r.rows, r.cols))];
  if (at == 0) {
    roles.push_back(r);
    at = static_cast<int>(roles.size());
    return;
  }
  Role& old = roles[static_cast<size_t>(at - 1)];
  if (old.grid_h != r.grid_h) old.grid_h = -1;
  if (old.grid_w != r.grid_w) old.grid_w = -1;
  old.rows_stream = old.rows_stream && r.rows_stream;
  old.cols_stream = old.cols_stream && r.cols_stream;
  old.steps = std::min(old.steps, r.steps);
}

Role Demanded(OpType type, Slot slot, const Role& r, const RootInfo& split) {
  const bool forced = split.forced;
  Role d = r;
  if (type == OpType::kMatMul && r.rows == DimKind::kTile && r.cols == DimKind::kTile) d.steps = split.steps;
  if (type == OpType::kPointwise) return d;
  const bool root = r.rows == DimKind::kTile && r.cols == DimKind::kTile;
  if (slot == Slot::kLhs) {
    d.cols = root ? DimKind::kSlice : DimKind::kFull;
    d.cols_stream = root && forced;
    d.rows_stream = root ? false : r.rows_stream;
    if (root) d.rows = DimKind::kTile;
  } else {
    d.rows = root ? DimKind::kSlice : DimKind::kFull;
    d.rows_stream = root && forced;
    d.cols_stream = root ? false : r.cols_stream;
    if (root) d.cols = DimKind::kTile;
  }
  return d;
}

// Lemma M3: k <= native k < K (k_limit=native), or one step's slice of K elements plus a tile
// buffer would not fit (k_limit=reduction).
bool AlwaysSplit(const Problem& p, const CostModes& modes, int o) {
  if (p.op(o).type != OpType::kMatMul) return false;
  const int64_t k = p.reduction_extent(o);
  if (modes.k_limit == KLimit::kNative) return k > p.hardware().native_k();
  return k + 1 > p.hardware().fast_memory_capacity;
}

// A tile dimension is cut into ranges of at most the native extent (rule 3.4), each paying a
// whole native tile (SPEC 5, spatial factor); a proportional dimension pays d / native over the
// steps of one tile, and every tile of the grid needs it again (intermediates are ephemeral,
// SPEC 4), so it is paid once per tile along the other axis of the grid.
double RoleCompute(const Problem& p, int o, const Role& r, MatmulReduction mode) {
  const Op& op = p.op(o);
  const Hardware& hw = p.hardware();
  const Tensor& out = p.tensor(op.output);
  auto factor = [](DimKind kind, int64_t d, int64_t native) {
    return kind == DimKind::kTile ? SpatialFactor(d, native) : ProportionalFactor(d, native);
  };
  double cost = op.base_cost * factor(r.rows, out.height, hw.native_h) * factor(r.cols, out.width, hw.native_w);
  if (IsProportional(r.rows) && r.grid_h > 0) cost *= SpatialFactor(r.grid_h, hw.native_h);
  if (IsProportional(r.cols) && r.grid_w > 0) cost *= SpatialFactor(r.grid_w, hw.native_w);
  // A full extent next to no k-slice is needed whole at every k-step of the root (SPEC 4).
  const bool full = r.rows == DimKind::kFull || r.cols == DimKind::kFull;
  const bool slice = r.rows == DimKind::kSlice || r.cols == DimKind::kSlice;
  if (full && !slice) cost *= static_cast<double>(r.steps);
  if (op.type == OpType::kMatMul) {
    const int64_t k = p.reduction_extent(o);
    cost *= ReductionFactor(mode, k, k, hw.native_k());
  }
  return cost;
}

RoleGraph::RoleGraph(const Problem& problem, const CostModes& modes) : p_(problem), modes_(modes) {
  uses_.assign(static_cast<size_t>(p_.num_tensors()), {});
  const ReadLists reads = ReadsOf(p_);
  for (size_t t = 0; t < reads.size(); ++t) {
    for (const Read& read : reads[t]) {
      const Slot slot = p_.op(read.op).type == OpType::kPointwise ? Slot::kPointwise
                        : read.slot == 0                           ? Slot::kLhs
                                                                   : Slot::kRhs;
      // A Pointwise op reading one tensor twice demands one region of it.
      bool seen = false;
      for (const Use& u : uses_[t]) seen |= u.op == read.op && u.slot == slot;
      if (!seen) uses_[t].push_back({read.op, slot});
    }
  }
  BuildRoles();
  BuildReachability();
  BuildShares();
  BuildResidentApart();
}

RootInfo RoleGraph::Root(int o) const {
  // Under k_limit=native, k <= native k, so it runs ceil(K / native k) k-steps per tile in every
  // subgraph. Under k_limit=reduction, two steps are forced only while a K-long slice of an
  // external operand must fit (M3), so no step count holds for operands computed inside.
  RootInfo info;
  info.forced = AlwaysSplit(p_, modes_, o);
  if (info.forced && modes_.k_limit == KLimit::kNative) {
    info.steps = CeilDiv(p_.reduction_extent(o), p_.hardware().native_k());
  }
  return info;
}

bool RoleGraph::Allowed(int o, const Role& r) const {
  if (IsProportional(r.rows) && !ProportionalRegionFits(p_, modes_.rules, o, /*along_rows=*/true)) return false;
  if (IsProportional(r.cols) && !ProportionalRegionFits(p_, modes_.rules, o, /*along_rows=*/false)) return false;
  return true;
}

// Every role each op can have in any subgraph, consumers before producers (Lemma M2).
void RoleGraph::BuildRoles() {
  const int n = p_.num_ops();
  const Graph& g = p_.graph();
  roles_.assign(static_cast<size_t>(n), {});
  fusable_.assign(static_cast<size_t>(n), {});
  const auto& order = g.topo_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int c = *it;
    const Tensor& out = p_.tensor(p_.op(c).output);
    RoleSet& rs = roles_[static_cast<size_t>(c)];
    rs.Add({DimKind::kTile, DimKind::kTile, out.height, out.width, false, false});
    for (const Use& u : Uses(p_.op(c).output)) {
      for (const Role& r : Roles(u.op).roles) {
        const Role d = Demanded(p_.op(u.op).type, u.slot, r, Root(u.op));
        if (Allowed(c, d)) rs.Add(d);
      }
    }
  }
  // An edge c -> e can be inside a subgraph only when every slot in which e reads c's output
  // can be demanded of c in some role of e (Lemma M5).
  for (int c = 0; c < n; ++c) {
    for (int e : g.successors(c)) {
      bool ok = true;
      for (const Use& u : Uses(p_.op(c).output)) {
        if (u.op != e) continue;
        bool any = false;
        for (const Role& r : Roles(e).roles) any |= Allowed(c, Demanded(p_.op(e).type, u.slot, r, Root(e)));
        ok &= any;
      }
      if (ok) fusable_[static_cast<size_t>(c)].push_back(e);
    }
  }
}

bool RoleGraph::Fusable(int c, int e) const {
  const auto& f = fusable_[static_cast<size_t>(c)];
  return std::find(f.begin(), f.end(), e) != f.end();
}

// Lemma M4's fan-out, and Lemma M6 reachability: ops separated from each op (a path with an
// edge that can never be inside a subgraph), and ops reachable over fusable edges only.
void RoleGraph::BuildReachability() {
  const int n = p_.num_ops();
  multi_role_.assign(static_cast<size_t>(n), false);
  const auto& order = p_.graph().topo_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int c = *it;
    bool multi = Uses(p_.op(c).output).size() >= 2;
    for (int e : fusable_[static_cast<size_t>(c)]) multi = multi || multi_role_[static_cast<size_t>(e)];
    multi_role_[static_cast<size_t>(c)] = multi;
  }
  have_reach_ = n <= kMaxReachOps;
  if (!have_reach_) return;
  separated_ = SeparatedOps(p_, [this](int c, int e) { return Fusable(c, e); });
  sponsors_.assign(static_cast<size_t>(n), Bitset(n));
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int c = *it;
    sponsors_[static_cast<size_t>(c)].Set(c);
    for (int e : p_.graph().successors(c)) {
      if (Fusable(c, e)) sponsors_[static_cast<size_t>(c)].Or(sponsors_[static_cast<size_t>(e)]);
    }
  }
  // Lemma G6: below(a) = sponsors(a) less what M6 excludes from a's first subgraph; the ops of
  // each output shape (width, height).
  std::vector<std::pair<int64_t, int64_t>> shapes;
  auto shape_index = [&](const Tensor& t) {
    const std::pair<int64_t, int64_t> shape{t.width, t.height};
    return static_cast<size_t>(std::find(shapes.begin(), shapes.end(), shape) - shapes.begin());
  };
  below_.assign(static_cast<size_t>(n), Bitset(n));
  for (int a = 0; a < n; ++a) {
    const size_t ai = static_cast<size_t>(a);
    below_[ai] = sponsors_[ai];
    separated_[ai].ForEach([&](int x) { below_[ai].Reset(x); });
    const Tensor& out = p_.tensor(p_.op(a).output);
    const size_t s = shape_index(out);
    if (s == shapes.size()) {
      shapes.emplace_back(out.width, out.height);
      shape_ops_.emplace_back(n);
    }
    shape_ops_[s].Set(a);
  }
  shape_of_tensor_.assign(static_cast<size_t>(p_.num_tensors()), -1);
  for (int t = 0; t < p_.num_tensors(); ++t) {
    const size_t s = shape_index(p_.tensor(t));
    if (s < shapes.size()) shape_of_tensor_[static_cast<size_t>(t)] = static_cast<int>(s);
  }
}

bool RoleGraph::SinksMayMeet(int a, int b) const {
  if (!have_reach_ || a == b) return true;
  // Some op of `same` below x that y's first subgraph can hold (not Excluded(y, .)).
  auto reaches = [&](int x, int y, const Bitset& same) {
    const auto below = below_[static_cast<size_t>(x)].words();
    const auto shape = same.words();
    const auto excluded = separated_[static_cast<size_t>(y)].words();
    for (size_t w = 0; w < below.size(); ++w) {
      if (below[w] & shape[w] & ~excluded[w]) return true;
    }
    return false;
  };
  for (const Bitset& same : shape_ops_) {
    if (reaches(a, b, same) && reaches(b, a, same)) return true;
  }
  return false;
}

bool RoleGraph::MayWriteShapeOf(int a, int t) const {
  if (!have_reach_) return true;
  const int s = shape_of_tensor_[static_cast<size_t>(t)];
  return s >= 0 && below_[static_cast<size_t>(a)].Intersects(shape_ops_[static_cast<size_t>(s)]);
}

// Lemma M7: two uses of a tensor can charge one subgraph's load of it only when some ops that
// pay for them (the op itself, or a fused descendant that recomputes it) can be first in one
// subgraph together: neither excludes the other (M6), and their sinks may meet (G6).
bool RoleGraph::CoCharge(int e1, int e2) const {
  if (!have_reach_ || e1 == e2) return true;
  const Bitset& s1 = sponsors_[static_cast<size_t>(e1)];
  const Bitset& s2 = sponsors_[static_cast<size_t>(e2)];
  if (s1.Intersects(s2)) return true;
  bool found = false;
  s1.ForEach([&](int a1) {
    if (found) return;
    s2.ForEach([&](int a2) {
      if (!found && !Excluded(a1, a2) && !Excluded(a2, a1) && SinksMayMeet(a1, a2)) found = true;
    });
  });
  return found;
}

// Lemma M10: the shapes a sink can have in a subgraph S' that produces t, retains it, and does
// not hold op c: t itself, or an op of S' reads it over a fusable edge (M5) and a chain of
// readers inside S', none of them c, ends at a sink (rule 3.3).
std::vector<std::pair<int64_t, int64_t>> RoleGraph::RetainedSinkShapes(int c, int t) const {
  std::vector<std::pair<int64_t, int64_t>> shapes{{p_.tensor(t).width, p_.tensor(t).height}};
  const int producer = p_.producer(t);
  std::vector<bool> seen(static_cast<size_t>(p_.num_ops()), false);
  std::vector<int> stack;
  for (const Use& u : Uses(t)) {
    if (u.op != c && Fusable(producer, u.op)) stack.push_back(u.op);
  }
  while (!stack.empty()) {
    const int x = stack.back();
    stack.pop_back();
    if (seen[static_cast<size_t>(x)]) continue;
    seen[static_cast<size_t>(x)] = true;
    const Tensor& out = p_.tensor(p_.op(x).output);
    const std::pair<int64_t, int64_t> shape{out.width, out.height};
    if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
    for (int e : fusable_[static_cast<size_t>(x)]) {
      if (e != c && !seen[static_cast<size_t>(e)]) stack.push_back(e);
    }
  }
  return shapes;
}

void RoleGraph::BuildResidentApart() {
  resident_apart_.assign(static_cast<size_t>(p_.num_ops()), false);
  for (int c = 0; c < p_.num_ops(); ++c) {
    const Op& op = p_.op(c);
    if (op.type != OpType::kMatMul || op.inputs.size() != 2) continue;
    const int a = op.inputs[0], b = op.inputs[1];
    if (a == b || p_.producer(a) < 0 || p_.producer(b) < 0) continue;
    const auto sa = RetainedSinkShapes(c, a);
    const auto sb = RetainedSinkShapes(c, b);
    bool meet = false;
    for (const auto& s : sa) meet |= std::find(sb.begin(), sb.end(), s) != sb.end();
    resident_apart_[static_cast<size_t>(c)] = !meet;
  }
}

void RoleGraph::BuildShares() {
  const int nt = p_.num_tensors();
  alpha_load_.assign(static_cast<size_t>(nt), 1);
  alpha_store_.assign(static_cast<size_t>(nt), 1);
  for (int t = 0; t < nt; ++t) {
    std::vector<int> readers;
    for (const Use& u : Uses(t)) {
      if (std::find(readers.begin(), readers.end(), u.op) == readers.end()) readers.push_back(u.op);
    }
    if (readers.empty()) continue;
    alpha_store_[static_cast<size_t>(t)] = 1.0 / static_cast<double>(readers.size());
    // Largest set of readers that may all charge one subgraph's load (pairwise CoCharge):
    // exhaustive for up to 12 readers, otherwise all of them.
    const size_t m = readers.size();
    size_t clique = m;
    if (m <= 12) {
      clique = 1;
      for (uint32_t mask = 1; mask < (1u << m); ++mask) {
        const size_t bits = static_cast<size_t>(__builtin_popcount(mask));
        if (bits <= clique) continue;
        bool ok = true;
        for (size_t i = 0; i < m && ok; ++i) {
          if (!(mask >> i & 1)) continue;
          for (size_t j = i + 1; j < m && ok; ++j) {
            if (mask >> j & 1) ok = CoCharge(readers[i], readers[j]);
          }
        }
        if (ok) clique = bits;
      }
    }
    alpha_load_[static_cast<size_t>(t)] = 1.0 / static_cast<double>(clique);
  }
}

std::vector<Role> RoleGraph::DemandedOf(int p, int e) const {
  std::vector<Role> out;
  for (const Use& u : Uses(p_.op(p).output)) {
    if (u.op != e) continue;
    for (const Role& r : Roles(e).roles) {
      const Role d = Demanded(p_.op(e).type, u.slot, r, Root(e));
      if (Allowed(p, d)) out.push_back(d);
    }
  }
  return out;
}

size_t RoleGraph::ReaderCount(int t) const {
  std::vector<int> readers;
  for (const Use& u : Uses(t)) {
    if (std::find(readers.begin(), readers.end(), u.op) == readers.end()) readers.push_back(u.op);
  }
  return std::max<size_t>(1, readers.size());
}

}  // namespace tilesched::bound
