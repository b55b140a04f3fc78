// ModelCoster: Configurator behind a concurrent memo.
#include "coster.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <vector>

#include "hashing.h"

namespace tilesched::search {

namespace {

// The memo's key: the subgraph's shape and context with op and tensor ids replaced by their
// ranks inside the subgraph (issue 12: a stack of identical blocks repeats the same shapes).
// Ranks keep the ids' order, so two subgraphs with one key are costed by the very same
// arithmetic in the same order (the cost model reads only op types, base costs, tensor shapes,
// which tensors are graph inputs, graph outputs and sinks, and the retained and resident
// sets): sharing the answer changes no result, at any thread count. A resident tensor the
// subgraph does not touch only takes space, so it enters the key by its size alone.
// Written into `key` (cleared first); the buffers are the caller's so that a memo hit allocates
// nothing.
void ShapeKey(const Problem& problem, const SubgraphPlan& plan, std::span<const int> retained,
              std::span<const int> resident, std::vector<int64_t>& key) {
  thread_local std::vector<int> local;  // tensors the ops read or write, by id
  local.clear();
  for (int o : plan.ops()) {
    const Op& op = problem.op(o);
    local.insert(local.end(), op.inputs.begin(), op.inputs.end());
    local.push_back(op.output);
  }
  std::sort(local.begin(), local.end());
  local.erase(std::unique(local.begin(), local.end()), local.end());
  auto rank = [&](int t) -> int64_t {
    const auto it = std::lower_bound(local.begin(), local.end(), t);
    return it != local.end() && *it == t ? it - local.begin() : -1;
  };
  key.clear();
  key.push_back(static_cast<int64_t>(plan.ops().size()));
  for (int o : plan.ops()) {
    const Op& op = problem.op(o);
    key.push_back(op.type == OpType::kMatMul ? 1 : 2);
    key.push_back(std::bit_cast<int64_t>(op.base_cost));
    key.push_back(static_cast<int64_t>(op.inputs.size()));
    for (int t : op.inputs) key.push_back(rank(t));
    key.push_back(rank(op.output));
  }
  key.push_back(static_cast<int64_t>(local.size()));
  for (int t : local) {
    const bool sink = std::binary_search(plan.sinks().begin(), plan.sinks().end(), t);
    key.push_back(problem.tensor(t).width);
    key.push_back(problem.tensor(t).height);
    key.push_back(int64_t{problem.is_graph_input(t)} | int64_t{problem.is_graph_output(t)} << 1 |
                  int64_t{sink} << 2);
  }
  // Retained tensors are produced inside; a foreign one (not expected) keeps its id, unshared.
  key.push_back(static_cast<int64_t>(retained.size()));
  for (int t : retained) {
    const int64_t r = rank(t);
    key.push_back(r >= 0 ? r : -2 - int64_t{t});
  }
  // The resident tensors the ops touch (count, then ranks), then the others' total size.
  const size_t count_at = key.size();
  key.push_back(0);
  int64_t untouched_size = 0;
  for (int t : resident) {
    const int64_t r = rank(t);
    if (r >= 0) {
      key.push_back(r);
      ++key[count_at];
    } else {
      untouched_size += problem.tensor(t).size();
    }
  }
  key.push_back(untouched_size);
}

struct MemoKeyCompare {
  static size_t hash(const std::vector<int64_t>& k) {
    uint64_t h = MixHash(0x243f6a8885a308d3ULL, k.size());
    for (int64_t v : k) h = MixHash(h, static_cast<uint64_t>(v));
    return h;
  }
  static bool equal(const std::vector<int64_t>& a, const std::vector<int64_t>& b) { return a == b; }
};

// The front of the memo: per thread, a direct-mapped table of the last answers by the context's
// ids themselves (ops, retained, resident) and the coster that gave them. A plan is a function
// of its ops, so equal ids ask the same question, and the answer is the one the memo gave: the
// table changes no result, it only spares a hit the shape key and the shared map. Contexts with
// more than kFrontIds ids in all skip it.
constexpr size_t kFrontIds = 40;
constexpr size_t kFrontSlots = 4096;  // a power of two
struct FrontEntry {
  uint64_t coster = 0;  // 0: empty
  uint8_t ops = 0, retained = 0, resident = 0;
  std::array<int, kFrontIds> ids{};
  std::optional<TileChoice> choice;
};

// Writes the context's ids into `ids` and returns their hash, or nothing when they do not fit.
std::optional<uint64_t> FrontKey(uint64_t coster, const SubgraphPlan& plan,
                                 std::span<const int> retained, std::span<const int> resident,
                                 FrontEntry* key) {
  const size_t n = plan.ops().size() + retained.size() + resident.size();
  if (n > kFrontIds) return std::nullopt;
  key->coster = coster;
  key->ops = static_cast<uint8_t>(plan.ops().size());
  key->retained = static_cast<uint8_t>(retained.size());
  key->resident = static_cast<uint8_t>(resident.size());
  auto out = std::copy(plan.ops().begin(), plan.ops().end(), key->ids.begin());
  out = std::copy(retained.begin(), retained.end(), out);
  std::copy(resident.begin(), resident.end(), out);
  uint64_t h = MixHash(coster, (uint64_t{key->ops} << 16) | (uint64_t{key->retained} << 8) | key->resident);
  for (size_t i = 0; i < n; ++i) h = MixHash(h, static_cast<uint32_t>(key->ids[i]));
  return h;
}

bool SameContext(const FrontEntry& a, const FrontEntry& b) {
  if (a.coster != b.coster || a.ops != b.ops || a.retained != b.retained || a.resident != b.resident) {
    return false;
  }
  const size_t n = size_t{a.ops} + a.retained + a.resident;
  return std::equal(a.ids.begin(), a.ids.begin() + static_cast<std::ptrdiff_t>(n), b.ids.begin());
}

std::atomic<uint64_t> next_coster_id{1};

}  // namespace

struct ModelCoster::Memo {
  ConcurrentCache<std::vector<int64_t>, std::optional<TileChoice>, MemoKeyCompare> map;
  std::atomic<int64_t> misses{0};
};

ModelCoster::ModelCoster(const CostModel& model, ConfigureOptions options,
                         SearchProgress* progress)
    : configurator_(model, options),
      memo_(std::make_unique<Memo>()),
      progress_(progress),
      id_(next_coster_id.fetch_add(1, std::memory_order_relaxed)) {}
ModelCoster::~ModelCoster() = default;

std::optional<TileChoice> ModelCoster::Configure(const SubgraphPlan& plan,
                                                 std::span<const int> retained,
                                                 std::span<const int> resident) {
  if (progress_) progress_->costings.fetch_add(1, std::memory_order_relaxed);
  thread_local std::vector<FrontEntry> front(kFrontSlots);
  thread_local FrontEntry asked;
  const std::optional<uint64_t> front_hash = FrontKey(id_, plan, retained, resident, &asked);
  FrontEntry* slot_in_front = nullptr;
  if (front_hash) {
    slot_in_front = &front[*front_hash & (kFrontSlots - 1)];
    if (SameContext(*slot_in_front, asked)) return slot_in_front->choice;
  }
  auto remember = [&](const std::optional<TileChoice>& choice) {
    if (slot_in_front == nullptr) return;
    // The key again: whatever ran on this thread meanwhile may have used `asked`.
    FrontKey(id_, plan, retained, resident, &asked);
    asked.choice = choice;
    std::swap(*slot_in_front, asked);
  };
  thread_local std::vector<int64_t> key;
  ShapeKey(configurator_.model().problem(), plan, retained, resident, key);
  {
    decltype(memo_->map)::const_accessor found;
    if (memo_->map.find(found, key)) {
      remember(found->second);
      return found->second;
    }
  }
  memo_->misses.fetch_add(1, std::memory_order_relaxed);
  if (progress_) progress_->configurations.fetch_add(1, std::memory_order_relaxed);
  std::optional<TileChoice> choice = configurator_.Best(plan, retained, resident);
  decltype(memo_->map)::accessor slot;
  if (memo_->map.insert(slot, key)) slot->second = choice;
  remember(slot->second);
  return slot->second;
}

int64_t ModelCoster::evaluations() const { return memo_->misses.load(); }

}  // namespace tilesched::search
