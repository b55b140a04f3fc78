// PlanCache: SubgraphPlans by op set, built once and shared by every thread.
//
// Entry point: PlanCache::Get(ops) returns a stable pointer to the plan of the sorted op set,
// or nullptr when the set is not a valid subgraph (rules 3.2-3.3). Safe to call concurrently.
#ifndef TILESCHED_SEARCH_PLAN_CACHE_H_
#define TILESCHED_SEARCH_PLAN_CACHE_H_

#include <memory>
#include <vector>

#include "tilesched/demand.h"
#include "tilesched/problem.h"

namespace tilesched::search {

class PlanCache {
 public:
  explicit PlanCache(const Problem& problem);
  ~PlanCache();
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  // `ops` must be sorted and duplicate-free.
  const SubgraphPlan* Get(const std::vector<int>& ops);
  size_t size() const;
  const Problem& problem() const { return problem_; }

 private:
  struct Impl;
  const Problem& problem_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_PLAN_CACHE_H_
