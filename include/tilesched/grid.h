// Grid: the execution grid of one subgraph (SPEC.md section 4) and k-slicing of reductions.
//
// Entry points: Grid(width, height, granularity) cuts the sink shape into rows x cols tiles,
// numbered row-major, edge tiles clipped; SliceInterval() gives k-slice j of an extent;
// ValidateTraversal() checks a traversal order is a permutation of the tile ids.
#ifndef TILESCHED_GRID_H_
#define TILESCHED_GRID_H_

#include <cstdint>
#include <vector>

#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

// Half-open index range [begin, end) along one tensor dimension.
struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t length() const { return end - begin; }
  bool operator==(const Interval&) const = default;
  auto operator<=>(const Interval&) const = default;
};

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// k-slice j of a reduction of length `extent`: [j*k, min(extent, (j+1)*k)).
inline Interval SliceInterval(int64_t j, int64_t k, int64_t extent) {
  const int64_t begin = j * k;
  return {begin, begin + k < extent ? begin + k : extent};
}

class Grid {
 public:
  Grid(int64_t width, int64_t height, int64_t w, int64_t h);

  int64_t width() const { return width_; }
  int64_t height() const { return height_; }
  int64_t tile_w() const { return w_; }
  int64_t tile_h() const { return h_; }
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t num_tiles() const { return rows_ * cols_; }

  Interval RowInterval(int64_t r) const { return {r * h_, r + 1 < rows_ ? (r + 1) * h_ : height_}; }
  Interval ColInterval(int64_t c) const { return {c * w_, c + 1 < cols_ ? (c + 1) * w_ : width_}; }
  // True when tile row r / column c is clipped (shorter than h / w).
  bool RowClipped(int64_t r) const { return r + 1 == rows_ && height_ % h_ != 0; }
  bool ColClipped(int64_t c) const { return c + 1 == cols_ && width_ % w_ != 0; }

 private:
  int64_t width_, height_, w_, h_, rows_, cols_;
};

// Rule 7: `order` is empty (raster) or a permutation of 0..num_tiles-1.
Status ValidateTraversal(const std::vector<int64_t>& order, int64_t num_tiles);

}  // namespace tilesched

#endif  // TILESCHED_GRID_H_
