// Traversal orders of a subgraph's tile grid.
//
// Entry point: MakeTraversal(kind, rows, cols) returns the permutation of tile ids (empty for
// raster, which needs none). Only the previous step's slices are reused (SPEC.md section 5), so
// an order is good when each tile shares a row or a column with the one before: the snakes do
// that at every move, and dominate raster and column-major in loads.
#ifndef TILESCHED_SEARCH_TRAVERSAL_H_
#define TILESCHED_SEARCH_TRAVERSAL_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tilesched::search {

enum class TraversalKind : uint8_t {
  kRaster,       // row by row, left to right
  kSnakeRows,    // row by row, alternating direction
  kColumnMajor,  // column by column, top to bottom
  kSnakeCols,    // column by column, alternating direction
};

const char* TraversalName(TraversalKind kind);

// Tile ids in visiting order; empty for kRaster (the solution format's default).
std::vector<int64_t> MakeTraversal(TraversalKind kind, int64_t rows, int64_t cols);

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_TRAVERSAL_H_
