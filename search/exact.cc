// The exact mode (strategy `exact`): best-first branch and bound over schedule prefixes with a
// proven lower bound, anytime. docs/bounds.md "The exact mode" states the space it is exact over
// and proves every reduction used here.
//
// Entry point: RunExact(ctx). It runs a cheap beam first (the incumbent prunes), then an A*
// search over states (ops covered, tensors in slow memory, tensors retained by the previous
// subgraph). A transition appends one subgraph: any op set SubgraphPlan accepts (recomputation
// allowed), any retention subset of what it produces, at its cheapest granularity and order.
// Every edge carries two costs: `ub`, the latency of a real configuration (the cheapest one the
// search found for that subgraph context), and `lb`, a lower bound on every configuration of
// the context (equal to `ub` where tiles and orders were enumerated completely). States carry
// the cheapest lb-path and the cheapest ub-path to them; the queue is ordered by
// f = g_lb + h, with h an admissible bound on the rest. At any stop, every schedule's latency
// is at least min(incumbent, smallest open f, the lb of every complete path reached): that is
// the proven bound. When the queue closes below the incumbent with nothing left, the incumbent
// is optimal.
#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <tbb/parallel_for.h>

#include "context.h"
#include "cover_lp.h"
#include "hashing.h"
#include "tilesched/grid.h"
#include "tilesched/lower_bound.h"
#include "tilesched/tile_classes.h"

namespace tilesched::search {

namespace {

using Mask = uint64_t;
constexpr double kInf = std::numeric_limits<double>::infinity();
// Above this many connected op sets, or fitting retention subsets of one subgraph, the
// transitions are not all enumerated, and the search proves nothing beyond the tier-1 bound.
constexpr int64_t kMaxOpSets = 200000;
constexpr int64_t kMaxRetentionSets = 4096;
// Grids of at most this many tiles get every permutation of their tiles.
constexpr int64_t kAllOrdersTiles = 4;
// Tier 2 (CoverBound): above this many connected op sets or subgraph contexts it proves
// nothing; a column whose context fits no tile gets this cost in the restricted LP.
constexpr int64_t kMaxCoverOpSets = 1000000;
constexpr int64_t kMaxCoverColumns = 20000000;
constexpr double kCoverBigCost = 1e30;
constexpr size_t kCoverChunk = 256;  // suspects whose X5 bounds are computed together
constexpr int64_t kCoverRoundWork = 256;  // bounds computed per LP round once one is violated

std::vector<int> Ids(Mask mask) {
  std::vector<int> ids;
  for (int i = 0; mask != 0; ++i, mask >>= 1) {
    if (mask & 1) ids.push_back(i);
  }
  return ids;
}

Mask MaskOf(const std::vector<int>& ids) {
  Mask mask = 0;
  for (int i : ids) mask |= Mask{1} << i;
  return mask;
}

struct Candidate {
  const SubgraphPlan* plan = nullptr;
  Mask ops = 0, produced = 0, external = 0, sinks = 0, output_sinks = 0;
  std::vector<Mask> retention;  // the retention subsets enumerated (X0, X6)
  double compute_once = 0;  // Lemma C1 summed over its ops
  double tile_compute = 0;  // Lemma X8: what every tile of every grid computes at least
  std::vector<FirstSlice> first_slices;  // Lemma X10: what every tile's first step reads
};

struct State {
  Mask covered = 0, slow = 0, resident = 0;
  bool operator==(const State&) const = default;
};

struct StateHash {
  size_t operator()(const State& s) const {
    uint64_t h = MixHash(0x243f6a8885a308d3ULL, s.covered);
    h = MixHash(h, s.slow);
    return static_cast<size_t>(MixHash(h, s.resident));
  }
};

// One subgraph context (op set, retention, resident set): a lower bound on every configuration
// and the cheapest configuration found.
struct ContextValue {
  double lb = kInf;
  double ub = kInf;
  TileChoice choice;
  bool enumerated = false;  // every tile of the context was tried
};

struct Parent {
  State from;
  int candidate = -1;
  Mask retained = 0;
};

struct Node {
  double lb = kInf, ub = kInf;
  double expanded_lb = kInf, expanded_ub = kInf;  // values at the last expansion
  Parent ub_parent;                              // last edge of the cheapest ub-path
};

// A queue entry: a state to expand (candidate < 0) or a lazy edge out of `state`.
struct Entry {
  double key = 0;
  int64_t seq = 0;
  State state;
  int candidate = -1;
  Mask retained = 0;
  bool operator>(const Entry& o) const { return std::tie(key, seq) > std::tie(o.key, o.seq); }
};

// Whether the traversal order can change a context's cost (docs/bounds.md, Lemma X2): only a
// slice identical to the previous step's is not reloaded, and a slice that spans tile rows x
// tile columns is never identical between two different tiles.
bool OrderMatters(const SubgraphPlan& plan, Mask resident) {
  auto any_strip = [resident](const DemandGroup& group) {
    return std::any_of(group.slices.begin(), group.slices.end(), [resident](const SliceDemand& d) {
      return !((resident >> d.tensor) & 1) &&
             (d.rows != DimKind::kTile || d.cols != DimKind::kTile);
    });
  };
  if (any_strip(plan.last_group())) return true;
  return std::any_of(plan.root_groups().begin(), plan.root_groups().end(), any_strip);
}

class ExactSearch {
 public:
  explicit ExactSearch(SearchContext& ctx)
      : ctx_(ctx), problem_(ctx.problem), model_(ctx.problem, ctx.options.modes),
        capacity_(ctx.problem.hardware().fast_memory_capacity),
        bandwidth_(ctx.problem.hardware().slow_memory_bandwidth) {}

  void Run();
  // Tier 2 (docs/bounds.md, "Tier 2"): the covering LP over subgraph contexts.
  void CoverBound();

 private:
  // The per-op and per-tensor facts both searches start from (C1 compute, graph inputs read,
  // graph outputs); false (with a note) above 64 ops or tensors, which the masks cannot hold.
  bool Prepare(const char* who);
  bool EnumerateCandidates(int64_t max_sets = kMaxOpSets);
  double Heuristic(const State& s) const;
  double TrafficBound(const Candidate& c, Mask retained, Mask resident) const;
  // Lemma X8 with the fit (X8 b): the fewest tiles of any grid whose first tile fits beside
  // what is held, times the floor; infinity when no tile size fits.
  double FitComputeBound(const Candidate& c, Mask retained, Mask resident) const;
  // Lemma X10 for candidate c's plan (FirstStepFloor in tile_classes.h).
  int64_t FirstStepFloor(const Candidate& c, const CostModel::HeldSpace& held, Mask resident,
                         int64_t w, int64_t h) const {
    return tilesched::FirstStepFloor(c.first_slices, held, resident, c.plan->width(),
                                     c.plan->height(), w, h);
  }
  // Lemma X8 for a grid of w x h tiles: every tile computes at least the floor.
  double GridComputeFloor(const Candidate& c, int64_t w, int64_t h) const {
    return static_cast<double>(CeilDiv(c.plan->width(), w) * CeilDiv(c.plan->height(), h)) *
           c.tile_compute;
  }
  bool HoldsFit(Mask retained, Mask resident) const;
  // The tier-1 bound of the problem made of candidate `index`'s ops alone (0 if none).
  double SubproblemBound(int index);
  double ComputeSubproblemBound(int index) const;  // the same, not memoized (thread-safe)
  const ContextValue& Context(int candidate, Mask retained, Mask resident);
  struct OrderResult {
    double latency = kInf, compute = 0;
    bool complete = false;  // no order is cheaper at this granularity (Lemma X2)
  };
  OrderResult BestOrder(const SubgraphPlan& plan, const Granularity& g, int64_t peak,
                        bool order_matters, const std::vector<int>& retained_ids,
                        const std::vector<int>& resident_ids, ContextValue* value) const;
  // Lemma X7: every tile of a context, by classes of tile counts (true: it always applies).
  bool ClassContext(const Candidate& c, const std::vector<int>& retained_ids,
                    const std::vector<int>& resident_ids, ContextValue* value);
  void OfferPath(const State& last_from, int candidate, Mask retained);

  SearchContext& ctx_;
  const Problem& problem_;
  CostModel model_;
  int64_t capacity_;
  double bandwidth_;
  std::vector<Candidate> candidates_;
  std::vector<double> op_compute_;  // Lemma C1 per op
  std::vector<double> subproblem_bound_;  // per candidate; < 0 until computed
  std::vector<Mask> op_graph_inputs_;
  Mask graph_outputs_ = 0;
  bool complete_ = true;  // every transition is enumerated
  bool lb_only_ = false;  // tier 2: contexts get lower bounds only (no ub, no order search)
  double cover_target_ = kInf;  // tier 2: a context's lb need not exceed this (its dual sum)
  std::map<std::tuple<int, Mask, Mask>, ContextValue> contexts_;
  std::unordered_map<State, Node, StateHash> nodes_;
  int64_t reduced_contexts_ = 0, orders_unproven_ = 0, class_contexts_ = 0;
};

bool ExactSearch::EnumerateCandidates(int64_t max_sets) {
  const int n = problem_.num_ops();
  // Ops are adjacent when they share a tensor (rule 3.2).
  std::vector<Mask> adjacent(static_cast<size_t>(n), 0);
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const Op& oa = problem_.op(a);
      const Op& ob = problem_.op(b);
      auto touches = [](const Op& x, int t) {
        return x.output == t || std::find(x.inputs.begin(), x.inputs.end(), t) != x.inputs.end();
      };
      bool share = touches(ob, oa.output);
      for (int t : oa.inputs) share = share || touches(ob, t);
      if (share) adjacent[static_cast<size_t>(a)] |= Mask{1} << b;
    }
  }
  // Every connected op set exactly once (ESU enumeration: sets grown from their smallest op,
  // each new op taken from the exclusive neighbourhood), at most kMaxOpSets.
  std::vector<Mask> sets;
  auto neighbours = [&](Mask set) {
    Mask out = 0;
    for (int o : Ids(set)) out |= adjacent[static_cast<size_t>(o)];
    return out & ~set;
  };
  bool overflow = false;
  auto extend = [&](auto&& self, Mask set, Mask extension, int root) -> void {
    if (overflow) return;
    sets.push_back(set);
    // Too many sets, or the run is over (polled every 1,024 sets): incomplete.
    if (static_cast<int64_t>(sets.size()) > max_sets ||
        (sets.size() % 1024 == 0 && ctx_.budget.Expired())) {
      overflow = true;
      return;
    }
    const Mask above = ~((Mask{2} << root) - 1);  // ops with id > root
    while (extension != 0) {
      const int w = std::countr_zero(extension);
      extension &= extension - 1;
      const Mask grown = set | (Mask{1} << w);
      const Mask exclusive =
          adjacent[static_cast<size_t>(w)] & above & ~set & ~(neighbours(set) | set);
      self(self, grown, extension | exclusive, root);
    }
  };
  for (int v = 0; v < n && !overflow; ++v) {
    const Mask above = ~((Mask{2} << v) - 1);
    extend(extend, Mask{1} << v, adjacent[static_cast<size_t>(v)] & above, v);
  }
  if (overflow) return false;
  bool complete = true;
  std::sort(sets.begin(), sets.end());
  for (Mask set : sets) {
    if (ctx_.budget.Expired()) return false;
    const SubgraphPlan* plan = ctx_.plans.Get(Ids(set));
    if (plan == nullptr) continue;  // several sink shapes (rule 3.3)
    Candidate c;
    c.plan = plan;
    c.ops = set;
    c.produced = MaskOf(plan->produced());
    c.external = MaskOf(plan->external_inputs());
    c.sinks = MaskOf(plan->sinks());
    for (int t : plan->sinks()) {
      if (problem_.is_graph_output(t)) c.output_sinks |= Mask{1} << t;
    }
    for (int o : plan->ops()) c.compute_once += op_compute_[static_cast<size_t>(o)];
    c.tile_compute = TileComputeFloor(problem_, ctx_.options.modes.matmul_reduction, *plan);
    c.first_slices = FirstStepSlices(problem_, *plan);
    // Every retention subset that fits at all (Lemma X6 with nothing resident), the empty one
    // first; more than kMaxRetentionSets of them: the first ones only, and incomplete.
    const std::vector<int>& produced = plan->produced();
    auto grow = [&](auto&& self, size_t next, Mask kept, int64_t held) -> void {
      if (c.retention.size() >= static_cast<size_t>(kMaxRetentionSets)) {
        complete = false;
        return;
      }
      c.retention.push_back(kept);
      for (size_t i = next; i < produced.size(); ++i) {
        const int64_t size = problem_.tensor(produced[i]).size();
        if (held + size <= capacity_) self(self, i + 1, kept | (Mask{1} << produced[i]), held + size);
      }
    };
    grow(grow, 0, 0, 0);
    candidates_.push_back(std::move(c));
  }
  return complete;
}

// Lemma X4: what the rest of a schedule costs at least from state `s`.
double ExactSearch::Heuristic(const State& s) const {
  double compute = 0;
  Mask inputs = 0;
  for (int o = 0; o < problem_.num_ops(); ++o) {
    if ((s.covered >> o) & 1) continue;
    compute += op_compute_[static_cast<size_t>(o)];
    inputs |= op_graph_inputs_[static_cast<size_t>(o)];
  }
  int64_t elements = 0;
  for (int t : Ids(inputs | (graph_outputs_ & ~s.slow))) elements += problem_.tensor(t).size();
  return std::max(compute, static_cast<double>(elements) / bandwidth_);
}

// Lemma X3: external inputs not resident are loaded whole, written tensors stored whole.
// Lemma X6: every step's working set holds all of the resident and the retained tensors
// (rule 3.8, SPEC 6), so a context whose union of them exceeds the capacity never fits.
bool ExactSearch::HoldsFit(Mask retained, Mask resident) const {
  int64_t held = 0;
  for (int t : Ids(retained | resident)) held += problem_.tensor(t).size();
  return held <= capacity_;
}

double ExactSearch::SubproblemBound(int index) {
  double& memo = subproblem_bound_[static_cast<size_t>(index)];
  if (memo < 0) memo = ComputeSubproblemBound(index);
  return memo;
}

double ExactSearch::ComputeSubproblemBound(int index) const {
  const Candidate& c = candidates_[static_cast<size_t>(index)];
  std::vector<int> renumber(static_cast<size_t>(problem_.num_tensors()), -1);
  std::vector<Tensor> tensors;
  auto local = [&](int t) {
    int& id = renumber[static_cast<size_t>(t)];
    if (id < 0) {
      id = static_cast<int>(tensors.size());
      tensors.push_back(problem_.tensor(t));
    }
    return id;
  };
  std::vector<Op> ops;
  for (int o : c.plan->ops()) {
    Op op = problem_.op(o);
    for (int& t : op.inputs) t = local(t);
    op.output = local(op.output);
    ops.push_back(std::move(op));
  }
  auto sub = Problem::Create(std::move(tensors), std::move(ops), problem_.hardware());
  return sub.ok() ? ComputeLowerBounds(*sub, ctx_.options.modes).best() : 0;
}

double ExactSearch::FitComputeBound(const Candidate& c, Mask retained, Mask resident) const {
  const SubgraphPlan& plan = *c.plan;
  const GranularityBounds bounds = model_.Bounds(plan);
  const CostModel::HeldSpace held = model_.Held(plan, Ids(retained), Ids(resident));
  int64_t fewest = -1;
  for (int64_t w = bounds.min_w; w <= bounds.max_w; ++w) {
    // Below min_h nothing fits, and a wider tile holds no less (Lemma X10: nondecreasing in w).
    if (bounds.min_h > bounds.max_h ||
        FirstStepFloor(c, held, resident, w, bounds.min_h) > capacity_) {
      break;
    }
    // The tallest tile that fits at this width (the floor is nondecreasing in h).
    int64_t lo = bounds.min_h, hi = bounds.max_h;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (FirstStepFloor(c, held, resident, w, mid) <= capacity_) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    const int64_t tiles = CeilDiv(plan.width(), w) * CeilDiv(plan.height(), lo);
    if (fewest < 0 || tiles < fewest) fewest = tiles;
  }
  return fewest < 0 ? kInf : static_cast<double>(fewest) * c.tile_compute;
}

double ExactSearch::TrafficBound(const Candidate& c, Mask retained, Mask resident) const {
  int64_t elements = 0;
  for (int t : Ids(c.external & ~resident)) elements += problem_.tensor(t).size();
  for (int t : Ids((c.sinks & ~retained) | c.output_sinks)) elements += problem_.tensor(t).size();
  return static_cast<double>(elements) / bandwidth_;
}

// The cheapest order of `plan` at granularity `g` (which fits: `peak`): every permutation of a
// small grid; otherwise the five named orders, which are complete only when the order cannot
// matter or a tried order is compute-bound at every step (Lemma X2). Improves `value`'s ub.
ExactSearch::OrderResult ExactSearch::BestOrder(const SubgraphPlan& plan, const Granularity& g,
                                                int64_t peak, bool order_matters,
                                                const std::vector<int>& retained_ids,
                                                const std::vector<int>& resident_ids,
                                                ContextValue* value) const {
  const Grid grid(plan.width(), plan.height(), g.w, g.h);
  const int64_t tiles = grid.num_tiles();
  struct Order {
    TraversalKind kind;
    std::vector<int64_t> tiles;
  };
  std::vector<Order> orders = {{TraversalKind::kRaster, {}}};
  OrderResult result;
  result.complete = true;
  if (order_matters && tiles > 1) {
    if (tiles <= kAllOrdersTiles) {
      std::vector<int64_t> perm(static_cast<size_t>(tiles));
      std::iota(perm.begin(), perm.end(), 0);
      while (std::next_permutation(perm.begin(), perm.end())) {
        orders.push_back({TraversalKind::kRaster, perm});
      }
    } else {
      result.complete = false;
      for (TraversalKind kind : {TraversalKind::kSnakeRows, TraversalKind::kColumnMajor,
                                 TraversalKind::kSnakeCols, TraversalKind::kBlocked}) {
        orders.push_back({kind, {}});
      }
    }
  }
  for (const Order& order : orders) {
    const std::vector<int64_t> visit =
        order.tiles.empty() ? MakeTraversal(order.kind, grid.rows(), grid.cols()) : order.tiles;
    auto cost = model_.Cost(plan, g, visit, retained_ids, resident_ids);
    if (!cost.ok()) continue;
    result.compute = cost->compute_time;
    if (cost->latency < result.latency) {
      result.latency = cost->latency;
      if (result.latency < value->ub) {
        value->ub = result.latency;
        value->choice = TileChoice{g, order.kind, result.latency, peak, order.tiles};
      }
    }
    // Every step compute-bound: no order is cheaper at this granularity (Lemma X2 c).
    if (cost->latency <= cost->compute_time * (1 + 1e-12)) {
      result.complete = true;
      break;
    }
  }
  return result;
}

// Lemma X7 (docs/bounds.md): a context costed class by class.
bool ExactSearch::ClassContext(const Candidate& c, const std::vector<int>& retained_ids,
                               const std::vector<int>& resident_ids, ContextValue* value) {
  const SubgraphPlan& plan = *c.plan;
  const bool mixed = plan.mixed_rows() || plan.mixed_cols();
  const GranularityBounds bounds = model_.Bounds(plan);
  const int64_t max_k = plan.split_roots().empty() ? 1 : bounds.max_k;
  const std::vector<DimClass> wc = DimClasses(plan.width(), bounds.min_w, bounds.max_w);
  const std::vector<DimClass> hc = DimClasses(plan.height(), bounds.min_h, bounds.max_h);
  const bool order_matters = OrderMatters(plan, MaskOf(resident_ids));
  ++class_contexts_;
  // Per k and per kind of grid (one column or more, one row or more): a lower bound on one
  // tile's latency over every order and every tile size, from tiles of 1 x 1 (or the whole
  // extent where there is one tile), so that class (rows, cols, k) costs at least
  // rows x cols x that.
  struct Item {
    double cheap;
    size_t wi, hi;
    int64_t k;
  };
  std::vector<Item> items;
  // Classes whose bound is already hopeless are not sorted; the least of their bounds stands.
  // In tier 2 a context only needs to reach its column's dual sum (cover_target_).
  const double target =
      std::min(ctx_.incumbent.BestTotal() / (1 + std::max(0.0, ctx_.options.gap)),
               lb_only_ ? cover_target_ : kInf);
  double hopeless_floor = kInf;
  for (int64_t k = 1; k <= max_k; ++k) {
    if (!model_.CheckGranularity(plan, {bounds.max_w, bounds.max_h, k}).ok()) continue;
    double per_tile[2][2] = {{-1, -1}, {-1, -1}};
    for (size_t wi = 0; wi < wc.size(); ++wi) {
      for (size_t hi = 0; hi < hc.size(); ++hi) {
        const bool one_col = wc[wi].count == 1, one_row = hc[hi].count == 1;
        double& tile = per_tile[one_col][one_row];
        if (tile < 0) {
          tile = model_.TileBound(plan, k, 1, 1, one_col, one_row, retained_ids, resident_ids,
                                  /*allow_mixed=*/true);
        }
        const double cheap = static_cast<double>(wc[wi].count * hc[hi].count) * tile;
        if (cheap >= target) {
          hopeless_floor = std::min(hopeless_floor, cheap);
        } else {
          items.push_back({cheap, wi, hi, k});
        }
      }
    }
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.cheap, a.k, a.wi, a.hi) < std::tie(b.cheap, b.k, b.wi, b.hi);
  });
  double lb = kInf;
  size_t next = 0;
  for (; next < items.size(); ++next) {
    const Item& item = items[next];
    // Every class from here on costs at least item.cheap: none can lower the minimum, or all
    // are hopeless (the bound then stays at least item.cheap); or time is up.
    if (item.cheap >= lb || item.cheap >= target || ((next & 63) == 0 && ctx_.budget.Expired())) {
      break;
    }
    const DimClass& cw = wc[item.wi];
    const DimClass& ch = hc[item.hi];
    const Granularity rep{cw.lo, ch.lo, item.k};
    // The class's smallest tiles: its peak working set is the least of the class's.
    const int64_t peak = model_.PeakWorkingSet(plan, rep, retained_ids, resident_ids);
    if (peak > capacity_) continue;
    double class_lb = ClassLowerBound(model_, plan, cw, ch, item.k, retained_ids, resident_ids);
    const bool single = (cw.count == 1 || cw.lo == cw.hi) && (ch.count == 1 || ch.lo == ch.hi);
    if (!lb_only_ && (class_lb < value->ub || single)) {
      const OrderResult best =
          BestOrder(plan, rep, peak, order_matters, retained_ids, resident_ids, value);
      // One grid in the class and its orders complete: the class costs exactly that.
      if (single && best.complete && best.latency < kInf) {
        class_lb = std::max(class_lb, best.latency);
      }
    }
    lb = std::min(lb, class_lb);
  }
  lb = std::min(lb, next < items.size() ? items[next].cheap : hopeless_floor);
  // A mixed plan: the class bounds hold only for tiles where no tile interval equals a k-slice;
  // every tile where one does is costed on its own (its lb per Lemma X2, or X3 when cut).
  if (mixed) {
    const double traffic = TrafficBound(c, MaskOf(retained_ids), MaskOf(resident_ids));
    const CostModel::HeldSpace held = model_.Held(plan, retained_ids, resident_ids);
    // The tile sizes worth a look at any k, in the order of the loops below: the floor of the
    // first step's working set fits (Lemma X10: what is held, the first tile's buffers and the
    // slices it reads; SPEC 6: otherwise no step fits), and in tier 2 the grid's Lemma X8
    // floor is below the lb so far (otherwise it cannot lower it).
    const Mask resident_mask = MaskOf(resident_ids);
    struct Size {
      int64_t w, h;
      double floor;  // max(compute once, X3, Lemma X8 at this grid)
    };
    std::vector<Size> sizes;
    for (int64_t w = bounds.min_w; w <= bounds.max_w; ++w) {
      for (int64_t h = bounds.min_h; h <= bounds.max_h; ++h) {
        if (FirstStepFloor(c, held, resident_mask, w, h) > capacity_) {
          break;  // taller tiles hold no less (Lemma X10)
        }
        const double floor = std::max({c.compute_once, traffic, GridComputeFloor(c, w, h)});
        if (lb_only_ && floor >= lb) continue;
        sizes.push_back({w, h, floor});
      }
    }
    bool expired = false;
    for (int64_t k = 1; k <= max_k && !expired; ++k) {
      for (size_t si = 0; si < sizes.size(); ++si) {
        // The clock, every 64 sizes (a k can hold thousands, each costed over its orders).
        if ((si & 63) == 0 && ctx_.budget.Expired()) {
          lb = std::min(lb, std::max(c.compute_once, traffic));
          expired = true;
          break;
        }
        const auto [w, h, floor] = sizes[si];
        const Granularity g{w, h, k};
        // Tier 2: a grid whose Lemma X8 floor is already at least lb cannot lower it, and one
        // at least the target need not be costed (the target then caps the lb, below).
        const double cut = std::min(lb, target);
        if (lb_only_ && floor >= cut) continue;
        if (!HasCoincidence(plan, w, h, k)) continue;
        if (!model_.CheckGranularity(plan, g).ok()) continue;
        if (model_.FirstStepWorkingSet(plan, g, retained_ids, resident_ids) > capacity_) {
          continue;  // one step already overflows
        }
        const int64_t peak = model_.PeakWorkingSet(plan, g, retained_ids, resident_ids);
        if (peak > capacity_) continue;
        const bool small_grid = CeilDiv(plan.width(), w) * CeilDiv(plan.height(), h) <= 4096;
        if (lb_only_) {  // tier 2: the order-free bound of every tile
          double member_lb = floor;
          if (small_grid) {
            member_lb = std::max(member_lb, model_.AnyPlanOrderFreeBound(plan, g, retained_ids,
                                                                         resident_ids, cut));
          }
          lb = std::min(lb, member_lb);
          continue;
        }
        const OrderResult best =
            BestOrder(plan, g, peak, order_matters, retained_ids, resident_ids, value);
        if (best.latency == kInf) continue;
        double member_lb = best.complete ? best.latency : std::max(best.compute, floor);
        // Orders not proven and the weak bound below the context's: the order-free bound of
        // this grid (every tile costed: grids of at most 4,096 tiles).
        if (!best.complete && member_lb < lb && small_grid) {
          member_lb = std::max(member_lb, model_.AnyPlanOrderFreeBound(plan, g, retained_ids,
                                                                       resident_ids));
        }
        lb = std::min(lb, member_lb);
      }
    }
  }
  // Members skipped at the target cost at least it: the lb is at most the target (tier 2).
  if (mixed && lb_only_) lb = std::min(lb, target);
  // The class bound is at most its representative's cost; equal sums may differ in the last
  // bits (a rounding of the same steps, summed in another order).
  assert(value->ub == kInf || lb <= value->ub * (1 + 1e-9));
  value->lb = std::min(lb, value->ub);
  value->enumerated = lb >= value->ub * (1 - 1e-12);
  return true;
}

const ContextValue& ExactSearch::Context(int index, Mask retained, Mask resident) {
  const auto key = std::make_tuple(index, retained, resident);
  if (auto it = contexts_.find(key); it != contexts_.end()) return it->second;
  const Candidate& c = candidates_[static_cast<size_t>(index)];
  const SubgraphPlan& plan = *c.plan;
  const std::vector<int> retained_ids = Ids(retained), resident_ids = Ids(resident);
  const double traffic = TrafficBound(c, retained, resident);
  double cheap = std::max(c.compute_once, traffic);
  ContextValue value;
  if (!HoldsFit(retained, resident)) {
    return contexts_.emplace(key, std::move(value)).first->second;  // lb = ub = infinity
  }

  // The whole tile space of rules 3.4 and 7b (Lemma X1).
  const GranularityBounds bounds = model_.Bounds(plan);
  const bool split = !plan.split_roots().empty();
  const int64_t max_k = split ? bounds.max_k : 1;
  const int64_t count = std::max<int64_t>(0, bounds.max_w - bounds.min_w + 1) *
                        std::max<int64_t>(0, bounds.max_h - bounds.min_h + 1) * max_k;
  if (count > ctx_.options.exact_max_tile_configs &&
      ClassContext(c, retained_ids, resident_ids, &value)) {
    value.lb = std::max(value.lb, cheap);  // Lemma X3 holds for every configuration too
    return contexts_.emplace(key, std::move(value)).first->second;
  }
  if (count > ctx_.options.exact_max_tile_configs) {
    // Too many tiles to enumerate: the configurator's choice is the edge's ub, the cheap
    // bound its lb (it also stands when the configurator finds nothing that fits).
    ++reduced_contexts_;
    // Lemma X5: with nothing it reads resident and no sink kept back from slow memory, the
    // subgraph alone is a schedule of its own sub-problem, which the tier-1 bound covers.
    if ((c.external & resident) == 0 && (retained & c.sinks & ~c.output_sinks) == 0) {
      cheap = std::max(cheap, SubproblemBound(index));
    }
    value.lb = cheap;
    if (auto choice = ctx_.coster.Configure(plan, retained_ids, resident_ids)) {
      value.ub = choice->latency;
      value.choice = *choice;
      // The cheap bound holds for every configuration (Lemma X3).
      assert(value.ub >= value.lb * (1 - 1e-9));
    }
    return contexts_.emplace(key, std::move(value)).first->second;
  }
  value.enumerated = true;
  const bool order_matters = OrderMatters(plan, resident);
  bool unproven = false;
  for (int64_t w = bounds.min_w; w <= bounds.max_w; ++w) {
    if (ctx_.budget.Expired()) {
      // Stopped part-way: only the X3 bound stands for this context.
      value.lb = std::min(value.ub, cheap);
      value.enumerated = false;
      break;
    }
    for (int64_t h = bounds.min_h; h <= bounds.max_h; ++h) {
      for (int64_t k = 1; k <= max_k; ++k) {
        const Granularity g{w, h, k};
        if (!model_.CheckGranularity(plan, g).ok()) continue;
        const int64_t peak = model_.PeakWorkingSet(plan, g, retained_ids, resident_ids);
        if (peak > capacity_) continue;
        if (lb_only_) {  // tier 2: Lemma X7's order-free bound at this grid
          const bool mixed = plan.mixed_rows() || plan.mixed_cols();
          double b = GridComputeFloor(c, w, h);
          if (!mixed || !HasCoincidence(plan, w, h, k)) {
            b = std::max(b, model_.OrderFreeBound(plan, g, plan.width(), plan.height(),
                                                  retained_ids, resident_ids,
                                                  /*allow_mixed=*/true));
          } else if (CeilDiv(plan.width(), w) * CeilDiv(plan.height(), h) <= 4096) {
            b = std::max(b, model_.AnyPlanOrderFreeBound(plan, g, retained_ids, resident_ids));
          }
          value.lb = std::min(value.lb, std::max({traffic, c.compute_once, b}));
          continue;
        }
        const OrderResult best = BestOrder(plan, g, peak, order_matters, retained_ids,
                                           resident_ids, &value);
        if (best.latency == kInf) continue;
        // Orders not proven complete: Lemma X7's order-free bound at this very grid.
        const double lb_g =
            best.complete ? best.latency
                          : std::max({best.compute, traffic,
                                      model_.OrderFreeBound(plan, g, plan.width(), plan.height(),
                                                            retained_ids, resident_ids)});
        if (!best.complete) unproven = true;
        value.lb = std::min(value.lb, lb_g);
      }
    }
  }
  if (unproven) ++orders_unproven_;
  return contexts_.emplace(key, std::move(value)).first->second;
}

void ExactSearch::OfferPath(const State& last_from, int candidate, Mask retained) {
  std::vector<Stage> reversed;
  auto add = [&](int index, Mask kept, Mask resident) {
    const ContextValue& v = Context(index, kept, resident);
    reversed.push_back(Stage{candidates_[static_cast<size_t>(index)].plan, Ids(kept), v.choice});
  };
  add(candidate, retained, last_from.resident);
  State s = last_from;
  // Every ub-path edge costs more than zero, so the parents form no cycle; the count guards it.
  for (size_t guard = 0; guard <= nodes_.size(); ++guard) {
    const Node& node = nodes_.at(s);
    if (node.ub_parent.candidate < 0) break;  // the start state
    add(node.ub_parent.candidate, node.ub_parent.retained, node.ub_parent.from.resident);
    s = node.ub_parent.from;
  }
  Draft draft;
  draft.stages.assign(reversed.rbegin(), reversed.rend());
  for (const Stage& stage : draft.stages) draft.total += stage.choice.latency;
  ctx_.incumbent.Offer(draft, "exact");
}

bool ExactSearch::Prepare(const char* who) {
  const int n = problem_.num_ops();
  if (n > 64 || problem_.num_tensors() > 64) {
    ctx_.Note(std::string(who) +
              ": more than 64 ops or tensors; nothing proven beyond the tier-1 bound");
    return false;
  }
  op_compute_.resize(static_cast<size_t>(n));
  op_graph_inputs_.resize(static_cast<size_t>(n));
  for (int o = 0; o < n; ++o) {
    op_compute_[static_cast<size_t>(o)] =
        OpComputeOnce(problem_, o, ctx_.options.modes.matmul_reduction);
    for (int t : problem_.op(o).inputs) {
      if (problem_.is_graph_input(t)) op_graph_inputs_[static_cast<size_t>(o)] |= Mask{1} << t;
    }
  }
  for (int t = 0; t < problem_.num_tensors(); ++t) {
    if (problem_.is_graph_output(t)) graph_outputs_ |= Mask{1} << t;
  }
  return true;
}

void ExactSearch::Run() {
  const int n = problem_.num_ops();
  if (!Prepare("exact")) return;
  complete_ = EnumerateCandidates();
  subproblem_bound_.assign(candidates_.size(), -1);
  const Mask all_ops = n == 64 ? ~Mask{0} : (Mask{1} << n) - 1;

  State start;
  for (int t = 0; t < problem_.num_tensors(); ++t) {
    if (problem_.is_graph_input(t)) start.slow |= Mask{1} << t;
  }
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  int64_t seq = 0, expansions = 0, pruned = 0;
  double goal_floor = kInf;  // smallest lb of a complete path reached
  nodes_[start] = Node{0, 0, kInf, kInf, {}};
  queue.push({Heuristic(start), seq++, start});
  // With SearchOptions::gap = G > 0 the search only needs to prove incumbent / (1 + G): a
  // key at least that (less a relative 1e-9 of rounding) is not searched further. With G = 0,
  // such a key cannot lead to a strictly better schedule.
  const double relax = 1 + std::max(0.0, ctx_.options.gap);
  auto incumbent = [this] { return ctx_.incumbent.BestTotal(); };
  auto target = [&] { return incumbent() / relax; };
  auto hopeless = [&](double key) { return key >= target() * (1 - 1e-9); };
  bool cut = false;
  while (!queue.empty() && !hopeless(queue.top().key)) {
    // The queue holds up to an expansion's edges per state: capped at 16 entries per state
    // allowed (about 1 GB at the default), beside the states themselves.
    // A work budget (SearchOptions::iterations) counts expansions: deterministic.
    const int64_t work = ctx_.options.iterations;
    if (ctx_.budget.Expired() || static_cast<int64_t>(nodes_.size()) > ctx_.options.exact_max_states ||
        static_cast<int64_t>(queue.size()) > 16 * ctx_.options.exact_max_states ||
        (work > 0 && expansions >= work)) {
      cut = true;
      break;
    }
    const Entry e = queue.top();
    queue.pop();
    if (e.candidate < 0) {
      Node& node = nodes_.at(e.state);
      if (node.lb >= node.expanded_lb && node.ub >= node.expanded_ub) continue;  // stale
      node.expanded_lb = node.lb;
      node.expanded_ub = node.ub;
      ++expansions;
      const Mask available = e.state.slow | e.state.resident;
      for (int i = 0; i < static_cast<int>(candidates_.size()); ++i) {
        const Candidate& c = candidates_[static_cast<size_t>(i)];
        if ((c.external & ~available) != 0) continue;  // rule 3.5
        for (const Mask r : c.retention) {  // every fitting retention subset (rule 3.6)
          if (!HoldsFit(r, e.state.resident)) continue;  // never fits (Lemma X6)
          const Mask written = (c.sinks & ~r) | c.output_sinks;
          const State next{e.state.covered | c.ops, e.state.slow | written, r};
          const double key =
              node.lb + std::max(c.compute_once, TrafficBound(c, r, e.state.resident)) +
              Heuristic(next);
          if (hopeless(key)) {
            ++pruned;
          } else {
            queue.push({key, seq++, e.state, i, r});
          }
        }
      }
      continue;
    }
    // A lazy edge: cost its context now.
    const ContextValue& v = Context(e.candidate, e.retained, e.state.resident);
    if (v.lb == kInf) continue;  // nothing fits in the whole tile space
    const Candidate& c = candidates_[static_cast<size_t>(e.candidate)];
    const Node from = nodes_.at(e.state);
    const Mask written = (c.sinks & ~e.retained) | c.output_sinks;
    const State next{e.state.covered | c.ops, e.state.slow | written, e.retained};
    const double lb = from.lb + v.lb, ub = from.ub + v.ub;
    if (next.covered == all_ops) {
      goal_floor = std::min(goal_floor, lb);
      if (ub < incumbent() * (1 - 1e-9)) OfferPath(e.state, e.candidate, e.retained);
      continue;
    }
    Node& head = nodes_[next];
    bool improved = false;
    if (lb < head.lb) {
      head.lb = lb;
      improved = true;
    }
    if (ub < head.ub) {
      head.ub = ub;
      head.ub_parent = Parent{e.state, e.candidate, e.retained};
      improved = true;
    }
    if (!improved) continue;
    const double key = head.lb + Heuristic(next);
    if (hopeless(key)) {
      ++pruned;
    } else {
      queue.push({key, seq++, next});
    }
  }
  // Every schedule passes through an open entry (its latency is at least the entry's key), or
  // was pruned (at least the target), or is a complete path already reached (at least its
  // lb): the smallest of these is proven.
  double bound = std::min(target(), goal_floor);
  if (!queue.empty()) bound = std::min(bound, queue.top().key);
  const bool closed = !cut && bound >= target() * (1 - 1e-9);
  ctx_.Note("exact: " + std::to_string(candidates_.size()) + " op sets, " +
            std::to_string(nodes_.size()) + " states, " + std::to_string(expansions) +
            " expansions, " + std::to_string(contexts_.size()) + " subgraph contexts (" +
            std::to_string(class_contexts_) + " by tile classes, " +
            std::to_string(reduced_contexts_) + " with tiles not enumerated, " +
            std::to_string(orders_unproven_) + " with orders not proven complete), " +
            std::to_string(pruned) + " pruned by the incumbent; " +
            (cut ? "cut by the limit" : closed ? "closed" : "open") + ", bound " +
            std::to_string(bound) + (complete_ ? "" : " (transitions not all enumerated: not used)"));
  if (complete_ && ctx_.proven != nullptr) {
    ctx_.proven->set = true;
    ctx_.proven->value = bound;
  }
}

// Tier 2 (docs/bounds.md, "Tier 2: the covering LP", Lemmas T1-T4): column generation over
// every subgraph context, with a certificate checked against every column.
void ExactSearch::CoverBound() {
  const int n = problem_.num_ops();
  const int num_tensors = problem_.num_tensors();
  if (!Prepare("tier 2")) return;
  lb_only_ = true;  // only lower bounds are needed: no configuration is costed for its ub
  Mask produced_by_ops = 0;
  for (int o = 0; o < n; ++o) produced_by_ops |= Mask{1} << problem_.op(o).output;
  if (!EnumerateCandidates(kMaxCoverOpSets)) {
    ctx_.Note("tier 2: more than " + std::to_string(kMaxCoverOpSets) +
              " op sets or retention subsets, or out of time; nothing proven");
    return;
  }
  subproblem_bound_.assign(candidates_.size(), -1);
  // Every context (Lemma T3): an op set, a retention subset, and a resident set made of
  // tensors it reads that an op produces (graph inputs are never retained: rule 3.6), with
  // resident and retained fitting together (Lemma X6).
  struct Column {
    int candidate;
    Mask retained, resident;
  };
  std::vector<Column> columns;
  bool stopped = false;
  for (int i = 0; i < static_cast<int>(candidates_.size()) && !stopped; ++i) {
    const Candidate& c = candidates_[static_cast<size_t>(i)];
    const std::vector<int> readable = Ids(c.external & produced_by_ops);
    for (const Mask r : c.retention) {
      int64_t held = 0;
      for (int t : Ids(r)) held += problem_.tensor(t).size();
      // Every subset of `readable` that fits with r, walked depth-first: a subset that does
      // not fit has no superset that fits, so only the fitting ones are visited.
      auto walk = [&](auto&& self, size_t next, Mask resident, int64_t size) -> void {
        if (stopped) return;
        columns.push_back({i, r, resident});
        if (static_cast<int64_t>(columns.size()) > kMaxCoverColumns ||
            ((columns.size() & 4095) == 0 && ctx_.budget.Expired())) {
          stopped = true;
          return;
        }
        for (size_t k = next; k < readable.size(); ++k) {
          const int64_t grown = size + problem_.tensor(readable[k]).size();
          if (grown <= capacity_) self(self, k + 1, resident | (Mask{1} << readable[k]), grown);
        }
      };
      walk(walk, 0, 0, held);
      if (stopped) break;
    }
  }
  if (stopped) {
    ctx_.Note("tier 2: more than " + std::to_string(kMaxCoverColumns) +
              " subgraph contexts, or out of time while listing them; nothing proven");
    return;
  }
  // Three lower bounds per context, cheapest first: X3 (with C1); X5 (the sub-problem's tier 1,
  // only with nothing read resident and no sink kept back); the context's own (X1-X7).
  auto cheap = [&](const Column& col) {
    const Candidate& c = candidates_[static_cast<size_t>(col.candidate)];
    return std::max({c.compute_once, TrafficBound(c, col.retained, col.resident),
                     FitComputeBound(c, col.retained, col.resident)});
  };
  // Each context's base: the same op set and resident set, nothing retained (Lemma X9).
  std::vector<uint32_t> base(columns.size());
  {
    std::unordered_map<uint64_t, uint32_t> first;  // (candidate, resident) of a base column
    auto key = [](const Column& col) {
      return MixHash(static_cast<uint64_t>(col.candidate), col.resident);
    };
    for (size_t ci = 0; ci < columns.size(); ++ci) {
      if (columns[ci].retained == 0) first.emplace(key(columns[ci]), static_cast<uint32_t>(ci));
    }
    for (size_t ci = 0; ci < columns.size(); ++ci) {
      const auto it = first.find(key(columns[ci]));
      const bool same = it != first.end() &&
                        columns[it->second].candidate == columns[ci].candidate &&
                        columns[it->second].resident == columns[ci].resident;
      base[ci] = same ? it->second : static_cast<uint32_t>(ci);  // no base: itself
    }
  }
  std::vector<double> known(columns.size(), -1);  // best bound computed so far (< 0: cheap only)
  // 0 cheap, 1 X5 tried, 2 the base's bound applied (X9), 3 context costed
  std::vector<uint8_t> level(columns.size(), 0);
  // The target a costed context was cut at (it may stop refining there): infinity when none.
  std::vector<double> cut(columns.size(), kInf);
  int64_t contexts_costed = 0;
  // The context's own bound, refined up to `target` at least (again, if an earlier costing
  // stopped below it).
  auto cost_context = [&](size_t ci, double target) {
    if (level[ci] == 3 && cut[ci] >= target) return;
    const Column& col = columns[ci];
    contexts_.erase(std::make_tuple(col.candidate, col.retained, col.resident));
    cover_target_ = target;
    known[ci] = std::max(known[ci], Context(col.candidate, col.retained, col.resident).lb);
    cover_target_ = kInf;
    cut[ci] = target;
    level[ci] = 3;
    ++contexts_costed;
  };
  // One level up, cheapest first, towards `target` (the column's dual sum).
  auto raise = [&](size_t ci, double target) {
    const Column& col = columns[ci];
    const Candidate& c = candidates_[static_cast<size_t>(col.candidate)];
    double& v = known[ci];
    if (v < 0) v = cheap(col);
    if (level[ci] == 0) {
      level[ci] = 1;
      if ((c.external & col.resident) == 0 && (col.retained & c.sinks & ~c.output_sinks) == 0) {
        v = std::max(v, SubproblemBound(col.candidate));
      }
      return;
    }
    if (level[ci] == 1) {
      level[ci] = 2;
      const size_t bi = base[ci];
      if (bi == ci) return;
      // Lemma X9: retaining r saves at most the stores of its sinks that are not graph outputs.
      int64_t saved = 0;
      for (int t : Ids(col.retained & c.sinks & ~c.output_sinks)) {
        saved += problem_.tensor(t).size();
      }
      const double s = static_cast<double>(saved) / bandwidth_;
      if (known[bi] < 0) known[bi] = cheap(columns[bi]);
      if (level[bi] == 0) {  // its X5 first, where it applies (nothing retained)
        level[bi] = 1;
        if ((c.external & columns[bi].resident) == 0) {
          known[bi] = std::max(known[bi], SubproblemBound(col.candidate));
        }
      }
      // A base cut exactly at target + s would leave the column a rounding short of target.
      cost_context(bi, (target + s) * (1 + 1e-10));
      v = std::max(v, known[bi] - s - 1e-12 * (known[bi] + s));
      return;
    }
    cost_context(ci, target);
  };
  // X5 is a pure function of the op set: computed in parallel (oneTBB) for the plain contexts
  // among the next kCoverChunk suspects, then read from the memo.
  auto PrefetchSubproblemBounds = [&](const std::vector<std::pair<double, size_t>>& list,
                                      size_t from, const std::vector<Column>& cols,
                                      const std::vector<uint8_t>& levels) {
    std::vector<int> todo;
    for (size_t i = from; i < std::min(list.size(), from + kCoverChunk); ++i) {
      const size_t ci = list[i].second;
      const Column& col = cols[ci];
      const Candidate& c = candidates_[static_cast<size_t>(col.candidate)];
      if (levels[ci] == 0 && subproblem_bound_[static_cast<size_t>(col.candidate)] < 0 &&
          (c.external & col.resident) == 0 && (col.retained & c.sinks & ~c.output_sinks) == 0) {
        todo.push_back(col.candidate);
      }
    }
    std::sort(todo.begin(), todo.end());
    todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
    std::vector<double> values(todo.size());
    tbb::parallel_for(size_t{0}, todo.size(),
                      [&](size_t i) { values[i] = ComputeSubproblemBound(todo[i]); });
    for (size_t i = 0; i < todo.size(); ++i) {
      subproblem_bound_[static_cast<size_t>(todo[i])] = values[i];
    }
    return static_cast<int64_t>(todo.size());
  };
  CoverLp lp(n, num_tensors);
  // The start: every op alone, nothing resident or retained (a feasible LP).
  for (size_t ci = 0; ci < columns.size(); ++ci) {
    const Column& col = columns[ci];
    if (std::popcount(candidates_[static_cast<size_t>(col.candidate)].ops) != 1 ||
        col.retained != 0 || col.resident != 0) {
      continue;
    }
    while (level[ci] < 3) raise(ci, kInf);
    lp.AddColumn(candidates_[static_cast<size_t>(col.candidate)].ops, 0, 0,
                 std::isfinite(known[ci]) ? known[ci] : kCoverBigCost);
  }
  std::vector<double> y, z, lhs(columns.size());
  double proven = 0;
  int64_t rounds = 0;
  bool closed = false;
  while (!ctx_.budget.Expired()) {
    ++rounds;
    if (!lp.Solve()) break;
    lp.Duals(&y, &z);
    double y_sum = 0;
    for (double v : y) y_sum += v;
    // Lemma T2: the duals scaled by alpha satisfy every column, alpha <= 1 the least ratio of
    // a column's bound to its left-hand side. Columns whose known bound is below their
    // left-hand side are raised (cheapest first, most violated first) until 50 stay violated.
    std::vector<std::pair<double, size_t>> suspects;
    for (size_t ci = 0; ci < columns.size(); ++ci) {
      const Column& col = columns[ci];
      // In long double: a sum of at most 128 terms is then off by less than 128 x 2^-64 of
      // the sum of the terms' magnitudes; the bracket is raised by 1e-15 of it (Lemma T2).
      long double v = 0, magnitude = 0;
      for (Mask m = candidates_[static_cast<size_t>(col.candidate)].ops; m; m &= m - 1) {
        v += y[static_cast<size_t>(std::countr_zero(m))];
      }
      for (Mask m = col.retained; m; m &= m - 1) v += z[static_cast<size_t>(std::countr_zero(m))];
      magnitude = v;  // every term so far is >= 0
      for (Mask m = col.resident; m; m &= m - 1) {
        v -= z[static_cast<size_t>(std::countr_zero(m))];
        magnitude += z[static_cast<size_t>(std::countr_zero(m))];
      }
      // Rounded up to a double (never below the long double value).
      const long double raised = v + 1e-15L * magnitude;
      double bracket = static_cast<double>(raised);
      if (static_cast<long double>(bracket) < raised) {
        bracket = std::nextafter(bracket, std::numeric_limits<double>::infinity());
      }
      lhs[ci] = bracket;
      if (bracket <= 0) continue;  // every bound is at least 0
      if (known[ci] < 0) known[ci] = cheap(col);
      if (bracket > known[ci]) suspects.emplace_back(known[ci] - bracket, ci);
    }
    // Smaller op sets first (cheaper to bound, and more often truly violated), then the most
    // violated by what is known.
    std::sort(suspects.begin(), suspects.end(), [&](const auto& a, const auto& b) {
      const int pa = std::popcount(candidates_[static_cast<size_t>(columns[a.second].candidate)].ops);
      const int pb = std::popcount(candidates_[static_cast<size_t>(columns[b.second].candidate)].ops);
      return std::tie(pa, a) < std::tie(pb, b);
    });
    std::vector<size_t> violated;
    // A round ends at 50 violated columns, or at the first violated one after kCoverRoundWork
    // bounds were computed (X5 or context): new duals then prune the rest (a count, not a clock,
    // so that the bound does not depend on the machine's speed).
    int64_t work = 0;
    for (size_t next = 0; next < suspects.size(); ++next) {
      if (violated.size() >= 50 || (!violated.empty() && work >= kCoverRoundWork) ||
          ctx_.budget.Expired()) {
        break;
      }
      if (next % kCoverChunk == 0) {
        work += PrefetchSubproblemBounds(suspects, next, columns, level);
      }
      const size_t ci = suspects[next].second;
      const int64_t costed_before = contexts_costed;
      while (lhs[ci] > known[ci] && (level[ci] < 3 || cut[ci] < lhs[ci])) raise(ci, lhs[ci]);
      work += contexts_costed - costed_before;
      if (lhs[ci] > known[ci] * (1 + 1e-9)) violated.push_back(ci);
    }
    double alpha = 1;
    for (size_t ci = 0; ci < columns.size(); ++ci) {
      if (lhs[ci] > 0 && lhs[ci] > known[ci]) alpha = std::min(alpha, known[ci] / lhs[ci]);
    }
    // The rest of the rounding (y_sum, the ratios, the product): a relative 1e-9 less
    // (docs/bounds.md, Lemma T2).
    proven = std::max(proven, alpha * y_sum * (1 - 1e-9));
    if (violated.empty() && alpha >= 1 - 1e-9) {
      closed = !ctx_.budget.Expired();
      break;
    }
    for (size_t ci : violated) {
      const Column& col = columns[ci];
      lp.AddColumn(candidates_[static_cast<size_t>(col.candidate)].ops, col.retained,
                   col.resident, known[ci]);
    }
    if (violated.empty()) break;  // out of time
  }
  ctx_.Note("tier 2: " + std::to_string(candidates_.size()) + " op sets, " +
            std::to_string(columns.size()) + " subgraph contexts, " +
            std::to_string(contexts_costed) + " costed (" + std::to_string(class_contexts_) +
            " by tile classes), " + std::to_string(rounds) +
            " LP rounds, " + std::to_string(lp.num_columns()) + " columns; " +
            (closed ? "converged" : "stopped") + ", bound " + std::to_string(proven));
  if (ctx_.proven != nullptr && proven > 0) {
    ctx_.proven->set = true;
    ctx_.proven->value = proven;
  }
}

}  // namespace

void RunCover(SearchContext& ctx) { ExactSearch(ctx).CoverBound(); }

void RunExact(SearchContext& ctx) {
  // A cheap incumbent first: greedy has run; a narrow beam within a fifth of the time left.
  RunBeam(ctx, ctx.options.beam_width,
          ctx.budget.has_deadline() ? 0.2 * ctx.budget.Remaining() : kInf);
  ExactSearch(ctx).Run();
}

}  // namespace tilesched::search
