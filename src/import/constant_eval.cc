// Constant folding (constant_eval.h): NumPy-style evaluation of the plumbing operators on
// small arrays of doubles, with ONNX's integer and boolean semantics where they differ.
#include "constant_eval.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>

namespace tilesched::import_internal {

namespace {

using onnx::TensorProto;

bool IsIntegerType(int t) {
  return t == TensorProto::INT64 || t == TensorProto::INT32 || t == TensorProto::INT16 || t == TensorProto::INT8 ||
         t == TensorProto::UINT64 || t == TensorProto::UINT32 || t == TensorProto::UINT16 ||
         t == TensorProto::UINT8 || t == TensorProto::BOOL;
}

double HalfToDouble(uint16_t h) {
  const int sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) {
    v = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    v = mantissa ? NAN : INFINITY;
  } else {
    v = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return sign ? -v : v;
}

template <typename T>
void AppendRaw(const std::string& raw, std::vector<double>* out) {
  const size_t n = raw.size() / sizeof(T);
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    out->push_back(static_cast<double>(v));
  }
}

std::vector<int64_t> Strides(const Dims& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) s[d - 1] = s[d] * dims[d];
  return s;
}

// Offsets into an input of shape `in` broadcast to `out`, one per output element.
std::vector<int64_t> BroadcastIndex(const Dims& in, const Dims& out) {
  const size_t n = out.size();
  Dims padded(n, 1);
  std::copy(in.begin(), in.end(), padded.begin() + static_cast<long>(n - in.size()));
  const std::vector<int64_t> in_strides = Strides(padded);
  std::vector<int64_t> index(static_cast<size_t>(Product(out)));
  std::vector<int64_t> pos(n, 0);
  for (size_t i = 0; i < index.size(); ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < n; ++d) off += padded[d] == 1 ? 0 : pos[d] * in_strides[d];
    index[i] = off;
    for (size_t d = n; d-- > 0;) {
      if (++pos[d] < out[d]) break;
      pos[d] = 0;
    }
  }
  return index;
}

double Unary(const std::string& op, double x, int dtype) {
  if (op == "Neg") return -x;
  if (op == "Abs") return std::abs(x);
  if (op == "Sqrt") return std::sqrt(x);
  if (op == "Reciprocal") return 1 / x;
  if (op == "Exp") return std::exp(x);
  if (op == "Log") return std::log(x);
  if (op == "Sin") return std::sin(x);
  if (op == "Cos") return std::cos(x);
  if (op == "Tanh") return std::tanh(x);
  if (op == "Erf") return std::erf(x);
  if (op == "Sigmoid") return 1 / (1 + std::exp(-x));
  if (op == "Relu") return std::max(0.0, x);
  if (op == "Floor") return std::floor(x);
  if (op == "Ceil") return std::ceil(x);
  if (op == "Round") return std::nearbyint(x);
  if (op == "Sign") return (x > 0) - (x < 0);
  if (op == "Not") return x == 0;
  if (op == "IsNaN") return std::isnan(x);
  if (op == "IsInf") return std::isinf(x);
  if (op == "Softplus") return std::log1p(std::exp(x));
  if (op == "Identity" || op == "Cast" || op == "CastLike") {
    if (dtype == TensorProto::BOOL) return x != 0;
    return IsIntegerType(dtype) ? std::trunc(x) : x;
  }
  return NAN;
}

double Binary(const std::string& op, double a, double b, bool integer) {
  if (op == "Add" || op == "Sum") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return integer ? std::trunc(a / b) : a / b;
  if (op == "Mod") return integer ? a - b * std::floor(a / b) : std::fmod(a, b);
  if (op == "Pow") return std::pow(a, b);
  if (op == "Max") return std::max(a, b);
  if (op == "Min") return std::min(a, b);
  if (op == "Equal") return a == b;
  if (op == "Less") return a < b;
  if (op == "Greater") return a > b;
  if (op == "LessOrEqual") return a <= b;
  if (op == "GreaterOrEqual") return a >= b;
  if (op == "And") return (a != 0) && (b != 0);
  if (op == "Or") return (a != 0) || (b != 0);
  if (op == "Xor") return (a != 0) != (b != 0);
  return NAN;
}

bool IsComparison(const std::string& op) {
  return op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual" ||
         op == "And" || op == "Or" || op == "Xor" || op == "Not" || op == "IsNaN" || op == "IsInf";
}

std::vector<double> Elementwise(const onnx::NodeProto& node, const std::vector<ConstInput>& in, const Dims& out,
                                int out_type) {
  const std::string& op = node.op_type();
  const size_t n = static_cast<size_t>(Product(out));
  std::vector<std::vector<int64_t>> index;
  for (const ConstInput& i : in) index.push_back(i.dims ? BroadcastIndex(*i.dims, out) : std::vector<int64_t>{});
  std::vector<double> v(n);
  const auto at = [&](size_t k, size_t i) { return (*in[k].values)[static_cast<size_t>(index[k][i])]; };
  for (size_t i = 0; i < n; ++i) {
    if (op == "Where") {
      v[i] = at(0, i) != 0 ? at(1, i) : at(2, i);
    } else if (op == "Clip") {
      double x = at(0, i);
      if (in.size() > 1 && in[1].dims) x = std::max(x, at(1, i));
      if (in.size() > 2 && in[2].dims) x = std::min(x, at(2, i));
      v[i] = x;
    } else if (in.size() == 1) {
      v[i] = Unary(op, at(0, i), out_type);
    } else {
      double acc = at(0, i);
      for (size_t k = 1; k < in.size(); ++k) acc = Binary(op, acc, at(k, i), IsIntegerType(in[0].dtype));
      v[i] = acc;
    }
  }
  return v;
}

// Copies `x` (shape `dims`) at the multi-indices `source(pos)` for every output position.
std::vector<double> Remap(const Dims& out, const std::function<int64_t(const std::vector<int64_t>&)>& source,
                          const std::vector<double>& x) {
  std::vector<double> v(static_cast<size_t>(Product(out)));
  std::vector<int64_t> pos(out.size(), 0);
  for (double& e : v) {
    e = x[static_cast<size_t>(source(pos))];
    for (size_t d = out.size(); d-- > 0;) {
      if (++pos[d] < out[d]) break;
      pos[d] = 0;
    }
  }
  return v;
}

int64_t NormalAxis(int64_t axis, size_t rank) { return axis < 0 ? axis + static_cast<int64_t>(rank) : axis; }

std::vector<double> Reduce(const std::string& op, const Dims& x_dims, const std::vector<double>& x,
                           const std::vector<int64_t>& axes, bool noop_empty) {
  std::vector<bool> reduced(x_dims.size(), axes.empty() && !noop_empty);
  for (int64_t a : axes) reduced[static_cast<size_t>(NormalAxis(a, x_dims.size()))] = true;
  Dims kept = x_dims;
  for (size_t d = 0; d < kept.size(); ++d) {
    if (reduced[d]) kept[d] = 1;
  }
  const std::vector<int64_t> ks = Strides(kept);
  const double init = op == "ReduceMax" ? -INFINITY : op == "ReduceMin" ? INFINITY : op == "ReduceProd" ? 1 : 0;
  std::vector<double> acc(static_cast<size_t>(Product(kept)), init);
  std::vector<int64_t> pos(x_dims.size(), 0);
  for (double e : x) {
    int64_t k = 0;
    for (size_t d = 0; d < pos.size(); ++d) k += reduced[d] ? 0 : pos[d] * ks[d];
    double& a = acc[static_cast<size_t>(k)];
    a = op == "ReduceMax" ? std::max(a, e) : op == "ReduceMin" ? std::min(a, e) : op == "ReduceProd" ? a * e : a + e;
    for (size_t d = pos.size(); d-- > 0;) {
      if (++pos[d] < x_dims[d]) break;
      pos[d] = 0;
    }
  }
  if (op == "ReduceMean") {
    const double count = static_cast<double>(Product(x_dims)) / static_cast<double>(acc.size());
    for (double& a : acc) a /= count;
  }
  return acc;
}

}  // namespace

int ConstantOutputType(const onnx::NodeProto& node, const std::vector<ConstInput>& in, size_t output) {
  const std::string& op = node.op_type();
  if (IsComparison(op)) return TensorProto::BOOL;
  if (op == "Cast") return static_cast<int>(IntAttribute(node, "to", TensorProto::FLOAT));
  if (op == "CastLike" && in.size() > 1) return in[1].dtype;
  if (op == "Shape" || op == "Size") return TensorProto::INT64;
  if (op == "Constant") {
    const auto* value = FindAttribute(node, "value");
    if (value && value->has_t()) return value->t().data_type();
    return FindAttribute(node, "value_int") || FindAttribute(node, "value_ints") ? TensorProto::INT64 : TensorProto::FLOAT;
  }
  if (op == "ConstantOfShape") {
    const auto* value = FindAttribute(node, "value");
    return value && value->has_t() ? value->t().data_type() : TensorProto::FLOAT;
  }
  if (op == "Where" && in.size() > 1) return in[1].dtype;
  (void)output;
  return in.empty() ? TensorProto::FLOAT : in[0].dtype;
}

ValuesPtr TensorValues(const TensorProto& t) {
  int64_t elements = 1;
  for (int64_t d : t.dims()) elements *= d;
  if (elements > kMaxFoldedElements || t.data_location() == TensorProto::EXTERNAL) return nullptr;
  auto v = std::make_shared<std::vector<double>>();
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    switch (t.data_type()) {
      case TensorProto::FLOAT: AppendRaw<float>(raw, v.get()); break;
      case TensorProto::DOUBLE: AppendRaw<double>(raw, v.get()); break;
      case TensorProto::INT64: AppendRaw<int64_t>(raw, v.get()); break;
      case TensorProto::INT32: AppendRaw<int32_t>(raw, v.get()); break;
      case TensorProto::INT16: AppendRaw<int16_t>(raw, v.get()); break;
      case TensorProto::INT8: AppendRaw<int8_t>(raw, v.get()); break;
      case TensorProto::UINT8: case TensorProto::BOOL: AppendRaw<uint8_t>(raw, v.get()); break;
      case TensorProto::FLOAT16: {
        std::vector<double> halves;
        AppendRaw<uint16_t>(raw, &halves);
        for (double h : halves) v->push_back(HalfToDouble(static_cast<uint16_t>(h)));
        break;
      }
      default: return nullptr;
    }
  } else if (t.data_type() == TensorProto::FLOAT16 || t.data_type() == TensorProto::BFLOAT16) {
    return nullptr;
  } else {
    for (float f : t.float_data()) v->push_back(f);
    for (int32_t i : t.int32_data()) v->push_back(i);
    for (int64_t i : t.int64_data()) v->push_back(static_cast<double>(i));
    for (double d : t.double_data()) v->push_back(d);
    for (uint64_t u : t.uint64_data()) v->push_back(static_cast<double>(u));
  }
  if (static_cast<int64_t>(v->size()) != elements) return nullptr;
  return v;
}

std::vector<ValuesPtr> EvalConstantNode(const onnx::NodeProto& node, const std::vector<ConstInput>& in,
                                        const std::vector<Dims>& out_dims, int opset) {
  std::vector<ValuesPtr> result(out_dims.size());
  const std::string& op = node.op_type();
  for (const Dims& d : out_dims) {
    if (Product(d) > kMaxFoldedElements) return result;
  }
  if (op == "Constant") {
    const auto* value = FindAttribute(node, "value");
    if (value && value->has_t()) {
      result[0] = TensorValues(value->t());
    } else if (const auto* f = FindAttribute(node, "value_float")) {
      result[0] = std::make_shared<std::vector<double>>(1, f->f());
    } else if (const auto* i = FindAttribute(node, "value_int")) {
      result[0] = std::make_shared<std::vector<double>>(1, static_cast<double>(i->i()));
    } else if (const auto* fs = FindAttribute(node, "value_floats")) {
      result[0] = std::make_shared<std::vector<double>>(fs->floats().begin(), fs->floats().end());
    } else if (const auto* is = FindAttribute(node, "value_ints")) {
      auto v = std::make_shared<std::vector<double>>();
      for (int64_t x : is->ints()) v->push_back(static_cast<double>(x));
      result[0] = v;
    }
    return result;
  }
  if (op == "Shape" || op == "Size") {
    const Dims& x = *in[0].dims;
    if (op == "Size") return {std::make_shared<std::vector<double>>(1, static_cast<double>(Product(x)))};
    const auto r = static_cast<int64_t>(x.size());
    int64_t s = IntAttribute(node, "start", 0);
    s = std::clamp<int64_t>(s < 0 ? s + r : s, 0, r);
    auto v = std::make_shared<std::vector<double>>();
    for (int64_t d = s; d < s + out_dims[0][0]; ++d) v->push_back(static_cast<double>(x[static_cast<size_t>(d)]));
    return {v};
  }
  if (op == "ConstantOfShape") {
    double fill = 0;
    if (const auto* value = FindAttribute(node, "value"); value && value->has_t()) {
      if (ValuesPtr f = TensorValues(value->t()); f && !f->empty()) fill = (*f)[0];
    }
    return {std::make_shared<std::vector<double>>(static_cast<size_t>(Product(out_dims[0])), fill)};
  }
  if (op == "Range") {
    auto v = std::make_shared<std::vector<double>>();
    const double start = (*in[0].values)[0], delta = (*in[2].values)[0];
    for (int64_t i = 0; i < out_dims[0][0]; ++i) v->push_back(start + static_cast<double>(i) * delta);
    return {v};
  }
  for (const ConstInput& i : in) {
    if (i.dims && !i.values) return result;  // an input's values are not known
  }
  const Dims& x_dims = *in[0].dims;
  const std::vector<double>& x = *in[0].values;
  const int out_type = ConstantOutputType(node, in, 0);
  if (IsElementwise(op)) {
    result[0] = std::make_shared<std::vector<double>>(Elementwise(node, in, out_dims[0], out_type));
  } else if (op == "Identity" || op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
             op == "Dropout") {
    result[0] = in[0].values;
  } else if (op == "Expand") {
    const std::vector<int64_t> index = BroadcastIndex(x_dims, out_dims[0]);
    auto v = std::make_shared<std::vector<double>>();
    for (int64_t i : index) v->push_back(x[static_cast<size_t>(i)]);
    result[0] = v;
  } else if (op == "Transpose" || op == "Tile" || op == "Slice" || op == "Gather" || op == "GatherElements" ||
             op == "Trilu" || op == "CumSum") {
    const std::vector<int64_t> xs = Strides(x_dims);
    const Dims& out = out_dims[0];
    std::function<int64_t(const std::vector<int64_t>&)> source;
    std::vector<int64_t> perm = IntsAttribute(node, "perm");
    if (perm.empty()) {
      for (size_t d = x_dims.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
    }
    SliceSpec slice;
    if (op == "Slice") {
      std::vector<NodeInput> ni;
      for (const ConstInput& i : in) ni.push_back({i.dims, i.values.get()});
      auto spec = SliceOf(node, ni, opset);
      if (!spec.ok()) return result;
      slice = *spec;
    }
    const int64_t axis = NormalAxis(IntAttribute(node, "axis", 0), x_dims.size());
    if (op == "Transpose") {
      source = [&](const std::vector<int64_t>& p) {
        int64_t o = 0;
        for (size_t d = 0; d < p.size(); ++d) o += p[d] * xs[static_cast<size_t>(perm[d])];
        return o;
      };
    } else if (op == "Tile") {
      source = [&](const std::vector<int64_t>& p) {
        int64_t o = 0;
        for (size_t d = 0; d < p.size(); ++d) o += (p[d] % x_dims[d]) * xs[d];
        return o;
      };
    } else if (op == "Slice") {
      source = [&](const std::vector<int64_t>& p) {
        int64_t o = 0;
        for (size_t d = 0; d < p.size(); ++d) o += (slice.start[d] + p[d] * slice.step[d]) * xs[d];
        return o;
      };
    } else if (op == "Gather") {
      const Dims idx_dims = *in[1].dims;
      const std::vector<int64_t> is = Strides(idx_dims);
      const ValuesPtr idx_values = in[1].values;
      source = [&x_dims, &xs, idx_dims, is, idx_values, axis](const std::vector<int64_t>& p) {
        const std::vector<double>& idx = *idx_values;
        const auto a = static_cast<size_t>(axis);
        int64_t k = 0;
        for (size_t d = 0; d < idx_dims.size(); ++d) k += p[a + d] * is[d];
        auto i = static_cast<int64_t>(idx[static_cast<size_t>(k)]);
        if (i < 0) i += x_dims[a];
        i = std::clamp<int64_t>(i, 0, x_dims[a] - 1);
        int64_t o = 0;
        for (size_t d = 0; d < a; ++d) o += p[d] * xs[d];
        o += i * xs[a];
        for (size_t d = a + 1; d < x_dims.size(); ++d) o += p[d + idx_dims.size() - 1] * xs[d];
        return o;
      };
    } else if (op == "GatherElements") {
      const ValuesPtr idx_values = in[1].values;
      const std::vector<int64_t> is = Strides(out);
      source = [&x_dims, &xs, idx_values, is, axis](const std::vector<int64_t>& p) {
        const std::vector<double>& idx = *idx_values;
        int64_t k = 0;
        for (size_t d = 0; d < p.size(); ++d) k += p[d] * is[d];
        auto i = static_cast<int64_t>(idx[static_cast<size_t>(k)]);
        const auto a = static_cast<size_t>(axis);
        if (i < 0) i += x_dims[a];
        i = std::clamp<int64_t>(i, 0, x_dims[a] - 1);
        int64_t o = 0;
        for (size_t d = 0; d < p.size(); ++d) o += (d == a ? i : p[d]) * xs[d];
        return o;
      };
    } else {  // Trilu, CumSum: computed below from the identity map
      source = [&](const std::vector<int64_t>& p) {
        int64_t o = 0;
        for (size_t d = 0; d < p.size(); ++d) o += p[d] * xs[d];
        return o;
      };
    }
    auto v = std::make_shared<std::vector<double>>(Remap(out, source, x));
    if (op == "Trilu" && x_dims.size() >= 2) {
      const int64_t k = in.size() > 1 && in[1].values ? static_cast<int64_t>((*in[1].values)[0]) : 0;
      const bool upper = IntAttribute(node, "upper", 1) != 0;
      const int64_t rows = x_dims[x_dims.size() - 2], cols = x_dims.back();
      for (size_t i = 0; i < v->size(); ++i) {
        const auto c = static_cast<int64_t>(i) % cols, r = (static_cast<int64_t>(i) / cols) % rows;
        if (upper ? c - r < k : c - r > k) (*v)[i] = 0;
      }
    }
    if (op == "CumSum") {
      const int64_t a = NormalAxis(static_cast<int64_t>((*in[1].values)[0]), x_dims.size());
      const bool exclusive = IntAttribute(node, "exclusive", 0) != 0, reverse = IntAttribute(node, "reverse", 0) != 0;
      const int64_t stride = xs[static_cast<size_t>(a)], n = x_dims[static_cast<size_t>(a)];
      for (size_t base = 0; base < v->size(); ++base) {
        if ((static_cast<int64_t>(base) / stride) % n != 0) continue;  // one start per line along the axis
        double acc = 0;
        for (int64_t j = 0; j < n; ++j) {
          const int64_t step = reverse ? n - 1 - j : j;
          double& e = (*v)[base + static_cast<size_t>(step * stride)];
          const double original = e;
          e = exclusive ? acc : acc + original;
          acc += original;
        }
      }
    }
    result[0] = v;
  } else if (op == "Concat") {
    const int64_t axis = NormalAxis(IntAttribute(node, "axis", 0), x_dims.size());
    const Dims& out = out_dims[0];
    const int64_t outer = Product(Dims(out.begin(), out.begin() + axis));
    auto v = std::make_shared<std::vector<double>>();
    for (int64_t o = 0; o < outer; ++o) {
      for (const ConstInput& i : in) {
        if (!i.dims) continue;
        const int64_t chunk = Product(Dims(i.dims->begin() + axis, i.dims->end()));
        v->insert(v->end(), i.values->begin() + o * chunk, i.values->begin() + (o + 1) * chunk);
      }
    }
    result[0] = v;
  } else if (op == "Split") {
    const int64_t axis = NormalAxis(IntAttribute(node, "axis", 0), x_dims.size());
    const int64_t outer = Product(Dims(x_dims.begin(), x_dims.begin() + axis));
    const int64_t inner = Product(Dims(x_dims.begin() + axis + 1, x_dims.end()));
    int64_t offset = 0;
    for (size_t k = 0; k < out_dims.size(); ++k) {
      const int64_t n = out_dims[k][static_cast<size_t>(axis)];
      auto v = std::make_shared<std::vector<double>>();
      for (int64_t o = 0; o < outer; ++o) {
        const auto from = x.begin() + (o * x_dims[static_cast<size_t>(axis)] + offset) * inner;
        v->insert(v->end(), from, from + n * inner);
      }
      offset += n;
      result[k] = v;
    }
  } else if (op.rfind("Reduce", 0) == 0) {
    std::vector<NodeInput> ni;
    for (const ConstInput& i : in) ni.push_back({i.dims, i.values.get()});
    auto axes = AxesOf(node, ni, opset);
    if (axes.ok()) {
      result[0] = std::make_shared<std::vector<double>>(
          Reduce(op, x_dims, x, *axes, IntAttribute(node, "noop_with_empty_axes", 0) != 0));
    }
  }
  return result;
}

}  // namespace tilesched::import_internal
