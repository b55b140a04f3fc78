// Traversal order construction.
#include "traversal.h"

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
  }
  return "?";
}

std::vector<int64_t> MakeTraversal(TraversalKind kind, int64_t rows, int64_t cols) {
  std::vector<int64_t> order;
  if (kind == TraversalKind::kRaster) return order;
  order.reserve(static_cast<size_t>(rows * cols));
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
