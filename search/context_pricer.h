// ContextPricer: bounds on the latency of one subgraph context, the unit that both the exact
// mode (search/exact.cc) and tier 2 of the lower bound (search/tier2.cc) price. A context is a
// connected op set that SubgraphPlan accepts (an OpSet), the tensors it retains,
// and the tensors resident when it starts (docs/bounds.md, "The exact mode", Lemmas X1-X10).
//
// Entry points: ContextPricer(problem, modes, plans, budget, max_tile_configs);
// EnumerateOpSets(max_sets) lists every connected op set that may be a subgraph (Lemma T6), or
// for tier 2 one per orbit of a Symmetry (Lemma T7), and its fitting retention subsets (or, for
// tier 2, the two of Lemma T5 when there are too many);
// Price(op_set, retained, resident, mode, target) bounds every configuration of the context,
// and in the mode kExact also finds the cheapest configuration it can (the `ub` the exact mode's
// paths are built from). Cheaper bounds for the same contexts: LoadStoreBound (X3),
// FitComputeBound (X8 b), HoldsFit (X6). Problems of at most 64 ops and 128 tensors (Fits).
#ifndef TILESCHED_SEARCH_CONTEXT_PRICER_H_
#define TILESCHED_SEARCH_CONTEXT_PRICER_H_

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "context.h"
#include "mask.h"
#include "plan_cache.h"
#include "tile_classes.h"
#include "tilesched/cost_model.h"
#include "tilesched/problem.h"
#include "tilesched/search.h"
#include "tilesched/schedule.h"

namespace tilesched::search {

class Symmetry;  // search/symmetry.h

// The ids in a set of ops or tensors, ascending; the set of ids.
std::vector<int> Ids(Mask mask);
Mask MaskOf(const std::vector<int>& ids);

// Every subset of the tensors `ids` whose sizes, added to `held`, fit `capacity` (Lemma X6),
// walked depth-first from the empty one: a subset that does not fit has no superset that fits,
// so only the fitting ones are visited. `visit(subset)` returns false to stop the walk; the
// result is false when it was stopped.
template <typename Visit>
bool ForEachFittingSubset(const Problem& problem, const std::vector<int>& ids, int64_t held, int64_t capacity,
                          Visit&& visit) {
  bool stopped = false;
  auto walk = [&](auto&& self, size_t next, Mask subset, int64_t size) -> void {
    if (stopped) return;
    if (!visit(subset)) {
      stopped = true;
      return;
    }
    for (size_t k = next; k < ids.size(); ++k) {
      const int64_t grown = size + problem.tensor(ids[k]).size();
      if (grown <= capacity) self(self, k + 1, subset | (Mask{1} << ids[k]), grown);
    }
  };
  walk(walk, 0, 0, held);
  return !stopped;
}

// One connected op set and what its contexts share.
struct OpSet {
  const SubgraphPlan* plan = nullptr;
  Mask ops = 0, produced = 0, external = 0, sinks = 0, output_sinks = 0;
  std::vector<Mask> retention;  // the retention subsets enumerated (X0, X6)
  // Lemma T5: more retention subsets fit than EnumerateOpSets' `relax_above`, so `retention` is
  // {nothing, every produced tensor that fits alone}, the second standing for all of them (tier
  // 2 prices it as nothing retained, less the stores retention can save).
  bool retention_relaxed = false;
  double compute_once = 0;  // Lemma C1 summed over its ops
  double tile_compute = 0;  // Lemma X8: what every tile of every grid computes at least
  std::vector<FirstSlice> first_slices;  // Lemma X10: what every tile's first step reads
};

// One subgraph context's price: a lower bound on every configuration, and (mode kExact) the
// cheapest configuration found.
struct ContextValue {
  double lb = std::numeric_limits<double>::infinity();
  double ub = std::numeric_limits<double>::infinity();
  TileChoice choice;
  bool by_classes = false;       // priced by tile classes (Lemma X7)
  bool orders_unproven = false;  // kExact: some grid's orders not proven complete (Lemma X2)
};

enum class Pricing {
  kExact,      // lb and ub: tiles and orders are costed (the exact mode)
  kLowerOnly,  // lb only, up to the target: no configuration is costed for its ub (tier 2)
};

class ContextPricer {
 public:
  // The largest problem listed (kTier2MaxOps, kTier2MaxTensors): the masks hold 128 ops, but
  // more than 64 give far more connected op sets than are listed.
  static constexpr int kMaxOps = kTier2MaxOps, kMaxTensors = kTier2MaxTensors;
  static_assert(kMaxOps <= Mask::kBits && kMaxTensors <= Mask::kBits);
  static bool Fits(const Problem& problem) {
    return problem.num_ops() <= kMaxOps && problem.num_tensors() <= kMaxTensors;
  }

  // Above `max_tile_configs` (w, h, k) triples a context is priced by tile classes (Lemma X7).
  ContextPricer(const Problem& problem, const CostModes& modes, PlanCache& plans, const Budget& budget,
                int64_t max_tile_configs);

  // Every connected op set (ESU enumeration) that SubgraphPlan accepts and that holds no two ops
  // of a never-fusable edge (Lemma T6, NeverTogether), with every retention
  // subset that fits alone (X6). False when there are more than `max_sets` op sets (then none
  // is listed) or when time ran out, and when some op set has more than 4,096 retention subsets
  // (then only the first ones are listed). With `adjacency` (per op, the ops it may be joined
  // to), only the op sets connected over it, which must be a subset of rule 3.2's links (the
  // cores' kept links: search/core_lp.h). With `relax_above` > 0, an op set with more than that
  // many retention subsets is listed with two, nothing and all (OpSet::retention_relaxed, Lemma
  // T5), and does not make the listing incomplete.
  // With a non-trivial `symmetry` (and no `adjacency`), one op set per orbit, its representative
  // (Lemma T7).
  bool EnumerateOpSets(int64_t max_sets, const std::vector<Mask>* adjacency = nullptr, int64_t relax_above = 0,
                       const Symmetry* symmetry = nullptr);
  const std::vector<OpSet>& op_sets() const { return op_sets_; }
  const OpSet& op_set(int index) const { return op_sets_[static_cast<size_t>(index)]; }
  // Lemma C1 per op.
  double OpCompute(int o) const { return op_compute_[static_cast<size_t>(o)]; }

  // Lemma X3: external inputs not resident are loaded whole, written tensors stored whole.
  double LoadStoreBound(const OpSet& c, Mask retained, Mask resident) const;
  // Lemma X8 with the fit (X8 b): the fewest tiles of any grid whose first tile fits beside
  // what is held, times the floor; infinity when no tile size fits.
  double FitComputeBound(const OpSet& c, Mask retained, Mask resident) const;
  // Lemma X6: every step's working set holds all of the resident and the retained tensors.
  bool HoldsFit(Mask retained, Mask resident) const;

  // The context (op set `op_set`, retained, resident): a lower bound on every configuration (Lemmas
  // X1-X8; infinity when none fits), and with kExact the cheapest configuration found. Tile
  // classes whose cheap bound reaches `target` are not refined: the lb then stays at least the
  // target, or (kLowerOnly, a mixed plan) is at most it.
  ContextValue Price(int op_set, Mask retained, Mask resident, Pricing mode, double target);
  // The same without counting it: reads only, so any number of threads may call it at once
  // (tier 2 prices contexts ahead in parallel); Count(value) counts one it used.
  ContextValue Evaluate(int op_set, Mask retained, Mask resident, Pricing mode, double target) const;
  void Count(const ContextValue& value);

  // Contexts priced by tile classes; contexts whose orders were not proven complete (kExact).
  int64_t class_contexts() const { return class_contexts_; }
  int64_t orders_unproven() const { return orders_unproven_; }

 private:
  struct OrderResult {
    double latency = std::numeric_limits<double>::infinity(), compute = 0;
    bool complete = false;  // no order is cheaper at this granularity (Lemma X2)
  };
  OrderResult BestOrder(const SubgraphPlan& plan, const Granularity& g, int64_t peak, bool order_matters,
                        std::span<const int> retained_ids, std::span<const int> resident_ids,
                        ContextValue* value) const;
  // The whole tile space, granularity by granularity (Lemma X1).
  void PriceEveryTile(const OpSet& c, Mask retained, Mask resident, Pricing mode, ContextValue* value) const;
  // Lemma X7: by classes of tile counts; then, for a mixed plan, the members with a coincidence.
  void PriceByClasses(const OpSet& c, Mask retained, Mask resident, Pricing mode, double target,
                      ContextValue* value) const;
  double MixedMembers(const OpSet& c, Mask retained, Mask resident, Pricing mode, double target, double lb,
                      ContextValue* value) const;
  // Lemma X10 for op set c's plan (FirstStepFloor in tile_classes.h).
  int64_t FirstStepFloor(const OpSet& c, const CostModel::HeldSpace& held, Mask resident, int64_t w,
                         int64_t h) const;
  // Lemma X8 for a grid of w x h tiles: every tile computes at least the floor.
  double GridComputeFloor(const OpSet& c, int64_t w, int64_t h) const;

  const Problem& problem_;
  const CostModes modes_;
  CostModel model_;
  PlanCache& plans_;
  const Budget& budget_;
  const int64_t max_tile_configs_;
  const int64_t capacity_;
  const double bandwidth_;
  std::vector<double> op_compute_;
  std::vector<OpSet> op_sets_;
  int64_t class_contexts_ = 0, orders_unproven_ = 0;
};

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_CONTEXT_PRICER_H_
