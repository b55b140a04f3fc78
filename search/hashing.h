// Hashes of id lists and id sets used as cache keys in the search, and the concurrent map the
// caches use.
#ifndef TILESCHED_SEARCH_HASHING_H_
#define TILESCHED_SEARCH_HASHING_H_

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include <tbb/concurrent_hash_map.h>

#include "tilesched/bitset.h"

namespace tilesched::search {

inline uint64_t MixHash(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

inline uint64_t HashIds(std::span<const int> ids, uint64_t seed = 0x243f6a8885a308d3ULL) {
  uint64_t h = MixHash(seed, ids.size());
  for (int id : ids) h = MixHash(h, static_cast<uint64_t>(static_cast<uint32_t>(id)));
  return h;
}

// A set of ids (beam states: ops covered, tensors in slow memory).
inline uint64_t HashBits(const Bitset& bits, uint64_t seed = 0x452821e638d01377ULL) {
  uint64_t h = seed;
  for (uint64_t w : bits.words()) h = MixHash(h, w);
  return h;
}

struct IdsHash {
  size_t operator()(const std::vector<int>& ids) const { return HashIds(ids); }
};

// The search's concurrent caches. Nodes come from std::allocator, not oneTBB's scalable
// allocator: a stopped run keeps its caches alive until exit (freeing them would delay it), and
// LeakSanitizer cannot see inside tbbmalloc's pools, so it would report them as leaks.
template <typename Key, typename Value, typename Compare>
using ConcurrentCache =
    tbb::concurrent_hash_map<Key, Value, Compare, std::allocator<std::pair<const Key, Value>>>;

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_HASHING_H_
