// ModelCoster: Configurator behind a concurrent memo.
#include "coster.h"

#include <atomic>

#include "hashing.h"

namespace tilesched::search {

namespace {

struct MemoKey {
  std::vector<int> ops, retained, resident;
  bool operator==(const MemoKey&) const = default;
};

struct MemoKeyCompare {
  static size_t hash(const MemoKey& k) {
    return HashIds(k.resident, HashIds(k.retained, HashIds(k.ops)));
  }
  static bool equal(const MemoKey& a, const MemoKey& b) { return a == b; }
};

}  // namespace

struct ModelCoster::Memo {
  ConcurrentCache<MemoKey, std::optional<TileChoice>, MemoKeyCompare> map;
  std::atomic<int64_t> misses{0};
};

ModelCoster::ModelCoster(const CostModel& model, ConfigureOptions options,
                         std::atomic<int64_t>* counter)
    : configurator_(model, options), memo_(std::make_unique<Memo>()), counter_(counter) {}
ModelCoster::~ModelCoster() = default;

std::optional<TileChoice> ModelCoster::Configure(const SubgraphPlan& plan,
                                                 std::span<const int> retained,
                                                 std::span<const int> resident) {
  // The key keeps the whole resident set: a resident tensor takes space even when unread.
  MemoKey key{plan.ops(), {retained.begin(), retained.end()}, {resident.begin(), resident.end()}};
  {
    decltype(memo_->map)::const_accessor found;
    if (memo_->map.find(found, key)) return found->second;
  }
  memo_->misses.fetch_add(1, std::memory_order_relaxed);
  if (counter_) counter_->fetch_add(1, std::memory_order_relaxed);
  std::optional<TileChoice> choice = configurator_.Best(plan, retained, resident);
  decltype(memo_->map)::accessor slot;
  if (memo_->map.insert(slot, std::move(key))) slot->second = choice;
  return slot->second;
}

int64_t ModelCoster::evaluations() const { return memo_->misses.load(); }

}  // namespace tilesched::search
