// Configurator: the best tile size, split-k factor and traversal order of one subgraph, given
// what it retains and what is resident when it starts (issue: per-candidate configuration).
//
// Entry point: Configurator::Best(plan, retained, resident). Stages, cheapest first (Timeloop's
// mapper): candidate sizes that respect the tile bounds and contest rule 7b -> the working-set
// check (CostModel::PeakWorkingSet, monotone in w, h and k, so the largest fitting w per (h, k)
// is found by bisection) -> full costing of the surviving Pareto-maximal tiles in both snake
// orders. Rejections are counted per stage.
#ifndef TILESCHED_SEARCH_CONFIGURE_H_
#define TILESCHED_SEARCH_CONFIGURE_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tilesched/cost_model.h"
#include "tilesched/demand.h"
#include "tilesched/search.h"
#include "traversal.h"

namespace tilesched::search {

struct TileChoice {
  Granularity granularity;
  TraversalKind traversal = TraversalKind::kRaster;
  double latency = 0;
  int64_t peak_working_set = 0;
  // Non-empty: this permutation of the tiles instead of `traversal` (the exact search
  // enumerates every order of small grids, search/context_pricer.cc).
  std::vector<int64_t> order;
};

struct ConfigureStats {
  std::atomic<int64_t> calls{0};
  std::atomic<int64_t> rejected_bounds{0};   // no tile size satisfies rule 3.4 / 7b
  std::atomic<int64_t> rejected_memory{0};   // working set check failed
  std::atomic<int64_t> costed{0};            // full Cost() evaluations
  std::atomic<int64_t> infeasible{0};        // calls that found nothing
};

// Distinct balanced sizes ceil(extent / n) for tile counts n from the fewest tiles upward,
// largest first, at most `max_count`, never above `limit`.
std::vector<int64_t> BalancedSizes(int64_t extent, int64_t limit, int max_count);

class Configurator {
 public:
  Configurator(const CostModel& model, ConfigureOptions options = {})
      : model_(model), options_(options) {}

  std::optional<TileChoice> Best(const SubgraphPlan& plan, std::span<const int> retained,
                                 std::span<const int> resident) const;

  // Latency of one given configuration (nullopt when invalid or over capacity).
  std::optional<TileChoice> Evaluate(const SubgraphPlan& plan, const Granularity& g,
                                     TraversalKind traversal, std::span<const int> retained,
                                     std::span<const int> resident) const;

  // Split-k factors tried for `plan` (empty when it has no split root).
  std::vector<int64_t> KCandidates(const SubgraphPlan& plan) const;

  const ConfigureStats& stats() const { return stats_; }
  const CostModel& model() const { return model_; }

 private:
  const CostModel& model_;
  ConfigureOptions options_;
  mutable ConfigureStats stats_;
};

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_CONFIGURE_H_
