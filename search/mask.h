// Mask: a set of ops or tensors by id, ids 0-127, as two 64-bit words with the operators of an
// unsigned 128-bit integer (the project builds without compiler extensions, so there is no
// `unsigned __int128` with <bit>). Tier 2, the exact mode and the brute-force tests' contexts are
// sets of ops and tensors (docs/bounds.md); this is their one representation.
//
// Entry points: Mask{1} << id, the bitwise and shift operators, m - 1 (to walk bits:
// `for (Mask m = set; m; m &= m - 1) ... CountrZero(m)`), Popcount, CountrZero, MaskHash.
#ifndef TILESCHED_SEARCH_MASK_H_
#define TILESCHED_SEARCH_MASK_H_

#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <ostream>

namespace tilesched::search {

class Mask {
 public:
  static constexpr int kBits = 128;

  constexpr Mask() = default;
  constexpr Mask(uint64_t low) : lo_(low) {}  // NOLINT(google-explicit-constructor): an integer's literal
  constexpr Mask(uint64_t high, uint64_t low) : lo_(low), hi_(high) {}

  constexpr uint64_t low() const { return lo_; }
  constexpr uint64_t high() const { return hi_; }
  constexpr explicit operator bool() const { return (lo_ | hi_) != 0; }
  constexpr bool operator!() const { return (lo_ | hi_) == 0; }
  constexpr bool test(int i) const { return i < 64 ? ((lo_ >> i) & 1) != 0 : ((hi_ >> (i - 64)) & 1) != 0; }

  friend constexpr Mask operator|(Mask a, Mask b) { return {a.hi_ | b.hi_, a.lo_ | b.lo_}; }
  friend constexpr Mask operator&(Mask a, Mask b) { return {a.hi_ & b.hi_, a.lo_ & b.lo_}; }
  friend constexpr Mask operator^(Mask a, Mask b) { return {a.hi_ ^ b.hi_, a.lo_ ^ b.lo_}; }
  constexpr Mask operator~() const { return {~hi_, ~lo_}; }
  constexpr Mask& operator|=(Mask b) { return *this = *this | b; }
  constexpr Mask& operator&=(Mask b) { return *this = *this & b; }
  constexpr Mask& operator^=(Mask b) { return *this = *this ^ b; }

  // Shifts by 0-127 places, as an unsigned 128-bit integer's.
  friend constexpr Mask operator<<(Mask a, int s) {
    if (s == 0) return a;
    if (s >= 64) return {a.lo_ << (s - 64), 0};
    return {(a.hi_ << s) | (a.lo_ >> (64 - s)), a.lo_ << s};
  }
  friend constexpr Mask operator>>(Mask a, int s) {
    if (s == 0) return a;
    if (s >= 64) return {0, a.hi_ >> (s - 64)};
    return {a.hi_ >> s, (a.lo_ >> s) | (a.hi_ << (64 - s))};
  }
  constexpr Mask& operator<<=(int s) { return *this = *this << s; }
  constexpr Mask& operator>>=(int s) { return *this = *this >> s; }
  // Modulo 2^128, as an unsigned 128-bit integer's.
  friend constexpr Mask operator-(Mask a, Mask b) {
    return {a.hi_ - b.hi_ - (a.lo_ < b.lo_ ? 1 : 0), a.lo_ - b.lo_};
  }

  friend constexpr bool operator==(Mask a, Mask b) = default;
  // As unsigned 128-bit integers (std::map keys and sorted listings keep their old order).
  friend constexpr std::strong_ordering operator<=>(Mask a, Mask b) {
    if (a.hi_ != b.hi_) return a.hi_ <=> b.hi_;
    return a.lo_ <=> b.lo_;
  }

  friend constexpr int Popcount(Mask a) { return std::popcount(a.lo_) + std::popcount(a.hi_); }
  // The lowest id in a non-empty mask (128 for the empty one).
  friend constexpr int CountrZero(Mask a) {
    return a.lo_ != 0 ? std::countr_zero(a.lo_) : 64 + std::countr_zero(a.hi_);
  }

 private:
  uint64_t lo_ = 0, hi_ = 0;
};

// In hexadecimal, for test messages.
inline std::ostream& operator<<(std::ostream& out, Mask m) {
  const char* digits = "0123456789abcdef";
  char text[33];
  int n = 0;
  for (int shift = 124; shift >= 0; shift -= 4) {
    const uint64_t digit = ((m >> shift).low()) & 15;
    if (digit != 0 || n > 0 || shift == 0) text[n++] = digits[digit];
  }
  text[n] = 0;
  return out << "0x" << text;
}

// For unordered containers of masks.
struct MaskHash {
  size_t operator()(Mask m) const {
    uint64_t x = m.low() ^ (m.high() * 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<size_t>(x ^ (x >> 31));
  }
};

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_MASK_H_
