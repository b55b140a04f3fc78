// ONNX front end of the importer: reads a ModelProto, runs ONNX shape inference, and maps each
// node onto the ModelGraph by the table of docs/import.md.
//
// An N-D ONNX value is a view of one or more 2-D virtual tensors: each of its dimensions is a
// list of axes (outer to inner), each axis running over the rows or columns of a virtual
// tensor, or over a list of them ("batch": one virtual tensor per head). Reshape regroups the
// axes, Transpose permutes the dimensions; an op that computes reads its operands as blocks of
// 2-D views (ToBlocks) and writes fresh virtual tensors.
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <exception>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "model_graph.h"
#include "tilesched/file_util.h"
#include "tilesched/import.h"
#include "tilesched/io.h"

namespace tilesched {

namespace {

using import_internal::ModelGraph;
using import_internal::SubView;
using import_internal::TransposedView;
using import_internal::View;

enum class AxisKind { kBatch, kRow, kCol };
struct Axis {
  AxisKind kind;
  int64_t size;
  int64_t stride;
};
using Axes = std::vector<Axis>;

struct Value {
  std::vector<int64_t> dims;
  std::vector<Axes> axes;  // per dimension, outer to inner
  std::vector<int> bases;  // virtual tensors, addressed by batch axes
  bool constant = false;   // an initializer or computed from initializers only
  bool has_data = true;    // false: a constant folded away (no tensor to read)
};

// A 2-D operand as a grid of equally sized blocks (one per head or K part), row-major.
struct Blocks {
  int64_t rb = 1, cb = 1, bs_r = 0, bs_c = 0;
  std::vector<View> views;
  const View& at(int64_t i, int64_t j) const { return views[i * cb + j]; }
};

// Largest tensor the importer accepts (elements); keeps every product of dimensions far from
// int64 overflow.
constexpr double kMaxElements = 1099511627776.0;  // 2^40

int64_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t d = from; d < to; ++d) p *= dims[d];
  return p;
}

std::string DimsString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t d = 0; d < dims.size(); ++d) s += (d ? "," : "") + std::to_string(dims[d]);
  return s + "]";
}

Axes Flat(const Value& v, size_t from, size_t to) {
  Axes out;
  for (size_t d = from; d < to; ++d) {
    for (const Axis& a : v.axes[d]) {
      if (a.size != 1) out.push_back(a);
    }
  }
  return out;
}

// Splits the axes `flat` (outer to inner) into dimensions `dims`, splitting an axis where a
// dimension boundary falls inside it. Fails when the sizes do not divide.
Result<std::vector<Axes>> Regroup(const Axes& flat_in, const std::vector<int64_t>& dims) {
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

int64_t AxesOffset(const Axes& axes, int64_t index, AxisKind kind) {
  int64_t off = 0;
  for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
    if (it->kind == kind) off += (index % it->size) * it->stride;
    index /= it->size;
  }
  return off;
}

class Importer {
 public:
  Importer(const HardwareDescription& hw, const ImportOptions& options) : hw_(hw), options_(options) {}
  Result<ImportedModel> Run(onnx::ModelProto& model);

 private:
  Status Node(const onnx::NodeProto& node, const std::string& label);
  Result<Value> Get(const std::string& name, const std::string& label) const;
  Result<std::vector<int64_t>> Shape(const std::string& name, const std::string& label) const;
  Value Dense(const std::string& name, const std::vector<int64_t>& dims, bool constant);
  Result<Blocks> ToBlocks(const Value& v, const std::vector<int64_t>& lead, const std::string& label) const;
  Result<Value> FromBlocks(const std::vector<int64_t>& dims, size_t lead, const std::vector<Blocks>& blocks,
                           const std::string& label) const;
  Result<Blocks> BlockMatMul(const Blocks& a, const Blocks& b, const std::string& out,
                             const onnx::NodeProto& node, const std::string& label);
  Result<Value> MatMul(const Value& a, const Value& b, const std::vector<int64_t>& out_dims,
                       const std::string& out, const onnx::NodeProto& node, const std::string& label);
  Result<Value> Elementwise(const std::vector<Value>& inputs, const std::vector<int64_t>& out_dims,
                            double work, bool rowwise, const std::string& out, const onnx::NodeProto& node,
                            const std::string& label);
  double Work(const std::string& op) const { return OperatorWork(hw_, op); }

  const HardwareDescription& hw_;
  const ImportOptions& options_;
  int opset_ = 0;
  ModelGraph graph_;
  std::unordered_map<std::string, std::vector<int64_t>> shapes_;
  std::unordered_map<std::string, Value> values_;
  std::unordered_map<std::string, int> readers_;  // input slots reading each value
  std::set<std::string> graph_outputs_;
};

const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}
int64_t IntAttribute(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const auto* a = FindAttribute(node, name);
  return a ? a->i() : fallback;
}
double FloatAttribute(const onnx::NodeProto& node, const std::string& name, double fallback) {
  const auto* a = FindAttribute(node, name);
  return a ? a->f() : fallback;
}

Status NodeError(const std::string& label, const std::string& what) { return Status::Error(label + ": " + what); }

Result<std::vector<int64_t>> Importer::Shape(const std::string& name, const std::string& label) const {
  auto it = shapes_.find(name);
  if (it == shapes_.end()) {
    return NodeError(label, "tensor '" + name + "' has no inferred shape (dynamic or unknown shape)");
  }
  return it->second;
}

Result<Value> Importer::Get(const std::string& name, const std::string& label) const {
  auto it = values_.find(name);
  if (it == values_.end()) return NodeError(label, "input '" + name + "' is not defined by any earlier node");
  return it->second;
}

Value Importer::Dense(const std::string& name, const std::vector<int64_t>& dims, bool constant) {
  const int64_t cols = dims.empty() ? 1 : dims.back();
  const int64_t rows = dims.empty() ? 1 : Product(dims, 0, dims.size() - 1);
  Value v;
  v.dims = dims;
  v.bases = {graph_.AddInput(name, rows, cols)};
  v.axes = Regroup({{AxisKind::kRow, rows, 1}, {AxisKind::kCol, cols, 1}}, dims).value();
  v.constant = constant;
  return v;
}

// One operand's axes: outer batch axes (one block per index), then axes of one kind (rows or
// columns of the virtual tensor) that run contiguously.
struct Split {
  Axes batch;
  int64_t blocks = 1;
  int64_t extent = 1;
  bool any = true;  // no non-batch axis: either orientation
  AxisKind kind = AxisKind::kRow;
};

Result<Split> SplitAxes(const Axes& axes) {
  Split s;
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

Result<Blocks> Importer::ToBlocks(const Value& v, const std::vector<int64_t>& lead, const std::string& label) const {
  const size_t n = v.dims.size();
  const size_t l = lead.size();
  int64_t boff = 0, roff = 0, coff = 0;
  for (size_t d = 0; d < l; ++d) {
    boff += AxesOffset(v.axes[d], lead[d], AxisKind::kBatch);
    roff += AxesOffset(v.axes[d], lead[d], AxisKind::kRow);
    coff += AxesOffset(v.axes[d], lead[d], AxisKind::kCol);
  }
  const Axes row_axes = n == 0 ? Axes{} : Flat(v, l, n - 1);
  const Axes col_axes = n == 0 ? Axes{} : Flat(v, n - 1, n);
  auto rows = SplitAxes(row_axes);
  auto cols = SplitAxes(col_axes);
  if (!rows.ok() || !cols.ok()) {
    return NodeError(label, "operand of shape " + DimsString(v.dims) + " is not a 2-D view of its data (" +
                                (rows.ok() ? cols : rows).status().message() + ")");
  }
  if (!rows->any && !cols->any && rows->kind == cols->kind) {
    return NodeError(label, "operand of shape " + DimsString(v.dims) + " is not a 2-D view of its data");
  }
  const bool t = (!rows->any && rows->kind == AxisKind::kCol) || (!cols->any && cols->kind == AxisKind::kRow);
  Blocks b;
  b.rb = rows->blocks, b.cb = cols->blocks, b.bs_r = rows->extent, b.bs_c = cols->extent;
  for (int64_t i = 0; i < b.rb; ++i) {
    for (int64_t j = 0; j < b.cb; ++j) {
      const int vt = v.bases[boff + AxesOffset(rows->batch, i, AxisKind::kBatch) +
                             AxesOffset(cols->batch, j, AxisKind::kBatch)];
      View view = t ? View{vt, roff, roff + b.bs_c, coff, coff + b.bs_r, true}
                    : View{vt, roff, roff + b.bs_r, coff, coff + b.bs_c, false};
      b.views.push_back(view);
    }
  }
  return b;
}

Result<Value> Importer::FromBlocks(const std::vector<int64_t>& dims, size_t lead, const std::vector<Blocks>& blocks,
                                   const std::string& label) const {
  const Blocks& b0 = blocks.front();
  Value v;
  v.dims = dims;
  for (const Blocks& b : blocks) {
    for (const View& view : b.views) v.bases.push_back(view.vt);
  }
  Axes lead_axes;
  int64_t stride = b0.rb * b0.cb;
  for (size_t d = lead; d-- > 0;) {
    lead_axes.insert(lead_axes.begin(), {AxisKind::kBatch, dims[d], stride});
    stride *= dims[d];
  }
  const Axes row_flat = {{AxisKind::kBatch, b0.rb, b0.cb}, {AxisKind::kRow, b0.bs_r, 1}};
  const Axes col_flat = {{AxisKind::kBatch, b0.cb, 1}, {AxisKind::kCol, b0.bs_c, 1}};
  auto rows = Regroup(row_flat, std::vector<int64_t>(dims.begin() + static_cast<long>(lead), dims.end() - 1));
  auto cols = Regroup(col_flat, {dims.back()});
  if (!rows.ok() || !cols.ok()) return NodeError(label, "result blocks do not fit shape " + DimsString(dims));
  for (size_t d = 0; d < lead; ++d) v.axes.push_back({lead_axes[d]});
  for (const Axes& a : rows.value()) v.axes.push_back(a);
  v.axes.push_back(cols.value()[0]);
  return v;
}

Result<Blocks> Importer::BlockMatMul(const Blocks& a, const Blocks& b, const std::string& out,
                                     const onnx::NodeProto& node, const std::string& label) {
  const int64_t k = a.cb * a.bs_c;
  const int64_t ks = std::min(a.bs_c, b.bs_r);
  if (k != b.rb * b.bs_r || a.bs_c % ks != 0 || b.bs_r % ks != 0) {
    return NodeError(label, "operand blocks along the reduction do not line up");
  }
  Blocks c;
  c.rb = a.rb, c.cb = b.cb, c.bs_r = a.bs_r, c.bs_c = b.bs_c;
  const std::string suffix = k / ks > 1 ? ".part" : "";
  for (int64_t i = 0; i < c.rb; ++i) {
    for (int64_t j = 0; j < c.cb; ++j) {
      std::vector<View> terms;
      for (int64_t ka = 0; ka < k; ka += ks) {
        const View lhs = SubView(a.at(i, ka / a.bs_c), 0, a.bs_r, ka % a.bs_c, ka % a.bs_c + ks);
        const View rhs = SubView(b.at(ka / b.bs_r, j), ka % b.bs_r, ka % b.bs_r + ks, 0, b.bs_c);
        terms.push_back(graph_.Full(graph_.AddMatMul(lhs, rhs, out + suffix, node.name(), node.op_type())));
      }
      if (terms.size() == 1) {
        c.views.push_back(terms[0]);
      } else {  // a reduction split into parts (heads concatenated along K): sum the parts
        const double work = static_cast<double>(terms.size() - 1) * Work("Add");
        c.views.push_back(graph_.Full(graph_.AddPointwise(terms, work, false, out, node.name(), "Sum")));
      }
    }
  }
  return c;
}

Result<Value> Importer::MatMul(const Value& a, const Value& b, const std::vector<int64_t>& out_dims,
                               const std::string& out, const onnx::NodeProto& node, const std::string& label) {
  if (!a.has_data || !b.has_data) return NodeError(label, "an operand is a folded constant expression");
  if (a.dims.size() < 2 || b.dims.size() < 2) return NodeError(label, "1-D operands are not supported");
  std::vector<Blocks> results;
  size_t lead = 0;
  if (b.dims.size() == 2) {  // leading dimensions of A fold into rows
    auto ab = ToBlocks(a, {}, label);
    if (!ab.ok()) return ab.status();
    auto bb = ToBlocks(b, {}, label);
    if (!bb.ok()) return bb.status();
    auto c = BlockMatMul(*ab, *bb, out, node, label);
    if (!c.ok()) return c.status();
    results.push_back(*c);
  } else {  // batched: one 2-D product per batch and head
    lead = out_dims.size() - 2;
    const int64_t count = Product(out_dims, 0, lead);
    for (int64_t index = 0; index < count; ++index) {
      std::vector<int64_t> tuple(lead);
      for (size_t d = lead, rest = static_cast<size_t>(index); d-- > 0;) {
        tuple[d] = static_cast<int64_t>(rest) % out_dims[d];
        rest /= static_cast<size_t>(out_dims[d]);
      }
      auto operand_lead = [&](const Value& v) {
        const size_t vl = v.dims.size() - 2;
        std::vector<int64_t> idx(vl);
        for (size_t d = 0; d < vl; ++d) idx[d] = v.dims[d] == 1 ? 0 : tuple[d + lead - vl];
        return idx;
      };
      auto ab = ToBlocks(a, operand_lead(a), label);
      if (!ab.ok()) return ab.status();
      auto bb = ToBlocks(b, operand_lead(b), label);
      if (!bb.ok()) return bb.status();
      auto c = BlockMatMul(*ab, *bb, out, node, label);
      if (!c.ok()) return c.status();
      results.push_back(*c);
    }
  }
  return FromBlocks(out_dims, lead, results, label);
}

Result<Value> Importer::Elementwise(const std::vector<Value>& inputs, const std::vector<int64_t>& out_dims,
                                    double work, bool rowwise, const std::string& out,
                                    const onnx::NodeProto& node, const std::string& label) {
  std::vector<Blocks> full;
  bool all_constant = true;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = inputs[i];
    all_constant = all_constant && v.constant;
    if (v.dims == out_dims && v.has_data) {
      auto b = ToBlocks(v, {}, label);
      if (!b.ok()) return b.status();
      full.push_back(*b);
    } else if (!v.constant) {
      return NodeError(label, "operand " + std::to_string(i) + " of shape " + DimsString(v.dims) +
                                  " is broadcast to " + DimsString(out_dims) +
                                  "; only constant operands may be broadcast");
    }  // else: a broadcast constant, folded into the cost
  }
  if (all_constant) {
    Value v;
    v.dims = out_dims, v.constant = true, v.has_data = false;
    return v;
  }
  if (out_dims.empty()) return NodeError(label, "scalar activations are not supported");
  Blocks o;
  o.bs_r = full[0].bs_r, o.bs_c = full[0].bs_c;
  for (const Blocks& b : full) o.bs_r = std::min(o.bs_r, b.bs_r), o.bs_c = std::min(o.bs_c, b.bs_c);
  for (const Blocks& b : full) {
    if (b.bs_r % o.bs_r != 0 || b.bs_c % o.bs_c != 0) return NodeError(label, "operand blocks do not line up");
  }
  const int64_t rows = full[0].rb * full[0].bs_r, cols = full[0].cb * full[0].bs_c;
  if (rowwise && o.bs_c != cols) {
    return NodeError(label, "its rows are split into column blocks (heads); a row-wise op needs whole rows");
  }
  o.rb = rows / o.bs_r, o.cb = cols / o.bs_c;
  for (int64_t i = 0; i < o.rb; ++i) {
    for (int64_t j = 0; j < o.cb; ++j) {
      std::vector<View> views;
      for (const Blocks& b : full) {
        const int64_t r = i * o.bs_r, c = j * o.bs_c;
        views.push_back(SubView(b.at(r / b.bs_r, c / b.bs_c), r % b.bs_r, r % b.bs_r + o.bs_r, c % b.bs_c,
                                c % b.bs_c + o.bs_c));
      }
      o.views.push_back(graph_.Full(graph_.AddPointwise(views, work, rowwise, out, node.name(), node.op_type())));
    }
  }
  return FromBlocks(out_dims, 0, {o}, label);
}

const std::set<std::string>& ElementwiseOps() {
  static const std::set<std::string> ops = {
      "Add",  "Sub",     "Mul",     "Div",  "Pow",   "Max",       "Min",     "Relu",      "Sigmoid",
      "Tanh", "Erf",     "Exp",     "Log",  "Sqrt",  "Reciprocal", "Neg",    "Abs",       "Where",
      "Cast", "Softplus", "LeakyRelu", "HardSigmoid", "HardSwish", "Clip", "Sum", "Equal", "Less",
      "Greater", "Not", "Sign"};
  return ops;
}

const std::set<std::string>& AliasOps() {
  static const std::set<std::string> ops = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"};
  return ops;
}

std::string NodeLabel(const onnx::NodeProto& node, int index) {
  return "node '" + (node.name().empty() ? "#" + std::to_string(index) : node.name()) + "' (" + node.op_type() + ")";
}

// Checked on every node before shape inference, which fails on unknown domains without naming
// the node our way.
Status CheckSupported(const onnx::NodeProto& node, const std::string& label) {
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    return NodeError(label, "operator domain '" + node.domain() + "' is not supported");
  }
  const std::string& op = node.op_type();
  const bool known = ElementwiseOps().count(op) || AliasOps().count(op) || op == "MatMul" || op == "Gemm" ||
                     op == "Transpose" || op == "Softmax" || op == "LayerNormalization" || op == "Constant";
  if (!known) return NodeError(label, "operator not supported by the importer (docs/import.md lists the supported ones)");
  return Status::Ok();
}

Status Importer::Node(const onnx::NodeProto& node, const std::string& label) {
  const std::string& op = node.op_type();
  if (node.output_size() < 1 || node.output(0).empty()) return NodeError(label, "has no output");
  // Only the first output is modelled; the others (Dropout's mask, LayerNormalization's
  // statistics) must be unused.
  for (int i = 1; i < node.output_size(); ++i) {
    const std::string& extra = node.output(i);
    if (!extra.empty() && (readers_.count(extra) || graph_outputs_.count(extra))) {
      return NodeError(label, "its output " + std::to_string(i) + " ('" + extra + "') is used; only output 0 is supported");
    }
  }
  const std::string& out = node.output(0);
  auto out_dims = Shape(out, label);
  if (!out_dims.ok()) return out_dims.status();
  auto input = [&](int i) { return Get(node.input(i), label); };
  if (op != "Constant" && node.input_size() < 1) return NodeError(label, "has no input");
  for (int i = 0; i < node.input_size(); ++i) {
    if (!node.input(i).empty() && !values_.count(node.input(i))) {
      return NodeError(label, "input '" + node.input(i) + "' is not defined by any earlier node");
    }
  }
  Result<Value> result = Status::Error("unreachable");
  if (op == "Constant") {
    result = Dense(out, *out_dims, /*constant=*/true);
  } else if (AliasOps().count(op)) {
    auto in = input(0);
    if (!in.ok()) return in.status();
    Value v = *in;
    auto axes = Regroup(Flat(v, 0, v.dims.size()), *out_dims);
    if (!axes.ok()) {
      return NodeError(label, "reshape " + DimsString(in->dims) + " -> " + DimsString(*out_dims) +
                                  " is not a regrouping of the data's rows and columns");
    }
    v.dims = *out_dims;
    v.axes = *axes;
    result = v;
  } else if (op == "Transpose") {
    auto in = input(0);
    if (!in.ok()) return in.status();
    const size_t n = in->dims.size();
    std::vector<int64_t> perm;
    if (const auto* a = FindAttribute(node, "perm")) {
      perm.assign(a->ints().begin(), a->ints().end());
    } else {
      for (size_t d = n; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
    }
    if (perm.size() != n) return NodeError(label, "perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(n));
    Value v = *in;
    for (size_t d = 0; d < n; ++d) {
      if (perm[d] < 0 || perm[d] >= static_cast<int64_t>(n)) return NodeError(label, "perm out of range");
      v.dims[d] = in->dims[perm[d]];
      v.axes[d] = in->axes[perm[d]];
    }
    result = v;
  } else if (op == "MatMul") {
    auto a = input(0);
    if (!a.ok()) return a.status();
    auto b = input(1);
    if (!b.ok()) return b.status();
    result = MatMul(*a, *b, *out_dims, out, node, label);
  } else if (op == "Gemm") {
    auto a = input(0);
    if (!a.ok()) return a.status();
    auto b = input(1);
    if (!b.ok()) return b.status();
    Value av = *a, bv = *b;
    if (av.dims.size() != 2 || bv.dims.size() != 2) return NodeError(label, "operands must be 2-D");
    if (IntAttribute(node, "transA", 0)) std::swap(av.dims[0], av.dims[1]), std::swap(av.axes[0], av.axes[1]);
    if (IntAttribute(node, "transB", 0)) std::swap(bv.dims[0], bv.dims[1]), std::swap(bv.axes[0], bv.axes[1]);
    const double alpha = FloatAttribute(node, "alpha", 1), beta = FloatAttribute(node, "beta", 1);
    const bool bias = node.input_size() > 2 && !node.input(2).empty();
    const double work = (bias ? Work("Add") : 0) + (alpha != 1 ? Work("Mul") : 0) + (bias && beta != 1 ? Work("Mul") : 0);
    auto product = MatMul(av, bv, *out_dims, work > 0 ? out + ".matmul" : out, node, label);
    if (!product.ok()) return product.status();
    if (work == 0) {
      result = product;
    } else {  // the bias (and alpha, beta) as a Pointwise epilogue
      std::vector<Value> operands = {*product};
      if (bias) {
        auto c = input(2);
        if (!c.ok()) return c.status();
        operands.push_back(*c);
      }
      result = Elementwise(operands, *out_dims, work, false, out, node, label);
    }
  } else {
    const bool rowwise = op == "Softmax" || op == "LayerNormalization";
    std::vector<Value> operands;
    if (rowwise) {
      auto x = input(0);
      if (!x.ok()) return x.status();
      const int64_t rank = static_cast<int64_t>(x->dims.size());
      int64_t axis = IntAttribute(node, "axis", op == "Softmax" && opset_ < 13 ? 1 : -1);
      if (axis < 0) axis += rank;
      if (axis != rank - 1) return NodeError(label, "axis " + std::to_string(axis) + " is not the last axis");
      operands.push_back(*x);
    } else {
      for (int i = 0; i < node.input_size(); ++i) {
        if (node.input(i).empty()) continue;
        auto v = input(i);
        if (!v.ok()) return v.status();
        operands.push_back(*v);
      }
    }
    result = Elementwise(operands, *out_dims, Work(op), rowwise, out, node, label);
  }
  if (!result.ok()) return result.status();
  values_[out] = std::move(result).value();
  return Status::Ok();
}

Result<std::vector<int64_t>> ShapeOf(const onnx::ValueInfoProto& info) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) {
    return Status::Error("tensor '" + info.name() + "' has no static shape");
  }
  std::vector<int64_t> dims;
  int d = 0;
  for (const auto& dim : info.type().tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() <= 0) {
      return Status::Error("tensor '" + info.name() + "' has a dynamic dimension " + std::to_string(d) +
                           (dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : ""));
    }
    dims.push_back(dim.dim_value());
    ++d;
  }
  return dims;
}

Result<ImportedModel> Importer::Run(onnx::ModelProto& model) {
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = static_cast<int>(o.version());
  }
  for (int i = 0; i < model.graph().node_size(); ++i) {
    const auto& node = model.graph().node(i);
    if (Status s = CheckSupported(node, NodeLabel(node, i)); !s.ok()) return s;
  }
  try {
    // Not strict: a node ONNX cannot infer (an unknown operator, mismatched shapes) is left
    // without output shapes and reported by the node walk, which names it.
    onnx::ShapeInferenceOptions options{/*check_type_val=*/false, /*strict_mode_val=*/0,
                                        /*data_prop=*/true};
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    return Status::Error("model: ONNX shape inference failed: " + what);
  }
  const onnx::GraphProto& g = model.graph();
  // Sizes in range before any arithmetic on them (an element count fits in int64 with room).
  auto check = [](const std::string& name, const std::vector<int64_t>& dims) {
    double elements = 1;
    for (int64_t d : dims) {
      if (d <= 0) return Status::Error("tensor '" + name + "' has an empty or negative dimension");
      elements *= static_cast<double>(d);
    }
    if (elements > kMaxElements) return Status::Error("tensor '" + name + "' has more than 2^40 elements");
    return Status::Ok();
  };
  std::set<std::string> initializers;
  for (const auto& init : g.initializer()) {
    initializers.insert(init.name());
    std::vector<int64_t> dims(init.dims().begin(), init.dims().end());
    if (Status s = check(init.name(), dims); !s.ok()) return s;
    shapes_[init.name()] = dims;
  }
  for (const auto* infos : {&g.value_info(), &g.output()}) {
    for (const auto& info : *infos) {
      auto dims = ShapeOf(info);
      if (!dims.ok()) continue;  // reported by the node that needs it
      if (Status s = check(info.name(), *dims); !s.ok()) return s;
      shapes_[info.name()] = *dims;
    }
  }
  for (const auto& info : g.input()) {
    if (initializers.count(info.name())) continue;
    auto dims = ShapeOf(info);
    if (!dims.ok()) return Status::Error("graph input: " + dims.status().message());
    if (Status s = check(info.name(), *dims); !s.ok()) return s;
    shapes_[info.name()] = *dims;
    values_[info.name()] = Dense(info.name(), *dims, /*constant=*/false);
  }
  for (const auto& init : g.initializer()) {
    values_[init.name()] = Dense(init.name(), shapes_[init.name()], /*constant=*/true);
  }
  for (const auto& node : g.node()) {
    for (const auto& in : node.input()) ++readers_[in];
  }
  for (const auto& info : g.output()) graph_outputs_.insert(info.name());
  for (int i = 0; i < g.node_size(); ++i) {
    if (Status s = Node(g.node(i), NodeLabel(g.node(i), i)); !s.ok()) return s;
  }
  std::vector<View> outputs;
  for (const auto& info : g.output()) {
    auto v = Get(info.name(), "graph output '" + info.name() + "'");
    if (!v.ok()) return v.status();
    if (!v->has_data || v->constant) return Status::Error("graph output '" + info.name() + "' is a constant");
    auto b = ToBlocks(*v, {}, "graph output '" + info.name() + "'");
    if (!b.ok()) return b.status();
    outputs.insert(outputs.end(), b->views.begin(), b->views.end());
  }
  if (outputs.empty()) return Status::Error("model: the graph has no outputs");
  return graph_.Build(outputs, hw_, options_.fold_pointwise);
}

}  // namespace

Result<ImportedModel> ImportOnnx(const std::string& model_bytes, const HardwareDescription& hw,
                                 const ImportOptions& options) {
  onnx::ModelProto model;
  if (!model.ParseFromString(model_bytes)) {
    return Status::Error("model: not a readable ONNX file (truncated, or not ONNX)");
  }
  if (model.ir_version() <= 0 || !model.has_graph() || model.graph().node_size() == 0) {
    return Status::Error("model: not an ONNX model (no IR version or no graph nodes)");
  }
  Importer importer(hw, options);
  return importer.Run(model);
}

Result<ImportedModel> ImportOnnxFile(const std::string& path, const HardwareDescription& hw,
                                     const ImportOptions& options) {
  auto bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  auto model = ImportOnnx(*bytes, hw, options);
  if (!model.ok()) return model.status().WithContext(path + ": ");
  return model;
}

std::string ImportedProblemToJson(const ImportedModel& model) {
  std::string out = ProblemToJson(model.problem);
  const size_t end = out.rfind("\n}");
  assert(end != std::string::npos);
  out.resize(end);
  out += ",\n  \"op_names\": " + nlohmann::json(model.op_names).dump() +
         ",\n  \"op_sources\": " + nlohmann::json(model.op_sources).dump() +
         ",\n  \"tensor_names\": " + nlohmann::json(model.tensor_names).dump() + "\n}\n";
  return out;
}

}  // namespace tilesched
