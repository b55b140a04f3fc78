// Concurrent plan cache on oneTBB's concurrent_hash_map.
#include "plan_cache.h"

#include "hashing.h"

namespace tilesched::search {

namespace {

struct KeyCompare {
  static size_t hash(const std::vector<int>& key) { return HashIds(key); }
  static bool equal(const std::vector<int>& a, const std::vector<int>& b) { return a == b; }
};

}  // namespace

struct PlanCache::Impl {
  // nullptr entries remember op sets that are not valid subgraphs.
  ConcurrentCache<std::vector<int>, std::shared_ptr<const SubgraphPlan>, KeyCompare> map;
};

PlanCache::PlanCache(const Problem& problem) : problem_(problem), impl_(std::make_unique<Impl>()) {}
PlanCache::~PlanCache() = default;

const SubgraphPlan* PlanCache::Get(const std::vector<int>& ops) {
  {
    decltype(impl_->map)::const_accessor found;
    if (impl_->map.find(found, ops)) return found->second.get();
  }
  std::shared_ptr<const SubgraphPlan> plan;
  auto created = SubgraphPlan::Create(problem_, ops);
  if (created.ok()) plan = std::make_shared<const SubgraphPlan>(std::move(created).value());
  decltype(impl_->map)::accessor slot;
  if (impl_->map.insert(slot, ops)) slot->second = std::move(plan);
  return slot->second.get();
}

size_t PlanCache::size() const { return impl_->map.size(); }

}  // namespace tilesched::search
