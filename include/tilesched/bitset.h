// Bitset: a small dynamic set of ids (ops or tensors) as 64-bit words, for the lower bounds'
// reachability (src/bound/) and the search's states (search/).
//
// Entry point: Bitset(n) holds ids 0..n-1, all clear; Set / Reset / Test one id, Or / And /
// Intersects another set of the same size, Count, ForEach over the set ids in increasing order.
#ifndef TILESCHED_BITSET_H_
#define TILESCHED_BITSET_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tilesched {

class Bitset {
 public:
  Bitset() = default;
  explicit Bitset(int n) : words_((static_cast<size_t>(n) + 63) / 64, 0) {}
  void Set(int i) { words_[static_cast<size_t>(i) / 64] |= uint64_t{1} << (i % 64); }
  void Reset(int i) { words_[static_cast<size_t>(i) / 64] &= ~(uint64_t{1} << (i % 64)); }
  bool Test(int i) const { return (words_[static_cast<size_t>(i) / 64] >> (i % 64)) & 1; }
  int Count() const {
    int n = 0;
    for (uint64_t w : words_) n += std::popcount(w);
    return n;
  }
  void Or(const Bitset& other) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] |= other.words_[w];
  }
  void And(const Bitset& other) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] &= other.words_[w];
  }
  bool Intersects(const Bitset& other) const {
    for (size_t w = 0; w < words_.size(); ++w) {
      if (words_[w] & other.words_[w]) return true;
    }
    return false;
  }
  template <typename F>
  void ForEach(F&& f) const {
    for (size_t w = 0; w < words_.size(); ++w) {
      for (uint64_t bits = words_[w]; bits; bits &= bits - 1) {
        f(static_cast<int>(w * 64 + static_cast<size_t>(std::countr_zero(bits))));
      }
    }
  }
  bool operator==(const Bitset&) const = default;
  // The words, lowest ids first (for hashing).
  std::span<const uint64_t> words() const { return words_; }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace tilesched

#endif  // TILESCHED_BITSET_H_
