// The price of one piece of a subgraph that crosses cores (search/piece_price.h; docs/bounds.md
// "Cores", Lemma V3). The flags of V3 are carried by the evaluator's own arguments where they
// only change loads and stores (imports and external-shared tensors passed as resident: never
// loaded; exports as retained: never stored); the fit is Lemma X10's first-step floor counted
// with the flags, never the piece's own peak (a subgraph may spread the piece's last step over
// two of its own).
#include "piece_price.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <tuple>

#include "tile_classes.h"
#include "tilesched/demand.h"
#include "tilesched/graph.h"
#include "tilesched/grid.h"

namespace tilesched::search {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Mixed grids with a coincidence are bounded tile by tile up to this many tiles.
constexpr int64_t kMaxTileByTileTiles = 4096;

bool Has(const std::vector<int>& sorted, int x) { return std::binary_search(sorted.begin(), sorted.end(), x); }

std::vector<int> Merged(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}

// Lemma X7 by classes of tile counts (tile_classes.h), with the weighted step cost: per k and
// class pair, the larger of `cheap` at its tile count and (where no member has a coincidence)
// the class bound; classes whose smallest tiles do not fit (X10 with the flags, nondecreasing)
// are left out, and classes are visited cheapest first (per-tile bound of 1 x 1 tiles times the
// tile count) until none can lower the least so far.
template <typename Cheap>
double ByClasses(const CostModel& model, const SubgraphPlan& plan, const PieceFitFloor& fit, double lambda,
                 const std::vector<int>& kept, const std::vector<int>& free, const Budget* budget, Cheap&& cheap) {
  const GranularityBounds bounds = model.Bounds(plan);
  const int64_t max_k = plan.split_roots().empty() ? 1 : bounds.max_k;
  const std::vector<DimClass> wc = DimClasses(plan.width(), bounds.min_w, bounds.max_w);
  const std::vector<DimClass> hc = DimClasses(plan.height(), bounds.min_h, bounds.max_h);
  const int64_t capacity = model.problem().hardware().fast_memory_capacity;
  // A member of the class with a tile interval equal to a k-slice (a mixed plan): the class and
  // tile bounds do not cover it, the cheap bound does.
  auto coincident = [&](const DimClass& cw, const DimClass& ch, int64_t k) {
    bool any = false;
    for (int64_t w = cw.lo; w <= cw.hi && plan.mixed_cols() && !any; ++w) any = DimCoincides(plan.width(), w, k);
    for (int64_t h = ch.lo; h <= ch.hi && plan.mixed_rows() && !any; ++h) any = DimCoincides(plan.height(), h, k);
    return any;
  };
  struct Item {
    double cheap;
    size_t wi, hi;
    int64_t k;
    bool coincident;
  };
  std::vector<Item> items;
  for (int64_t k = 1; k <= max_k; ++k) {
    if (!model.CheckGranularity(plan, {bounds.max_w, bounds.max_h, k}).ok()) continue;
    double per_tile[2][2] = {{-1, -1}, {-1, -1}};
    for (size_t wi = 0; wi < wc.size(); ++wi) {
      for (size_t hi = 0; hi < hc.size(); ++hi) {
        if (fit.At(wc[wi].lo, hc[hi].lo) > capacity) continue;
        const int64_t tiles = wc[wi].count * hc[hi].count;
        const bool any = coincident(wc[wi], hc[hi], k);
        double b = cheap(tiles);
        if (!any) {
          double& tile = per_tile[wc[wi].count == 1][hc[hi].count == 1];
          if (tile < 0) {
            tile = model.TileBound(plan, k, 1, 1, wc[wi].count == 1, hc[hi].count == 1, kept, free,
                                   /*allow_mixed=*/true, lambda);
          }
          b = std::max(b, static_cast<double>(tiles) * tile);
        }
        items.push_back({b, wi, hi, k, any});
      }
    }
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.cheap, a.k, a.wi, a.hi) < std::tie(b.cheap, b.k, b.wi, b.hi);
  });
  double best = kInf;
  for (const Item& item : items) {
    if (budget != nullptr && budget->Expired()) return 0;  // stopped: nothing claimed
    if (item.cheap >= best) break;  // every later class costs at least this
    double b = item.cheap;
    if (!item.coincident) {
      b = std::max(b, ClassLowerBound(model, plan, wc[item.wi], hc[item.hi], item.k, kept, free, lambda));
    }
    best = std::min(best, b);
  }
  return best;
}

}  // namespace

PieceContext PieceOf(const Problem& problem, const CoreSplit& split, const std::vector<int>& ops,
                     const std::vector<int>& piece, const std::vector<int>& retained,
                     const std::vector<int>& resident) {
  PieceContext out;
  out.ops = piece;
  std::sort(out.ops.begin(), out.ops.end());
  std::vector<int> all = ops;
  std::sort(all.begin(), all.end());
  std::vector<int> retained_sorted = retained;  // Has() needs sorted lists
  std::sort(retained_sorted.begin(), retained_sorted.end());
  auto in_piece = [&](int o) { return o >= 0 && Has(out.ops, o); };
  auto in_subgraph = [&](int o) { return o >= 0 && Has(all, o); };
  std::vector<int> reads;
  for (int o : out.ops) {
    const Op& op = problem.op(o);
    for (int t : op.inputs) {
      reads.push_back(t);
      const int p = problem.producer(t);
      if (split.cut[static_cast<size_t>(t)] == CutKind::kGlue && in_subgraph(p) && !in_piece(p)) {
        out.imports.push_back(t);
      }
    }
    const int t = op.output;
    if (Has(retained_sorted, t)) out.retained.push_back(t);
    if (split.cut[static_cast<size_t>(t)] != CutKind::kGlue) continue;
    for (int e : problem.graph().successors(o)) {
      if (in_subgraph(e) && !in_piece(e)) {
        out.exports.push_back(t);
        break;
      }
    }
  }
  for (int t : resident) {
    if (std::find(reads.begin(), reads.end(), t) != reads.end()) out.resident.push_back(t);
  }
  for (std::vector<int>* v : {&out.imports, &out.exports, &out.retained, &out.resident}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return out;
}

PieceFitFloor::PieceFitFloor(const Problem& problem, const CostModes& modes, const SubgraphPlan& plan,
                             const PieceContext& piece)
    : plan_w_(plan.width()), plan_h_(plan.height()), first_(FirstStepSlices(problem, plan)) {
  // Held whole: the retained and the resident tensors. Tile buffers: the sinks that are neither
  // retained nor exported, and (contest 7a) the split roots that are not sinks and not retained.
  for (int t : Merged(piece.retained, piece.resident)) held_.held += problem.tensor(t).size();
  int64_t sinks_kept = 0, roots_kept = 0, nonsink_roots_kept = 0;
  for (int t : plan.sinks()) sinks_kept += !Has(piece.retained, t) && !Has(piece.exports, t);
  for (size_t i = 0; i < plan.split_roots().size(); ++i) {
    const int t = problem.op(plan.split_roots()[i]).output;
    if (Has(piece.retained, t) || Has(piece.exports, t)) continue;
    ++roots_kept;
    nonsink_roots_kept += !plan.root_is_sink()[i];
  }
  // Under algebra the buffers are a max over the whole subgraph, not a sum over its pieces.
  held_.buffers = modes.rules == Rules::kContest ? TileBuffers(modes.rules, sinks_kept, roots_kept, nonsink_roots_kept)
                                                 : 0;
  // Not counted as slices: imports (produced inside the subgraph) and resident tensors (held).
  skipped_ = Merged(piece.imports, piece.resident);
}

int64_t PieceFitFloor::At(int64_t w, int64_t h) const {
  return FirstStepFloorSkipping(first_, held_, [this](int t) { return Has(skipped_, t); }, plan_w_, plan_h_, w, h);
}

PiecePriceResult PiecePrice(const Problem& problem, const CostModes& modes, const CoreSplit& split,
                            const PieceContext& piece, double lambda, int64_t max_tile_configs, const Budget* budget) {
  PiecePriceResult result;
  assert(lambda >= 0 && lambda <= 1);
  auto created = SubgraphPlan::Create(problem, piece.ops);
  // 0, nothing claimed: not a subgraph, or a lambda outside [0, 1] (a negative one would select
  // the latency in the cost model's order-free bounds).
  if (!created.ok() || !(lambda >= 0 && lambda <= 1)) return result;
  const SubgraphPlan& plan = *created;
  const CostModel model(problem, modes);
  const Hardware& hw = problem.hardware();
  // Never loaded: resident, imported (produced by another piece), or external-shared (paid once
  // per subgraph outside the piece). Never stored: retained, or exported.
  std::vector<int> free = Merged(piece.resident, piece.imports);
  std::vector<int> shared;
  for (int t : plan.external_inputs()) {
    if (split.cut[static_cast<size_t>(t)] == CutKind::kExternalShared && !Has(piece.resident, t)) shared.push_back(t);
  }
  free = Merged(free, shared);
  const std::vector<int> kept = Merged(piece.retained, piece.exports);
  // Lemma X3 with the flags, Lemma C1.
  int64_t traffic_elements = 0;
  for (int t : plan.external_inputs()) {
    if (!Has(free, t)) traffic_elements += problem.tensor(t).size();
  }
  for (int t : plan.sinks()) {
    if (!Has(kept, t) || problem.is_graph_output(t)) traffic_elements += problem.tensor(t).size();
  }
  const double traffic = static_cast<double>(traffic_elements) / hw.slow_memory_bandwidth;
  double compute_once = 0;
  for (int o : plan.ops()) compute_once += OpComputeOnce(problem, o, modes.matmul_reduction);

  const GranularityBounds bounds = model.Bounds(plan);
  const int64_t max_k = plan.split_roots().empty() ? 1 : bounds.max_k;
  const int64_t count = std::max<int64_t>(0, bounds.max_w - bounds.min_w + 1) *
                        std::max<int64_t>(0, bounds.max_h - bounds.min_h + 1) * max_k;
  const PieceFitFloor fit(problem, modes, plan, piece);
  const double tile_floor = TileComputeFloor(problem, modes.matmul_reduction, plan);
  // Every grid of `tiles` tiles: lambda x max(C1, X8) + (1 - lambda) x X3 (coincidences included).
  auto cheap = [&](int64_t tiles) {
    return lambda * std::max(compute_once, static_cast<double>(tiles) * tile_floor) + (1 - lambda) * traffic;
  };
  if (count > max_tile_configs) {
    result.by_classes = true;
    result.value = ByClasses(model, plan, fit, lambda, kept, free, budget, cheap);
    return result;
  }
  result.enumerated = true;
  const bool mixed = plan.mixed_rows() || plan.mixed_cols();
  double best = kInf;
  for (int64_t w = bounds.min_w; w <= bounds.max_w; ++w) {
    for (int64_t h = bounds.min_h; h <= bounds.max_h; ++h) {
      if (budget != nullptr && budget->Expired()) {
        result.value = 0;  // stopped: nothing claimed
        return result;
      }
      if (fit.At(w, h) > hw.fast_memory_capacity) {
        break;  // taller tiles hold no less (X10)
      }
      const int64_t tiles = CeilDiv(plan.width(), w) * CeilDiv(plan.height(), h);
      for (int64_t k = 1; k <= max_k; ++k) {
        const Granularity g{w, h, k};
        if (!model.CheckGranularity(plan, g).ok()) continue;
        double b = cheap(tiles);
        if (!mixed || !HasCoincidence(plan, w, h, k)) {
          b = std::max(b, model.OrderFreeBound(plan, g, plan.width(), plan.height(), kept, free,
                                               /*allow_mixed=*/true, lambda));
        } else if (tiles <= kMaxTileByTileTiles) {
          b = std::max(b, model.AnyPlanOrderFreeBound(plan, g, kept, free, kInf, lambda));
        }
        best = std::min(best, b);
      }
    }
  }
  result.value = best;
  return result;
}

}  // namespace tilesched::search
