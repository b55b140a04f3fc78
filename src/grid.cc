// Grid geometry and traversal validation.
#include "tilesched/grid.h"

#include <cassert>
#include <string>

namespace tilesched {

Grid::Grid(int64_t width, int64_t height, int64_t w, int64_t h)
    : width_(width), height_(height), w_(w), h_(h) {
  assert(width > 0 && height > 0 && w > 0 && h > 0);
  rows_ = CeilDiv(height, h);
  cols_ = CeilDiv(width, w);
}

Status ValidateTraversal(const std::vector<int64_t>& order, int64_t num_tiles) {
  if (order.empty()) return Status::Ok();
  if (static_cast<int64_t>(order.size()) != num_tiles) {
    return Status::Error("traversal order has " + std::to_string(order.size()) +
                         " entries but the grid has " + std::to_string(num_tiles) + " tiles");
  }
  std::vector<bool> seen(static_cast<size_t>(num_tiles), false);
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t tile = order[i];
    if (tile < 0 || tile >= num_tiles) {
      return Status::Error("traversal order entry " + std::to_string(i) + " is tile " +
                           std::to_string(tile) + ", out of range [0, " +
                           std::to_string(num_tiles) + ")");
    }
    if (seen[static_cast<size_t>(tile)]) {
      return Status::Error("traversal order lists tile " + std::to_string(tile) + " twice");
    }
    seen[static_cast<size_t>(tile)] = true;
  }
  return Status::Ok();
}

}  // namespace tilesched
