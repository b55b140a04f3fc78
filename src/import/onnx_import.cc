// ONNX front end of the importer: reads a ModelProto (onnx_reader.h), gives every value its
// shape by the importer's own rules (shape_rules.h, checked against the shapes the exporter
// recorded), folds what depends only on constants (constant_eval.h), and maps each remaining
// node onto the ModelGraph by the table of docs/import.md.
//
// A value is one of four kinds: a tensor (laid over 2-D virtual tensors, value_layout.h), a
// constant (known at import time: its shape, and its values when small), index data (integers
// computed from integer model inputs only: token ids, position ids; never scheduled), or a row
// statistic (a reduction along the last axis, waiting to be broadcast back into the row-wise
// op that reads it).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "constant_eval.h"
#include "model_graph.h"
#include "onnx_reader.h"
#include "shape_rules.h"
#include "tilesched/import.h"
#include "tilesched/io.h"
#include "value_layout.h"

namespace tilesched {

namespace {

using import_internal::AxisKind;
using import_internal::Blocks;
using import_internal::ConstInput;
using import_internal::Dims;
using import_internal::DimsString;
using import_internal::Layout;
using import_internal::ModelGraph;
using import_internal::NodeInput;
using import_internal::SubView;
using import_internal::TransposedView;
using import_internal::ValuesPtr;
using import_internal::View;
using import_internal::FindAttribute;
using import_internal::FloatAttribute;
using import_internal::IntAttribute;
using import_internal::IntsAttribute;
using import_internal::Product;

enum class Kind { kTensor, kConstant, kIndex, kRowStat };

// A reduction along the last axis of full-shape tensors, and the work of the ops applied to it.
struct RowStat {
  std::vector<Layout> inputs;
  double work = 0;
  std::string names, types;
};

struct Value {
  Kind kind = Kind::kConstant;
  Dims dims;
  int dtype = onnx::TensorProto::FLOAT;
  Layout layout;                         // kTensor
  ValuesPtr values;                      // kConstant, when known
  std::string name;                      // what a graph input made of this value is called
  std::shared_ptr<const RowStat> stat;   // kRowStat
};

// A constant known by its shape alone (an unused secondary output).
Value Constant(const Dims& dims) {
  Value v;
  v.dims = dims;
  return v;
}

// Largest tensor the importer accepts (elements); keeps every product of dimensions far from
// int64 overflow.
constexpr double kMaxElements = 1099511627776.0;  // 2^40

bool IsIntegerOrBool(int dtype) {
  using T = onnx::TensorProto;
  return dtype == T::INT64 || dtype == T::INT32 || dtype == T::INT16 || dtype == T::INT8 || dtype == T::UINT8 ||
         dtype == T::UINT16 || dtype == T::UINT32 || dtype == T::UINT64 || dtype == T::BOOL;
}

const std::set<std::string>& AliasOps() {
  static const std::set<std::string> ops = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"};
  return ops;
}

Status NodeError(const std::string& label, const std::string& what) { return Status::Error(label + ": " + what); }

class Importer {
 public:
  Importer(const HardwareDescription& hw, const ImportOptions& options) : hw_(hw), options_(options) {}
  Result<ImportedModel> Run(const onnx::ModelProto& model);

 private:
  Status Node(const onnx::NodeProto& node, int index);
  Status Record(const onnx::NodeProto& node, const std::string& category);
  Result<std::vector<Value>> Map(const onnx::NodeProto& node, const std::vector<const Value*>& in,
                                 const std::vector<Dims>& out_dims, const std::string& label, std::string* category);
  Result<Layout> AsTensor(const Value& v, const std::string& label);
  Result<std::vector<Blocks>> BlocksOf(const std::vector<Layout>& operands, const Dims& dims, size_t* lead,
                                       const std::string& label) const;
  Result<Blocks> BlockMatMul(const Blocks& a, const Blocks& b, const std::string& out, const std::string& suffix,
                             const std::string& label);
  Result<Layout> MatMul(const Layout& a, const Layout& b, const Dims& out_dims, const std::string& out,
                        const std::string& label);
  Result<Value> Elementwise(const std::vector<const Value*>& inputs, const Dims& out_dims, double work, bool rowwise,
                            const std::string& out, const std::string& label, const std::string& type);
  Result<Value> Conv(const std::vector<const Value*>& in, const Dims& out_dims, const onnx::NodeProto& node,
                     const std::string& label);
  double Work(const std::string& op) const { return OperatorWork(hw_, op); }
  Value Tensor(Layout layout) const {
    Value v;
    v.kind = Kind::kTensor;
    v.dims = layout.dims;
    v.layout = std::move(layout);
    return v;
  }

  const HardwareDescription& hw_;
  const ImportOptions& options_;
  int opset_ = 0;
  ModelGraph graph_;
  std::unordered_map<std::string, Value> values_;
  std::unordered_map<std::string, Dims> recorded_;  // shapes the exporter wrote (value_info, outputs)
  std::unordered_map<std::string, int> readers_;
  std::unordered_map<std::string, int> inputs_made_;  // constants made graph inputs, by name
  std::set<std::string> graph_outputs_;
  std::string model_name_;  // of the node being mapped
  std::string node_type_;   // its ONNX op type
  ImportSummary summary_;
};

Result<Dims> ShapeOf(const onnx::ValueInfoProto& info) {
  if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) {
    return Status::Error("tensor '" + info.name() + "' has no static shape");
  }
  Dims dims;
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

Status CheckSize(const std::string& name, const Dims& dims) {
  double elements = 1;
  for (int64_t d : dims) {
    if (d <= 0) return Status::Error("tensor '" + name + "' has an empty or negative dimension");
    elements *= static_cast<double>(d);
  }
  if (elements > kMaxElements) return Status::Error("tensor '" + name + "' has more than 2^40 elements");
  return Status::Ok();
}

Result<Layout> Importer::AsTensor(const Value& v, const std::string& label) {
  if (v.kind == Kind::kTensor) return v.layout;
  if (v.kind == Kind::kRowStat) {
    return NodeError(label, "a row statistic (a reduction along the last axis) is read other than broadcast back "
                            "into its rows");
  }
  if (Status s = CheckSize(v.name, v.dims); !s.ok()) return NodeError(label, s.message());
  auto it = inputs_made_.find(v.name);
  if (it == inputs_made_.end()) {
    const int64_t cols = v.dims.empty() ? 1 : v.dims.back();
    it = inputs_made_.emplace(v.name, graph_.AddInput(v.name, Product(v.dims) / cols, cols)).first;
  }
  return import_internal::DenseLayout(graph_.Full(it->second), v.dims);
}

// Blocks of every operand at each leading index, with the fewest leading dimensions (0: all
// but the last folded into rows) at which every operand is a 2-D view; block sizes aligned.
Result<std::vector<Blocks>> Importer::BlocksOf(const std::vector<Layout>& operands, const Dims& dims, size_t* lead,
                                               const std::string& label) const {
  Status first_error = Status::Ok();
  for (size_t k = 0; k + 1 < std::max<size_t>(dims.size(), 2); ++k) {
    std::vector<Blocks> out;
    Status failed = Status::Ok();
    for (const auto& tuple : import_internal::LeadTuples(dims, k)) {
      for (const Layout& op : operands) {
        auto b = import_internal::ToBlocks(op, tuple);
        if (!b.ok()) {
          failed = b.status();
          break;
        }
        out.push_back(*b);
      }
      if (!failed.ok()) break;
    }
    if (failed.ok()) {
      *lead = k;
      return out;
    }
    if (first_error.ok()) first_error = failed;
  }
  return NodeError(label, first_error.message());
}

Result<Blocks> Importer::BlockMatMul(const Blocks& a, const Blocks& b, const std::string& out,
                                     const std::string& suffix, const std::string& label) {
  const int64_t k = a.cols();
  const int64_t ks = std::gcd(a.bs_c, b.bs_r);
  if (k != b.rows()) return NodeError(label, "operand blocks along the reduction do not line up");
  Blocks c;
  c.rb = a.rb, c.cb = b.cb, c.bs_r = a.bs_r, c.bs_c = b.bs_c;
  for (int64_t i = 0; i < c.rb; ++i) {
    for (int64_t j = 0; j < c.cb; ++j) {
      std::string block = suffix;
      if (c.rb * c.cb > 1) block += (block.empty() ? "" : ",") + std::to_string(i * c.cb + j);
      std::vector<View> terms;
      for (int64_t ka = 0; ka < k; ka += ks) {
        const View lhs = SubView(a.at(i, ka / a.bs_c), 0, a.bs_r, ka % a.bs_c, ka % a.bs_c + ks);
        const View rhs = SubView(b.at(ka / b.bs_r, j), ka % b.bs_r, ka % b.bs_r + ks, 0, b.bs_c);
        std::string part = block;
        if (k / ks > 1) part += (part.empty() ? "" : ",") + std::string("part ") + std::to_string(ka / ks);
        terms.push_back(graph_.Full(graph_.AddMatMul(lhs, rhs, out + (k / ks > 1 ? ".part" : ""),
                                                     model_name_ + (part.empty() ? "" : "[" + part + "]"),
                                                     node_type_)));
      }
      if (terms.size() == 1) {
        c.views.push_back(terms[0]);
      } else {  // a reduction split into parts (heads concatenated along K): sum the parts
        const double work = static_cast<double>(terms.size() - 1) * Work("Add");
        c.views.push_back(graph_.Full(graph_.AddPointwise(
            terms, work, false, out, model_name_ + "[" + block + (block.empty() ? "" : ",") + "sum]", "Sum")));
      }
    }
  }
  return c;
}

Result<Layout> Importer::MatMul(const Layout& a, const Layout& b, const Dims& out_dims, const std::string& out,
                                const std::string& label) {
  if (a.dims.size() < 2 || b.dims.size() < 2) return NodeError(label, "1-D operands are not supported");
  std::vector<Blocks> results;
  size_t lead = 0;
  if (b.dims.size() == 2) {  // leading dimensions of A fold into rows
    auto ab = import_internal::ToBlocks(a, {});
    if (!ab.ok()) return NodeError(label, ab.status().message());
    auto bb = import_internal::ToBlocks(b, {});
    if (!bb.ok()) return NodeError(label, bb.status().message());
    auto c = BlockMatMul(*ab, *bb, out, "", label);
    if (!c.ok()) return c.status();
    results.push_back(*c);
  } else {  // batched: one 2-D product per batch and head
    lead = out_dims.size() - 2;
    const auto tuples = import_internal::LeadTuples(out_dims, lead);
    for (size_t index = 0; index < tuples.size(); ++index) {
      const auto& tuple = tuples[index];
      auto operand_lead = [&](const Layout& v) {
        const size_t vl = v.dims.size() - 2;
        std::vector<int64_t> idx(vl);
        for (size_t d = 0; d < vl; ++d) idx[d] = v.dims[d] == 1 ? 0 : tuple[d + lead - vl];
        return idx;
      };
      auto ab = import_internal::ToBlocks(a, operand_lead(a));
      if (!ab.ok()) return NodeError(label, ab.status().message());
      auto bb = import_internal::ToBlocks(b, operand_lead(b));
      if (!bb.ok()) return NodeError(label, bb.status().message());
      auto c = BlockMatMul(*ab, *bb, out, tuples.size() > 1 ? std::to_string(index) : "", label);
      if (!c.ok()) return c.status();
      results.push_back(*c);
    }
  }
  auto v = import_internal::FromBlocks(out_dims, lead, results);
  if (!v.ok()) return NodeError(label, v.status().message());
  return v;
}

// Operands of the output's full shape are read; constants of another shape are folded into the
// cost; a row statistic brings the tensors it reduced, its work, and makes the op row-wise.
Result<Value> Importer::Elementwise(const std::vector<const Value*>& inputs, const Dims& out_dims, double work,
                                    bool rowwise, const std::string& out, const std::string& label,
                                    const std::string& type) {
  std::vector<Layout> full;
  std::string names = model_name_, types = type;
  auto stat = std::make_shared<RowStat>();
  bool any_stat = false;
  bool any_tensor = false;
  for (const Value* v : inputs) any_tensor = any_tensor || v->kind == Kind::kTensor;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = *inputs[i];
    if (v.kind == Kind::kRowStat) {
      any_stat = true;
      stat->inputs.insert(stat->inputs.end(), v.stat->inputs.begin(), v.stat->inputs.end());
      work += v.stat->work;
      names = v.stat->names + "+" + names;
      types = v.stat->types + "+" + types;
      continue;
    }
    if (any_tensor && v.dims == out_dims && (v.kind == Kind::kTensor || !v.name.empty())) {
      auto l = AsTensor(v, label);
      if (!l.ok()) return l.status();
      full.push_back(*l);
    } else if (v.kind == Kind::kTensor) {
      return NodeError(label, "operand " + std::to_string(i) + " of shape " + DimsString(v.dims) +
                                  " is broadcast to " + DimsString(out_dims) + "; only constant operands may be broadcast");
    }  // else: a broadcast constant or index mask, folded into the cost
  }
  if (any_stat && !any_tensor) {  // statistics combined with constants: still a statistic
    stat->work = work;
    stat->names = names, stat->types = types;
    Value v;
    v.kind = Kind::kRowStat;
    v.dims = out_dims;
    v.stat = stat;
    return v;
  }
  if (any_stat) {
    for (const Layout& l : stat->inputs) {
      if (l.dims != out_dims) {
        return NodeError(label, "a row statistic of a tensor of shape " + DimsString(l.dims) + " is broadcast into " +
                                    DimsString(out_dims));
      }
      full.push_back(l);
    }
    rowwise = true;
  }
  if (out_dims.empty()) return NodeError(label, "scalar activations are not supported");
  size_t lead = 0;
  auto blocks = BlocksOf(full, out_dims, &lead, label);
  if (!blocks.ok()) return blocks.status();
  const size_t n = full.size();
  std::vector<Blocks> results;
  for (size_t t = 0; t * n < blocks->size(); ++t) {
    const Blocks* ops = &(*blocks)[t * n];
    int64_t bs_r = 0, bs_c = 0;
    for (size_t k = 0; k < n; ++k) bs_r = std::gcd(bs_r, ops[k].bs_r), bs_c = std::gcd(bs_c, ops[k].bs_c);
    std::vector<Blocks> aligned;
    for (size_t k = 0; k < n; ++k) aligned.push_back(import_internal::RefineBlocks(ops[k], bs_r, bs_c));
    Blocks o;
    o.bs_r = bs_r, o.bs_c = bs_c, o.rb = aligned[0].rb, o.cb = aligned[0].cb;
    if (rowwise && o.cb != 1) {
      return NodeError(label, "its rows are split into column blocks (heads); a row-wise op needs whole rows");
    }
    const size_t count = blocks->size() / n * static_cast<size_t>(o.rb * o.cb);
    for (int64_t i = 0; i < o.rb; ++i) {
      for (int64_t j = 0; j < o.cb; ++j) {
        std::vector<View> views;
        for (const Blocks& b : aligned) views.push_back(b.at(i, j));
        const size_t flat = t * static_cast<size_t>(o.rb * o.cb) + static_cast<size_t>(i * o.cb + j);
        const std::string suffix = count > 1 ? "[" + std::to_string(flat) + "]" : "";
        o.views.push_back(graph_.Full(graph_.AddPointwise(views, work, rowwise, out, names + suffix, types)));
      }
    }
    results.push_back(o);
  }
  auto layout = import_internal::FromBlocks(out_dims, lead, results);
  if (!layout.ok()) return NodeError(label, layout.status().message());
  return Tensor(*layout);
}

// A patch embedding: a Conv whose kernel equals its stride, without padding, dilation or
// groups, is one MatMul of the patch matrix (im2col without overlap, a graph input) by the
// kernel reshaped to [C*kh*kw, M].
Result<Value> Importer::Conv(const std::vector<const Value*>& in, const Dims& out_dims, const onnx::NodeProto& node,
                             const std::string& label) {
  const Value& x = *in[0];
  const Value& w = *in[1];
  const size_t spatial = w.dims.size() - 2;
  std::vector<int64_t> kernel(w.dims.begin() + 2, w.dims.end());
  std::vector<int64_t> strides = IntsAttribute(node, "strides"), dil = IntsAttribute(node, "dilations"),
                       pads = IntsAttribute(node, "pads");
  strides.resize(spatial, 1), dil.resize(spatial, 1), pads.resize(2 * spatial, 0);
  const bool patch = strides == kernel && std::all_of(dil.begin(), dil.end(), [](int64_t d) { return d == 1; }) &&
                     std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; }) &&
                     IntAttribute(node, "group", 1) == 1 && FindAttribute(node, "auto_pad") == nullptr;
  if (!patch) {
    return NodeError(label, "only a Conv whose kernel equals its stride, without padding, dilation or groups (a patch "
                            "embedding) is supported; this one has kernel " + DimsString(kernel) + ", strides " +
                            DimsString(strides) + ", pads " + DimsString(pads) + ", dilations " + DimsString(dil) +
                            ", group " + std::to_string(IntAttribute(node, "group", 1)));
  }
  if (x.kind != Kind::kConstant && x.kind != Kind::kIndex &&
      !(x.kind == Kind::kTensor && x.layout.bases.size() == 1 && graph_.vtensor(x.layout.bases[0].vt).kind ==
                                                                       import_internal::VTensor::Kind::kInput)) {
    return NodeError(label, "the image of a patch embedding must be a model input (its patch matrix becomes a graph "
                            "input)");
  }
  const std::string image = x.kind == Kind::kTensor ? graph_.vtensor(x.layout.bases[0].vt).name : x.name;
  const int64_t patches = Product(out_dims) / out_dims[1];
  const int64_t k = Product(Dims(w.dims.begin() + 1, w.dims.end()));
  const int64_t m = w.dims[0];
  const View p = graph_.Full(graph_.AddInput(image + "[patches]", patches, k));
  const View wt = graph_.Full(graph_.AddInput(w.name + "[im2col]^T", k, m));
  Value product = Tensor(import_internal::DenseLayout(
      graph_.Full(graph_.AddMatMul(p, wt, node.output(0), model_name_, node_type_)), {patches, m}));
  if (in.size() > 2 && in[2] != nullptr) {  // the bias (per output channel, a column): an epilogue
    auto biased = Elementwise({&product, in[2]}, {patches, m}, Work("Add"), false, node.output(0), label, "Add");
    if (!biased.ok()) return biased.status();
    product = *biased;
  }
  // Rows of the product run over (N, spatial...), columns over the output channels.
  Layout layout;
  layout.dims = out_dims;
  layout.bases = product.layout.bases;
  const int64_t per_image = patches / out_dims[0];
  layout.axes.push_back({{AxisKind::kRow, out_dims[0], per_image}});
  layout.axes.push_back({{AxisKind::kCol, m, 1}});
  int64_t stride = per_image;
  for (size_t d = 2; d < out_dims.size(); ++d) {
    stride /= out_dims[d];
    layout.axes.push_back({{AxisKind::kRow, out_dims[d], stride}});
  }
  return Tensor(layout);
}

Result<std::vector<Value>> Importer::Map(const onnx::NodeProto& node, const std::vector<const Value*>& in,
                                         const std::vector<Dims>& out_dims, const std::string& label,
                                         std::string* category) {
  const std::string& op = node.op_type();
  const std::string& out = node.output(0);
  auto single = [](Result<Value> v) -> Result<std::vector<Value>> {
    if (!v.ok()) return v.status();
    return std::vector<Value>{*v};
  };
  auto tensor = [&](Result<Layout> l) -> Result<std::vector<Value>> {
    if (!l.ok()) return NodeError(label, l.status().message());
    return std::vector<Value>{Tensor(*l)};
  };
  const Value& x = *in[0];
  // Views and aliases.
  if (AliasOps().count(op)) {
    *category = "view";
    if (x.kind == Kind::kRowStat) {
      Value v = x;
      v.dims = out_dims[0];
      return std::vector<Value>{v};
    }
    auto l = import_internal::Reshaped(x.layout, out_dims[0]);
    if (!l.ok()) {
      return NodeError(label, "reshape " + DimsString(x.dims) + " -> " + DimsString(out_dims[0]) +
                                  " is not a regrouping of the data's rows and columns");
    }
    std::vector<Value> outs = {Tensor(*l)};
    for (size_t i = 1; i < out_dims.size(); ++i) outs.push_back(Constant(out_dims[i]));  // Dropout's mask
    return outs;
  }
  if (x.kind == Kind::kRowStat && !import_internal::IsElementwise(op)) {
    return NodeError(label, "a row statistic is read by an op that is not elementwise");
  }
  if (op == "Transpose") {
    *category = "view";
    std::vector<int64_t> perm = IntsAttribute(node, "perm");
    if (perm.empty()) {
      for (size_t d = x.dims.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
    }
    Layout l = x.layout;
    for (size_t d = 0; d < perm.size(); ++d) {
      l.dims[d] = x.dims[static_cast<size_t>(perm[d])];
      l.axes[d] = x.layout.axes[static_cast<size_t>(perm[d])];
    }
    return tensor(l);
  }
  if (op == "Slice" || op == "Split" || op == "Gather") {
    *category = "view";
    std::vector<NodeInput> ni;
    for (const Value* v : in) ni.push_back({v ? &v->dims : nullptr, v && v->values ? v->values.get() : nullptr});
    if (op == "Slice") {
      auto spec = import_internal::SliceOf(node, ni, opset_);
      if (!spec.ok()) return NodeError(label, spec.status().message());
      Layout l = x.layout;
      for (size_t d = 0; d < x.dims.size(); ++d) {
        if (spec->start[d] == 0 && spec->end[d] == x.dims[d] && spec->step[d] == 1) continue;
        if (spec->step[d] != 1) return NodeError(label, "a slice with step " + std::to_string(spec->step[d]) + " of an activation");
        auto s = import_internal::SliceDim(l, d, spec->start[d], spec->end[d]);
        if (!s.ok()) return NodeError(label, s.status().message());
        l = *s;
      }
      return tensor(l);
    }
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    int64_t axis = IntAttribute(node, "axis", 0);
    if (axis < 0) axis += rank;
    const auto a = static_cast<size_t>(axis);
    if (op == "Split") {
      std::vector<Value> outs;
      int64_t at = 0;
      for (const Dims& d : out_dims) {
        auto s = import_internal::SliceDim(x.layout, a, at, at + d[a]);
        if (!s.ok()) return NodeError(label, s.status().message());
        outs.push_back(Tensor(*s));
        at += d[a];
      }
      return outs;
    }
    // Gather of an activation: a view when the indices are a constant run.
    const Value& idx = *in[1];
    if (idx.kind != Kind::kConstant || !idx.values) {
      return NodeError(label, "a Gather of an activation by runtime indices ('" + node.input(1) +
                                  "' is not a constant the importer can compute); not supported");
    }
    std::vector<int64_t> ids = import_internal::ToInts(*idx.values);
    for (int64_t& i : ids) i = i < 0 ? i + x.dims[a] : i;
    for (size_t i = 1; i < ids.size(); ++i) {
      if (ids[i] != ids[0] + static_cast<int64_t>(i)) {
        return NodeError(label, "a Gather of an activation by indices that are not a contiguous run; not supported");
      }
    }
    auto s = import_internal::SliceDim(x.layout, a, ids[0], ids[0] + static_cast<int64_t>(ids.size()));
    if (!s.ok()) return NodeError(label, s.status().message());
    return tensor(import_internal::Reshaped(*s, out_dims[0]));
  }
  if (op == "Concat") {
    *category = "view";
    std::vector<Layout> parts;
    for (const Value* v : in) {
      if (!v) continue;
      auto l = AsTensor(*v, label);
      if (!l.ok()) return l.status();
      parts.push_back(*l);
    }
    int64_t axis = IntAttribute(node, "axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(x.dims.size());
    return tensor(import_internal::ConcatLayouts(parts, static_cast<size_t>(axis)));
  }
  if (op == "Expand" || op == "Tile") {
    *category = "view";
    if (op == "Expand") return tensor(import_internal::ExpandTo(x.layout, out_dims[0]));
    Layout l = x.layout;
    for (size_t d = 0; d < x.dims.size(); ++d) {
      if (out_dims[0][d] != x.dims[d]) l = import_internal::Repeat(l, d, out_dims[0][d] / x.dims[d]);
    }
    return tensor(l);
  }
  if (op == "MatMul" || op == "Gemm") {
    *category = "MatMul";
    auto a = AsTensor(x, label);
    if (!a.ok()) return a.status();
    auto b = AsTensor(*in[1], label);
    if (!b.ok()) return b.status();
    if (op == "MatMul") return tensor(MatMul(*a, *b, out_dims[0], out, label));
    Layout av = *a, bv = *b;
    if (av.dims.size() != 2 || bv.dims.size() != 2) return NodeError(label, "operands must be 2-D");
    if (IntAttribute(node, "transA", 0)) std::swap(av.dims[0], av.dims[1]), std::swap(av.axes[0], av.axes[1]);
    if (IntAttribute(node, "transB", 0)) std::swap(bv.dims[0], bv.dims[1]), std::swap(bv.axes[0], bv.axes[1]);
    const double alpha = FloatAttribute(node, "alpha", 1), beta = FloatAttribute(node, "beta", 1);
    const bool bias = in.size() > 2 && in[2] != nullptr;
    const double work = (bias ? Work("Add") : 0) + (alpha != 1 ? Work("Mul") : 0) + (bias && beta != 1 ? Work("Mul") : 0);
    auto product = MatMul(av, bv, out_dims[0], work > 0 ? out + ".matmul" : out, label);
    if (!product.ok()) return product.status();
    if (work == 0) return tensor(product);
    const Value p = Tensor(*product);  // the bias (and alpha, beta) as a Pointwise epilogue
    std::vector<const Value*> operands = {&p};
    if (bias) operands.push_back(in[2]);
    return single(Elementwise(operands, out_dims[0], work, false, out, label, "Gemm"));
  }
  if (op == "Conv") {
    *category = "MatMul";
    if (in[1]->kind != Kind::kConstant) return NodeError(label, "the kernel must be a constant");
    return single(Conv(in, out_dims[0], node, label));
  }
  if (op == "Softmax" || op == "LogSoftmax" || op == "LayerNormalization") {
    *category = "Pointwise";
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    int64_t axis = IntAttribute(node, "axis", op != "LayerNormalization" && opset_ < 13 ? 1 : -1);
    if (axis < 0) axis += rank;
    if (axis != rank - 1) return NodeError(label, "axis " + std::to_string(axis) + " is not the last axis");
    if (x.kind != Kind::kTensor) return NodeError(label, "input is not a tensor");
    const double work = op == "LogSoftmax" ? Work("Softmax") + Work("Log") : Work(op);
    auto v = Elementwise({in[0]}, out_dims[0], work, true, out, label, op);
    if (!v.ok()) return v.status();
    std::vector<Value> outs = {*v};
    for (size_t i = 1; i < out_dims.size(); ++i) outs.push_back(Constant(out_dims[i]));
    return outs;
  }
  if (op.rfind("Reduce", 0) == 0 && op != "ReduceL1") {
    *category = "Pointwise";
    std::vector<NodeInput> ni;
    for (const Value* v : in) ni.push_back({v ? &v->dims : nullptr, v && v->values ? v->values.get() : nullptr});
    auto axes = import_internal::AxesOf(node, ni, opset_);
    if (!axes.ok()) return NodeError(label, axes.status().message());
    const int64_t rank = static_cast<int64_t>(x.dims.size());
    if (axes->size() != 1 || ((*axes)[0] != -1 && (*axes)[0] != rank - 1)) {
      return NodeError(label, "a reduction over axes " + DimsString(*axes) + " of an activation of shape " +
                                  DimsString(x.dims) + "; only the last axis (a row statistic) is supported");
    }
    auto stat = std::make_shared<RowStat>();
    stat->inputs = {x.layout};
    stat->work = Work(op);
    stat->names = model_name_;
    stat->types = op;
    Value v;
    v.kind = Kind::kRowStat;
    v.dims = out_dims[0];
    v.stat = stat;
    return std::vector<Value>{v};
  }
  if (import_internal::IsElementwise(op)) {
    *category = "Pointwise";
    std::vector<const Value*> operands;
    for (const Value* v : in) {
      if (v) operands.push_back(v);
    }
    return single(Elementwise(operands, out_dims[0], Work(op), false, out, label, op));
  }
  return NodeError(label, "operator not supported on activations by the importer (docs/import.md lists the "
                          "supported ones)");
}

Status Importer::Node(const onnx::NodeProto& node, int index) {
  const std::string label =
      "node '" + (node.name().empty() ? "#" + std::to_string(index) : node.name()) + "' (" + node.op_type() + ")";
  const std::string& op = node.op_type();
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    return NodeError(label, "operator domain '" + node.domain() + "' is not supported");
  }
  if (!import_internal::IsShapeRuleKnown(op)) {
    return NodeError(label, "operator not supported by the importer (docs/import.md lists the supported ones)");
  }
  if (node.output_size() < 1 || node.output(0).empty()) return NodeError(label, "has no output");
  if (op != "Constant" && node.input_size() < 1) return NodeError(label, "has no input");
  model_name_ = import_internal::ModelNodeName(node, index);
  node_type_ = op;
  std::vector<const Value*> in;
  std::vector<NodeInput> shapes;
  for (int i = 0; i < node.input_size(); ++i) {
    if (node.input(i).empty()) {
      in.push_back(nullptr);
      shapes.push_back({});
      continue;
    }
    auto it = values_.find(node.input(i));
    if (it == values_.end()) return NodeError(label, "input '" + node.input(i) + "' is not defined by any earlier node");
    in.push_back(&it->second);
    shapes.push_back({&it->second.dims, it->second.values ? it->second.values.get() : nullptr});
  }
  auto out_dims = import_internal::InferOutputDims(node, shapes, opset_);
  if (!out_dims.ok()) return NodeError(label, out_dims.status().message());
  if (static_cast<int>(out_dims->size()) < node.output_size()) return NodeError(label, "more outputs than the operator has");
  for (int i = 0; i < node.output_size(); ++i) {
    const std::string& o = node.output(i);
    if (o.empty()) continue;
    if (Status s = CheckSize(o, (*out_dims)[i]); !s.ok()) return NodeError(label, s.message());
    if (auto r = recorded_.find(o); r != recorded_.end() && r->second != (*out_dims)[i]) {
      return NodeError(label, "output '" + o + "' has shape " + DimsString((*out_dims)[i]) +
                                  " by the importer's shape rules, but the model records " + DimsString(r->second));
    }
  }
  // Only output 0 is modelled for tensors; the others (Dropout's mask, LayerNormalization's
  // statistics) must be unused unless they are constants.
  bool all_constant = true, any_tensor = false;
  for (const Value* v : in) {
    if (!v) continue;
    all_constant = all_constant && v->kind == Kind::kConstant;
    any_tensor = any_tensor || v->kind == Kind::kTensor || v->kind == Kind::kRowStat;
  }
  std::vector<Value> outs;
  std::string category;
  if (op == "Shape" || op == "Size" || all_constant) {
    // A table looked up by constant positions is an embedding too (a graph input where read).
    const bool lookup = op == "Gather" && in[0]->dims.size() >= 2 && in[1] && !in[1]->dims.empty();
    category = lookup ? "input" : "constant";
    std::vector<ConstInput> ci;
    for (const Value* v : in) {
      if (v) {
        ci.push_back({&v->dims, v->values, v->dtype});
      } else {
        ci.push_back({});
      }
    }
    const std::vector<ValuesPtr> computed = import_internal::EvalConstantNode(node, ci, *out_dims, opset_);
    for (size_t i = 0; i < out_dims->size(); ++i) {
      Value v;
      v.kind = Kind::kConstant;
      v.dims = (*out_dims)[i];
      v.values = computed[i];
      v.dtype = import_internal::ConstantOutputType(node, ci, i);
      v.name = i < static_cast<size_t>(node.output_size()) ? node.output(static_cast<int>(i)) : "";
      // A graph input made of a reshaped, transposed or gathered initializer is named after it.
      if (op == "Gather" && in[0] && in[1]) v.name = in[0]->name + "[" + in[1]->name + "]";
      if (AliasOps().count(op) && in[0]) v.name = in[0]->name;
      if (op == "Transpose" && in[0] && in[0]->dims.size() == 2) v.name = in[0]->name + "^T";
      outs.push_back(v);
    }
  } else if (op == "Gather" && in[0]->kind == Kind::kConstant && in[1]->kind == Kind::kIndex) {
    category = "input";  // an embedding lookup: the gathered rows are a graph input
    Value v;
    v.kind = Kind::kConstant;
    v.dims = (*out_dims)[0];
    v.name = in[0]->name + "[" + in[1]->name + "]";
    auto l = AsTensor(v, label);
    if (!l.ok()) return l.status();
    outs.push_back(Tensor(*l));
  } else if (!any_tensor) {
    category = "index";  // integers computed from integer model inputs: plumbing, not scheduled
    for (const Dims& d : *out_dims) {
      Value v;
      v.kind = Kind::kIndex;
      v.dims = d;
      v.dtype = onnx::TensorProto::INT64;
      v.name = node.output(0);
      outs.push_back(v);
    }
  } else {
    auto mapped = Map(node, in, *out_dims, label, &category);
    if (!mapped.ok()) return mapped.status();
    outs = std::move(mapped).value();
    for (int i = 1; i < node.output_size(); ++i) {
      const std::string& extra = node.output(i);
      const bool tensor_output = i < static_cast<int>(outs.size()) && outs[static_cast<size_t>(i)].kind == Kind::kTensor;
      if (!tensor_output && !extra.empty() && (readers_.count(extra) || graph_outputs_.count(extra))) {
        return NodeError(label, "its output " + std::to_string(i) + " ('" + extra + "') is used; only output 0 is supported");
      }
    }
  }
  for (int i = 0; i < node.output_size() && i < static_cast<int>(outs.size()); ++i) {
    if (!node.output(i).empty()) values_[node.output(i)] = std::move(outs[static_cast<size_t>(i)]);
  }
  return Record(node, category);
}

Status Importer::Record(const onnx::NodeProto& node, const std::string& category) {
  ImportSummary::OpTypeCounts& c = summary_.by_op_type[node.op_type()];
  ++c.nodes;
  if (category == "MatMul") ++c.matmul;
  if (category == "Pointwise") ++c.pointwise;
  if (category == "constant") ++c.constant;
  if (category == "view") ++c.view;
  if (category == "input") ++c.input;
  if (category == "index") ++c.index;
  return Status::Ok();
}

Result<ImportedModel> Importer::Run(const onnx::ModelProto& model) {
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = static_cast<int>(o.version());
  }
  const onnx::GraphProto& g = model.graph();
  std::set<std::string> initializers;
  for (const auto& init : g.initializer()) {
    initializers.insert(init.name());
    Dims dims(init.dims().begin(), init.dims().end());
    if (Status s = CheckSize(init.name(), dims); !s.ok()) return s;
    Value v;
    v.kind = Kind::kConstant;
    v.dims = dims;
    v.dtype = init.data_type();
    v.values = import_internal::TensorValues(init);
    v.name = init.name();
    values_[init.name()] = std::move(v);
  }
  for (const auto* infos : {&g.value_info(), &g.output()}) {
    for (const auto& info : *infos) {
      auto dims = ShapeOf(info);
      if (dims.ok()) recorded_[info.name()] = *dims;  // a dynamic one is checked by its node
    }
  }
  for (const auto& info : g.input()) {
    if (initializers.count(info.name())) continue;
    auto dims = ShapeOf(info);
    if (!dims.ok()) return Status::Error("graph input: " + dims.status().message());
    if (Status s = CheckSize(info.name(), *dims); !s.ok()) return s;
    const int dtype = info.type().tensor_type().elem_type();
    Value v;
    v.dims = *dims;
    v.dtype = dtype;
    v.name = info.name();
    if (IsIntegerOrBool(dtype)) {
      v.kind = Kind::kIndex;  // token ids, masks: read by lookups, never computed on
    } else {
      const int64_t cols = dims->empty() ? 1 : dims->back();
      v.kind = Kind::kTensor;
      v.layout = import_internal::DenseLayout(graph_.Full(graph_.AddInput(info.name(), Product(*dims) / cols, cols)),
                                              *dims);
    }
    values_[info.name()] = std::move(v);
  }
  for (const auto& node : g.node()) {
    for (const auto& in : node.input()) ++readers_[in];
  }
  for (const auto& info : g.output()) graph_outputs_.insert(info.name());
  for (int i = 0; i < g.node_size(); ++i) {
    if (Status s = Node(g.node(i), i); !s.ok()) return s;
  }
  std::vector<View> outputs;
  for (const auto& info : g.output()) {
    const std::string label = "graph output '" + info.name() + "'";
    auto it = values_.find(info.name());
    if (it == values_.end()) return Status::Error(label + ": not defined by any node");
    if (it->second.kind != Kind::kTensor) return Status::Error(label + " is a constant");
    size_t lead = 0;
    auto blocks = BlocksOf({it->second.layout}, it->second.dims, &lead, label);
    if (!blocks.ok()) return blocks.status();
    for (const Blocks& b : *blocks) outputs.insert(outputs.end(), b.views.begin(), b.views.end());
  }
  if (outputs.empty()) return Status::Error("model: the graph has no outputs");
  auto built = graph_.Build(outputs, hw_, options_.fold_pointwise);
  if (!built.ok()) return built.status();
  ImportedModel imported = std::move(built).value();
  imported.summary = summary_;
  return imported;
}

}  // namespace

Result<ImportedModel> ImportOnnx(const std::string& model_bytes, const HardwareDescription& hw,
                                 const ImportOptions& options) {
  auto model = import_internal::ParseOnnxModel(model_bytes.data(), model_bytes.size());
  if (!model.ok()) return model.status();
  if (model->ir_version() <= 0 || !model->has_graph() || model->graph().node_size() == 0) {
    return Status::Error("model: not an ONNX model (no IR version or no graph nodes)");
  }
  Importer importer(hw, options);
  return importer.Run(*model);
}

Result<ImportedModel> ImportOnnxFile(const std::string& path, const HardwareDescription& hw,
                                     const ImportOptions& options) {
  auto model = import_internal::ReadOnnxModel(path);
  if (!model.ok()) return model.status();
  auto imported = [&]() -> Result<ImportedModel> {
    if (model->ir_version() <= 0 || !model->has_graph() || model->graph().node_size() == 0) {
      return Status::Error("model: not an ONNX model (no IR version or no graph nodes)");
    }
    Importer importer(hw, options);
    return importer.Run(*model);
  }();
  if (!imported.ok()) return imported.status().WithContext(path + ": ");
  return imported;
}

std::string ImportedProblemToJson(const ImportedModel& model) {
  std::string out = ProblemToJson(model.problem);
  const size_t end = out.rfind("\n}");
  out.resize(end);
  return out + ",\n  \"op_sources\": " + nlohmann::json(model.op_sources).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n}\n";
}

}  // namespace tilesched
