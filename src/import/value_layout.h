// Layouts: how an N-D ONNX tensor is laid over the importer's 2-D virtual tensors.
//
// Each dimension of a Layout is a list of axes (outer to inner), each running over the rows or
// the columns of a base view, or over the list of base views itself ("batch": one base per head
// or per part of a concatenation). Reshape regroups the axes (Regroup), Transpose permutes the
// dimensions, Slice / Split / Gather with a constant index shift the bases (SliceDim), Expand
// and Tile repeat an axis with stride 0 (the same virtual tensor for every repeat), Concat
// stitches block grids (ConcatLayouts). An op that computes reads its operands as grids of 2-D
// blocks (ToBlocks) and its result is laid out from its blocks (FromBlocks).
//
// Entry points: DenseLayout, Regroup, Flat, ToBlocks, FromBlocks, SliceDim, ExpandTo,
// ConcatLayouts, RefineBlocks. Private to src/import/.
#ifndef TILESCHED_IMPORT_VALUE_LAYOUT_H_
#define TILESCHED_IMPORT_VALUE_LAYOUT_H_

#include <cstdint>
#include <vector>

#include "model_graph.h"
#include "shape_rules.h"
#include "tilesched/status.h"

namespace tilesched::import_internal {

enum class AxisKind { kBatch, kRow, kCol };
struct Axis {
  AxisKind kind;
  int64_t size;
  int64_t stride;  // 0: a repeat (Expand, Tile)
};
using Axes = std::vector<Axis>;

struct Layout {
  Dims dims;
  std::vector<Axes> axes;  // per dimension, outer to inner
  std::vector<View> bases;  // addressed by the batch axes; rows and columns are the view's own
};

// A 2-D operand as a grid of equally sized blocks, row-major.
struct Blocks {
  int64_t rb = 1, cb = 1, bs_r = 0, bs_c = 0;
  std::vector<View> views;
  const View& at(int64_t i, int64_t j) const { return views[i * cb + j]; }
  int64_t rows() const { return rb * bs_r; }
  int64_t cols() const { return cb * bs_c; }
};

// `dims` laid row-major over the whole of `base` (last dimension = columns).
Layout DenseLayout(const View& base, const Dims& dims);
// The non-unit axes of dimensions [from, to).
Axes Flat(const Layout& v, size_t from, size_t to);
// Splits the axes `flat` (outer to inner) into dimensions `dims`.
Result<std::vector<Axes>> Regroup(const Axes& flat, const Dims& dims);
// The same data with dimensions `dims` (a Reshape): fails when not a regrouping of the axes.
Result<Layout> Reshaped(const Layout& v, const Dims& dims);
// The 2-D blocks of the trailing dimensions at the leading index `lead` (dimensions before
// lead.size() fixed; the ones between it and the last fold into rows).
Result<Blocks> ToBlocks(const Layout& v, const std::vector<int64_t>& lead);
// A layout of `dims` whose first `lead` dimensions index `blocks` (row-major) and whose
// remaining dimensions are each block grid's rows (all but the last) and columns (the last).
Result<Layout> FromBlocks(const Dims& dims, size_t lead, const std::vector<Blocks>& blocks);
// Elements [start, end) of dimension d.
Result<Layout> SliceDim(const Layout& v, size_t d, int64_t start, int64_t end);
// Broadcast to `dims` (leading dimensions added, size-1 dimensions repeated with stride 0).
Result<Layout> ExpandTo(const Layout& v, const Dims& dims);
// Dimension d repeated `times` (Tile): the copies are outer, stride 0.
Layout Repeat(const Layout& v, size_t d, int64_t times);
// Concatenation along dimension d of layouts equal in every other dimension.
Result<Layout> ConcatLayouts(const std::vector<Layout>& parts, size_t d);
// Every block of `b` cut into blocks of bs_r x bs_c (which divide the block sizes).
Blocks RefineBlocks(const Blocks& b, int64_t bs_r, int64_t bs_c);
// All index tuples of dims[0, lead) in row-major order.
std::vector<std::vector<int64_t>> LeadTuples(const Dims& dims, size_t lead);

}  // namespace tilesched::import_internal

#endif  // TILESCHED_IMPORT_VALUE_LAYOUT_H_
