// Bitset: a small dynamic set of ids (ops or tensors) as 64-bit words, for the lower bounds'
// reachability (src/bound/) and the search's states (search/).
//
// Entry point: Bitset(n) holds ids 0..n-1, all clear; Set / Reset / Test one id, Or / And /
// Intersects another set of the same size, Count, ForEach over the set ids in increasing order.
// Up to 1,024 ids it allocates nothing (its words live inside it). A moved-from set is the
// empty set (no ids), whatever its size was.
#ifndef TILESCHED_BITSET_H_
#define TILESCHED_BITSET_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace tilesched {

class Bitset {
 public:
  Bitset() = default;
  explicit Bitset(int n) : size_((static_cast<size_t>(n) + 63) / 64) {
    if (size_ > kInline) heap_.assign(size_, 0);
  }
  Bitset(const Bitset&) = default;
  Bitset& operator=(const Bitset&) = default;
  // A defaulted move would leave a heap set's size with no words behind it.
  Bitset(Bitset&& other) noexcept : size_(other.size_), inline_(other.inline_), heap_(std::move(other.heap_)) {
    other.Clear();
  }
  Bitset& operator=(Bitset&& other) noexcept {
    if (this != &other) {
      size_ = other.size_;
      inline_ = other.inline_;
      heap_ = std::move(other.heap_);
      other.Clear();
    }
    return *this;
  }
  void Set(int i) { data()[static_cast<size_t>(i) / 64] |= uint64_t{1} << (i % 64); }
  void Reset(int i) { data()[static_cast<size_t>(i) / 64] &= ~(uint64_t{1} << (i % 64)); }
  bool Test(int i) const { return (data()[static_cast<size_t>(i) / 64] >> (i % 64)) & 1; }
  int Count() const {
    int n = 0;
    for (uint64_t w : words()) n += std::popcount(w);
    return n;
  }
  void Or(const Bitset& other) {
    uint64_t* w = data();
    const uint64_t* o = other.data();
    for (size_t i = 0; i < size_; ++i) w[i] |= o[i];
  }
  void And(const Bitset& other) {
    uint64_t* w = data();
    const uint64_t* o = other.data();
    for (size_t i = 0; i < size_; ++i) w[i] &= o[i];
  }
  bool Intersects(const Bitset& other) const {
    const uint64_t* w = data();
    const uint64_t* o = other.data();
    for (size_t i = 0; i < size_; ++i) {
      if (w[i] & o[i]) return true;
    }
    return false;
  }
  template <typename F>
  void ForEach(F&& f) const {
    const uint64_t* w = data();
    for (size_t i = 0; i < size_; ++i) {
      for (uint64_t bits = w[i]; bits; bits &= bits - 1) {
        f(static_cast<int>(i * 64 + static_cast<size_t>(std::countr_zero(bits))));
      }
    }
  }
  bool operator==(const Bitset& other) const { return std::ranges::equal(words(), other.words()); }
  // The words, lowest ids first (for hashing).
  std::span<const uint64_t> words() const { return {data(), size_}; }

 private:
  // Sets of up to kInline x 64 ids live inside the object, so copying one (the search's states
  // do, for every child) allocates nothing; larger ones on the heap.
  static constexpr size_t kInline = 16;
  void Clear() {
    size_ = 0;
    heap_.clear();
  }
  uint64_t* data() { return size_ > kInline ? heap_.data() : inline_.data(); }
  const uint64_t* data() const { return size_ > kInline ? heap_.data() : inline_.data(); }

  size_t size_ = 0;  // words
  std::array<uint64_t, kInline> inline_{};
  std::vector<uint64_t> heap_;
};

}  // namespace tilesched

#endif  // TILESCHED_BITSET_H_
