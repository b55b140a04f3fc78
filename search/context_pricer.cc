// The pricing of subgraph contexts (search/context_pricer.h; docs/bounds.md, "The exact mode",
// Lemmas X1-X10).
#include "context_pricer.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <numeric>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "symmetry.h"
#include "tilesched/grid.h"
#include "tilesched/lower_bound.h"

namespace tilesched::search {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Above this many fitting retention subsets of one op set, the rest are not listed.
constexpr int64_t kMaxRetentionSets = 4096;
// Grids of at most this many tiles get every permutation of their tiles.
constexpr int64_t kAllOrdersTiles = 4;
// Mixed members on grids of at most this many tiles are costed tile by tile
// (AnyPlanOrderFreeBound).
constexpr int64_t kMaxTileByTileTiles = 4096;

// Whether the traversal order can change a context's cost (docs/bounds.md, Lemma X2): only a
// slice identical to the previous step's is not reloaded, and a slice that spans tile rows x
// tile columns is never identical between two different tiles.
bool OrderMatters(const SubgraphPlan& plan, Mask resident) {
  auto any_strip = [resident](const DemandGroup& group) {
    return std::any_of(group.slices.begin(), group.slices.end(), [resident](const SliceDemand& d) {
      return !((resident >> d.tensor) & 1) && (d.rows != DimKind::kTile || d.cols != DimKind::kTile);
    });
  };
  if (any_strip(plan.last_group())) return true;
  return std::any_of(plan.root_groups().begin(), plan.root_groups().end(), any_strip);
}

// Ops adjacent to each op: they share a tensor (rule 3.2).
std::vector<Mask> Adjacency(const Problem& problem) {
  const int n = problem.num_ops();
  std::vector<Mask> adjacent(static_cast<size_t>(n), 0);
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const Op& oa = problem.op(a);
      const Op& ob = problem.op(b);
      auto touches = [](const Op& x, int t) {
        return x.output == t || std::find(x.inputs.begin(), x.inputs.end(), t) != x.inputs.end();
      };
      bool share = touches(ob, oa.output);
      for (int t : oa.inputs) share = share || touches(ob, t);
      if (share) adjacent[static_cast<size_t>(a)] |= Mask{1} << b;
    }
  }
  return adjacent;
}

// Every connected op set exactly once (ESU enumeration: sets grown from their smallest op, each
// new op taken from the exclusive neighbourhood), sorted; false (and an incomplete list) above
// `max_sets` sets or once `expired` says so (polled every 1,024 sets). Lemma T6: an op set that
// holds an op and one of its `never` ops is not listed, nor is any set grown from it (the branch
// that adds w to `set` lists only sets holding both, and every op is checked against the whole
// set it joins, so exactly the sets holding a pair are dropped).
template <typename Expired>
bool ConnectedSets(const std::vector<Mask>& adjacent, const std::vector<Mask>& never, int64_t max_sets,
                   Expired&& expired, std::vector<Mask>* sets) {
  const int n = static_cast<int>(adjacent.size());
  auto neighbours = [&](Mask set) {
    Mask out = 0;
    for (int o : Ids(set)) out |= adjacent[static_cast<size_t>(o)];
    return out & ~set;
  };
  bool overflow = false;
  auto extend = [&](auto&& self, Mask set, Mask extension, int root) -> void {
    if (overflow) return;
    sets->push_back(set);
    if (static_cast<int64_t>(sets->size()) > max_sets || (sets->size() % 1024 == 0 && expired())) {
      overflow = true;
      return;
    }
    const Mask above = ~((Mask{2} << root) - 1);  // ops with id > root
    while (extension != 0) {
      const int w = CountrZero(extension);
      extension &= extension - 1;
      if (never[static_cast<size_t>(w)] & set) continue;
      const Mask grown = set | (Mask{1} << w);
      const Mask exclusive = adjacent[static_cast<size_t>(w)] & above & ~set & ~(neighbours(set) | set);
      self(self, grown, extension | exclusive, root);
    }
  };
  for (int v = 0; v < n && !overflow; ++v) {
    const Mask above = ~((Mask{2} << v) - 1);
    extend(extend, Mask{1} << v, adjacent[static_cast<size_t>(v)] & above, v);
  }
  std::sort(sets->begin(), sets->end());
  return !overflow;
}

// Lemma T7: one connected op set per orbit of `symmetry`, its representative (Canonical), sorted;
// the same limits as ConnectedSets. Grown one op at a time from the representatives of the
// single ops, each set's neighbours added and the result mapped to its representative: every
// connected set has an op whose removal leaves it connected, and what holds no never pair
// holds none after that removal, so every orbit is reached from a smaller one's representative
// (an automorphism keeps adjacency and never pairs).
template <typename Expired>
bool CanonicalConnectedSets(const std::vector<Mask>& adjacent, const std::vector<Mask>& never,
                            const Symmetry& symmetry, int64_t max_sets, Expired&& expired, std::vector<Mask>* sets) {
  std::unordered_set<Mask, MaskHash> seen;
  auto add = [&](Mask set) {
    const Mask c = symmetry.Canonical(set);
    if (seen.insert(c).second) sets->push_back(c);
  };
  for (int v = 0; v < static_cast<int>(adjacent.size()); ++v) add(Mask{1} << v);
  for (size_t i = 0; i < sets->size(); ++i) {
    if (static_cast<int64_t>(sets->size()) > max_sets || (i % 1024 == 1023 && expired())) return false;
    const Mask set = (*sets)[i];
    Mask grow = 0;
    for (Mask m = set; m; m &= m - 1) grow |= adjacent[static_cast<size_t>(CountrZero(m))];
    for (grow &= ~set; grow; grow &= grow - 1) {
      const int w = CountrZero(grow);
      if ((never[static_cast<size_t>(w)] & set) == 0) add(set | (Mask{1} << w));
    }
  }
  if (static_cast<int64_t>(sets->size()) > max_sets) return false;
  std::sort(sets->begin(), sets->end());
  return true;
}

}  // namespace

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

ContextPricer::ContextPricer(const Problem& problem, const CostModes& modes, PlanCache& plans, const Budget& budget,
                             int64_t max_tile_configs)
    : problem_(problem), modes_(modes), model_(problem, modes), plans_(plans), budget_(budget),
      max_tile_configs_(max_tile_configs), capacity_(problem.hardware().fast_memory_capacity),
      bandwidth_(problem.hardware().slow_memory_bandwidth) {
  op_compute_.resize(static_cast<size_t>(problem.num_ops()));
  for (int o = 0; o < problem.num_ops(); ++o) {
    op_compute_[static_cast<size_t>(o)] = OpComputeOnce(problem, o, modes.matmul_reduction);
  }
}

bool ContextPricer::EnumerateOpSets(int64_t max_sets, const std::vector<Mask>* adjacency, int64_t relax_above,
                                    const Symmetry* symmetry) {
  assert(Fits(problem_));
  assert(symmetry == nullptr || adjacency == nullptr);
  op_sets_.clear();
  std::vector<Mask> sets;
  const std::vector<Mask> all = adjacency == nullptr ? Adjacency(problem_) : std::vector<Mask>{};
  std::vector<Mask> never(static_cast<size_t>(problem_.num_ops()), 0);
  const std::vector<std::vector<int>> apart = NeverTogether(problem_, modes_);
  for (size_t o = 0; o < apart.size(); ++o) never[o] = MaskOf(apart[o]);
  const std::vector<Mask>& links = adjacency == nullptr ? all : *adjacency;
  auto expired = [this] { return budget_.Expired(); };
  const bool listed = symmetry != nullptr && !symmetry->trivial()
                          ? CanonicalConnectedSets(links, never, *symmetry, max_sets, expired, &sets)
                          : ConnectedSets(links, never, max_sets, expired, &sets);
  if (!listed) return false;
  bool complete = true;
  for (Mask set : sets) {
    if (budget_.Expired()) return false;
    const SubgraphPlan* plan = plans_.Get(Ids(set));
    if (plan == nullptr) continue;  // several sink shapes (rule 3.3)
    OpSet c;
    c.plan = plan;
    c.ops = set;
    c.produced = MaskOf(plan->produced());
    c.external = MaskOf(plan->external_inputs());
    c.sinks = MaskOf(plan->sinks());
    for (int t : plan->sinks()) {
      if (problem_.is_graph_output(t)) c.output_sinks |= Mask{1} << t;
    }
    for (int o : plan->ops()) c.compute_once += op_compute_[static_cast<size_t>(o)];
    c.tile_compute = TileComputeFloor(problem_, modes_.matmul_reduction, *plan);
    c.first_slices = FirstStepSlices(problem_, *plan);
    // Every retention subset that fits at all (Lemma X6 with nothing resident), the empty one
    // first; more than kMaxRetentionSets of them: the first ones only, and incomplete. Under
    // Lemma T5 more than relax_above of them: nothing and every tensor that fits alone.
    const std::vector<int>& produced = plan->produced();
    const int64_t most = relax_above > 0 ? relax_above : kMaxRetentionSets;
    bool over = false;
    auto grow = [&](auto&& self, size_t next, Mask kept, int64_t held) -> void {
      if (over) return;
      if (c.retention.size() >= static_cast<size_t>(most)) {
        over = true;
        return;
      }
      c.retention.push_back(kept);
      for (size_t i = next; i < produced.size(); ++i) {
        const int64_t size = problem_.tensor(produced[i]).size();
        if (held + size <= capacity_) self(self, i + 1, kept | (Mask{1} << produced[i]), held + size);
      }
    };
    grow(grow, 0, 0, 0);
    if (over && relax_above > 0) {
      Mask every = 0;
      for (int t : produced) {
        if (problem_.tensor(t).size() <= capacity_) every |= Mask{1} << t;
      }
      c.retention = {0, every};
      c.retention_relaxed = true;
    } else if (over) {
      complete = false;
    }
    op_sets_.push_back(std::move(c));
  }
  return complete;
}

double ContextPricer::LoadStoreBound(const OpSet& c, Mask retained, Mask resident) const {
  int64_t elements = 0;
  for (int t : Ids(c.external & ~resident)) elements += problem_.tensor(t).size();
  for (int t : Ids((c.sinks & ~retained) | c.output_sinks)) elements += problem_.tensor(t).size();
  return static_cast<double>(elements) / bandwidth_;
}

// Every step's working set holds all of the resident and the retained tensors (rule 3.8,
// SPEC 6), so a context whose union of them exceeds the capacity never fits.
bool ContextPricer::HoldsFit(Mask retained, Mask resident) const {
  int64_t held = 0;
  for (int t : Ids(retained | resident)) held += problem_.tensor(t).size();
  return held <= capacity_;
}

int64_t ContextPricer::FirstStepFloor(const OpSet& c, const CostModel::HeldSpace& held, Mask resident, int64_t w,
                                      int64_t h) const {
  return search::FirstStepFloor(c.first_slices, held, resident, c.plan->width(), c.plan->height(), w, h);
}

double ContextPricer::GridComputeFloor(const OpSet& c, int64_t w, int64_t h) const {
  return static_cast<double>(CeilDiv(c.plan->width(), w) * CeilDiv(c.plan->height(), h)) * c.tile_compute;
}

double ContextPricer::FitComputeBound(const OpSet& c, Mask retained, Mask resident) const {
  const SubgraphPlan& plan = *c.plan;
  const GranularityBounds bounds = model_.Bounds(plan);
  if (bounds.min_w > bounds.max_w || bounds.min_h > bounds.max_h) return kInf;
  const CostModel::HeldSpace held = model_.Held(plan, Ids(retained), Ids(resident));
  const int64_t width = plan.width(), height = plan.height();
  // The tile count falls and the floor rises in w and in h (Lemma X10): where the largest tile
  // fits, it has the fewest tiles.
  if (FirstStepFloor(c, held, resident, bounds.max_w, bounds.max_h) <= capacity_) {
    return static_cast<double>(CeilDiv(width, bounds.max_w) * CeilDiv(height, bounds.max_h)) * c.tile_compute;
  }
  // Per count of tile columns, its narrowest width only: the same columns, and the tallest tile
  // that fits beside it is at least as tall as beside any wider one.
  std::vector<int64_t> widths;
  for (int64_t w = bounds.min_w; w <= bounds.max_w;) {
    widths.push_back(w);
    const int64_t columns = CeilDiv(width, w);
    if (columns <= 1) break;
    w = std::max(w + 1, CeilDiv(width, columns - 1));  // the narrowest width of fewer columns
  }
  // Those at which a tile min_h tall fits: a prefix, since a wider tile holds no less (Lemma
  // X10: the floor is nondecreasing in w and in h).
  size_t fitting = 0;
  for (size_t lo = 0, hi = widths.size(); lo < hi;) {
    const size_t mid = lo + (hi - lo) / 2;
    if (FirstStepFloor(c, held, resident, widths[mid], bounds.min_h) <= capacity_) {
      fitting = mid + 1;
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  // From the widest down: the tallest tile that fits only grows as the width shrinks, and no
  // narrower width has fewer tiles than its columns times the rows of the tallest tile, which
  // grow as the width shrinks, so the walk stops there. The least count of the prefix, exactly.
  const int64_t fewest_rows = CeilDiv(height, bounds.max_h);
  int64_t fewest = -1, tallest = bounds.min_h;
  for (size_t i = fitting; i-- > 0;) {
    const int64_t columns = CeilDiv(width, widths[i]);
    if (fewest >= 0 && columns * fewest_rows >= fewest) break;
    int64_t lo = tallest, hi = bounds.max_h;  // fits at lo (at a wider width, or min_h)
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (FirstStepFloor(c, held, resident, widths[i], mid) <= capacity_) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    tallest = lo;
    const int64_t tiles = columns * CeilDiv(height, lo);
    if (fewest < 0 || tiles < fewest) fewest = tiles;
  }
  return fewest < 0 ? kInf : static_cast<double>(fewest) * c.tile_compute;
}

// The cheapest order of `plan` at granularity `g` (which fits: `peak`): every permutation of a
// small grid; otherwise the five named orders, which are complete only when the order cannot
// matter or a tried order is compute-bound at every step (Lemma X2). Improves `value`'s ub.
ContextPricer::OrderResult ContextPricer::BestOrder(const SubgraphPlan& plan, const Granularity& g, int64_t peak,
                                                    bool order_matters, std::span<const int> retained_ids,
                                                    std::span<const int> resident_ids, ContextValue* value) const {
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
      while (std::next_permutation(perm.begin(), perm.end())) orders.push_back({TraversalKind::kRaster, perm});
    } else {
      result.complete = false;
      for (TraversalKind kind : {TraversalKind::kSnakeRows, TraversalKind::kColumnMajor, TraversalKind::kSnakeCols,
                                 TraversalKind::kBlocked}) {
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

ContextValue ContextPricer::Price(int index, Mask retained, Mask resident, Pricing mode, double target) {
  ContextValue value = Evaluate(index, retained, resident, mode, target);
  Count(value);
  return value;
}

void ContextPricer::Count(const ContextValue& value) {
  if (value.by_classes) ++class_contexts_;
  if (value.orders_unproven) ++orders_unproven_;
}

ContextValue ContextPricer::Evaluate(int index, Mask retained, Mask resident, Pricing mode, double target) const {
  const OpSet& c = op_sets_[static_cast<size_t>(index)];
  const SubgraphPlan& plan = *c.plan;
  ContextValue value;
  if (!HoldsFit(retained, resident)) return value;  // lb = ub = infinity
  // The whole tile space of rules 3.4 and 7b (Lemma X1).
  const GranularityBounds bounds = model_.Bounds(plan);
  const int64_t max_k = plan.split_roots().empty() ? 1 : bounds.max_k;
  const int64_t count = std::max<int64_t>(0, bounds.max_w - bounds.min_w + 1) *
                        std::max<int64_t>(0, bounds.max_h - bounds.min_h + 1) * max_k;
  if (count > max_tile_configs_) {
    PriceByClasses(c, retained, resident, mode, target, &value);
    // Lemma X3 holds for every configuration too.
    value.lb = std::max(value.lb, std::max(c.compute_once, LoadStoreBound(c, retained, resident)));
  } else {
    PriceEveryTile(c, retained, resident, mode, &value);
  }
  return value;
}

void ContextPricer::PriceEveryTile(const OpSet& c, Mask retained, Mask resident, Pricing mode,
                                   ContextValue* value) const {
  const SubgraphPlan& plan = *c.plan;
  const std::vector<int> retained_ids = Ids(retained), resident_ids = Ids(resident);
  const double traffic = LoadStoreBound(c, retained, resident);
  const GranularityBounds bounds = model_.Bounds(plan);
  const int64_t max_k = plan.split_roots().empty() ? 1 : bounds.max_k;
  const bool mixed = plan.mixed_rows() || plan.mixed_cols();
  const bool order_matters = OrderMatters(plan, resident);
  bool unproven = false;
  for (int64_t w = bounds.min_w; w <= bounds.max_w; ++w) {
    if (budget_.Expired()) {
      // Stopped part-way: only the X3 bound stands for this context.
      value->lb = std::min(value->ub, std::max(c.compute_once, traffic));
      break;
    }
    for (int64_t h = bounds.min_h; h <= bounds.max_h; ++h) {
      for (int64_t k = 1; k <= max_k; ++k) {
        const Granularity g{w, h, k};
        if (!model_.CheckGranularity(plan, g).ok()) continue;
        const int64_t peak = model_.PeakWorkingSet(plan, g, retained_ids, resident_ids);
        if (peak > capacity_) continue;
        if (mode == Pricing::kLowerOnly) {  // Lemma X7's order-free bound at this grid
          double b = GridComputeFloor(c, w, h);
          if (!mixed || !HasCoincidence(plan, w, h, k)) {
            b = std::max(b, model_.OrderFreeBound(plan, g, plan.width(), plan.height(), retained_ids, resident_ids,
                                                  /*allow_mixed=*/true));
          } else if (CeilDiv(plan.width(), w) * CeilDiv(plan.height(), h) <= kMaxTileByTileTiles) {
            b = std::max(b, model_.AnyPlanOrderFreeBound(plan, g, retained_ids, resident_ids));
          }
          value->lb = std::min(value->lb, std::max({traffic, c.compute_once, b}));
          continue;
        }
        const OrderResult best = BestOrder(plan, g, peak, order_matters, retained_ids, resident_ids, value);
        if (best.latency == kInf) continue;
        // Orders not proven complete: Lemma X7's order-free bound at this very grid.
        const double lb_g =
            best.complete ? best.latency
                          : std::max({best.compute, traffic,
                                      model_.OrderFreeBound(plan, g, plan.width(), plan.height(), retained_ids,
                                                            resident_ids)});
        if (!best.complete) unproven = true;
        value->lb = std::min(value->lb, lb_g);
      }
    }
  }
  value->orders_unproven = unproven;
}

namespace {

// Lemma X7's classes at one k: the class (cw, ch) of tile sizes costs at least cheap.
struct ClassItem {
  double cheap;
  size_t wi, hi;
  int64_t k;
};

}  // namespace

void ContextPricer::PriceByClasses(const OpSet& c, Mask retained, Mask resident, Pricing mode, double target,
                                   ContextValue* value) const {
  const SubgraphPlan& plan = *c.plan;
  const std::vector<int> retained_ids = Ids(retained), resident_ids = Ids(resident);
  const GranularityBounds bounds = model_.Bounds(plan);
  const int64_t max_k = plan.split_roots().empty() ? 1 : bounds.max_k;
  const std::vector<DimClass> wc = DimClasses(plan.width(), bounds.min_w, bounds.max_w);
  const std::vector<DimClass> hc = DimClasses(plan.height(), bounds.min_h, bounds.max_h);
  const bool order_matters = OrderMatters(plan, resident);
  value->by_classes = true;
  // Per k and per kind of grid (one column or more, one row or more): a lower bound on one
  // tile's latency over every order and every tile size, from tiles of 1 x 1 (or the whole
  // extent where there is one tile), so that class (rows, cols, k) costs at least
  // rows x cols x that. Classes whose bound is already hopeless (at least the target) are not
  // sorted; the least of their bounds stands.
  std::vector<ClassItem> items;
  double hopeless_floor = kInf;
  for (int64_t k = 1; k <= max_k; ++k) {
    if (!model_.CheckGranularity(plan, {bounds.max_w, bounds.max_h, k}).ok()) continue;
    double per_tile[2][2] = {{-1, -1}, {-1, -1}};
    for (size_t wi = 0; wi < wc.size(); ++wi) {
      for (size_t hi = 0; hi < hc.size(); ++hi) {
        const bool one_col = wc[wi].count == 1, one_row = hc[hi].count == 1;
        double& tile = per_tile[one_col][one_row];
        if (tile < 0) {
          tile = model_.TileBound(plan, k, 1, 1, one_col, one_row, retained_ids, resident_ids, /*allow_mixed=*/true);
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
  std::sort(items.begin(), items.end(), [](const ClassItem& a, const ClassItem& b) {
    return std::tie(a.cheap, a.k, a.wi, a.hi) < std::tie(b.cheap, b.k, b.wi, b.hi);
  });
  double lb = kInf;
  size_t next = 0;
  for (; next < items.size(); ++next) {
    const ClassItem& item = items[next];
    // Every class from here on costs at least item.cheap: none can lower the minimum, or all
    // are hopeless (the bound then stays at least item.cheap); or time is up.
    if (item.cheap >= lb || item.cheap >= target || ((next & 7) == 0 && budget_.Expired())) break;
    const DimClass& cw = wc[item.wi];
    const DimClass& ch = hc[item.hi];
    const Granularity rep{cw.lo, ch.lo, item.k};
    // The class's smallest tiles: its peak working set is the least of the class's.
    const int64_t peak = model_.PeakWorkingSet(plan, rep, retained_ids, resident_ids);
    if (peak > capacity_) continue;
    double class_lb = ClassLowerBound(model_, plan, cw, ch, item.k, retained_ids, resident_ids);
    const bool single = (cw.count == 1 || cw.lo == cw.hi) && (ch.count == 1 || ch.lo == ch.hi);
    if (mode == Pricing::kExact && (class_lb < value->ub || single)) {
      const OrderResult best = BestOrder(plan, rep, peak, order_matters, retained_ids, resident_ids, value);
      // One grid in the class and its orders complete: the class costs exactly that.
      if (single && best.complete && best.latency < kInf) class_lb = std::max(class_lb, best.latency);
    }
    lb = std::min(lb, class_lb);
  }
  lb = std::min(lb, next < items.size() ? items[next].cheap : hopeless_floor);
  // A mixed plan: the class bounds hold only for tiles where no tile interval equals a k-slice;
  // every tile where one does is costed on its own (its lb per Lemma X2, or X3 when cut).
  if (plan.mixed_rows() || plan.mixed_cols()) lb = MixedMembers(c, retained, resident, mode, target, lb, value);
  // The class bound is at most its representative's cost; equal sums may differ in the last
  // bits (a rounding of the same steps, summed in another order).
  assert(value->ub == kInf || lb <= value->ub * (1 + 1e-9));
  value->lb = std::min(lb, value->ub);
}

// The members of a mixed plan's classes with a coincidence, each costed on its own; returns the
// context's lb (`lb`: the classes' so far). In mode kLowerOnly, members whose Lemma X8 floor
// reaches the target are not costed, and the lb is at most the target.
double ContextPricer::MixedMembers(const OpSet& c, Mask retained, Mask resident, Pricing mode, double target,
                                   double lb, ContextValue* value) const {
  const SubgraphPlan& plan = *c.plan;
  const std::vector<int> retained_ids = Ids(retained), resident_ids = Ids(resident);
  const GranularityBounds bounds = model_.Bounds(plan);
  const int64_t max_k = plan.split_roots().empty() ? 1 : bounds.max_k;
  const bool order_matters = OrderMatters(plan, resident);
  const bool lower_only = mode == Pricing::kLowerOnly;
  const double traffic = LoadStoreBound(c, retained, resident);
  const CostModel::HeldSpace held = model_.Held(plan, retained_ids, resident_ids);
  // The tile sizes worth a look at any k, in the order of the loops below: the floor of the
  // first step's working set fits (Lemma X10: what is held, the first tile's buffers and the
  // slices it reads; SPEC 6: otherwise no step fits), and in tier 2 the grid's Lemma X8 floor
  // is below the lb so far (otherwise it cannot lower it).
  struct Size {
    int64_t w, h;
    double floor;  // max(compute once, X3, Lemma X8 at this grid)
  };
  std::vector<Size> sizes;
  for (int64_t w = bounds.min_w; w <= bounds.max_w; ++w) {
    for (int64_t h = bounds.min_h; h <= bounds.max_h; ++h) {
      if (FirstStepFloor(c, held, resident, w, h) > capacity_) break;  // taller tiles hold no less (X10)
      const double floor = std::max({c.compute_once, traffic, GridComputeFloor(c, w, h)});
      if (lower_only && floor >= lb) continue;
      sizes.push_back({w, h, floor});
    }
  }
  for (int64_t k = 1; k <= max_k; ++k) {
    for (size_t si = 0; si < sizes.size(); ++si) {
      // The clock, every 8 sizes (a k can hold thousands, each costed over its orders; a
      // clock read is a few tens of nanoseconds).
      if ((si & 7) == 0 && budget_.Expired()) {
        lb = std::min(lb, std::max(c.compute_once, traffic));
        return lower_only ? std::min(lb, target) : lb;
      }
      const auto [w, h, floor] = sizes[si];
      const Granularity g{w, h, k};
      // Tier 2: a grid whose Lemma X8 floor is already at least lb cannot lower it, and one at
      // least the target need not be costed (the target then caps the lb, below).
      const double cut = std::min(lb, target);
      if (lower_only && floor >= cut) continue;
      if (!HasCoincidence(plan, w, h, k)) continue;
      if (!model_.CheckGranularity(plan, g).ok()) continue;
      // One step already overflows.
      if (model_.FirstStepWorkingSet(plan, g, retained_ids, resident_ids) > capacity_) continue;
      const int64_t peak = model_.PeakWorkingSet(plan, g, retained_ids, resident_ids);
      if (peak > capacity_) continue;
      const bool small_grid = CeilDiv(plan.width(), w) * CeilDiv(plan.height(), h) <= kMaxTileByTileTiles;
      if (lower_only) {  // the order-free bound of every tile
        double member_lb = floor;
        if (small_grid) {
          member_lb = std::max(member_lb, model_.AnyPlanOrderFreeBound(plan, g, retained_ids, resident_ids, cut));
        }
        lb = std::min(lb, member_lb);
        continue;
      }
      const OrderResult best = BestOrder(plan, g, peak, order_matters, retained_ids, resident_ids, value);
      if (best.latency == kInf) continue;
      double member_lb = best.complete ? best.latency : std::max(best.compute, floor);
      // Orders not proven and the weak bound below the context's: the order-free bound of
      // this grid (every tile costed: grids of at most 4,096 tiles).
      if (!best.complete && member_lb < lb && small_grid) {
        member_lb = std::max(member_lb, model_.AnyPlanOrderFreeBound(plan, g, retained_ids, resident_ids));
      }
      lb = std::min(lb, member_lb);
    }
  }
  // Members skipped at the target cost at least it: the lb is at most the target (tier 2).
  return lower_only ? std::min(lb, target) : lb;
}

}  // namespace tilesched::search
