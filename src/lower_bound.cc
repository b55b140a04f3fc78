// Compute, I/O, memory-traffic and mixed-roofline lower bounds (docs/bounds.md: Lemmas C1-C2,
// M1-M7, G1-G3), and the capacity and held parts (K1-K3, H1-H2) built on the same charges.
//
// The traffic bound charges every op the traffic of its first subgraph (the first subgraph of
// the schedule that contains it), minimized over everything that subgraph could be: the
// op's region role there (split root, or inner with the region kinds its fused consumers
// demand) and, per operand, how the operand arrives (loaded from slow memory, resident, or
// computed inside by its producer). Shares (alpha, beta) keep one transfer from being
// charged twice. Work is linear in ops times roles (at most nine per op), plus bitset
// reachability on graphs of at most kMaxReachOps ops (larger graphs drop Lemma M6, which only
// weakens the bound).
//
// The mixed bound (MixedLowerBound) reuses the traffic bound's charges without stores (each a
// load of the op's first subgraph), pairs compute-heavy with memory-heavy ops that can share a
// first subgraph in a bipartite max flow, and runs at most five traffic passes (Lemma G3).
// The held part (HeldLowerBound) is one more traffic pass in which a producer computed inside
// is priced with its reader's resident big operand held (memoized per op, role and that tensor).
#include "tilesched/lower_bound.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "tilesched/demand.h"
#include "tilesched/graph.h"
#include "tilesched/grid.h"
#include "tilesched/lower_bound_phase.h"
#include "tilesched/lower_bound_capacity.h"
#include "tilesched/lower_bound_held.h"
#include "tilesched/lower_bound_shared.h"
#include "tilesched/lower_bound_squeeze.h"
#include "tilesched/max_flow.h"

namespace tilesched {

double OpComputeOnce(const Problem& problem, int o, MatmulReduction mode) {
  const Op& op = problem.op(o);
  const Hardware& hw = problem.hardware();
  const Tensor& out = problem.tensor(op.output);
  double cost = op.base_cost * ProportionalFactor(out.height, hw.native_h) *
                ProportionalFactor(out.width, hw.native_w);
  if (op.type == OpType::kMatMul) {
    const int64_t k = problem.reduction_extent(o);
    cost *= ReductionFactor(mode, k, k, hw.native_k());
  }
  return cost;
}

double Gap(double latency, double bound) {
  if (bound <= 0) return latency <= 0 ? 0 : std::numeric_limits<double>::infinity();
  // Latencies that equal the bound up to rounding (relative 1e-9, as rule 3.9) have no gap.
  if (latency <= bound * (1 + 1e-9)) return 0;
  return latency / bound - 1;
}

namespace {

// Lemma L1 (coupled part): Lemma K2 only for tensors with at most this many co-charging readers.
constexpr long kCoupledSharers = 8;

// Graphs above this many ops skip the bitset reachability of Lemma M6 (quadratic memory).
constexpr int kMaxReachOps = 4096;

// The region an op computes in a subgraph, in the symbolic kinds of SubgraphPlan (Lemma M2):
// (kTile, kTile) is a split root; anything else an inner region. grid_h / grid_w are the
// execution grid's extents (-1 when roles of different grids were merged); *_stream marks a
// kSlice dimension cut by a split root that runs at least two k-steps in every subgraph.
struct Role {
  DimKind rows = DimKind::kTile;
  DimKind cols = DimKind::kTile;
  int64_t grid_h = -1;
  int64_t grid_w = -1;
  bool rows_stream = false;
  bool cols_stream = false;
  // k-steps per tile of the split root whose slice this role's region follows (at least).
  int64_t steps = 1;
};

int RoleKey(DimKind rows, DimKind cols) { return static_cast<int>(rows) * 3 + static_cast<int>(cols); }

// Roles of one op, at most one per kind pair. Merging two roles of one kind pair keeps what
// both guarantee (Lemma M2: a weaker role costs less, so the minimum stays a lower bound).
struct RoleSet {
  std::array<int, 9> index{};  // RoleKey -> position in roles + 1, 0 = absent
  std::vector<Role> roles;

  void Add(const Role& r) {
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
  int Find(DimKind rows, DimKind cols) const { return index[static_cast<size_t>(RoleKey(rows, cols))] - 1; }
};

// Which operand slot of a MatMul (Pointwise inputs all behave alike).
enum class Slot { kLhs, kRhs, kPointwise };

// Which charges a traffic pass uses: Lemma M7's (plain), with Lemmas K1-K3 (capacity), with
// Lemma S1 and its companions S2-S3 (shared), or with K1 and Lemmas H1-H2, M4' (held).
enum class Variant { kPlain, kCapacity, kShared, kHeld };

// What every subgraph guarantees of an op as a split root (Lemma M3).
struct RootInfo {
  bool forced = false;  // at least two k-steps per tile whenever an operand is streamed
  int64_t steps = 1;    // k-steps per tile in any case (rule 3.4 under k_limit=native)
};

// The region of an operand read in `slot` by an op of `type` in role `r`, as a Role of the
// operand's producer (SPEC.md section 4; it is also the demanded slice's kinds).
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

class Bitset {
 public:
  explicit Bitset(int n = 0) : words_((static_cast<size_t>(n) + 63) / 64, 0) {}
  void Set(int i) { words_[static_cast<size_t>(i) / 64] |= uint64_t{1} << (i % 64); }
  bool Test(int i) const { return (words_[static_cast<size_t>(i) / 64] >> (i % 64)) & 1; }
  void Or(const Bitset& other) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] |= other.words_[w];
  }
  bool Intersects(const Bitset& other) const {
    for (size_t w = 0; w < words_.size(); ++w) {
      if (words_[w] & other.words_[w]) return true;
    }
    return false;
  }
  template <typename F>
  void ForEach(F&& f) const {
    for (size_t w = 0; w < words_.size(); ++w) {
      for (uint64_t bits = words_[w]; bits; bits &= bits - 1) {
        f(static_cast<int>(w * 64 + static_cast<size_t>(__builtin_ctzll(bits))));
      }
    }
  }

 private:
  std::vector<uint64_t> words_;
};

double RoleCompute(const Problem& p, int o, const Role& r, MatmulReduction mode);

// Lemma M3: a split root with reduction K runs at least two k-steps per tile in every
// subgraph: k <= native k < K (k_limit=native), or one step's slice of K elements plus a tile
// buffer would not fit (k_limit=reduction).
bool AlwaysSplit(const Problem& p, const CostModes& modes, int o) {
  if (p.op(o).type != OpType::kMatMul) return false;
  const int64_t k = p.reduction_extent(o);
  if (modes.k_limit == KLimit::kNative) return k > p.hardware().native_k();
  return k + 1 > p.hardware().fast_memory_capacity;
}

// Lemma H1: tensors known to be held whole in fast memory at every step of the subgraph (the
// resident operands of the ops that demand this one's region), sorted ids. Forgetting one only
// lowers a charge, so only "big" tensors are tracked (two of them never fit together with one
// more element, rule 3.8), and then one is all a subgraph can hold: at most one entry, which
// bounds the work by (ops x roles) per big tensor. Lemma H2's entry kNoBig instead: no big
// tensor is resident for any op of the cone being priced.
using Held = std::vector<int>;
constexpr int kNoBig = -1;
// Lemma H2 tracks up to this many big tensors read in an op's cone (more: never apart).
constexpr size_t kMaxConeBigs = 64;

// One use of a tensor: op `op` reads it in `slot`.
struct Use {
  int op;
  Slot slot;
};

class TrafficBound {
 public:
  // `with_stores`: charge the stores of loaded intermediates and the graph outputs (Lemma M1).
  // Without them every charge of op c is a load of c's first subgraph (Lemma G1).
  // `own_kinds` (optional, per op a bit per RoleKey): the kind pairs op o's own charge may
  // take (Lemma G3); the others still price o computed inside its readers.
  // `variant`: kCapacity adds Lemmas K1-K3 (charges minimized over the tiles that fit; the load
  // of a graph input read by several ops is charged to the split roots that read it); kShared
  // adds Lemmas S1-S3 (loads of shared graph inputs split by footprints, Lemma M4 sharpened,
  // roles whose graph-input slice cannot fit dropped); kHeld adds Lemmas H1-H2 and M4' to K1
  // (the producer computed inside is priced with the consumer's resident operands held; graph
  // inputs shared by M7's alpha, not Lemma K2; no Lemma K3).
  // `coupling` (Lemma L1, the coupled part, with kCapacity): every charge also counts the op's
  // own compute in its role, times this many elements per unit of compute (0: traffic only).
  TrafficBound(const Problem& problem, const CostModes& modes, bool with_stores = true,
               std::vector<uint16_t> own_kinds = {}, Variant variant = Variant::kPlain,
               double coupling = 0)
      : p_(problem), modes_(modes), g_(problem.graph()), hw_(problem.hardware()),
        with_stores_(with_stores), own_kinds_(std::move(own_kinds)),
        capacity_aware_(variant == Variant::kCapacity || variant == Variant::kHeld),
        held_aware_(variant == Variant::kHeld), shared_(variant == Variant::kShared), coupling_(coupling) {}

  double Run() {
    const int n = p_.num_ops();
    uses_.assign(static_cast<size_t>(p_.num_tensors()), {});
    for (int o = 0; o < n; ++o) {
      const Op& op = p_.op(o);
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        const Slot slot = op.type == OpType::kPointwise ? Slot::kPointwise
                          : i == 0                       ? Slot::kLhs
                                                         : Slot::kRhs;
        auto& uses = uses_[static_cast<size_t>(op.inputs[i])];
        // A Pointwise op reading one tensor twice demands one region of it.
        bool seen = false;
        for (const Use& u : uses) seen |= u.op == o && u.slot == slot;
        if (!seen) uses.push_back({o, slot});
      }
    }
    BuildRoles();
    BuildReachability();
    BuildShares();
    if (shared_) plan_ = PlanSharedInputs(p_, alpha_load_);
    if (held_aware_) BuildConeBigs();
    cost_first_.assign(static_cast<size_t>(n), {});
    cost_weak_.assign(static_cast<size_t>(n), {});
    chi_.assign(static_cast<size_t>(n), 0);
    double total = 0;
    for (int o : g_.topo_order()) {
      const RoleSet& rs = roles_[static_cast<size_t>(o)];
      double chi = std::numeric_limits<double>::infinity();
      for (const Role& r : rs.roles) {
        const double first = OpCost(o, r, /*first=*/true, {});
        cost_first_[static_cast<size_t>(o)].push_back(first);
        cost_weak_[static_cast<size_t>(o)].push_back(OpCost(o, r, /*first=*/false, {}));
        if (own_kinds_.empty() || (own_kinds_[static_cast<size_t>(o)] >> RoleKey(r.rows, r.cols) & 1)) {
          chi = std::min(chi, first);
        }
      }
      // Lemma K1 found no role that fits (no valid schedule exists): 0 is a valid charge.
      if (chi == std::numeric_limits<double>::infinity()) chi = 0;
      chi_[static_cast<size_t>(o)] = chi;
      total += chi;
    }
    // Lemma M1: every graph output is written at least once.
    if (with_stores_) {
      for (int t : g_.graph_outputs()) total += static_cast<double>(p_.tensor(t).size());
    }
    return total;
  }

  // After Run(): op o's charge (Lemma M7), its roles (Lemma M2), and the pair relations of
  // Lemmas M5 and M6.
  double Charge(int o) const { return chi_[static_cast<size_t>(o)]; }
  const std::vector<Role>& Roles(int o) const { return roles_[static_cast<size_t>(o)].roles; }
  bool HaveReach() const { return have_reach_; }
  bool Separated(int a, int b) const { return Excluded(a, b) || Excluded(b, a); }
  bool EdgeFusable(int c, int e) const { return Fusable(c, e); }
  // The roles consumer e can demand of producer p in a subgraph holding both (Lemma M2), each
  // with e's grid.
  std::vector<Role> DemandedOf(int p, int e) const {
    std::vector<Role> out;
    for (const Use& u : uses_[static_cast<size_t>(p_.op(p).output)]) {
      if (u.op != e) continue;
      for (const Role& r : roles_[static_cast<size_t>(e)].roles) {
        const Role d = Demanded(p_.op(e).type, u.slot, r, Root(e));
        if (Allowed(p, d)) out.push_back(d);
      }
    }
    return out;
  }

 private:
  int64_t Size(int t) const { return p_.tensor(t).size(); }

  bool Forced(int o) const { return AlwaysSplit(p_, modes_, o); }

  // Lemma M3 and rule 3.4: op o as a split root. Under k_limit=native, k <= native k, so it
  // runs ceil(K / native k) k-steps per tile in every subgraph. Under k_limit=reduction, two
  // steps are forced only while a K-long slice of an external operand must fit (M3), so no
  // step count holds for operands computed inside.
  RootInfo Root(int o) const {
    RootInfo info;
    info.forced = Forced(o);
    if (info.forced && modes_.k_limit == KLimit::kNative) {
      info.steps = CeilDiv(p_.reduction_extent(o), hw_.native_k());
    }
    return info;
  }

  // Contest rule 7b: a Pointwise op whose region has a proportional dimension must cover the
  // whole axis in one tile, impossible when the axis is longer than the native tile.
  bool Allowed(int o, const Role& r) const {
    if (modes_.rules != Rules::kContest || p_.op(o).type != OpType::kPointwise) return true;
    const Tensor& out = p_.tensor(p_.op(o).output);
    if (IsProportional(r.rows) && out.height > hw_.native_h) return false;
    if (IsProportional(r.cols) && out.width > hw_.native_w) return false;
    return true;
  }

  // Every role each op can have in any subgraph, consumers before producers (Lemma M2).
  void BuildRoles() {
    const int n = p_.num_ops();
    roles_.assign(static_cast<size_t>(n), {});
    fusable_.assign(static_cast<size_t>(n), {});
    const auto& order = g_.topo_order();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int c = *it;
      const Tensor& out = p_.tensor(p_.op(c).output);
      RoleSet& rs = roles_[static_cast<size_t>(c)];
      rs.Add({DimKind::kTile, DimKind::kTile, out.height, out.width, false, false});
      for (const Use& u : uses_[static_cast<size_t>(p_.op(c).output)]) {
        for (const Role& r : roles_[static_cast<size_t>(u.op)].roles) {
          const Role d = Demanded(p_.op(u.op).type, u.slot, r, Root(u.op));
          if (Allowed(c, d)) rs.Add(d);
        }
      }
    }
    // An edge c -> e can be inside a subgraph only when every slot in which e reads c's output
    // can be demanded of c in some role of e (Lemma M5).
    for (int c = 0; c < n; ++c) {
      for (int e : g_.successors(c)) {
        bool ok = true;
        for (const Use& u : uses_[static_cast<size_t>(p_.op(c).output)]) {
          if (u.op != e) continue;
          bool any = false;
          for (const Role& r : roles_[static_cast<size_t>(e)].roles) {
            any |= Allowed(c, Demanded(p_.op(e).type, u.slot, r, Root(e)));
          }
          ok &= any;
        }
        if (ok) fusable_[static_cast<size_t>(c)].push_back(e);
      }
    }
  }

  bool Fusable(int c, int e) const {
    const auto& f = fusable_[static_cast<size_t>(c)];
    return std::find(f.begin(), f.end(), e) != f.end();
  }

  // Lemma M6 reachability: descendants, descendants over a path with an edge that can never be
  // inside a subgraph, and ops reachable over fusable edges only; and Lemma M4's fan-out.
  void BuildReachability() {
    const int n = p_.num_ops();
    multi_role_.assign(static_cast<size_t>(n), false);
    const auto& order = g_.topo_order();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int c = *it;
      bool multi = uses_[static_cast<size_t>(p_.op(c).output)].size() >= 2;
      for (int e : fusable_[static_cast<size_t>(c)]) multi = multi || multi_role_[static_cast<size_t>(e)];
      multi_role_[static_cast<size_t>(c)] = multi;
    }
    have_reach_ = n <= kMaxReachOps;
    if (!have_reach_) return;
    reach_.assign(static_cast<size_t>(n), Bitset(n));
    separated_.assign(static_cast<size_t>(n), Bitset(n));
    sponsors_.assign(static_cast<size_t>(n), Bitset(n));
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int c = *it;
      const size_t ci = static_cast<size_t>(c);
      reach_[ci].Set(c);
      sponsors_[ci].Set(c);
      for (int e : g_.successors(c)) {
        const size_t ei = static_cast<size_t>(e);
        reach_[ci].Or(reach_[ei]);
        if (Fusable(c, e)) {
          separated_[ci].Or(separated_[ei]);
          sponsors_[ci].Or(sponsors_[ei]);
        } else {
          separated_[ci].Or(reach_[ei]);
        }
      }
    }
  }

  // Lemma M6: op b can never be in the first subgraph of op a (b descends from a over a path
  // with an edge that no subgraph can hold inside).
  bool Excluded(int a, int b) const { return have_reach_ && separated_[static_cast<size_t>(a)].Test(b); }

  // Lemma M7: two uses of a tensor can charge one subgraph's load of it only when some ops
  // that pay for them (the op itself, or a fused descendant that recomputes it) can be first
  // in one subgraph together.
  bool CoCharge(int e1, int e2) const {
    if (!have_reach_ || e1 == e2) return true;
    const Bitset& s1 = sponsors_[static_cast<size_t>(e1)];
    const Bitset& s2 = sponsors_[static_cast<size_t>(e2)];
    if (s1.Intersects(s2)) return true;
    bool found = false;
    s1.ForEach([&](int a1) {
      if (found) return;
      s2.ForEach([&](int a2) {
        if (!found && !Excluded(a1, a2) && !Excluded(a2, a1)) found = true;
      });
    });
    return found;
  }

  void BuildShares() {
    const int nt = p_.num_tensors();
    alpha_load_.assign(static_cast<size_t>(nt), 1);
    alpha_store_.assign(static_cast<size_t>(nt), 1);
    for (int t = 0; t < nt; ++t) {
      std::vector<int> readers;
      for (const Use& u : uses_[static_cast<size_t>(t)]) {
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

  // Lemma M4: can some other demand of tensor t in the same subgraph use tile ranges along
  // `rows` (true) or columns, so that a k-slice of t might equal a range the step before needed?
  bool MayCoincide(int c, int t, Slot slot, const Role& r, bool along_rows, bool first) const {
    const Tensor& tensor = p_.tensor(t);
    // A tile range of t along an axis means t spans the grid along it.
    if (along_rows && r.grid_h >= 0 && tensor.height != r.grid_h) return false;
    if (!along_rows && r.grid_w >= 0 && tensor.width != r.grid_w) return false;
    // Lemma S2: when c's slice spans t's whole extent along the other axis, an identical slice
    // needs that whole extent too, which no tile range or k-slice has here.
    const bool full_other = shared_ && FullAlongOther(c, t, slot, r, along_rows);
    auto tile_capable = [&](int op, Slot s) {
      if (full_other) return TileWithFull(op, s, along_rows);
      if (p_.op(op).type == OpType::kPointwise) return true;
      return along_rows ? s == Slot::kLhs : s == Slot::kRhs;
    };
    for (const Use& u : uses_[static_cast<size_t>(t)]) {
      if (u.op == c && u.slot == slot) continue;
      if (!tile_capable(u.op, u.slot)) continue;
      if (u.op != c && first && Excluded(c, u.op)) continue;
      return true;
    }
    // The op itself in another role of the same subgraph (only with a fan-out downstream).
    return multi_role_[static_cast<size_t>(c)] && tile_capable(c, slot);
  }

  // Lemma K3: in a subgraph where split root c reads t in `slot`, no demand of t other than
  // this one can be a k-slice along t's tile dimension (rows for the LHS, columns for the RHS).
  // Every reader has one of its Lemma M2 roles; c itself has a second role in one subgraph only
  // with a fan-out downstream (Lemma M4).
  bool TileDistinct(int c, int t, Slot slot) const {
    const bool along_rows = slot == Slot::kLhs;
    for (const Use& u : uses_[static_cast<size_t>(t)]) {
      for (const Role& role : roles_[static_cast<size_t>(u.op)].roles) {
        const bool root = role.rows == DimKind::kTile && role.cols == DimKind::kTile;
        if (u.op == c && u.slot == slot && (root || !multi_role_[static_cast<size_t>(c)])) continue;
        const Role d = Demanded(p_.op(u.op).type, u.slot, role, Root(u.op));
        if ((along_rows ? d.rows : d.cols) == DimKind::kSlice) return false;
      }
    }
    return true;
  }

  // Lemma K2: the split roots reading t in one subgraph with c all have the grid's shape, which
  // is c's output shape (a split root's output region is the tile, SPEC 4).
  int SameShapeMatMulReaders(int c, int t) const {
    const Tensor& out = p_.tensor(p_.op(c).output);
    std::vector<int> readers;
    for (const Use& u : uses_[static_cast<size_t>(t)]) {
      const Op& reader = p_.op(u.op);
      const Tensor& shape = p_.tensor(reader.output);
      if (reader.type != OpType::kMatMul || shape.height != out.height || shape.width != out.width) continue;
      if (std::find(readers.begin(), readers.end(), u.op) == readers.end()) readers.push_back(u.op);
    }
    return static_cast<int>(readers.size());
  }

  // Lemma S2's premise: c's slice of t (role r, `slot`) spans t's whole extent along the axis
  // other than `along_rows`, longer than a tile range (rule 3.4: at most native) and than a
  // k-slice (at most native k under k_limit=native; under k_limit=reduction nothing is claimed).
  bool FullAlongOther(int c, int t, Slot slot, const Role& r, bool along_rows) const {
    if (modes_.k_limit != KLimit::kNative) return false;
    const Role d = Demanded(p_.op(c).type, slot, r, Root(c));
    const DimKind other = along_rows ? d.cols : d.rows;
    const int64_t extent = along_rows ? p_.tensor(t).width : p_.tensor(t).height;
    const int64_t tile = along_rows ? hw_.native_w : hw_.native_h;
    return other == DimKind::kFull && extent > std::max(tile, hw_.native_k());
  }

  // Lemma S2: can op `op` demand the tensor it reads in slot s with a tile range along rows
  // (`along_rows`) or columns and the full extent along the other axis, in some role (M2)?
  bool TileWithFull(int op, Slot s, bool along_rows) const {
    for (const Role& rho : roles_[static_cast<size_t>(op)].roles) {
      const Role d = Demanded(p_.op(op).type, s, rho, Root(op));
      const DimKind mine = along_rows ? d.rows : d.cols;
      const DimKind other = along_rows ? d.cols : d.rows;
      if (mine == DimKind::kTile && other == DimKind::kFull) return true;
    }
    return false;
  }

  // Lemma M3/M4: the grid axes along which a subgraph where `c` (role r) reads t in `slot` loads
  // all of t again (once per grid row, per grid column, or per tile), when t comes from slow
  // memory.
  struct Streaming {
    bool per_row = false;
    bool per_col = false;
  };
  Streaming StreamedBy(int c, int t, Slot slot, const Role& r, bool first) const {
    const Role d = Demanded(p_.op(c).type, slot, r, Root(c));
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

  // Lemma M3/M4: how many times over the elements of t a subgraph where `c` (role r) reads t in
  // `slot` must load, when t comes from slow memory.
  double Multiplier(int c, int t, Slot slot, const Role& r, bool first) const {
    const Streaming s = StreamedBy(c, t, slot, r, first);
    const double rows_grid = r.grid_h > 0 ? static_cast<double>(CeilDiv(r.grid_h, hw_.native_h)) : 1;
    const double cols_grid = r.grid_w > 0 ? static_cast<double>(CeilDiv(r.grid_w, hw_.native_w)) : 1;
    return (s.per_row ? rows_grid : 1) * (s.per_col ? cols_grid : 1);
  }

  // Lemma S3: a graph input is loaded wherever it is read (never produced, never resident, rule
  // 3.6), so in role r op c holds its slice of each graph input (full extents whole, other
  // dimensions at least 1) next to at least one element of tile buffer or retained sink (rule
  // 3.8); a role where that exceeds the capacity never occurs.
  bool GraphInputSlicesFit(int c, const Role& r) const {
    const Op& op = p_.op(c);
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      const int t = op.inputs[i];
      if (p_.producer(t) >= 0) continue;
      const Slot slot = op.type == OpType::kPointwise ? Slot::kPointwise : i == 0 ? Slot::kLhs : Slot::kRhs;
      const Role d = Demanded(op.type, slot, r, Root(c));
      const Tensor& tensor = p_.tensor(t);
      const double slice = (d.rows == DimKind::kFull ? static_cast<double>(tensor.height) : 1) *
                           (d.cols == DimKind::kFull ? static_cast<double>(tensor.width) : 1);
      if (slice > static_cast<double>(hw_.fast_memory_capacity - 1)) return false;
    }
    return true;
  }

  // The slice of tensor v demanded in kinds d at the first step of tile 0 (Lemma S1).
  FootprintTerm SliceTerm(int v, const Role& d) const {
    const Tensor& tensor = p_.tensor(v);
    FootprintTerm term;
    term.rows_tile = d.rows == DimKind::kTile;
    term.rows = d.rows == DimKind::kFull ? tensor.height : 1;
    term.cols_tile = d.cols == DimKind::kTile;
    term.cols = d.cols == DimKind::kFull ? tensor.width : 1;
    return term;
  }

  // Lemma S1: the charge of operand x, at position `pos` of MatMul c in role r, when the tensor
  // t at the other position is split: each way x can arrive (costs as Lemma M7; +infinity when
  // impossible) plus that arrival's footprint's share of t's loads, the least of them.
  double SharedArrival(int c, const Role& r, int pos, double loaded, double resident, double inside,
                       bool first) const {
    const Op& op = p_.op(c);
    const int x = op.inputs[static_cast<size_t>(pos)];
    const int t = op.inputs[static_cast<size_t>(1 - pos)];
    const std::vector<int>& owned = plan_.owned[static_cast<size_t>(c)][static_cast<size_t>(1 - pos)];
    const Streaming s = StreamedBy(c, t, pos == 0 ? Slot::kRhs : Slot::kLhs, r, first);
    FootprintGrid grid;
    grid.grid_h = r.grid_h;
    grid.grid_w = r.grid_w;
    grid.native_h = hw_.native_h;
    grid.native_w = hw_.native_w;
    grid.per_row = s.per_row;
    grid.per_col = s.per_col;
    const double per_element = static_cast<double>(Size(t)) / static_cast<double>(hw_.fast_memory_capacity - 1);
    auto share = [&](const std::vector<FootprintTerm>& terms) { return per_element * MinFootprintLoad(terms, grid); };
    const bool owns_x = std::find(owned.begin(), owned.end(), x) != owned.end();
    const Role dx = Demanded(op.type, pos == 0 ? Slot::kLhs : Slot::kRhs, r, Root(c));
    std::vector<FootprintTerm> terms;
    if (owns_x) terms.push_back(SliceTerm(x, dx));
    double best = loaded + share(terms);
    if (resident == 0) {
      terms.clear();
      if (owns_x) terms.push_back({false, Size(x), false, 1});
      best = std::min(best, share(terms));
    }
    if (inside >= 0) {
      // The producer p computes x's demanded region at that step and needs its own operands'
      // slices there: the graph inputs among them are loaded (produced ones may be computed
      // inside too and are not counted).
      const Op& p = p_.op(p_.producer(x));
      terms.clear();
      for (int v : owned) {
        if (v == x || p_.producer(v) >= 0) continue;
        const auto at = std::find(p.inputs.begin(), p.inputs.end(), v);
        if (at == p.inputs.end()) continue;
        // A MatMul reading v in both positions: either slice would do; none is claimed.
        if (p.type == OpType::kMatMul && p.inputs[0] == p.inputs[1]) continue;
        const Slot slot = p.type == OpType::kPointwise ? Slot::kPointwise
                          : at == p.inputs.begin()     ? Slot::kLhs
                                                       : Slot::kRhs;
        terms.push_back(SliceTerm(v, Demanded(p.type, slot, dx, Root(p_.producer(x)))));
      }
      best = std::min(best, inside + share(terms));
    }
    return best;
  }

  // Lemma H1: the elements of the held tensors.
  int64_t HeldSize(const Held& held) const {
    int64_t total = 0;
    for (int t : held) total += t >= 0 ? Size(t) : 0;
    return total;
  }

  // Lemmas H1-H2: a produced tensor that may be resident but never next to another such one
  // (two of them and one more element exceed the capacity, rule 3.8).
  bool Big(int t) const {
    const int64_t cap = hw_.fast_memory_capacity;
    return p_.producer(t) >= 0 && Size(t) < cap && 2 * Size(t) + 1 > cap;
  }

  // Lemma H2: the big tensors read by op o or by any op it depends on (sorted; `overflow` when
  // more than kMaxConeBigs), in topological order. Linear in ops times kMaxConeBigs.
  void BuildConeBigs() {
    cone_bigs_.assign(static_cast<size_t>(p_.num_ops()), {});
    cone_overflow_.assign(static_cast<size_t>(p_.num_ops()), false);
    for (int o : g_.topo_order()) {
      std::vector<int>& bigs = cone_bigs_[static_cast<size_t>(o)];
      bool overflow = false;
      for (int t : p_.op(o).inputs) {
        if (Big(t)) bigs.push_back(t);
        const int q = p_.producer(t);
        if (q < 0) continue;
        const auto& up = cone_bigs_[static_cast<size_t>(q)];
        bigs.insert(bigs.end(), up.begin(), up.end());
        overflow = overflow || cone_overflow_[static_cast<size_t>(q)];
      }
      std::sort(bigs.begin(), bigs.end());
      bigs.erase(std::unique(bigs.begin(), bigs.end()), bigs.end());
      if (bigs.size() > kMaxConeBigs) {
        bigs.clear();
        overflow = true;
      }
      cone_overflow_[static_cast<size_t>(o)] = overflow;
    }
  }

  // Lemma H2: the cones of producers a and b read no big tensor in common.
  bool Apart(int a, int b) const {
    if (cone_overflow_[static_cast<size_t>(a)] || cone_overflow_[static_cast<size_t>(b)]) return false;
    const auto& x = cone_bigs_[static_cast<size_t>(a)];
    const auto& y = cone_bigs_[static_cast<size_t>(b)];
    size_t i = 0, j = 0;
    while (i < x.size() && j < y.size()) {
      if (x[i] == y[j]) return false;
      if (x[i] < y[j]) ++i;
      else ++j;
    }
    return true;
  }

  // Producer p's charge in its role `at` (first subgraph or recomputed) with `held` held whole;
  // with nothing held, the values of Run()'s pass (p precedes its readers in topological order).
  double CostAt(int p, int at, const Held& held, bool first) {
    if (held.empty()) {
      const auto& costs = first ? cost_first_ : cost_weak_;
      return costs[static_cast<size_t>(p)][static_cast<size_t>(at)];
    }
    const auto key = std::make_tuple(p, at, first, held);
    const auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    const double cost = OpCost(p, roles_[static_cast<size_t>(p)].roles[static_cast<size_t>(at)], first, held);
    memo_.emplace(key, cost);
    return cost;
  }

  // Lemma M7: op c (role r, reading t in `slots`) computes t inside by its producer: the
  // producer's excess over its own charge (same first subgraph) or its recomputed loads, its
  // readers' share each; < 0 when the producer cannot take the demanded role.
  double Inside(int c, const Role& r, const std::vector<Slot>& slots, int producer, const Held& held) {
    const Op& op = p_.op(c);
    double first_cost = 0, weak_cost = 0;
    for (Slot s : slots) {
      const Role d = Demanded(op.type, s, r, Root(c));
      const int at = roles_[static_cast<size_t>(producer)].Find(d.rows, d.cols);
      if (at < 0 || !Allowed(producer, d)) return -1;
      first_cost = std::max(first_cost, CostAt(producer, at, held, /*first=*/true));
      weak_cost = std::max(weak_cost, CostAt(producer, at, held, /*first=*/false));
    }
    const double beta = 1.0 / static_cast<double>(ReaderCount(p_.op(producer).output));
    const double excess = std::max(0.0, first_cost - chi_[static_cast<size_t>(producer)]);
    return beta * std::min(excess, weak_cost);
  }

  // The charge of op c in role r (Lemmas M2-M7): per distinct operand the cheapest way it can
  // arrive. `first`: in c's first subgraph (stores of loaded intermediates count, Lemma M6
  // excludes descendants); otherwise c is recomputed there and only its loads count. `held`:
  // tensors held whole at every step of that subgraph (Lemma H1; empty outside held_aware).
  double OpCost(int c, const Role& r, bool first, const Held& held) {
    const Op& op = p_.op(c);
    if (shared_ && !GraphInputSlicesFit(c, r)) return std::numeric_limits<double>::infinity();
    double total = 0;
    const int64_t held_size = HeldSize(held);
    const bool no_big = std::find(held.begin(), held.end(), kNoBig) != held.end();
    std::vector<int> operands;
    for (int t : op.inputs) {
      if (std::find(operands.begin(), operands.end(), t) == operands.end()) operands.push_back(t);
    }
    // Lemma K1's view of the same operands (one slot each; otherwise K1 is not used).
    std::vector<CapOperand> cap;
    bool cap_ok = capacity_aware_ && r.grid_h > 0 && r.grid_w > 0;
    for (const int t : operands) {
      std::vector<Slot> slots;
      for (const Use& u : uses_[static_cast<size_t>(t)]) {
        if (u.op == c) slots.push_back(u.slot);
      }
      const int producer = p_.producer(t);
      const double size = static_cast<double>(Size(t));
      const bool is_held = std::find(held.begin(), held.end(), t) != held.end();
      // Loaded from slow memory (Lemma M3), after a store when produced by an op (Lemma M1).
      double multiplier = 1;
      for (Slot s : slots) multiplier = std::max(multiplier, Multiplier(c, t, s, r, first));
      double load = alpha_load_[static_cast<size_t>(t)] * size;
      // Lemma K2: a graph input with several readers is charged by its split-root readers only.
      const bool root = op.type == OpType::kMatMul && r.rows == DimKind::kTile && r.cols == DimKind::kTile;
      // The coupled part (Lemma L1) keeps M7's shares for a tensor whose co-charging readers
      // exceed kCoupledSharers (per tensor, so every reader of it uses one accounting): K2 tries
      // every sharer count, once per lambda.
      const bool shared = capacity_aware_ && !held_aware_ && producer < 0 && ReaderCount(t) >= 2 &&
                          (coupling_ == 0 || std::lround(1 / alpha_load_[static_cast<size_t>(t)]) <= kCoupledSharers);
      if (shared && !root) load = 0;
      // Lemma S1: a split input's loads are charged through its readers' footprints only.
      if (shared_ && plan_.split[static_cast<size_t>(t)]) load = 0;
      const double store = producer >= 0 && first && with_stores_ ? alpha_store_[static_cast<size_t>(t)] * size : 0;
      const double loaded = load * multiplier + store;
      double best = loaded;
      // Resident: retained by the previous subgraph, so it fits with room to spare, next to
      // whatever else is held (Lemma H1).
      const bool may_reside = producer >= 0 && !(no_big && Big(t));
      const bool can_reside = may_reside && (is_held || Size(t) + held_size < hw_.fast_memory_capacity);
      if (can_reside) best = 0;
      // Computed inside by its producer (Lemma M5).
      double inside = -1;
      if (producer >= 0) {
        inside = Inside(c, r, slots, producer, held);
        if (inside >= 0) best = std::min(best, inside);
      }
      if (shared_ && op.type == OpType::kMatMul && slots.size() == 1) {
        const int pos = slots[0] == Slot::kLhs ? 0 : 1;
        if (!plan_.owned[static_cast<size_t>(c)][static_cast<size_t>(1 - pos)].empty()) {
          const double resident = can_reside ? 0 : std::numeric_limits<double>::infinity();
          best = SharedArrival(c, r, pos, loaded, resident, inside, first);
        }
      }
      total += best;
      if (!cap_ok) continue;
      if (slots.size() != 1) {
        cap_ok = false;
        continue;
      }
      const Role d = Demanded(op.type, slots[0], r, Root(c));
      const Tensor& tensor = p_.tensor(t);
      CapOperand k1;
      k1.rows = d.rows;
      k1.cols = d.cols;
      k1.height = tensor.height;
      k1.width = tensor.width;
      k1.rows_stream = d.rows_stream;
      k1.cols_stream = d.cols_stream;
      k1.rows_coincide = MayCoincide(c, t, slots[0], r, /*along_rows=*/true, first);
      k1.cols_coincide = MayCoincide(c, t, slots[0], r, /*along_rows=*/false, first);
      k1.few_coincide = held_aware_;
      k1.load = shared && root ? size : load;
      k1.shared_readers = shared && root ? std::min(static_cast<int>(std::lround(1 / alpha_load_[static_cast<size_t>(t)])),
                                                    SameShapeMatMulReaders(c, t))
                                         : 0;
      k1.tile_distinct = !held_aware_ && root && slots[0] != Slot::kPointwise && TileDistinct(c, t, slots[0]);
      k1.store = store;
      // A held operand is already counted in the held elements (Lemma H1).
      k1.size = is_held ? 0 : size;
      k1.can_reside = may_reside;
      k1.inside = inside;
      // Lemma H1: computed inside while another operand of c is resident, that operand is held
      // at every step of the subgraph, the producer's included.
      // Only K1 (at most four operands, below) reads these.
      if (held_aware_ && producer >= 0 && inside >= 0 && held.empty() && operands.size() <= 4) {
        k1.inside_when.assign(operands.size(), inside);
        for (size_t j = 0; j < operands.size(); ++j) {
          const int u = operands[j];
          if (u == t || p_.producer(u) < 0 || 2 * Size(u) + 1 <= hw_.fast_memory_capacity) continue;
          k1.inside_when[j] = Inside(c, r, slots, producer, Held{u});
        }
        // Lemma H2: the same without a big tensor resident anywhere in the producer's cone.
        k1.inside_alone = Inside(c, r, slots, producer, Held{kNoBig});
      }
      cap.push_back(k1);
    }
    // Lemma H2: which operands' producers read no big tensor in common (for K1 below, at most
    // four operands: 12 pairs).
    if (cap_ok && held_aware_ && held.empty() && cap.size() <= 4) {
      for (size_t i = 0; i < cap.size(); ++i) {
        for (size_t j = 0; j < cap.size(); ++j) {
          const int a = p_.producer(operands[i]), b = p_.producer(operands[j]);
          if (i != j && a >= 0 && b >= 0 && a != b && Apart(a, b)) cap[i].apart |= uint32_t{1} << j;
        }
      }
    }
    // Lemma L1: the op's own compute in role r (Lemma C2), in element units.
    const double compute = coupling_ > 0 ? coupling_ * RoleCompute(p_, c, r, modes_.matmul_reduction) : 0;
    total += compute;
    // Lemma K1, for ops of at most four distinct operands (3^4 arrival choices).
    if (cap_ok && cap.size() <= 4) {
      CapContext ctx;
      ctx.grid_h = r.grid_h;
      ctx.grid_w = r.grid_w;
      ctx.native_h = hw_.native_h;
      ctx.native_w = hw_.native_w;
      // Lemma H1: the held tensors take their full size at every step (SPEC 6).
      ctx.capacity = hw_.fast_memory_capacity - held_size;
      if (modes_.k_limit == KLimit::kNative) ctx.k_max = hw_.native_k();
      // Lemma L1: a (T, T) role computes its whole region on every tile, each dimension of at
      // most the native extent paying one native tile (SPEC 5), the reduction in full.
      const bool tile_role = r.rows == DimKind::kTile && r.cols == DimKind::kTile;
      if (tile_role && coupling_ > 0) {
        const double reduction = op.type == OpType::kMatMul
                                     ? ReductionFactor(modes_.matmul_reduction, p_.reduction_extent(c),
                                                       p_.reduction_extent(c), hw_.native_k())
                                     : 1.0;
        ctx.tile_compute = coupling_ * op.base_cost * reduction;
      }
      const double k1 = ctx.capacity > 0 ? CapacityCharge(ctx, cap) : -1;
      // No tile fits any arrival: the role never occurs in a valid schedule.
      if (k1 < 0) return std::numeric_limits<double>::infinity();
      total = std::max(total, k1 + (tile_role ? 0 : compute));
    }
    return total;
  }

  size_t ReaderCount(int t) const {
    std::vector<int> readers;
    for (const Use& u : uses_[static_cast<size_t>(t)]) {
      if (std::find(readers.begin(), readers.end(), u.op) == readers.end()) readers.push_back(u.op);
    }
    return std::max<size_t>(1, readers.size());
  }

  const Problem& p_;
  const CostModes& modes_;
  const Graph& g_;
  const Hardware& hw_;
  const bool with_stores_;
  const std::vector<uint16_t> own_kinds_;
  const bool capacity_aware_;
  const bool held_aware_;
  const bool shared_;
  SharedPlan plan_;
  const double coupling_;
  std::vector<std::vector<Use>> uses_;
  std::vector<RoleSet> roles_;
  std::vector<std::vector<int>> fusable_;
  std::vector<bool> multi_role_;
  bool have_reach_ = false;
  std::vector<Bitset> reach_, separated_, sponsors_;
  std::vector<double> alpha_load_, alpha_store_;
  std::vector<std::vector<double>> cost_first_, cost_weak_;
  std::vector<double> chi_;
  // Lemma H1: charges with tensors held, by (op, role, first, held).
  std::map<std::tuple<int, int, bool, Held>, double> memo_;
  std::vector<std::vector<int>> cone_bigs_;
  std::vector<bool> cone_overflow_;
};

// Lemma C2: op o's compute in a subgraph where it has role r (Lemma M2). A tile dimension is
// cut into ranges of at most the native extent (rule 3.4), each paying a whole native tile
// (SPEC 5, spatial factor); a proportional dimension pays d / native over the steps of one
// tile, and every tile of the grid needs it again (intermediates are ephemeral, SPEC 4), so
// it is paid once per tile along the other axis of the grid.
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

// Lemma C2: op o's compute in any subgraph (its cheapest role).
double TiledCompute(const Problem& p, const TrafficBound& tb, int o, MatmulReduction mode) {
  double best = std::numeric_limits<double>::infinity();
  for (const Role& r : tb.Roles(o)) best = std::min(best, RoleCompute(p, o, r, mode));
  return best;
}

// Stores every schedule makes somewhere (Lemma M1): an intermediate (not a graph output) too
// large to be resident with a reader that cannot compute it inside (Lemma M5) is loaded, so
// it was written. `tb` has run.
std::vector<int> ForcedStores(const Problem& problem, const TrafficBound& tb) {
  std::vector<int> stores;
  const Graph& g = problem.graph();
  std::vector<bool> is_output(static_cast<size_t>(problem.num_tensors()), false);
  for (int t : g.graph_outputs()) is_output[static_cast<size_t>(t)] = true;
  for (int t = 0; t < problem.num_tensors(); ++t) {
    const int producer = problem.producer(t);
    if (producer < 0 || is_output[static_cast<size_t>(t)]) continue;
    if (problem.tensor(t).size() < problem.hardware().fast_memory_capacity) continue;
    bool forced = false;
    for (int c : g.successors(producer)) {
      const auto& ins = problem.op(c).inputs;
      if (std::find(ins.begin(), ins.end(), t) != ins.end() && !tb.EdgeFusable(producer, c)) forced = true;
    }
    if (forced) stores.push_back(t);
  }
  return stores;
}

// Union-find over ops, for the components of Lemma G2.
class Components {
 public:
  explicit Components(int n) : parent_(static_cast<size_t>(n)) {
    for (int i = 0; i < n; ++i) parent_[static_cast<size_t>(i)] = i;
  }
  int Find(int x) {
    while (parent_[static_cast<size_t>(x)] != x) {
      parent_[static_cast<size_t>(x)] = parent_[static_cast<size_t>(parent_[static_cast<size_t>(x)])];
      x = parent_[static_cast<size_t>(x)];
    }
    return x;
  }
  void Join(int a, int b) { parent_[static_cast<size_t>(Find(a))] = Find(b); }

 private:
  std::vector<int> parent_;
};

// Lemma G1 is pairwise in ops (a bipartite flow) and runs at most five traffic passes; above
// this many ops the mixed bound is not computed (0), which keeps the bound's time near-linear.
constexpr int kMaxMixedOps = 1000;
static_assert(kMaxMixedOps <= kMaxReachOps, "Lemma G1 uses Lemma M6's reachability");

// Producer -> reader edges of the graph (b reads a's output), each once.
std::vector<std::pair<int, int>> ReadEdges(const Problem& problem) {
  std::vector<std::pair<int, int>> edges;
  for (int a = 0; a < problem.num_ops(); ++a) {
    const int t = problem.op(a).output;
    for (int b : problem.graph().successors(a)) {
      const auto& ins = problem.op(b).inputs;
      if (std::find(ins.begin(), ins.end(), t) != ins.end()) edges.emplace_back(a, b);
    }
  }
  return edges;
}

struct MixedPass {
  double bound = 0;
  double excess_l = 0;  // the L excess of the pass, including the forced stores
};

// Lemmas G1-G3 once. `own_kinds` restricts each op's own charge (Lemma G3, empty: none); the
// pass is valid only when its excess_l is at most the threshold own_kinds was built with.
MixedPass RunMixedPass(const Problem& problem, const CostModes& modes, std::vector<uint16_t> own_kinds,
                       Variant variant) {
  const int n = problem.num_ops();
  TrafficBound tb(problem, modes, /*with_stores=*/false, std::move(own_kinds), variant);
  tb.Run();
  const Graph& g = problem.graph();
  const double bandwidth = problem.hardware().slow_memory_bandwidth;
  std::vector<double> compute(static_cast<size_t>(n)), memory(static_cast<size_t>(n));
  std::vector<bool> is_output(static_cast<size_t>(problem.num_tensors()), false);
  for (int t : g.graph_outputs()) is_output[static_cast<size_t>(t)] = true;
  for (int o = 0; o < n; ++o) {
    compute[static_cast<size_t>(o)] = TiledCompute(problem, tb, o, modes.matmul_reduction);
    // A graph output is a sink of every subgraph holding its producer, always written (3.6).
    const int out = problem.op(o).output;
    const double store = is_output[static_cast<size_t>(out)] ? static_cast<double>(problem.tensor(out).size()) : 0;
    memory[static_cast<size_t>(o)] = (tb.Charge(o) + store) / bandwidth;
  }
  double forced_stores = 0;
  for (int t : ForcedStores(problem, tb)) forced_stores += static_cast<double>(problem.tensor(t).size()) / bandwidth;
  // Lemma G1: sum over ops of max(compute, memory) minus the largest excess that can be paired
  // across compute-heavy (H) and memory-heavy (L) ops that may share a first subgraph.
  MixedPass pass;
  double total = forced_stores;
  std::vector<int> heavy, light;
  for (int o = 0; o < n; ++o) {
    const double c = compute[static_cast<size_t>(o)], m = memory[static_cast<size_t>(o)];
    total += std::max(c, m);
    if (c > m) heavy.push_back(o);
    if (m > c) light.push_back(o);
  }
  double excess_h = 0, excess_l = forced_stores;
  for (int o : heavy) excess_h += compute[static_cast<size_t>(o)] - memory[static_cast<size_t>(o)];
  for (int o : light) excess_l += memory[static_cast<size_t>(o)] - compute[static_cast<size_t>(o)];
  pass.excess_l = excess_l;
  assert(tb.HaveReach());
  // Lemma G2: a subgraph holding producer a and a reader b of its output computes a in a role b
  // demands; when that costs at least every L excess more than a's cheapest compute, such a
  // subgraph hides nothing. The others are connected (rule 3.2) without these links.
  Components components(n);
  for (const auto& [a, b] : ReadEdges(problem)) {
    double extra = std::numeric_limits<double>::infinity();
    for (const Role& d : tb.DemandedOf(a, b)) {
      extra = std::min(extra, RoleCompute(problem, a, d, modes.matmul_reduction) - compute[static_cast<size_t>(a)]);
    }
    if (extra < excess_l) components.Join(a, b);
  }
  // Readers of one tensor are linked (rule 3.2).
  std::vector<int> reader_of(static_cast<size_t>(problem.num_tensors()), -1);
  for (int b = 0; b < n; ++b) {
    for (int t : problem.op(b).inputs) {
      int& first = reader_of[static_cast<size_t>(t)];
      if (first < 0) first = b;
      else components.Join(first, b);
    }
  }
  // Nodes: source, H ops, L ops, the stores (compatible with every op), sink. Edges H x L:
  // quadratic, bounded by kMaxMixedOps.
  const int nh = static_cast<int>(heavy.size()), nl = static_cast<int>(light.size());
  const int source = 0, stores = 1 + nh + nl, sink = stores + 1;
  MaxFlow flow(sink + 1);
  for (int i = 0; i < nh; ++i) {
    const int a = heavy[static_cast<size_t>(i)];
    flow.AddEdge(source, 1 + i, compute[static_cast<size_t>(a)] - memory[static_cast<size_t>(a)]);
    for (int j = 0; j < nl; ++j) {
      const int b = light[static_cast<size_t>(j)];
      if (!tb.Separated(a, b) && components.Find(a) == components.Find(b)) flow.AddEdge(1 + i, 1 + nh + j, excess_h);
    }
    if (forced_stores > 0) flow.AddEdge(1 + i, stores, excess_h);
  }
  for (int j = 0; j < nl; ++j) {
    const int b = light[static_cast<size_t>(j)];
    flow.AddEdge(1 + nh + j, sink, memory[static_cast<size_t>(b)] - compute[static_cast<size_t>(b)]);
  }
  if (forced_stores > 0) flow.AddEdge(stores, sink, forced_stores);
  pass.bound = total - flow.Run(source, sink);
  return pass;
}

// Lemma G3: in a subgraph without a costly pair (Lemma G2, threshold `threshold`), op a has
// role (tile, tile) or one its readers there demand at less than `threshold` extra compute.
// `tb` is the unrestricted traffic pass (no stores), the same for every threshold.
std::vector<uint16_t> CheapKinds(const Problem& problem, const CostModes& modes, const TrafficBound& tb,
                                 double threshold) {
  std::vector<uint16_t> kinds(static_cast<size_t>(problem.num_ops()), 1u << RoleKey(DimKind::kTile, DimKind::kTile));
  for (const auto& [a, b] : ReadEdges(problem)) {
    const double own = TiledCompute(problem, tb, a, modes.matmul_reduction);
    for (const Role& d : tb.DemandedOf(a, b)) {
      if (RoleCompute(problem, a, d, modes.matmul_reduction) - own < threshold) {
        kinds[static_cast<size_t>(a)] |= static_cast<uint16_t>(1u << RoleKey(d.rows, d.cols));
      }
    }
  }
  return kinds;
}

}  // namespace

namespace {

double MixedBound(const Problem& problem, const CostModes& modes, Variant variant) {
  if (problem.num_ops() > kMaxMixedOps) return 0;
  // Without restricted charges the pass is always valid. A restricted pass built with
  // threshold X is valid when its own L excess is at most X; X is raised to the excess seen.
  const MixedPass open = RunMixedPass(problem, modes, {}, variant);
  double best = open.bound;
  double threshold = open.excess_l;
  TrafficBound unrestricted(problem, modes, /*with_stores=*/false);
  unrestricted.Run();
  for (int attempt = 0; attempt < 4; ++attempt) {
    const MixedPass pass =
        RunMixedPass(problem, modes, CheapKinds(problem, modes, unrestricted, threshold), variant);
    if (pass.excess_l <= threshold) best = std::max(best, pass.bound);
    if (pass.excess_l == threshold) break;
    threshold = pass.excess_l;
  }
  return best;
}

// Lemma L2: the grid classes. Every op of a subgraph has a role whose grid is the subgraph's
// sink shape: its own output's shape (T, T), or a grid of a reader inside the subgraph, over a
// fusable edge (Lemmas M2, M5). So joining every op with its output's shape and with its
// fusable readers leaves every subgraph inside one class. Returns the class of each op.
std::vector<int> GridClasses(const Problem& problem, const TrafficBound& tb) {
  const int n = problem.num_ops();
  std::vector<std::pair<int64_t, int64_t>> shapes;
  Components components(2 * n);  // ops, then at most one node per distinct output shape
  for (int o = 0; o < n; ++o) {
    const Tensor& out = problem.tensor(problem.op(o).output);
    const std::pair<int64_t, int64_t> shape{out.height, out.width};
    const auto at = std::find(shapes.begin(), shapes.end(), shape);
    const int node = n + static_cast<int>(at - shapes.begin());
    if (at == shapes.end()) shapes.push_back(shape);
    components.Join(o, node);
    for (int e : problem.graph().successors(o)) {
      if (tb.EdgeFusable(o, e)) components.Join(o, e);
    }
  }
  std::vector<int> classes(static_cast<size_t>(n));
  for (int o = 0; o < n; ++o) classes[static_cast<size_t>(o)] = components.Find(o);
  return classes;
}

// Lemmas L1-L2: each grid class at its own lambda, from one traffic pass (no stores) per lambda
// of the grid; the stores that every schedule makes (graph outputs, Lemma M1's forced stores)
// in the class of their producer, whose subgraphs make them. 0 with a single class.
double ClassCoupledBound(const Problem& problem, const CostModes& modes) {
  static constexpr double kLambdas[] = {0, 0.1, 0.2, 0.3, 0.4, 0.5};
  const double bandwidth = problem.hardware().slow_memory_bandwidth;
  const int n = problem.num_ops();
  std::vector<int> classes;
  // Per class, indexed by its representative (an op or a shape node of GridClasses).
  std::vector<double> stores(static_cast<size_t>(2 * n), 0), best(static_cast<size_t>(2 * n), 0);
  for (double lambda : kLambdas) {
    const double coupling = lambda / (1 - lambda) * bandwidth;
    TrafficBound tb(problem, modes, /*with_stores=*/false, {}, Variant::kCapacity, coupling);
    tb.Run();
    if (classes.empty()) {
      classes = GridClasses(problem, tb);
      std::vector<int> distinct = classes;
      std::sort(distinct.begin(), distinct.end());
      if (std::unique(distinct.begin(), distinct.end()) - distinct.begin() < 2) return 0;
      std::vector<int> made = ForcedStores(problem, tb);
      made.insert(made.end(), problem.graph().graph_outputs().begin(), problem.graph().graph_outputs().end());
      for (int t : made) {
        if (problem.producer(t) < 0) continue;
        stores[static_cast<size_t>(classes[static_cast<size_t>(problem.producer(t))])] +=
            static_cast<double>(problem.tensor(t).size());
      }
    }
    std::vector<double> sum = stores;
    for (int o = 0; o < n; ++o) sum[static_cast<size_t>(classes[static_cast<size_t>(o)])] += tb.Charge(o);
    for (int c = 0; c < 2 * n; ++c) {
      best[static_cast<size_t>(c)] = std::max(best[static_cast<size_t>(c)], (1 - lambda) / bandwidth * sum[static_cast<size_t>(c)]);
    }
  }
  double total = 0;
  for (double value : best) total += value;
  return total;
}

}  // namespace

double MixedLowerBound(const Problem& problem, const CostModes& modes) {
  return MixedBound(problem, modes, Variant::kPlain);
}

double CapacityLowerBound(const Problem& problem, const CostModes& modes) {
  const double traffic = TrafficBound(problem, modes, /*with_stores=*/true, {}, Variant::kCapacity).Run();
  return std::max(traffic / problem.hardware().slow_memory_bandwidth, MixedBound(problem, modes, Variant::kCapacity));
}

double SharedLowerBound(const Problem& problem, const CostModes& modes) {
  // A split input needs a reader owning an operand that can be resident, whatever alpha is
  // (alpha > 0); without one Lemma S1 changes nothing and the part is not computed (0).
  const SharedPlan any = PlanSharedInputs(problem, std::vector<double>(static_cast<size_t>(problem.num_tensors()), 0));
  if (std::none_of(any.split.begin(), any.split.end(), [](bool split) { return split; })) return 0;
  const double traffic = TrafficBound(problem, modes, /*with_stores=*/true, {}, Variant::kShared).Run();
  return std::max(traffic / problem.hardware().slow_memory_bandwidth, MixedBound(problem, modes, Variant::kShared));
}

// Lemma L1: a step costs at least lambda x compute + (1 - lambda) x memory for every lambda in
// [0, 1]; the capacity-aware charges with each op's own compute added at the weight
// lambda / (1 - lambda) x bandwidth elements per unit are at most the schedule's
// lambda-combination in element units. Every lambda gives a bound; a hill climb in steps of
// 0.05 from 0.25 picks at most kCoupledPasses of them (each is one traffic pass). Computed (else
// 0) only when some MatMul may run its whole reduction in one k-step (Lemma K3's case, where
// the tiles that load least are small ones that pay padded compute).
double CoupledLowerBound(const Problem& problem, const CostModes& modes) {
  constexpr int kCoupledPasses = 5;
  constexpr double kStep = 0.05;
  bool one_step = false;
  for (int o = 0; o < problem.num_ops(); ++o) {
    one_step |= problem.op(o).type == OpType::kMatMul && !AlwaysSplit(problem, modes, o);
  }
  if (!one_step) return 0;
  const double bandwidth = problem.hardware().slow_memory_bandwidth;
  auto at = [&](double lambda) {
    const double coupling = lambda / (1 - lambda) * bandwidth;
    const double charges =
        TrafficBound(problem, modes, /*with_stores=*/true, {}, Variant::kCapacity, coupling).Run();
    return (1 - lambda) / bandwidth * charges;
  };
  // With two or more grid classes, each at its own lambda (Lemma L2) replaces the single one
  // (its passes cost as much).
  const double classes = ClassCoupledBound(problem, modes);
  if (classes > 0) return classes;
  const double middle = at(0.25), lower = at(0.25 - kStep), upper = at(0.25 + kStep);
  if (middle >= lower && middle >= upper) return middle;
  const double direction = lower > upper ? -kStep : kStep;
  double lambda = 0.25 + direction, best = std::max(lower, upper);
  for (int pass = 3; pass < kCoupledPasses; ++pass) {
    lambda += direction;
    if (lambda < kStep / 2 || lambda > 1 - kStep / 2) break;
    const double value = at(lambda);
    if (value <= best) break;
    best = value;
  }
  return best;
}

double HeldLowerBound(const Problem& problem, const CostModes& modes) {
  const double traffic = TrafficBound(problem, modes, /*with_stores=*/true, {}, Variant::kHeld).Run();
  return traffic / problem.hardware().slow_memory_bandwidth;
}

double TrafficLowerBound(const Problem& problem, const CostModes& modes) {
  return TrafficBound(problem, modes).Run();
}

LowerBounds ComputeLowerBounds(const Problem& problem, const CostModes& modes) {
  LowerBounds bounds;
  for (int o = 0; o < problem.num_ops(); ++o) {
    bounds.compute += OpComputeOnce(problem, o, modes.matmul_reduction);
  }
  int64_t traffic = 0;
  for (int t : problem.graph().graph_inputs()) traffic += problem.tensor(t).size();
  for (int t : problem.graph().graph_outputs()) traffic += problem.tensor(t).size();
  const double bandwidth = problem.hardware().slow_memory_bandwidth;
  bounds.io = static_cast<double>(traffic) / bandwidth;
  bounds.traffic = TrafficLowerBound(problem, modes) / bandwidth;
  bounds.mixed = MixedLowerBound(problem, modes);
  bounds.phase = PhaseLowerBound(problem, modes);
  bounds.capacity = CapacityLowerBound(problem, modes);
  bounds.shared = SharedLowerBound(problem, modes);
  bounds.coupled = CoupledLowerBound(problem, modes);
  bounds.squeeze = SqueezeLowerBound(problem, modes);
  bounds.held = HeldLowerBound(problem, modes);
  return bounds;
}

}  // namespace tilesched
