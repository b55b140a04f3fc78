// Shape rules of the supported ONNX operators (shape_rules.h), following the operator
// definitions of the ONNX specification, opsets 7 to 21.
#include "shape_rules.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace tilesched::import_internal {

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
std::vector<int64_t> IntsAttribute(const onnx::NodeProto& node, const std::string& name) {
  const auto* a = FindAttribute(node, name);
  if (!a) return {};
  return {a->ints().begin(), a->ints().end()};
}

int64_t Product(const Dims& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

std::string DimsString(const Dims& dims) {
  std::string s = "[";
  for (size_t d = 0; d < dims.size(); ++d) s += (d ? "," : "") + std::to_string(dims[d]);
  return s + "]";
}

Result<Dims> Broadcast(const Dims& a, const Dims& b) {
  const size_t n = std::max(a.size(), b.size());
  Dims out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) {
      return Status::Error("shapes " + DimsString(a) + " and " + DimsString(b) + " do not broadcast");
    }
    out[i] = x == 1 ? y : x;
  }
  return out;
}

std::vector<int64_t> ToInts(const std::vector<double>& values) {
  std::vector<int64_t> out;
  out.reserve(values.size());
  for (double v : values) {
    if (v >= 9.2e18) {
      out.push_back(std::numeric_limits<int64_t>::max());
    } else if (v <= -9.2e18) {
      out.push_back(std::numeric_limits<int64_t>::min());
    } else {
      out.push_back(static_cast<int64_t>(v));
    }
  }
  return out;
}

bool IsElementwise(const std::string& op) {
  static const std::set<std::string> ops = {
      "Add",  "Sub",   "Mul",     "Div",       "Pow",         "Max",       "Min",        "Mod",  "Relu",
      "Sigmoid", "Tanh", "Erf",   "Exp",       "Log",         "Sqrt",      "Reciprocal", "Neg",  "Abs",
      "Where", "Cast", "CastLike", "Softplus", "LeakyRelu",   "HardSigmoid", "HardSwish", "Clip", "Sum",
      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Not", "Sign",
      "Floor", "Ceil", "Round", "Sin",   "Cos",   "IsNaN",     "IsInf"};
  return ops.count(op) > 0;
}

bool IsShapeRuleKnown(const std::string& op) {
  static const std::set<std::string> ops = {
      "Identity", "Dropout", "Softmax", "LogSoftmax", "LayerNormalization", "MatMul", "Gemm", "Reshape",
      "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Slice", "Split", "Gather", "GatherElements",
      "Expand", "Tile", "Shape", "Size", "ConstantOfShape", "Range", "CumSum", "Trilu", "ReduceMean",
      "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "Constant", "Conv"};
  return IsElementwise(op) || ops.count(op) > 0;
}

namespace {

Status Error(const std::string& what) { return Status::Error(what); }

Result<std::vector<int64_t>> ConstantInts(const std::vector<NodeInput>& in, size_t i, const std::string& what) {
  if (i >= in.size() || !in[i].dims) return Error(what + " (input " + std::to_string(i) + ") is missing");
  if (!in[i].values) {
    return Error(what + " (input " + std::to_string(i) + ") is not a constant the importer can compute");
  }
  return ToInts(*in[i].values);
}

bool HasInput(const std::vector<NodeInput>& in, size_t i) { return i < in.size() && in[i].dims != nullptr; }

Result<int64_t> NormalizeAxis(int64_t axis, size_t rank, bool inclusive_end = false) {
  const auto r = static_cast<int64_t>(rank) + (inclusive_end ? 1 : 0);
  if (axis < -r || axis >= r) return Error("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + r : axis;
}

int64_t Clamp(int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(hi, v)); }

}  // namespace

Result<std::vector<int64_t>> AxesOf(const onnx::NodeProto& node, const std::vector<NodeInput>& in, int opset) {
  const std::string& op = node.op_type();
  const int input_from = (op == "ReduceSum" || op == "Squeeze" || op == "Unsqueeze") ? 13 : 18;
  if (opset < input_from) return IntsAttribute(node, "axes");
  if (!HasInput(in, 1)) return std::vector<int64_t>{};
  return ConstantInts(in, 1, "axes");
}

Result<std::vector<int64_t>> SplitSizes(const onnx::NodeProto& node, const std::vector<NodeInput>& in, int opset,
                                        int64_t extent) {
  std::vector<int64_t> sizes;
  if (opset < 13) {
    sizes = IntsAttribute(node, "split");
  } else if (HasInput(in, 1)) {
    auto s = ConstantInts(in, 1, "split");
    if (!s.ok()) return s.status();
    sizes = *s;
  }
  if (sizes.empty()) {
    const int64_t n = IntAttribute(node, "num_outputs", node.output_size());
    if (n <= 0) return Error("no split sizes and no outputs");
    const int64_t chunk = (extent + n - 1) / n;  // opset 18: the last chunk may be smaller
    for (int64_t i = 0; i < n; ++i) sizes.push_back(std::max<int64_t>(0, std::min(chunk, extent - i * chunk)));
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) return Error("negative split size");
    total += s;
  }
  if (total != extent) {
    return Error("split sizes add up to " + std::to_string(total) + ", the axis has " + std::to_string(extent));
  }
  if (static_cast<int>(sizes.size()) != node.output_size()) return Error("split sizes do not match the outputs");
  return sizes;
}

Result<SliceSpec> SliceOf(const onnx::NodeProto& node, const std::vector<NodeInput>& in, int opset) {
  const Dims& dims = *in[0].dims;
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset < 10) {
    starts = IntsAttribute(node, "starts");
    ends = IntsAttribute(node, "ends");
    axes = IntsAttribute(node, "axes");
  } else {
    auto s = ConstantInts(in, 1, "starts");
    if (!s.ok()) return s.status();
    auto e = ConstantInts(in, 2, "ends");
    if (!e.ok()) return e.status();
    starts = *s, ends = *e;
    if (HasInput(in, 3)) {
      auto a = ConstantInts(in, 3, "axes");
      if (!a.ok()) return a.status();
      axes = *a;
    }
    if (HasInput(in, 4)) {
      auto st = ConstantInts(in, 4, "steps");
      if (!st.ok()) return st.status();
      steps = *st;
    }
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    return Error("starts, ends, axes and steps differ in length");
  }
  SliceSpec spec;
  spec.start.assign(dims.size(), 0);
  spec.end = dims;
  spec.step.assign(dims.size(), 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    auto axis = NormalizeAxis(axes[i], dims.size());
    if (!axis.ok()) return axis.status();
    const int64_t n = dims[*axis], step = steps[i];
    if (step == 0) return Error("step 0");
    int64_t s = starts[i] < 0 ? starts[i] + n : starts[i];
    int64_t e = ends[i] < 0 && ends[i] > std::numeric_limits<int64_t>::min() ? ends[i] + n : ends[i];
    if (step > 0) {
      s = Clamp(s, 0, n), e = Clamp(e, 0, n);
    } else {
      s = Clamp(s, 0, n - 1), e = Clamp(e, -1, n - 1);
    }
    spec.start[*axis] = s, spec.end[*axis] = e, spec.step[*axis] = step;
  }
  return spec;
}

namespace {

Result<Dims> ReshapeDims(const onnx::NodeProto& node, const Dims& in, const std::vector<int64_t>& shape) {
  const bool allowzero = IntAttribute(node, "allowzero", 0) != 0;
  Dims out;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0 && !allowzero) {
      if (i >= in.size()) return Error("shape entry 0 copies a dimension the input does not have");
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) return Error("more than one -1 in the shape");
      infer = static_cast<int>(i);
      out.push_back(1);
      continue;
    }
    if (d < 0) return Error("negative dimension in the shape");
    out.push_back(d);
    known *= d;
  }
  const int64_t total = Product(in);
  if (infer >= 0) {
    if (known == 0 || total % known != 0) return Error("cannot infer -1 in reshape " + DimsString(in) + " -> " + DimsString(shape));
    out[infer] = total / known;
  } else if (known != total) {
    return Error("reshape " + DimsString(in) + " -> " + DimsString(out) + " changes the element count");
  }
  return out;
}

Result<Dims> ReduceDims(const onnx::NodeProto& node, const std::vector<NodeInput>& in, int opset) {
  const Dims& x = *in[0].dims;
  auto axes = AxesOf(node, in, opset);
  if (!axes.ok()) return axes.status();
  const bool keep = IntAttribute(node, "keepdims", 1) != 0;
  std::vector<bool> reduced(x.size(), axes->empty() && IntAttribute(node, "noop_with_empty_axes", 0) == 0);
  for (int64_t a : *axes) {
    auto axis = NormalizeAxis(a, x.size());
    if (!axis.ok()) return axis.status();
    reduced[*axis] = true;
  }
  Dims out;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(x[d]);
    } else if (keep) {
      out.push_back(1);
    }
  }
  return out;
}

Result<Dims> MatMulDims(const Dims& a, const Dims& b) {
  if (a.empty() || b.empty()) return Error("scalar operands");
  Dims a2 = a.size() == 1 ? Dims{1, a[0]} : a;
  Dims b2 = b.size() == 1 ? Dims{b[0], 1} : b;
  if (a2.back() != b2[b2.size() - 2]) {
    return Error("operand shapes " + DimsString(a) + " and " + DimsString(b) + " do not multiply");
  }
  auto lead = Broadcast(Dims(a2.begin(), a2.end() - 2), Dims(b2.begin(), b2.end() - 2));
  if (!lead.ok()) return lead.status();
  Dims out = *lead;
  if (a.size() > 1) out.push_back(a2[a2.size() - 2]);
  if (b.size() > 1) out.push_back(b2.back());
  return out;
}

Result<Dims> ConvDims(const onnx::NodeProto& node, const Dims& x, const Dims& w) {
  if (x.size() < 3 || w.size() != x.size()) return Error("input and kernel ranks differ or are below 3");
  const size_t spatial = x.size() - 2;
  std::vector<int64_t> strides = IntsAttribute(node, "strides"), dil = IntsAttribute(node, "dilations"),
                       pads = IntsAttribute(node, "pads");
  strides.resize(spatial, 1), dil.resize(spatial, 1), pads.resize(2 * spatial, 0);
  Dims out = {x[0], w[0]};
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t span = dil[i] * (w[i + 2] - 1) + 1;
    const int64_t padded = x[i + 2] + pads[i] + pads[i + spatial];
    if (strides[i] <= 0 || padded < span) return Error("kernel larger than the padded input");
    out.push_back((padded - span) / strides[i] + 1);
  }
  return out;
}

}  // namespace

Result<std::vector<Dims>> InferOutputDims(const onnx::NodeProto& node, const std::vector<NodeInput>& in, int opset) {
  const std::string& op = node.op_type();
  auto one = [](Result<Dims> d) -> Result<std::vector<Dims>> {
    if (!d.ok()) return d.status();
    return std::vector<Dims>{*d};
  };
  if (op == "Constant") {
    const auto* value = FindAttribute(node, "value");
    if (value && value->has_t()) return std::vector<Dims>{Dims(value->t().dims().begin(), value->t().dims().end())};
    for (const char* scalar : {"value_float", "value_int"}) {
      if (FindAttribute(node, scalar)) return std::vector<Dims>{Dims{}};
    }
    for (const char* list : {"value_floats", "value_ints"}) {
      if (const auto* a = FindAttribute(node, list)) {
        return std::vector<Dims>{Dims{static_cast<int64_t>(std::max(a->floats_size(), a->ints_size()))}};
      }
    }
    return Error("a Constant without a tensor value");
  }
  if (in.empty() || !in[0].dims) return Error("input 0 is missing");
  const Dims& x = *in[0].dims;
  if (IsElementwise(op)) {
    Dims out = x;
    for (size_t i = 1; i < in.size(); ++i) {
      if (!in[i].dims) continue;
      auto b = Broadcast(out, *in[i].dims);
      if (!b.ok()) return b.status();
      out = *b;
    }
    return std::vector<Dims>{out};
  }
  if (op == "Identity" || op == "Softmax" || op == "LogSoftmax" || op == "CumSum" || op == "Trilu") {
    return std::vector<Dims>{x};
  }
  if (op == "Dropout") return std::vector<Dims>{x, x};
  if (op == "LayerNormalization") {
    auto axis = NormalizeAxis(IntAttribute(node, "axis", -1), x.size());
    if (!axis.ok()) return axis.status();
    Dims stats = x;
    for (size_t d = static_cast<size_t>(*axis); d < x.size(); ++d) stats[d] = 1;
    return std::vector<Dims>{x, stats, stats};
  }
  if (op == "MatMul") return one(MatMulDims(x, *in[1].dims));
  if (op == "Gemm") {
    const Dims& b = *in[1].dims;
    if (x.size() != 2 || b.size() != 2) return Error("operands must be 2-D");
    const int64_t m = IntAttribute(node, "transA", 0) ? x[1] : x[0], ka = IntAttribute(node, "transA", 0) ? x[0] : x[1];
    const int64_t kb = IntAttribute(node, "transB", 0) ? b[1] : b[0], n = IntAttribute(node, "transB", 0) ? b[0] : b[1];
    if (ka != kb) return Error("operand shapes " + DimsString(x) + " and " + DimsString(b) + " do not multiply");
    return std::vector<Dims>{Dims{m, n}};
  }
  if (op == "Reshape") {
    auto shape = ConstantInts(in, 1, "shape");
    if (!shape.ok()) return shape.status();
    return one(ReshapeDims(node, x, *shape));
  }
  if (op == "Flatten") {
    auto axis = NormalizeAxis(IntAttribute(node, "axis", 1), x.size(), /*inclusive_end=*/true);
    if (!axis.ok()) return axis.status();
    const auto a = static_cast<size_t>(*axis);
    return std::vector<Dims>{Dims{Product(Dims(x.begin(), x.begin() + static_cast<long>(a))),
                                  Product(Dims(x.begin() + static_cast<long>(a), x.end()))}};
  }
  if (op == "Squeeze") {
    auto axes = AxesOf(node, in, opset);
    if (!axes.ok()) return axes.status();
    std::vector<bool> drop(x.size(), axes->empty());
    for (int64_t a : *axes) {
      auto axis = NormalizeAxis(a, x.size());
      if (!axis.ok()) return axis.status();
      if (x[*axis] != 1) return Error("squeezes axis " + std::to_string(*axis) + " of size " + std::to_string(x[*axis]));
      drop[*axis] = true;
    }
    Dims out;
    for (size_t d = 0; d < x.size(); ++d) {
      if (!(drop[d] && x[d] == 1)) out.push_back(x[d]);
    }
    return std::vector<Dims>{out};
  }
  if (op == "Unsqueeze") {
    auto axes = AxesOf(node, in, opset);
    if (!axes.ok()) return axes.status();
    const size_t rank = x.size() + axes->size();
    std::vector<bool> inserted(rank, false);
    for (int64_t a : *axes) {
      auto axis = NormalizeAxis(a, rank);
      if (!axis.ok()) return axis.status();
      inserted[*axis] = true;
    }
    Dims out;
    size_t next = 0;
    for (size_t d = 0; d < rank; ++d) out.push_back(inserted[d] ? 1 : x[next++]);
    return std::vector<Dims>{out};
  }
  if (op == "Transpose") {
    std::vector<int64_t> perm = IntsAttribute(node, "perm");
    if (perm.empty()) {
      for (size_t d = x.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
    }
    if (perm.size() != x.size()) return Error("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(x.size()));
    Dims out;
    for (int64_t p : perm) {
      if (p < 0 || p >= static_cast<int64_t>(x.size())) return Error("perm out of range");
      out.push_back(x[p]);
    }
    return std::vector<Dims>{out};
  }
  if (op == "Concat") {
    auto axis = NormalizeAxis(IntAttribute(node, "axis", 0), x.size());
    if (!axis.ok()) return axis.status();
    Dims out = x;
    out[*axis] = 0;
    for (const NodeInput& i : in) {
      if (!i.dims) continue;
      if (i.dims->size() != x.size()) return Error("inputs differ in rank");
      for (size_t d = 0; d < x.size(); ++d) {
        if (static_cast<int64_t>(d) != *axis && (*i.dims)[d] != x[d]) return Error("inputs differ outside the axis");
      }
      out[*axis] += (*i.dims)[*axis];
    }
    return std::vector<Dims>{out};
  }
  if (op == "Slice") {
    auto spec = SliceOf(node, in, opset);
    if (!spec.ok()) return spec.status();
    Dims out;
    for (size_t d = 0; d < x.size(); ++d) {
      const int64_t s = spec->start[d], e = spec->end[d], st = spec->step[d];
      out.push_back(st > 0 ? std::max<int64_t>(0, (e - s + st - 1) / st) : std::max<int64_t>(0, (s - e - st - 1) / -st));
    }
    return std::vector<Dims>{out};
  }
  if (op == "Split") {
    auto axis = NormalizeAxis(IntAttribute(node, "axis", 0), x.size());
    if (!axis.ok()) return axis.status();
    auto sizes = SplitSizes(node, in, opset, x[*axis]);
    if (!sizes.ok()) return sizes.status();
    std::vector<Dims> outs;
    for (int64_t s : *sizes) {
      Dims o = x;
      o[*axis] = s;
      outs.push_back(o);
    }
    return outs;
  }
  if (op == "Gather") {
    auto axis = NormalizeAxis(IntAttribute(node, "axis", 0), x.size());
    if (!axis.ok()) return axis.status();
    Dims out(x.begin(), x.begin() + *axis);
    out.insert(out.end(), in[1].dims->begin(), in[1].dims->end());
    out.insert(out.end(), x.begin() + *axis + 1, x.end());
    return std::vector<Dims>{out};
  }
  if (op == "GatherElements") return std::vector<Dims>{*in[1].dims};
  if (op == "Expand") {
    auto shape = ConstantInts(in, 1, "shape");
    if (!shape.ok()) return shape.status();
    return one(Broadcast(x, *shape));
  }
  if (op == "Tile") {
    auto repeats = ConstantInts(in, 1, "repeats");
    if (!repeats.ok()) return repeats.status();
    if (repeats->size() != x.size()) return Error("repeats do not match the rank");
    Dims out = x;
    for (size_t d = 0; d < x.size(); ++d) out[d] *= (*repeats)[d];
    return std::vector<Dims>{out};
  }
  if (op == "Shape") {
    const auto r = static_cast<int64_t>(x.size());
    int64_t s = IntAttribute(node, "start", 0), e = IntAttribute(node, "end", r);
    s = Clamp(s < 0 ? s + r : s, 0, r), e = Clamp(e < 0 ? e + r : e, 0, r);
    return std::vector<Dims>{Dims{std::max<int64_t>(0, e - s)}};
  }
  if (op == "Size") return std::vector<Dims>{Dims{}};
  if (op == "ConstantOfShape") {
    auto shape = ConstantInts(in, 0, "shape");
    if (!shape.ok()) return shape.status();
    return std::vector<Dims>{*shape};
  }
  if (op == "Range") {
    if (!in[0].values || !HasInput(in, 2) || !in[1].values || !in[2].values) {
      return Error("start, limit and delta must be constants the importer can compute");
    }
    const double start = (*in[0].values)[0], limit = (*in[1].values)[0], delta = (*in[2].values)[0];
    if (delta == 0) return Error("delta 0");
    return std::vector<Dims>{Dims{std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / delta)))}};
  }
  if (op.rfind("Reduce", 0) == 0) return one(ReduceDims(node, in, opset));
  if (op == "Conv") return one(ConvDims(node, x, *in[1].dims));
  return Error("no shape rule for this operator");
}

}  // namespace tilesched::import_internal
