// The roles an op can have in a subgraph and what they imply for the whole graph (docs/bounds.md,
// Lemmas M2-M7 and C2): the traffic bound's charges (traffic_bound.h) are minimized over them.
//
// An op's region in a subgraph is described in the symbolic kinds of SubgraphPlan (Lemma M2):
// (kTile, kTile) is a split root; anything else an inner region, demanded by a reader inside.
// RoleGraph lists every role each op can have (consumers before producers), the edges that a
// subgraph can hold inside (M5), the pairs of ops that are never first together (M6, bitset
// reachability on graphs of at most kMaxReachOps ops), the fan-outs that let an op take two
// roles at once (M4), and the shares that keep one load or store from being charged twice (M7).
//
// Entry points: Demanded(...) (the region an operand is read in), AlwaysSplit(...) (M3),
// RoleCompute(...) (C2), RoleGraph(problem, modes). Work: linear in ops times roles (at most
// nine per op), plus the reachability (ops^2 / 64 words) and, per tensor, the largest set of
// readers that may charge one load (exhaustive up to 12 readers), the sink shapes of Lemma G6, and
// per MatMul a search over fusable edges for Lemma M10.
#ifndef TILESCHED_BOUND_ROLE_GRAPH_H_
#define TILESCHED_BOUND_ROLE_GRAPH_H_

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "tilesched/bitset.h"
#include "tilesched/cost_model.h"
#include "tilesched/demand.h"
#include "tilesched/problem.h"

namespace tilesched::bound {

// Graphs above this many ops skip the bitset reachability of Lemma M6 (quadratic memory).
constexpr int kMaxReachOps = 4096;

// The region an op computes in a subgraph (Lemma M2). grid_h / grid_w are the execution grid's
// extents (-1 when roles of different grids were merged); *_stream marks a kSlice dimension cut
// by a split root that runs at least two k-steps in every subgraph.
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

inline int RoleKey(DimKind rows, DimKind cols) { return static_cast<int>(rows) * 3 + static_cast<int>(cols); }

// Roles of one op, at most one per kind pair. Merging two roles of one kind pair keeps what
// both guarantee (Lemma M2: a weaker role costs less, so the minimum stays a lower bound).
struct RoleSet {
  std::array<int, 9> index{};  // RoleKey -> position in roles + 1, 0 = absent
  std::vector<Role> roles;

  void Add(const Role& r);
  int Find(DimKind rows, DimKind cols) const { return index[static_cast<size_t>(RoleKey(rows, cols))] - 1; }
};

// Which operand slot of a MatMul (Pointwise inputs all behave alike).
enum class Slot { kLhs, kRhs, kPointwise };

// What every subgraph guarantees of an op as a split root (Lemma M3).
struct RootInfo {
  bool forced = false;  // at least two k-steps per tile whenever an operand is streamed
  int64_t steps = 1;    // k-steps per tile in any case (rule 3.4 under k_limit=native)
};

// The region of an operand read in `slot` by an op of `type` in role `r`, as a Role of the
// operand's producer (SPEC.md section 4; it is also the demanded slice's kinds).
Role Demanded(OpType type, Slot slot, const Role& r, const RootInfo& split);

// Lemma M3: a split root with reduction K runs at least two k-steps per tile in every
// subgraph.
bool AlwaysSplit(const Problem& p, const CostModes& modes, int o);

// Lemma C2: op o's compute in a subgraph where it has role r.
double RoleCompute(const Problem& p, int o, const Role& r, MatmulReduction mode);

// One use of a tensor: op `op` reads it in `slot` (a Pointwise op reading it twice: once).
struct Use {
  int op;
  Slot slot;
};

class RoleGraph {
 public:
  RoleGraph(const Problem& problem, const CostModes& modes);

  const Problem& problem() const { return p_; }
  const CostModes& modes() const { return modes_; }
  // The uses of tensor t (Lemma M7 counts them), the roles of op o (Lemma M2).
  const std::vector<Use>& Uses(int t) const { return uses_[static_cast<size_t>(t)]; }
  const RoleSet& Roles(int o) const { return roles_[static_cast<size_t>(o)]; }
  // Lemma M3 and rule 3.4: op o as a split root.
  RootInfo Root(int o) const;
  // Contest rule 7b (ProportionalRegionFits): op o may compute a region of role r.
  bool Allowed(int o, const Role& r) const;
  // Lemma M5: the edge c -> e can be inside a subgraph.
  bool Fusable(int c, int e) const;
  // Lemma M4: op c may have a second role in one subgraph (a fan-out downstream).
  bool MultiRole(int c) const { return multi_role_[static_cast<size_t>(c)]; }
  // Lemma M6 (false on graphs above kMaxReachOps ops, which only weakens the bound).
  bool HaveReach() const { return have_reach_; }
  // Lemma M6: op b can never be in the first subgraph of op a.
  bool Excluded(int a, int b) const { return have_reach_ && separated_[static_cast<size_t>(a)].Test(b); }
  bool Separated(int a, int b) const { return Excluded(a, b) || Excluded(b, a); }
  // Lemma G6: whether ops a and b can be first in one subgraph as far as its sinks tell (all of
  // one shape, rule 3.3): some output shape has an op below a that b's first subgraph can hold
  // and one below b that a's can hold. "Below a": a and its descendants over a path of fusable
  // edges (M5) that no path with a never-fusable edge reaches (M6). True without HaveReach().
  bool SinksMayMeet(int a, int b) const;
  // Lemma G6: whether a subgraph where op a is first can write a sink of tensor t's shape.
  bool MayWriteShapeOf(int a, int t) const;
  // The roles consumer e can demand of producer p in a subgraph holding both (Lemma M2), each
  // with e's grid.
  std::vector<Role> DemandedOf(int p, int e) const;
  // Lemma M7: the share of one load / one store of tensor t that one reader is charged.
  double AlphaLoad(int t) const { return alpha_load_[static_cast<size_t>(t)]; }
  double AlphaStore(int t) const { return alpha_store_[static_cast<size_t>(t)]; }
  const std::vector<double>& AlphaLoads() const { return alpha_load_; }
  // Distinct readers of t (at least 1).
  size_t ReaderCount(int t) const;
  // Lemma M10: op c is a MatMul with two distinct operands, both produced by ops, that are
  // never resident in one subgraph that c is first in: the subgraph before it would retain
  // both, and the sinks they lead to there (rule 3.3: one shape) have no shape in common.
  bool ResidentApart(int c) const { return resident_apart_[static_cast<size_t>(c)]; }

 private:
  void BuildRoles();
  void BuildReachability();
  void BuildShares();
  void BuildResidentApart();
  std::vector<std::pair<int64_t, int64_t>> RetainedSinkShapes(int c, int t) const;
  bool CoCharge(int e1, int e2) const;

  const Problem& p_;
  const CostModes modes_;
  std::vector<std::vector<Use>> uses_;
  std::vector<RoleSet> roles_;
  std::vector<std::vector<int>> fusable_;
  std::vector<bool> multi_role_;
  bool have_reach_ = false;
  std::vector<Bitset> separated_, sponsors_;
  // Lemma G6: per op the ops below it; per distinct output shape the ops of that shape; per
  // tensor its shape's index (-1: no op writes that shape).
  std::vector<Bitset> below_, shape_ops_;
  std::vector<int> shape_of_tensor_;
  std::vector<double> alpha_load_, alpha_store_;
  std::vector<bool> resident_apart_;
};

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_ROLE_GRAPH_H_
