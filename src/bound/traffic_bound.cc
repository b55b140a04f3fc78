// The traffic bound's charge recursion (src/bound/traffic_bound.h; Lemmas M1-M8 of
// docs/bounds.md, with K1-K3, S1-S3, H1-H2 and L1 in its variants).
//
// Ops are charged in topological order, so a producer's charges are known when a reader prices
// it computed inside (Lemma M5). The held variant prices a producer again with its reader's
// resident big operand held (memoized per op, role and that tensor).
#include "traffic_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "tilesched/graph.h"

namespace tilesched::bound {

namespace {

// Lemma L1 (coupled part): Lemma K2 only for tensors with at most this many co-charging readers.
constexpr long kCoupledSharers = 8;

// Lemma J1 only for joins of at most this many MatMul producers (the work is quadratic in them).
constexpr size_t kJoinRoots = 8;

// Lemma J1 over the operand sum: the least, over k, of the operands J1 applies to at their
// charge not computed inside (`outside`), except k of them at their charge computed inside with
// k inside, those with the smallest difference; the others at their least charge `best`.
double JoinOperandTotal(const std::vector<double>& best, const std::vector<double>& outside,
                        const std::vector<std::vector<double>>& by_count) {
  double total = 0, all_outside = 0;
  size_t n = 0;
  for (size_t i = 0; i < best.size(); ++i) {
    if (by_count[i].empty()) {
      total += best[i];
    } else {
      all_outside += outside[i];
      ++n;
    }
  }
  double least = all_outside;
  for (size_t k = 1; k <= n; ++k) {
    std::vector<double> gain;
    for (size_t i = 0; i < best.size(); ++i) {
      if (!by_count[i].empty()) gain.push_back(by_count[i][k - 1] - outside[i]);
    }
    std::sort(gain.begin(), gain.end());
    double sum = all_outside;
    for (size_t j = 0; j < k; ++j) sum += gain[j];
    least = std::min(least, sum);
  }
  return total + least;
}

}  // namespace

TrafficBound::TrafficBound(const Problem& problem, const CostModes& modes, bool with_stores,
                           std::vector<uint16_t> own_kinds, Variant variant, double coupling,
                           ChargeLemmas lemmas)
    : p_(problem), modes_(modes), hw_(problem.hardware()), with_stores_(with_stores),
      own_kinds_(std::move(own_kinds)),
      capacity_aware_(variant == Variant::kCapacity || variant == Variant::kHeld),
      held_aware_(variant == Variant::kHeld), coupling_(coupling), lemmas_(lemmas), roles_(problem, modes),
      reloads_(roles_, /*sharpened=*/variant == Variant::kShared) {
  if (variant == Variant::kShared) shared_.emplace(roles_, reloads_);
  if (held_aware_) cones_.emplace(problem);
}

double TrafficBound::Run() {
  const int n = p_.num_ops();
  cost_first_.assign(static_cast<size_t>(n), {});
  cost_weak_.assign(static_cast<size_t>(n), {});
  chi_.assign(static_cast<size_t>(n), 0);
  double total = 0;
  for (int o : p_.graph().topo_order()) {
    double chi = std::numeric_limits<double>::infinity();
    for (const Role& r : Roles(o)) {
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
  // Lemma M8 (where it is used: PairGainsUsed).
  pair_gain_ = PairGainsUsed() ? PairGains() : 0;
  total += pair_gain_;
  // Lemma M1: every graph output is written at least once.
  if (with_stores_) {
    for (int t : p_.graph().graph_outputs()) total += static_cast<double>(p_.tensor(t).size());
  }
  return total;
}

// Producer p's charge in its role `at` (first subgraph or recomputed) with `held` held whole;
// with nothing held, the values of Run()'s pass (p precedes its readers in topological order).
double TrafficBound::CostAt(int p, int at, const Held& held, bool first, const Join* join) {
  if (join != nullptr) {
    const auto key = std::make_tuple(p, at, first, held, join->buffers, join->slices);
    const auto it = join_memo_.find(key);
    if (it != join_memo_.end()) return it->second;
    const double cost = OpCost(p, roles_.Roles(p).roles[static_cast<size_t>(at)], first, held, join);
    join_memo_.emplace(key, cost);
    return cost;
  }
  if (held.empty()) {
    const auto& costs = first ? cost_first_ : cost_weak_;
    return costs[static_cast<size_t>(p)][static_cast<size_t>(at)];
  }
  const auto key = std::make_tuple(p, at, first, held);
  const auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  const double cost = OpCost(p, roles_.Roles(p).roles[static_cast<size_t>(at)], first, held);
  memo_.emplace(key, cost);
  return cost;
}

// Lemma M7: op c (role r, reading t in `slots`) computes t inside by its producer: the
// producer's excess over its own charge (same first subgraph) or its recomputed loads, its
// readers' share each; < 0 when the producer cannot take the demanded role.
double TrafficBound::Inside(int c, const Role& r, const std::vector<Slot>& slots, int producer, const Held& held,
                            const Join* join) {
  const Op& op = p_.op(c);
  double first_cost = 0, weak_cost = 0;
  for (Slot s : slots) {
    const Role d = Demanded(op.type, s, r, roles_.Root(c));
    const int at = roles_.Roles(producer).Find(d.rows, d.cols);
    if (at < 0 || !roles_.Allowed(producer, d)) return -1;
    first_cost = std::max(first_cost, CostAt(producer, at, held, /*first=*/true, join));
    weak_cost = std::max(weak_cost, CostAt(producer, at, held, /*first=*/false, join));
  }
  const double beta = 1.0 / static_cast<double>(roles_.ReaderCount(p_.op(producer).output));
  const double excess = std::max(0.0, first_cost - chi_[static_cast<size_t>(producer)]);
  return beta * std::min(excess, weak_cost);
}

struct TrafficBound::Arrival {
  std::vector<Slot> slots;  // where c reads the operand
  double best = 0;          // the least charge of the arrivals below
  double load = 0;          // one load's charge (Lemma M7's share, or 0: K2 / S1 charge it)
  double store = 0;         // Lemma M1's share of the store before a load
  double inside = -1;       // computed inside by its producer (Lemma M5); < 0: impossible
  bool shared = false;      // Lemma K2: a graph input whose load the split roots share
  bool root = false;        // c is a split root in r
  bool may_reside = false;  // produced by an op, and not excluded by Lemma H2's kNoBig
  bool is_held = false;     // one of the held tensors (Lemma H1)
};

// The cheapest way operand t of op c (role r) can arrive (Lemmas M1-M7, S1): loaded from slow
// memory, after a store when produced by an op; resident (unless `may_reside` is false); or
// computed inside by its producer.
TrafficBound::Arrival TrafficBound::ArriveBy(int c, const Role& r, int t, bool first, const Held& held,
                                             bool may_reside, bool may_inside) {
  const Op& op = p_.op(c);
  Arrival a;
  for (const Use& u : roles_.Uses(t)) {
    if (u.op == c) a.slots.push_back(u.slot);
  }
  const int producer = p_.producer(t);
  const double size = static_cast<double>(p_.tensor(t).size());
  a.is_held = std::find(held.begin(), held.end(), t) != held.end();
  // Loaded from slow memory (Lemma M3), after a store when produced by an op (Lemma M1).
  double multiplier = 1;
  for (Slot s : a.slots) multiplier = std::max(multiplier, reloads_.Multiplier(c, t, s, r, first));
  a.load = roles_.AlphaLoad(t) * size;
  // Lemma K2: a graph input with several readers is charged by its split-root readers only.
  a.root = op.type == OpType::kMatMul && r.rows == DimKind::kTile && r.cols == DimKind::kTile;
  // The coupled part (Lemma L1) keeps M7's shares for a tensor whose co-charging readers
  // exceed kCoupledSharers (per tensor, so every reader of it uses one accounting): K2 tries
  // every sharer count, once per lambda.
  a.shared = capacity_aware_ && !held_aware_ && producer < 0 && roles_.ReaderCount(t) >= 2 &&
             (coupling_ == 0 || std::lround(1 / roles_.AlphaLoad(t)) <= kCoupledSharers);
  if (a.shared && !a.root) a.load = 0;
  // Lemma S1: a split input's loads are charged through its readers' footprints only.
  if (shared_ && shared_->Split(t)) a.load = 0;
  a.store = producer >= 0 && first && with_stores_ ? roles_.AlphaStore(t) * size : 0;
  const double loaded = a.load * multiplier + a.store;
  a.best = loaded;
  // Resident: retained by the previous subgraph, so it fits with room to spare, next to
  // whatever else is held (Lemma H1).
  const bool no_big = std::find(held.begin(), held.end(), kNoBig) != held.end();
  a.may_reside = may_reside && producer >= 0 && !(no_big && Big(p_, t));
  // Lemma M8: a case in which t cannot be resident in c's first subgraph.
  if (first && c == no_reside_op_ && std::find(no_reside_.begin(), no_reside_.end(), t) != no_reside_.end()) {
    a.may_reside = false;
  }
  const bool can_reside =
      a.may_reside && (a.is_held || p_.tensor(t).size() + HeldSize(p_, held) < hw_.fast_memory_capacity);
  if (can_reside) a.best = 0;
  // Computed inside by its producer (Lemma M5).
  if (producer >= 0 && may_inside) {
    a.inside = Inside(c, r, a.slots, producer, held);
    if (a.inside >= 0) a.best = std::min(a.best, a.inside);
  }
  if (shared_ && op.type == OpType::kMatMul && a.slots.size() == 1) {
    const int pos = a.slots[0] == Slot::kLhs ? 0 : 1;
    if (shared_->OwnsTowards(c, pos)) {
      const double resident = can_reside ? 0 : std::numeric_limits<double>::infinity();
      a.best = shared_->Arrival(c, r, pos, loaded, resident, a.inside, first);
    }
  }
  return a;
}

// Lemma K1's view of operand t (read in one slot) of op c in role r.
CapOperand TrafficBound::CapacityView(int c, const Role& r, int t, const Arrival& a, const std::vector<int>& operands,
                                      bool first, const Held& held) {
  const Role d = Demanded(p_.op(c).type, a.slots[0], r, roles_.Root(c));
  const Tensor& tensor = p_.tensor(t);
  CapOperand k1;
  k1.rows = d.rows;
  k1.cols = d.cols;
  k1.height = tensor.height;
  k1.width = tensor.width;
  k1.rows_stream = d.rows_stream;
  k1.cols_stream = d.cols_stream;
  k1.rows_coincide = reloads_.MayCoincide(c, t, a.slots[0], r, /*along_rows=*/true, first);
  k1.cols_coincide = reloads_.MayCoincide(c, t, a.slots[0], r, /*along_rows=*/false, first);
  k1.few_coincide = held_aware_;
  const double size = static_cast<double>(tensor.size());
  k1.load = a.shared && a.root ? size : a.load;
  k1.shared_readers = a.shared && a.root ? std::min(static_cast<int>(std::lround(1 / roles_.AlphaLoad(t))),
                                                    SameShapeMatMulReaders(c, t))
                                         : 0;
  k1.tile_distinct =
      !held_aware_ && a.root && a.slots[0] != Slot::kPointwise && reloads_.TileDistinct(c, t, a.slots[0]);
  k1.store = a.store;
  // A held operand is already counted in the held elements (Lemma H1).
  k1.size = a.is_held ? 0 : size;
  k1.can_reside = a.may_reside;
  k1.inside = a.inside;
  // Lemma H1: computed inside while another operand of c is resident, that operand is held
  // at every step of the subgraph, the producer's included.
  // Only K1 (at most four operands, below) reads these.
  const int producer = p_.producer(t);
  if (held_aware_ && producer >= 0 && a.inside >= 0 && held.empty() && operands.size() <= 4) {
    k1.inside_when.assign(operands.size(), a.inside);
    for (size_t j = 0; j < operands.size(); ++j) {
      const int u = operands[j];
      if (u == t || p_.producer(u) < 0 || 2 * p_.tensor(u).size() + 1 <= hw_.fast_memory_capacity) continue;
      k1.inside_when[j] = Inside(c, r, a.slots, producer, Held{u});
    }
    // Lemma H2: the same without a big tensor resident anywhere in the producer's cone.
    k1.inside_alone = Inside(c, r, a.slots, producer, Held{kNoBig});
  }
  return k1;
}

// Lemma H2: which operands' producers read no big tensor in common (for K1, at most four
// operands: 12 pairs).
void TrafficBound::MarkApart(const std::vector<int>& operands, std::vector<CapOperand>* cap) const {
  for (size_t i = 0; i < cap->size(); ++i) {
    for (size_t j = 0; j < cap->size(); ++j) {
      const int a = p_.producer(operands[i]), b = p_.producer(operands[j]);
      if (i != j && a >= 0 && b >= 0 && a != b && cones_->Apart(a, b)) (*cap)[i].apart |= uint32_t{1} << j;
    }
  }
}

// Lemma K1 over the operands `cap` of op c in role r: the larger of `total` (the charges summed
// operand by operand, with the coupled part's `compute`) and the least charge over the tiles
// that fit; infinity when no tile fits any arrival (the role never occurs).
double TrafficBound::CapacityTotal(int c, const Role& r, const std::vector<CapOperand>& cap, int64_t held_size,
                                   double compute, double total, const Join* join) const {
  const Op& op = p_.op(c);
  CapContext ctx;
  ctx.grid_h = r.grid_h;
  ctx.grid_w = r.grid_w;
  ctx.native_h = hw_.native_h;
  ctx.native_w = hw_.native_w;
  // Lemma H1: the held tensors take their full size at every step (SPEC 6).
  ctx.capacity = hw_.fast_memory_capacity - held_size;
  if (modes_.k_limit == KLimit::kNative) ctx.k_max = hw_.native_k();
  ctx.contest = modes_.rules == Rules::kContest;
  if (join != nullptr) {
    ctx.least_buffers = join->buffers;
    ctx.step_slices = join->slices;
  }
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
  return std::max(total, k1 + (tile_role ? 0 : compute));
}

// The charge of op c in role r (Lemmas M2-M7): per distinct operand the cheapest way it can
// arrive. `first`: in c's first subgraph (stores of loaded intermediates count, Lemma M6
// excludes descendants); otherwise c is recomputed there and only its loads count. `held`:
// tensors held whole at every step of that subgraph (Lemma H1; empty outside held_aware).
double TrafficBound::OpCost(int c, const Role& r, bool first, const Held& held, const Join* join) {
  const Op& op = p_.op(c);
  if (shared_ && !shared_->GraphInputSlicesFit(c, r)) return std::numeric_limits<double>::infinity();
  double total = 0;
  std::vector<int> operands;
  for (int t : op.inputs) {
    if (std::find(operands.begin(), operands.end(), t) == operands.end()) operands.push_back(t);
  }
  // Lemma K1's view of the same operands (one slot each; otherwise K1 is not used).
  std::vector<CapOperand> cap;
  bool cap_ok = capacity_aware_ && r.grid_h > 0 && r.grid_w > 0;
  // Lemma M10: in c's first subgraph its two operands are not both resident.
  const bool apart = lemmas_.resident_pairs && first && roles_.ResidentApart(c) && operands.size() == 2;
  std::vector<double> best, not_resident;
  for (const int t : operands) {
    const Arrival a = ArriveBy(c, r, t, first, held);
    best.push_back(a.best);
    if (apart) not_resident.push_back(ArriveBy(c, r, t, first, held, /*may_reside=*/false).best);
    if (!cap_ok) continue;
    if (a.slots.size() != 1) {
      cap_ok = false;
      continue;
    }
    cap.push_back(CapacityView(c, r, t, a, operands, first, held));
  }
  if (apart) {
    total += std::min(best[0] + not_resident[1], not_resident[0] + best[1]);
    if (cap_ok) {
      cap[0].not_resident_with = 2;
      cap[1].not_resident_with = 1;
    }
  } else if (JoinsUsed() && op.type == OpType::kPointwise && r.rows == DimKind::kTile &&
             r.cols == DimKind::kTile) {
    const std::vector<std::vector<double>> by_count = JoinInside(c, r, operands, held);
    std::vector<double> outside(operands.size(), 0);
    for (size_t i = 0; i < operands.size(); ++i) {
      if (!by_count[i].empty()) {
        outside[i] = ArriveBy(c, r, operands[i], first, held, /*may_reside=*/true, /*may_inside=*/false).best;
      }
    }
    total += JoinOperandTotal(best, outside, by_count);
    if (cap_ok) {
      for (size_t i = 0; i < cap.size(); ++i) cap[i].inside_by_count = by_count[i];
    }
  } else {
    for (double b : best) total += b;
  }
  if (cap_ok && held_aware_ && held.empty() && cap.size() <= 4) MarkApart(operands, &cap);
  // Lemma L1: the op's own compute in role r (Lemma C2), in element units.
  const double compute = coupling_ > 0 ? coupling_ * RoleCompute(p_, c, r, modes_.matmul_reduction) : 0;
  total += compute;
  // Lemma K1, for ops of at most four distinct operands (3^4 arrival choices).
  if (cap_ok && cap.size() <= 4) return CapacityTotal(c, r, cap, HeldSize(p_, held), compute, total, join);
  return total;
}

// Lemma J1: Pointwise op c in role (T, T) computes inside some of the operands that MatMuls
// produce; each such MatMul is a split root whose output is not a sink, so with k of them the
// subgraph holds k + 1 tile buffers under contest (k under algebra, at least one), and at their
// common first step each of them holds its private graph inputs' slices. Per operand position:
// empty when J1 does not apply to it, else its charge computed inside when k = 1, 2, ... of
// them are (the producer priced so by K1). All empty for joins of more than kJoinRoots.
std::vector<std::vector<double>> TrafficBound::JoinInside(int c, const Role& r, const std::vector<int>& operands,
                                                          const Held& held) {
  std::vector<std::vector<double>> by_count(operands.size());
  std::vector<size_t> roots;  // positions of operands a MatMul produces and c may compute inside
  std::vector<std::vector<Slot>> slots(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    const int t = operands[i];
    for (const Use& u : roles_.Uses(t)) {
      if (u.op == c) slots[i].push_back(u.slot);
    }
    const int producer = p_.producer(t);
    if (producer >= 0 && p_.op(producer).type == OpType::kMatMul && Inside(c, r, slots[i], producer, held) >= 0) {
      roots.push_back(i);
    }
  }
  const size_t n = roots.size();
  if (n == 0 || n > kJoinRoots) return by_count;
  // Per root: its reduction, whether its LHS / RHS is a private graph input (read by no other
  // op, so no other slice of the step is that tensor).
  std::vector<int64_t> reduction(n);
  std::vector<bool> lhs(n, false), rhs(n, false);
  for (size_t j = 0; j < n; ++j) {
    const Op& mm = p_.op(p_.producer(operands[roots[j]]));
    reduction[j] = p_.reduction_extent(p_.producer(operands[roots[j]]));
    const bool distinct = mm.inputs[0] != mm.inputs[1];
    lhs[j] = distinct && p_.producer(mm.inputs[0]) < 0 && roles_.ReaderCount(mm.inputs[0]) == 1;
    rhs[j] = distinct && p_.producer(mm.inputs[1]) < 0 && roles_.ReaderCount(mm.inputs[1]) == 1;
  }
  // Quadratic in n <= kJoinRoots: n counts per root, each one K1 search (memoized).
  for (size_t j = 0; j < n; ++j) {
    // The other roots' slices, smallest first (each dimension on its own).
    std::vector<int64_t> left, right;
    for (size_t o = 0; o < n; ++o) {
      if (o == j) continue;
      const int64_t k_slice = std::min(reduction[j], reduction[o]);
      left.push_back(lhs[o] ? k_slice : 0);
      right.push_back(rhs[o] ? k_slice : 0);
    }
    std::sort(left.begin(), left.end());
    std::sort(right.begin(), right.end());
    for (size_t k = 1; k <= n; ++k) {
      Join join;
      join.buffers = modes_.rules == Rules::kContest ? static_cast<int64_t>(k) + 1 : static_cast<int64_t>(k);  // (b)
      for (size_t o = 0; o + 1 < k; ++o) {
        if (left[o] > 0) join.slices.push_back({true, left[o]});
        if (right[o] > 0) join.slices.push_back({false, right[o]});
      }
      const double inside = Inside(c, r, slots[roots[j]], p_.producer(operands[roots[j]]), held, &join);
      by_count[roots[j]].push_back(inside < 0 ? std::numeric_limits<double>::infinity() : inside);
    }
  }
  return by_count;
}


// Lemma K2: the split roots reading t in one subgraph with c all have the grid's shape, which
// is c's output shape (a split root's output region is the tile, SPEC 4).
int TrafficBound::SameShapeMatMulReaders(int c, int t) const {
  const Tensor& out = p_.tensor(p_.op(c).output);
  std::vector<int> readers;
  for (const Use& u : roles_.Uses(t)) {
    const Op& reader = p_.op(u.op);
    const Tensor& shape = p_.tensor(reader.output);
    if (reader.type != OpType::kMatMul || shape.height != out.height || shape.width != out.width) continue;
    if (std::find(readers.begin(), readers.end(), u.op) == readers.end()) readers.push_back(u.op);
  }
  return static_cast<int>(readers.size());
}

// Lemma M8: op o's charge for its first subgraph (as in Run()) when the tensors `no_reside` may
// not arrive resident there; per role in `per_role` when given.
double TrafficBound::FirstCharge(int o, const std::vector<int>& no_reside, std::vector<double>* per_role) {
  no_reside_op_ = o;
  no_reside_ = no_reside;
  double chi = std::numeric_limits<double>::infinity();
  for (const Role& r : Roles(o)) {
    const double cost = OpCost(o, r, /*first=*/true, {});
    if (per_role != nullptr) per_role->push_back(cost);
    if (own_kinds_.empty() || (own_kinds_[static_cast<size_t>(o)] >> RoleKey(r.rows, r.cols) & 1)) {
      chi = std::min(chi, cost);
    }
  }
  no_reside_op_ = -1;
  no_reside_.clear();
  return chi;
}

// Lemma M8, case (c): the loads op q (role index `at`) makes in a subgraph that recomputes it
// for no reader present and retains a tensor of `retained` elements, counting only operands
// q alone reads (no other op's charge can cover them there); with the producers of such
// operands computed inside, recursively.
double TrafficBound::PrivateLoads(int q, int at, int64_t retained, std::map<std::pair<int, int>, double>* memo) {
  const auto key = std::make_pair(q, at);
  const auto it = memo->find(key);
  if (it != memo->end()) return it->second;
  const Op& op = p_.op(q);
  const Role& r = roles_.Roles(q).roles[static_cast<size_t>(at)];
  std::vector<int> operands;
  for (int t : op.inputs) {
    if (std::find(operands.begin(), operands.end(), t) == operands.end()) operands.push_back(t);
  }
  double total = 0;
  for (const int t : operands) {
    std::vector<Slot> slots;
    bool alone = true;
    for (const Use& u : roles_.Uses(t)) {
      if (u.op == q) {
        slots.push_back(u.slot);
      } else {
        alone = false;
      }
    }
    if (!alone) continue;
    double multiplier = 1;
    for (Slot s : slots) multiplier = std::max(multiplier, reloads_.Multiplier(q, t, s, r, /*first=*/false));
    double best = roles_.AlphaLoad(t) * static_cast<double>(p_.tensor(t).size()) * multiplier;
    const int producer = p_.producer(t);
    // Resident next to the retained tensor (X6: both whole at every step).
    if (producer >= 0 && p_.tensor(t).size() + retained <= hw_.fast_memory_capacity) best = 0;
    if (producer >= 0 && best > 0) {
      double inside = 0;
      for (Slot s : slots) {
        const Role d = Demanded(op.type, s, r, roles_.Root(q));
        const int dat = roles_.Roles(producer).Find(d.rows, d.cols);
        if (dat < 0 || !roles_.Allowed(producer, d)) {
          inside = std::numeric_limits<double>::infinity();
          break;
        }
        inside = std::max(inside, PrivateLoads(producer, dat, retained, memo));
      }
      best = std::min(best, inside);
    }
    total += best;
  }
  memo->emplace(key, total);
  return total;
}

// Lemma M8 for op c, the only reader d of its output u, and `apart`: c's produced operands that
// cannot be resident while u is retained. The least of the three cases' extra charges.
double TrafficBound::PairGain(int c, int d, const std::vector<int>& apart) {
  const int u = p_.op(c).output;
  // (a) c's first subgraph retains u for d: no tensor of `apart` resident there.
  const double extra_a = FirstCharge(c, apart, nullptr) - chi_[static_cast<size_t>(c)];
  // (b) u is not resident in d's first subgraph. Readers that compute d inside price its
  // excess over chi(d) per role, so the extra is also at most each role's.
  std::vector<double> per_role;
  double extra_b = FirstCharge(d, {u}, &per_role) - chi_[static_cast<size_t>(d)];
  if (!roles_.Uses(p_.op(d).output).empty()) {
    for (size_t i = 0; i < per_role.size(); ++i) {
      const double base = cost_first_[static_cast<size_t>(d)][i];
      if (base < std::numeric_limits<double>::infinity()) extra_b = std::min(extra_b, per_role[i] - base);
    }
  }
  // (c) a later subgraph recomputes c with u as a retained sink: c in a (T, T) role there.
  double extra_c = std::numeric_limits<double>::infinity();
  std::map<std::pair<int, int>, double> memo;
  const auto& roles = roles_.Roles(c).roles;
  for (size_t i = 0; i < roles.size(); ++i) {
    if (roles[i].rows != DimKind::kTile || roles[i].cols != DimKind::kTile) continue;
    extra_c = std::min(extra_c, PrivateLoads(c, static_cast<int>(i), p_.tensor(u).size(), &memo));
  }
  if (extra_c == std::numeric_limits<double>::infinity()) extra_c = 0;
  return std::max(0.0, std::min({extra_a, extra_b, extra_c}));
}

// Lemma M8 over the whole graph: candidate pairs (c, the only reader of c's output), the
// largest gains first, each op in at most one chosen pair.
double TrafficBound::PairGains() {
  struct Pair {
    double gain;
    int c, d;
  };
  std::vector<Pair> pairs;
  const int64_t capacity = hw_.fast_memory_capacity;
  for (int c = 0; c < p_.num_ops(); ++c) {
    const int u = p_.op(c).output;
    const auto& uses = roles_.Uses(u);
    if (uses.empty() || p_.tensor(u).size() >= capacity) continue;
    const int d = uses[0].op;
    if (std::any_of(uses.begin(), uses.end(), [d](const Use& x) { return x.op != d; })) continue;
    std::vector<int> apart;
    for (int t : p_.op(c).inputs) {
      if (p_.producer(t) >= 0 && p_.tensor(t).size() + p_.tensor(u).size() > capacity &&
          std::find(apart.begin(), apart.end(), t) == apart.end()) {
        apart.push_back(t);
      }
    }
    if (apart.empty()) continue;
    const double gain = PairGain(c, d, apart);
    if (gain > 0) pairs.push_back({gain, c, d});
  }
  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
    return a.gain != b.gain ? a.gain > b.gain : a.c < b.c;
  });
  std::vector<bool> used(static_cast<size_t>(p_.num_ops()), false);
  double total = 0;
  for (const Pair& pair : pairs) {
    if (used[static_cast<size_t>(pair.c)] || used[static_cast<size_t>(pair.d)]) continue;
    used[static_cast<size_t>(pair.c)] = used[static_cast<size_t>(pair.d)] = true;
    total += pair.gain;
  }
  return total;
}

double TiledCompute(const Problem& p, const TrafficBound& tb, int o, MatmulReduction mode) {
  double best = std::numeric_limits<double>::infinity();
  for (const Role& r : tb.Roles(o)) best = std::min(best, RoleCompute(p, o, r, mode));
  return best;
}

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

double TrafficLowerBound(const Problem& problem, const CostModes& modes) {
  return TrafficBound(problem, modes).Run();
}

double HeldLowerBound(const Problem& problem, const CostModes& modes) {
  const double traffic = TrafficBound(problem, modes, /*with_stores=*/true, {}, Variant::kHeld).Run();
  return traffic / problem.hardware().slow_memory_bandwidth;
}

}  // namespace tilesched::bound
