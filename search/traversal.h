// Traversal orders of a subgraph's tile grid.
//
// Entry point: MakeTraversal(kind, rows, cols) returns the permutation of tile ids (empty for
// raster, which needs none). Only the previous step's slices are reused (SPEC.md section 5), so
// a move between tiles saves what depends only on the shared row (LHS-like strips) or only on
// the shared column (RHS-like strips), never both. A row snake makes every move share a row
// except one per row, which shares a column; no order makes more moves share a row, and every
// move of a snake shares something. The saving is linear in the number of row-sharing moves,
// so the better of the two snakes is never beaten by raster, column-major or blocked orders
// (up to clipped edge tiles) in a plan that is not mixed.
// In a mixed plan (a tensor read both by tile rows or columns and by k-slices, such as a
// residual that is also a MatMul's LHS) a tile interval can equal a k-slice, and a move can
// also save a slice that depends on its direction: the last k-step of tile (r, 0) needs the
// residual's x[r, col 0], the next tile's first k-slice only if that tile is (r, 1). Raster
// makes that move in every row, a row snake in every other row, so raster can win.
// The configurator therefore tries the snakes on every tile, raster and column-major on the
// best tile of a mixed plan, and every order on request (ConfigureOptions::all_orders).
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
  kBlocked,      // 2x2 blocks, each visited in a U, blocks in a row snake
};

const char* TraversalName(TraversalKind kind);

// Tile ids in visiting order; empty for kRaster (the solution format's default).
std::vector<int64_t> MakeTraversal(TraversalKind kind, int64_t rows, int64_t cols);

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_TRAVERSAL_H_
