// Layouts of N-D tensors over 2-D virtual tensors (value_layout.h).
#include "value_layout.h"

#include <numeric>

namespace tilesched::import_internal {

namespace {

int64_t AxesOffset(const Axes& axes, int64_t index, AxisKind kind) {
  int64_t off = 0;
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
    if (it->kind == kind) off += (index % it->size) * it->stride;
    index /= it->size;
  }
  return off;
}

// One operand's axes: outer batch axes (one block per index), then axes of one kind (rows or
// columns of the base) that run contiguously.
struct SplitResult {
  Axes batch;
  int64_t blocks = 1;
  int64_t extent = 1;
  bool any = true;  // no non-batch axis: either orientation
  AxisKind kind = AxisKind::kRow;
};

Result<SplitResult> SplitAxes(const Axes& axes) {
  SplitResult s;
  size_t i = 0;
  for (; i < axes.size() && axes[i].kind == AxisKind::kBatch; ++i) {
    s.batch.push_back(axes[i]);
    s.blocks *= axes[i].size;
  }
  int64_t stride = 1;
  for (size_t j = axes.size(); j > i; --j) {
    const Axis& a = axes[j - 1];
    if (a.kind == AxisKind::kBatch) return Status::Error("heads interleaved with rows or columns");
    if (!s.any && a.kind != s.kind) return Status::Error("mixes rows and columns in one dimension");
    if (a.stride != stride) return Status::Error("not a contiguous slice");
    s.any = false;
    s.kind = a.kind;
    stride *= a.size;
    s.extent *= a.size;
  }
  return s;
}

bool InRange(const View& base, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  return 0 <= r0 && r0 <= r1 && r1 <= base.rows() && 0 <= c0 && c0 <= c1 && c1 <= base.cols();
}

Status NotAView(const Dims& dims, const std::string& why) {
  return Status::Error("operand of shape " + DimsString(dims) + " is not a 2-D view of its data (" + why + ")");
}

// Offsets of a slice, per axis kind.
struct Offsets {
  int64_t batch = 0, row = 0, col = 0;
  void Add(AxisKind kind, int64_t v) { (kind == AxisKind::kBatch ? batch : kind == AxisKind::kRow ? row : col) += v; }
};

Status SliceAxes(Axes* axes, int64_t s, int64_t e, Offsets* off) {
  int64_t total = 1;
  for (const Axis& a : *axes) total *= a.size;
  if (s == 0 && e == total) return Status::Ok();
  if (axes->empty()) return Status::Error("slice of an empty axis list");
  int64_t inner = total / (*axes)[0].size;
  Axis& a = (*axes)[0];
  if (s % inner == 0 && e % inner == 0) {
    off->Add(a.kind, (s / inner) * a.stride);
    a.size = (e - s) / inner;
    return Status::Ok();
  }
  if (s / inner == (e - 1) / inner) {
    off->Add(a.kind, (s / inner) * a.stride);
    axes->erase(axes->begin());
    return SliceAxes(axes, s % inner, s % inner + (e - s), off);
  }
  return Status::Error("the slice [" + std::to_string(s) + ", " + std::to_string(e) + ") cuts across heads");
}

int64_t Gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

}  // namespace

Layout DenseLayout(const View& base, const Dims& dims) {
  const int64_t cols = dims.empty() ? 1 : dims.back();
  const int64_t rows = dims.empty() ? 1 : Product(Dims(dims.begin(), dims.end() - 1));
  Layout v;
  v.dims = dims;
  v.bases = {base};
  v.axes = Regroup({{AxisKind::kRow, rows, 1}, {AxisKind::kCol, cols, 1}}, dims).value();
  return v;
}

Axes Flat(const Layout& v, size_t from, size_t to) {
  Axes out;
  for (size_t d = from; d < to; ++d) {
    for (const Axis& a : v.axes[d]) {
      if (a.size != 1) out.push_back(a);
    }
  }
  return out;
}

Result<std::vector<Axes>> Regroup(const Axes& flat_in, const Dims& dims) {
  Axes queue;
  for (const Axis& a : flat_in) {
    if (a.size != 1) queue.push_back(a);
  }
  std::vector<Axes> out(dims.size());
  size_t q = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t need = dims[d];
    int64_t have = 1;
    while (have < need) {
      if (q == queue.size()) return Status::Error("sizes do not match");
      const Axis a = queue[q];
      if (need % have != 0) return Status::Error("not a regrouping of the axes");
      const int64_t f = need / have;  // what this dimension still needs
      if (f % a.size == 0) {
        out[d].push_back(a);
        have *= a.size;
        ++q;
      } else {
        if (a.size % f != 0) return Status::Error("not a regrouping of the axes");
        out[d].push_back({a.kind, f, a.stride * (a.size / f)});
        queue[q] = {a.kind, a.size / f, a.stride};
        have *= f;
      }
    }
    if (have != need) return Status::Error("sizes do not match");
  }
  if (q != queue.size()) return Status::Error("sizes do not match");
  return out;
}

Result<Layout> Reshaped(const Layout& v, const Dims& dims) {
  auto axes = Regroup(Flat(v, 0, v.dims.size()), dims);
  if (!axes.ok()) return axes.status();
  Layout out = v;
  out.dims = dims;
  out.axes = *axes;
  return out;
}

Result<Blocks> ToBlocks(const Layout& v, const std::vector<int64_t>& lead) {
  const size_t n = v.dims.size();
  const size_t l = lead.size();
  Offsets off;
  for (size_t d = 0; d < l; ++d) {
    off.batch += AxesOffset(v.axes[d], lead[d], AxisKind::kBatch);
    off.row += AxesOffset(v.axes[d], lead[d], AxisKind::kRow);
    off.col += AxesOffset(v.axes[d], lead[d], AxisKind::kCol);
  }
  const Axes row_axes = n == 0 ? Axes{} : Flat(v, l, n - 1);
  const Axes col_axes = n == 0 ? Axes{} : Flat(v, n - 1, n);
  auto rows = SplitAxes(row_axes);
  auto cols = SplitAxes(col_axes);
  if (!rows.ok() || !cols.ok()) return NotAView(v.dims, (rows.ok() ? cols : rows).status().message());
  if (!rows->any && !cols->any && rows->kind == cols->kind) return NotAView(v.dims, "rows and columns of one kind");
  const bool t = (!rows->any && rows->kind == AxisKind::kCol) || (!cols->any && cols->kind == AxisKind::kRow);
  Blocks b;
  b.rb = rows->blocks, b.cb = cols->blocks, b.bs_r = rows->extent, b.bs_c = cols->extent;
  for (int64_t i = 0; i < b.rb; ++i) {
    for (int64_t j = 0; j < b.cb; ++j) {
      const int64_t index = off.batch + AxesOffset(rows->batch, i, AxisKind::kBatch) +
                            AxesOffset(cols->batch, j, AxisKind::kBatch);
      if (index < 0 || index >= static_cast<int64_t>(v.bases.size())) return NotAView(v.dims, "head index out of range");
      const View& base = v.bases[static_cast<size_t>(index)];
      const int64_t er = t ? b.bs_c : b.bs_r, ec = t ? b.bs_r : b.bs_c;
      if (!InRange(base, off.row, off.row + er, off.col, off.col + ec)) return NotAView(v.dims, "block out of range");
      const View view = SubView(base, off.row, off.row + er, off.col, off.col + ec);
      b.views.push_back(t ? TransposedView(view) : view);
    }
  }
  return b;
}

Result<Layout> FromBlocks(const Dims& dims, size_t lead, const std::vector<Blocks>& blocks) {
  const Blocks& b0 = blocks.front();
  for (const Blocks& b : blocks) {
    if (b.rb != b0.rb || b.cb != b0.cb || b.bs_r != b0.bs_r || b.bs_c != b0.bs_c) {
      return Status::Error("result blocks differ in size between heads");
    }
  }
  Layout v;
  v.dims = dims;
  for (const Blocks& b : blocks) v.bases.insert(v.bases.end(), b.views.begin(), b.views.end());
  Axes lead_axes;
  int64_t stride = b0.rb * b0.cb;
  for (size_t d = lead; d-- > 0;) {
    lead_axes.insert(lead_axes.begin(), {AxisKind::kBatch, dims[d], stride});
    stride *= dims[d];
  }
  const Axes row_flat = {{AxisKind::kBatch, b0.rb, b0.cb}, {AxisKind::kRow, b0.bs_r, 1}};
  const Axes col_flat = {{AxisKind::kBatch, b0.cb, 1}, {AxisKind::kCol, b0.bs_c, 1}};
  auto rows = Regroup(row_flat, Dims(dims.begin() + static_cast<long>(lead), dims.end() - 1));
  auto cols = Regroup(col_flat, {dims.back()});
  if (!rows.ok() || !cols.ok()) return Status::Error("result blocks do not fit shape " + DimsString(dims));
  for (size_t d = 0; d < lead; ++d) v.axes.push_back({lead_axes[d]});
  for (const Axes& a : rows.value()) v.axes.push_back(a);
  v.axes.push_back(cols.value()[0]);
  return v;
}

Result<Layout> SliceDim(const Layout& v, size_t d, int64_t start, int64_t end) {
  if (start >= end) return Status::Error("empty slice");
  Axes axes;
  for (const Axis& a : v.axes[d]) {
    if (a.size != 1) axes.push_back(a);
  }
  Offsets off;
  if (Status s = SliceAxes(&axes, start, end, &off); !s.ok()) return s;
  Layout out = v;
  out.dims[d] = end - start;
  out.axes[d] = axes;
  if (off.batch > static_cast<int64_t>(v.bases.size())) return Status::Error("slice beyond the heads");
  out.bases.assign(v.bases.begin() + off.batch, v.bases.end());
  for (View& base : out.bases) {
    if (off.row > base.rows() || off.col > base.cols()) return Status::Error("slice beyond the data");
    base = SubView(base, off.row, base.rows(), off.col, base.cols());
  }
  return out;
}

Result<Layout> ExpandTo(const Layout& v, const Dims& dims) {
  if (dims.size() < v.dims.size()) return Status::Error("expand to a lower rank");
  Layout out = v;
  const size_t add = dims.size() - v.dims.size();
  out.dims.insert(out.dims.begin(), add, 1);
  out.axes.insert(out.axes.begin(), add, Axes{});
  for (size_t d = 0; d < dims.size(); ++d) {
    if (out.dims[d] == dims[d]) continue;
    if (out.dims[d] != 1) return Status::Error("cannot expand " + DimsString(v.dims) + " to " + DimsString(dims));
    out.dims[d] = dims[d];
    out.axes[d] = {{AxisKind::kBatch, dims[d], 0}};
  }
  return out;
}

Layout Repeat(const Layout& v, size_t d, int64_t times) {
  Layout out = v;
  out.dims[d] *= times;
  out.axes[d].insert(out.axes[d].begin(), {AxisKind::kBatch, times, 0});
  return out;
}

Blocks RefineBlocks(const Blocks& b, int64_t bs_r, int64_t bs_c) {
  if (bs_r == b.bs_r && bs_c == b.bs_c) return b;
  Blocks out;
  out.bs_r = bs_r, out.bs_c = bs_c, out.rb = b.rows() / bs_r, out.cb = b.cols() / bs_c;
  for (int64_t i = 0; i < out.rb; ++i) {
    for (int64_t j = 0; j < out.cb; ++j) {
      const int64_t r = i * bs_r, c = j * bs_c;
      out.views.push_back(
          SubView(b.at(r / b.bs_r, c / b.bs_c), r % b.bs_r, r % b.bs_r + bs_r, c % b.bs_c, c % b.bs_c + bs_c));
    }
  }
  return out;
}

std::vector<std::vector<int64_t>> LeadTuples(const Dims& dims, size_t lead) {
  std::vector<std::vector<int64_t>> out;
  const int64_t count = Product(Dims(dims.begin(), dims.begin() + static_cast<long>(lead)));
  for (int64_t index = 0; index < count; ++index) {
    std::vector<int64_t> tuple(lead);
    int64_t rest = index;
    for (size_t d = lead; d-- > 0;) {
      tuple[d] = rest % dims[d];
      rest /= dims[d];
    }
    out.push_back(tuple);
  }
  return out;
}

Result<Layout> ConcatLayouts(const std::vector<Layout>& parts, size_t d) {
  const size_t n = parts.front().dims.size();
  if (n < 2) return Status::Error("concatenation of rank-" + std::to_string(n) + " tensors");
  const size_t lead = n - 2;
  Dims dims = parts.front().dims;
  dims[d] = 0;
  for (const Layout& p : parts) dims[d] += p.dims[d];
  std::vector<Blocks> per_tuple;
  for (const std::vector<int64_t>& tuple : LeadTuples(dims, lead)) {
    if (d < lead) {
      int64_t index = tuple[d];
      size_t k = 0;
      while (index >= parts[k].dims[d]) index -= parts[k++].dims[d];
      std::vector<int64_t> local = tuple;
      local[d] = index;
      auto b = ToBlocks(parts[k], local);
      if (!b.ok()) return b.status();
      per_tuple.push_back(*b);
      continue;
    }
    std::vector<Blocks> pieces;
    int64_t g_r = 0, g_c = 0;
    for (const Layout& p : parts) {
      auto b = ToBlocks(p, tuple);
      if (!b.ok()) return b.status();
      g_r = Gcd(g_r, b->bs_r), g_c = Gcd(g_c, b->bs_c);
      pieces.push_back(*b);
    }
    Blocks out;
    out.bs_r = g_r, out.bs_c = g_c;
    for (Blocks& piece : pieces) piece = RefineBlocks(piece, g_r, g_c);
    const bool by_rows = d == n - 2;
    out.rb = by_rows ? 0 : pieces[0].rb;
    out.cb = by_rows ? pieces[0].cb : 0;
    for (const Blocks& piece : pieces) (by_rows ? out.rb : out.cb) += by_rows ? piece.rb : piece.cb;
    out.views.resize(static_cast<size_t>(out.rb * out.cb));
    int64_t at = 0;
    for (const Blocks& piece : pieces) {
      for (int64_t i = 0; i < piece.rb; ++i) {
        for (int64_t j = 0; j < piece.cb; ++j) {
          const int64_t oi = by_rows ? at + i : i, oj = by_rows ? j : at + j;
          out.views[static_cast<size_t>(oi * out.cb + oj)] = piece.at(i, j);
        }
      }
      at += by_rows ? piece.rb : piece.cb;
    }
    per_tuple.push_back(out);
  }
  int64_t g_r = 0, g_c = 0;
  for (const Blocks& b : per_tuple) g_r = Gcd(g_r, b.bs_r), g_c = Gcd(g_c, b.bs_c);
  for (Blocks& b : per_tuple) b = RefineBlocks(b, g_r, g_c);
  return FromBlocks(dims, lead, per_tuple);
}

}  // namespace tilesched::import_internal
