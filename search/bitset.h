// Bits: a small dynamic bitset for search states (ops covered, tensors in slow memory).
#ifndef TILESCHED_SEARCH_BITSET_H_
#define TILESCHED_SEARCH_BITSET_H_

#include <bit>
#include <cstdint>
#include <vector>

#include "hashing.h"

namespace tilesched::search {

class Bits {
 public:
  Bits() = default;
  explicit Bits(int n) : words_(static_cast<size_t>((n + 63) / 64), 0) {}
  void Set(int i) { words_[static_cast<size_t>(i) >> 6] |= uint64_t{1} << (i & 63); }
  void Reset(int i) { words_[static_cast<size_t>(i) >> 6] &= ~(uint64_t{1} << (i & 63)); }
  bool Test(int i) const { return (words_[static_cast<size_t>(i) >> 6] >> (i & 63)) & 1; }
  int Count() const {
    int n = 0;
    for (uint64_t w : words_) n += std::popcount(w);
    return n;
  }
  bool operator==(const Bits&) const = default;
  uint64_t Hash(uint64_t seed = 0x452821e638d01377ULL) const {
    uint64_t h = seed;
    for (uint64_t w : words_) h = MixHash(h, w);
    return h;
  }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_BITSET_H_
