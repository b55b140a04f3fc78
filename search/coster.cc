// ModelCoster: Configurator behind a concurrent memo.
#include "coster.h"

#include <algorithm>
#include <atomic>
#include <bit>

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

}  // namespace

struct ModelCoster::Memo {
  ConcurrentCache<std::vector<int64_t>, std::optional<TileChoice>, MemoKeyCompare> map;
  std::atomic<int64_t> misses{0};
};

ModelCoster::ModelCoster(const CostModel& model, ConfigureOptions options,
                         SearchProgress* progress)
    : configurator_(model, options), memo_(std::make_unique<Memo>()), progress_(progress) {}
ModelCoster::~ModelCoster() = default;

std::optional<TileChoice> ModelCoster::Configure(const SubgraphPlan& plan,
                                                 std::span<const int> retained,
                                                 std::span<const int> resident) {
  if (progress_) progress_->costings.fetch_add(1, std::memory_order_relaxed);
  thread_local std::vector<int64_t> key;
  ShapeKey(configurator_.model().problem(), plan, retained, resident, key);
  {
    decltype(memo_->map)::const_accessor found;
    if (memo_->map.find(found, key)) return found->second;
  }
  memo_->misses.fetch_add(1, std::memory_order_relaxed);
  if (progress_) progress_->configurations.fetch_add(1, std::memory_order_relaxed);
  std::optional<TileChoice> choice = configurator_.Best(plan, retained, resident);
  decltype(memo_->map)::accessor slot;
  if (memo_->map.insert(slot, key)) slot->second = choice;
  return slot->second;
}

int64_t ModelCoster::evaluations() const { return memo_->misses.load(); }

}  // namespace tilesched::search
