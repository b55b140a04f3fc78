// ModelGraph: lazy virtual tensors realized as a tilesched Problem (docs/import.md, "Slices
// and transposes").
#include "model_graph.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>

namespace tilesched::import_internal {

View SubView(const View& v, int64_t rr0, int64_t rr1, int64_t cc0, int64_t cc1) {
  assert(0 <= rr0 && rr0 <= rr1 && rr1 <= v.rows() && 0 <= cc0 && cc0 <= cc1 && cc1 <= v.cols());
  View out = v;
  if (!v.t) {
    out.r0 = v.r0 + rr0, out.r1 = v.r0 + rr1, out.c0 = v.c0 + cc0, out.c1 = v.c0 + cc1;
  } else {  // the view's rows are the base's columns
    out.c0 = v.c0 + rr0, out.c1 = v.c0 + rr1, out.r0 = v.r0 + cc0, out.r1 = v.r0 + cc1;
  }
  return out;
}

View TransposedView(View v) {
  v.t = !v.t;
  return v;
}

int ModelGraph::AddInput(std::string name, int64_t rows, int64_t cols) {
  VTensor x;
  x.kind = VTensor::Kind::kInput;
  x.rows = rows, x.cols = cols, x.name = std::move(name);
  vtensors_.push_back(std::move(x));
  return static_cast<int>(vtensors_.size()) - 1;
}

int ModelGraph::AddMatMul(const View& lhs, const View& rhs, std::string name, std::string op_name,
                          std::string op_type) {
  assert(lhs.cols() == rhs.rows());
  VTensor x;
  x.kind = VTensor::Kind::kMatMul;
  x.rows = lhs.rows(), x.cols = rhs.cols(), x.lhs = lhs, x.rhs = rhs;
  x.name = std::move(name), x.op_name = std::move(op_name), x.op_type = std::move(op_type);
  x.node = "node '" + x.op_name + "' (" + x.op_type + ")";
  vtensors_.push_back(std::move(x));
  return static_cast<int>(vtensors_.size()) - 1;
}

int ModelGraph::AddPointwise(std::vector<View> inputs, double work, bool rowwise, std::string name,
                             std::string op_name, std::string op_type) {
  assert(!inputs.empty());
  VTensor x;
  x.kind = VTensor::Kind::kPointwise;
  x.rows = inputs[0].rows(), x.cols = inputs[0].cols();
  assert(std::all_of(inputs.begin(), inputs.end(),
                     [&](const View& v) { return v.rows() == x.rows && v.cols() == x.cols; }));
  x.inputs = std::move(inputs), x.work = work, x.rowwise = rowwise;
  x.name = std::move(name), x.op_name = std::move(op_name), x.op_type = std::move(op_type);
  x.node = "node '" + x.op_name + "' (" + x.op_type + ")";
  vtensors_.push_back(std::move(x));
  return static_cast<int>(vtensors_.size()) - 1;
}

namespace {

std::string ViewSuffix(const View& v, const VTensor& x) {
  std::string s;
  if (v.r0 != 0 || v.r1 != x.rows || v.c0 != 0 || v.c1 != x.cols) {
    s += "[" + std::to_string(v.r0) + ":" + std::to_string(v.r1) + "," + std::to_string(v.c0) + ":" +
         std::to_string(v.c1) + "]";
  }
  if (v.t) s += "^T";
  return s;
}

}  // namespace

int ModelGraph::NewTensor(int64_t rows, int64_t cols, std::string name) {
  tensors_.push_back({/*width=*/cols, /*height=*/rows});
  tensor_names_.push_back(std::move(name));
  return static_cast<int>(tensors_.size()) - 1;
}

std::string JoinNames(const std::vector<std::string>& joined) {
  std::vector<std::string> parts;  // each node once, in order (a part may already be joined)
  for (const std::string& j : joined) {
    size_t start = 0;
    while (start <= j.size()) {
      const size_t plus = std::min(j.find('+', start), j.size());
      std::string p = j.substr(start, plus - start);
      if (const size_t slash = p.rfind('/'); slash == std::string::npos && !parts.empty()) {
        // "mul_5" after "m.layers.0.self_attn/neg": the same module, written once
        const std::string& prev = parts.back();
        if (const size_t ps = prev.rfind('/'); ps != std::string::npos) p = prev.substr(0, ps + 1) + p;
      }
      if (parts.empty() || parts.back() != p) parts.push_back(p);
      start = plus + 1;
    }
  }
  // A suffix "[...]" shared by every part (a head index) is written once, at the end.
  std::string suffix;
  if (const size_t open = parts.front().rfind('['); open != std::string::npos && parts.front().back() == ']') {
    suffix = parts.front().substr(open);
    for (const std::string& p : parts) {
      if (p.size() < suffix.size() || p.compare(p.size() - suffix.size(), suffix.size(), suffix) != 0) {
        suffix.clear();
        break;
      }
    }
  }
  std::string out, module;
  for (const std::string& full : parts) {
    const std::string p = full.substr(0, full.size() - suffix.size());
    const size_t slash = p.rfind('/');
    const std::string m = slash == std::string::npos ? "" : p.substr(0, slash);
    if (out.empty()) {
      out = p;
    } else if (!m.empty() && m == module) {  // same module: only the operation
      out += "+" + p.substr(slash + 1);
    } else {
      out += "+" + p;
    }
    module = m;
  }
  return out + suffix;
}

Status ModelGraph::Collect(const View& v, bool inline_here, Fold* fold, std::vector<int>* ids, double* work,
                           std::vector<std::string>* names, std::string* types) {
  const VTensor& x = vtensors_[v.vt];
  if (inline_here) {
    // A producer read along several paths of the folded op is computed once.
    if (!fold->done.insert(v.key()).second) return Status::Ok();
    // A row-wise op needs whole rows of its output: a view cutting its columns would need
    // row statistics from outside the slice.
    if (x.rowwise && (v.c0 != 0 || v.c1 != x.cols)) {
      return Status::Error(x.node + ": its output '" + x.name + "' would be split across the axis it " +
                           "normalizes (columns " + std::to_string(v.c0) + ".." + std::to_string(v.c1) +
                           " of " + std::to_string(x.cols) + "); not supported");
    }
    for (const View& in : x.inputs) {
      const View sub = v.t ? TransposedView(SubView(in, v.r0, v.r1, v.c0, v.c1))
                           : SubView(in, v.r0, v.r1, v.c0, v.c1);
      const VTensor& p = vtensors_[in.vt];
      const bool here = fold_ && p.kind == VTensor::Kind::kPointwise && fold->inlined.count(in.vt) > 0;
      if (Status s = Collect(sub, here, fold, ids, work, names, types); !s.ok()) return s;
    }
    *work += x.work;
    names->push_back(x.op_name);
    *types += (types->empty() ? "" : "+") + x.op_type;
    return Status::Ok();
  }
  auto id = Realize(v);
  if (!id.ok()) return id.status();
  if (std::find(ids->begin(), ids->end(), *id) == ids->end()) ids->push_back(*id);
  return Status::Ok();
}

// Pointwise producers folded into the op computing `top`: those all of whose readers are
// folded too (a chain, or a LayerNorm written out whose centred input feeds both its variance
// and its normalization). Grows to a fixed point; each round is linear in the members' inputs.
std::set<int> ModelGraph::InlineSet(int top) const {
  std::set<int> members = {top};
  bool grew = true;
  while (grew && fold_) {
    grew = false;
    std::map<int, int> reads;  // pointwise producer -> reads by members
    for (int m : members) {
      for (const View& in : vtensors_[m].inputs) {
        if (vtensors_[in.vt].kind == VTensor::Kind::kPointwise && !members.count(in.vt)) ++reads[in.vt];
      }
    }
    for (const auto& [p, count] : reads) {
      if (count == refs_[p]) members.insert(p), grew = true;
    }
  }
  members.erase(top);
  return members;
}

Result<int> ModelGraph::Realize(const View& v) {
  if (auto it = realized_.find(v.key()); it != realized_.end()) return it->second;
  const VTensor& x = vtensors_[v.vt];
  const std::string name = x.name + ViewSuffix(v, x);
  int out = -1;
  switch (x.kind) {
    case VTensor::Kind::kInput:
      out = NewTensor(v.rows(), v.cols(), name);
      break;
    case VTensor::Kind::kMatMul: {
      const int64_t k = x.lhs.cols();
      View lhs = SubView(x.lhs, v.r0, v.r1, 0, k);
      View rhs = SubView(x.rhs, 0, k, v.c0, v.c1);
      // (A B)^T = B^T A^T: the transposed product computes a transposed output.
      if (v.t) std::swap(lhs, rhs), lhs = TransposedView(lhs), rhs = TransposedView(rhs);
      auto l = Realize(lhs);
      if (!l.ok()) return l.status();
      auto r = Realize(rhs);
      if (!r.ok()) return r.status();
      out = NewTensor(v.rows(), v.cols(), name);
      ops_.push_back({OpType::kMatMul, {*l, *r}, out, MatMulBaseCost(*hw_, k)});
      op_names_.push_back(x.op_name + ViewSuffix(v, x));
      op_sources_.push_back(x.op_type);
      break;
    }
    case VTensor::Kind::kPointwise: {
      std::vector<int> ids;
      double work = 0;
      std::vector<std::string> names;
      std::string types;
      Fold fold{InlineSet(v.vt), {}};
      if (Status s = Collect(v, /*inline_here=*/true, &fold, &ids, &work, &names, &types); !s.ok()) return s;
      out = NewTensor(v.rows(), v.cols(), name);
      ops_.push_back({OpType::kPointwise, ids, out, PointwiseBaseCost(*hw_, work)});
      op_names_.push_back(JoinNames(names) + ViewSuffix(v, x));
      op_sources_.push_back(types);
      break;
    }
  }
  realized_[v.key()] = out;
  return out;
}

Result<ImportedModel> ModelGraph::Build(const std::vector<View>& outputs, const HardwareDescription& hw,
                                        bool fold_pointwise) {
  hw_ = &hw;
  fold_ = fold_pointwise;
  // References among the virtual tensors the outputs reach (each input occurrence counts).
  refs_.assign(vtensors_.size(), 0);
  std::vector<bool> seen(vtensors_.size(), false);
  std::vector<int> stack;
  auto ref = [&](int vt) {
    ++refs_[vt];
    if (!seen[vt]) seen[vt] = true, stack.push_back(vt);
  };
  for (const View& v : outputs) ref(v.vt);
  while (!stack.empty()) {
    const VTensor& x = vtensors_[stack.back()];
    stack.pop_back();
    if (x.kind == VTensor::Kind::kMatMul) ref(x.lhs.vt), ref(x.rhs.vt);
    for (const View& in : x.inputs) ref(in.vt);
  }
  for (const View& v : outputs) {
    auto id = Realize(v);
    if (!id.ok()) return id.status();
    const bool produced = std::any_of(ops_.begin(), ops_.end(), [&](const Op& op) { return op.output == *id; });
    if (!produced) {
      return Status::Error("graph output '" + vtensors_[v.vt].name + "' is not computed by any op");
    }
  }
  std::vector<int> reader(tensors_.size(), -1);
  for (size_t o = 0; o < ops_.size(); ++o) {
    for (int t : ops_[o].inputs) reader[t] = static_cast<int>(o);
  }
  for (const View& v : outputs) {
    if (const int o = reader[realized_.at(v.key())]; o >= 0) {
      return Status::Error("graph output '" + vtensors_[v.vt].name + "' is also read by " + op_names_[o] +
                           " (" + op_sources_[o] + "); a tilesched graph output has no readers");
    }
  }
  Hardware hardware = DeriveHardware(hw);
  auto problem = Problem::Create(tensors_, ops_, hardware);
  if (!problem.ok()) return problem.status().WithContext("imported problem: ");
  auto named = problem->WithNames({op_names_, tensor_names_});
  if (!named.ok()) return named.status();
  return ImportedModel{std::move(named).value(), op_names_, op_sources_, tensor_names_, {}};
}

}  // namespace tilesched::import_internal
