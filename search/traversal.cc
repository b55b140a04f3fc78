// Traversal order construction.
#include "traversal.h"

#include <utility>

namespace tilesched::search {

const char* TraversalName(TraversalKind kind) {
  switch (kind) {
    case TraversalKind::kRaster:
      return "raster";
    case TraversalKind::kSnakeRows:
      return "snake-rows";
    case TraversalKind::kColumnMajor:
      return "column-major";
    case TraversalKind::kSnakeCols:
      return "snake-cols";
    case TraversalKind::kBlocked:
      return "blocked";
  }
  return "?";
}

std::vector<int64_t> MakeTraversal(TraversalKind kind, int64_t rows, int64_t cols) {
  std::vector<int64_t> order;
  if (kind == TraversalKind::kRaster) return order;
  order.reserve(static_cast<size_t>(rows * cols));
  if (kind == TraversalKind::kBlocked) {
    // Blocks of 2x2 tiles (clipped at the edges) in row-snake order; inside a block the U
    // (0,0) (0,1) (1,1) (1,0) keeps every inner move on a shared row or column.
    const int64_t block_rows = (rows + 1) / 2, block_cols = (cols + 1) / 2;
    for (int64_t br = 0; br < block_rows; ++br) {
      for (int64_t i = 0; i < block_cols; ++i) {
        const int64_t bc = br % 2 ? block_cols - 1 - i : i;
        for (auto [dr, dc] : {std::pair<int64_t, int64_t>{0, 0}, {0, 1}, {1, 1}, {1, 0}}) {
          const int64_t r = 2 * br + dr, c = 2 * bc + dc;
          if (r < rows && c < cols) order.push_back(r * cols + c);
        }
      }
    }
    return order;
  }
  if (kind == TraversalKind::kSnakeRows) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < cols; ++i) order.push_back(r * cols + (r % 2 ? cols - 1 - i : i));
    }
  } else {
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t r = kind == TraversalKind::kSnakeCols && c % 2 ? rows - 1 - i : i;
        order.push_back(r * cols + c);
      }
    }
  }
  return order;
}

}  // namespace tilesched::search
