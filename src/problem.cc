// Problem validation (SPEC.md section 1) and derived per-tensor facts.
#include "tilesched/problem.h"

#include <cmath>
#include <sstream>

#include "tilesched/graph.h"

namespace tilesched {

const char* OpTypeName(OpType type) {
  return type == OpType::kMatMul ? "MatMul" : "Pointwise";
}

std::string ShapeString(const Tensor& tensor) {
  return std::to_string(tensor.height) + "x" + std::to_string(tensor.width) + " (rows x cols)";
}

namespace {

// Finite values whose latencies would overflow a double are refused (found by fuzzing: a
// base_cost of 1e308 made costs and lower bounds infinite, and infinite latencies are written
// to JSON as null). With the parser's 2^24 dimension limit a schedule has at most 2^72 steps,
// each computing at most (2^24)^2 native tiles' worth per op and moving a few 2^48-element
// tensors, so with these bounds a latency stays below about 1e60, far from the double's 1e308.
constexpr double kMaxBaseCost = 1e18;
constexpr double kMinBandwidth = 1e-9;

std::string Number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

Status ValidateHardware(const Hardware& hw) {
  if (hw.fast_memory_capacity <= 0) {
    return Status::Error("fast_memory_capacity must be positive, got " +
                         std::to_string(hw.fast_memory_capacity));
  }
  if (!std::isfinite(hw.slow_memory_bandwidth) || hw.slow_memory_bandwidth <= 0) {
    return Status::Error("slow_memory_bandwidth must be a positive number");
  }
  if (hw.slow_memory_bandwidth < kMinBandwidth) {
    return Status::Error("slow_memory_bandwidth " + Number(hw.slow_memory_bandwidth) +
                         " is below the limit " + Number(kMinBandwidth));
  }
  if (hw.native_w <= 0 || hw.native_h <= 0) {
    return Status::Error("native_granularity must be two positive integers, got [" +
                         std::to_string(hw.native_w) + ", " + std::to_string(hw.native_h) + "]");
  }
  return Status::Ok();
}

namespace {

Status ValidateOp(int o, const Op& op, const std::vector<Tensor>& tensors) {
  const std::string name = "op " + std::to_string(o) + " (" + OpTypeName(op.type) + ")";
  const int num_tensors = static_cast<int>(tensors.size());
  if (op.output < 0 || op.output >= num_tensors) {
    return Status::Error(name + ": output tensor id " + std::to_string(op.output) +
                         " is out of range [0, " + std::to_string(num_tensors) + ")");
  }
  for (int t : op.inputs) {
    if (t < 0 || t >= num_tensors) {
      return Status::Error(name + ": input tensor id " + std::to_string(t) +
                           " is out of range [0, " + std::to_string(num_tensors) + ")");
    }
  }
  if (!std::isfinite(op.base_cost) || op.base_cost < 0) {
    return Status::Error(name + ": base_cost must be a non-negative number");
  }
  if (op.base_cost > kMaxBaseCost) {
    return Status::Error(name + ": base_cost " + Number(op.base_cost) + " is above the limit " +
                         Number(kMaxBaseCost));
  }
  const Tensor& out = tensors[op.output];
  if (op.type == OpType::kMatMul) {
    if (op.inputs.size() != 2) {
      return Status::Error(name + ": a MatMul needs exactly 2 inputs [LHS, RHS], got " +
                           std::to_string(op.inputs.size()));
    }
    const Tensor& lhs = tensors[op.inputs[0]];
    const Tensor& rhs = tensors[op.inputs[1]];
    if (lhs.width != rhs.height) {
      return Status::Error(name + ": LHS tensor " + std::to_string(op.inputs[0]) + " is " +
                           ShapeString(lhs) + " and RHS tensor " + std::to_string(op.inputs[1]) +
                           " is " + ShapeString(rhs) + ": LHS columns must equal RHS rows");
    }
    if (out.height != lhs.height || out.width != rhs.width) {
      return Status::Error(name + ": output tensor " + std::to_string(op.output) + " is " +
                           ShapeString(out) + " but LHS x RHS is " +
                           std::to_string(lhs.height) + "x" + std::to_string(rhs.width));
    }
  } else {
    if (op.inputs.empty()) return Status::Error(name + ": a Pointwise op needs at least 1 input");
    for (int t : op.inputs) {
      if (!(tensors[t] == out)) {
        return Status::Error(name + ": input tensor " + std::to_string(t) + " is " +
                             ShapeString(tensors[t]) + " but output tensor " +
                             std::to_string(op.output) + " is " + ShapeString(out) +
                             " (Pointwise inputs must match the output shape)");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Problem> Problem::Create(std::vector<Tensor> tensors, std::vector<Op> ops,
                                Hardware hardware) {
  if (Status s = ValidateHardware(hardware); !s.ok()) return s;
  for (int t = 0; t < static_cast<int>(tensors.size()); ++t) {
    if (tensors[t].width <= 0 || tensors[t].height <= 0) {
      return Status::Error("tensor " + std::to_string(t) + ": width and height must be positive, got " +
                           std::to_string(tensors[t].width) + " x " +
                           std::to_string(tensors[t].height));
    }
  }
  if (ops.empty()) return Status::Error("op_types: the problem has no ops");
  for (int o = 0; o < static_cast<int>(ops.size()); ++o) {
    if (Status s = ValidateOp(o, ops[o], tensors); !s.ok()) return s;
  }
  auto graph = Graph::Create(static_cast<int>(tensors.size()), ops);
  if (!graph.ok()) return graph.status();

  Problem problem;
  problem.graph_ = std::move(graph).value();
  problem.tensors_ = std::move(tensors);
  problem.ops_ = std::move(ops);
  problem.hardware_ = hardware;
  const int n = problem.num_tensors();
  problem.producer_.resize(n);
  problem.graph_input_.resize(n);
  problem.graph_output_.resize(n);
  for (int t = 0; t < n; ++t) {
    problem.producer_[t] = problem.graph_->producer(t);
    problem.graph_input_[t] = problem.producer_[t] < 0 && !problem.graph_->consumers(t).empty();
    problem.graph_output_[t] = problem.producer_[t] >= 0 && problem.graph_->consumers(t).empty();
  }
  return problem;
}

Result<Problem> Problem::WithHardware(Hardware hardware) const {
  if (Status s = ValidateHardware(hardware); !s.ok()) return s;
  Problem copy = *this;
  copy.hardware_ = hardware;
  return copy;
}

Result<Problem> Problem::WithNames(ProblemNames names) const {
  if (!names.ops.empty() && static_cast<int>(names.ops.size()) != num_ops()) {
    return Status::Error("op_names: has " + std::to_string(names.ops.size()) + " entries but the problem has " +
                         std::to_string(num_ops()) + " ops");
  }
  if (!names.tensors.empty() && static_cast<int>(names.tensors.size()) != num_tensors()) {
    return Status::Error("tensor_names: has " + std::to_string(names.tensors.size()) +
                         " entries but the problem has " + std::to_string(num_tensors()) + " tensors");
  }
  Problem copy = *this;
  copy.names_ = names.ops.empty() && names.tensors.empty()
                    ? nullptr
                    : std::make_shared<const ProblemNames>(std::move(names));
  return copy;
}

const ProblemNames& Problem::names() const {
  static const ProblemNames kNone;
  return names_ ? *names_ : kNone;
}

const std::string& Problem::op_name(int o) const {
  static const std::string kEmpty;
  return names_ && !names_->ops.empty() ? names_->ops[o] : kEmpty;
}

const std::string& Problem::tensor_name(int t) const {
  static const std::string kEmpty;
  return names_ && !names_->tensors.empty() ? names_->tensors[t] : kEmpty;
}

Result<Problem> CutOut(const Problem& problem, const std::vector<int>& ops) {
  if (ops.empty()) return Status::Error("ops: the list is empty");
  std::vector<bool> inside(problem.num_ops(), false);
  for (size_t i = 0; i < ops.size(); ++i) {
    const int o = ops[i];
    if (o < 0 || o >= problem.num_ops()) {
      return Status::Error("ops[" + std::to_string(i) + "]: op " + std::to_string(o) + " is out of range (the problem has " +
                           std::to_string(problem.num_ops()) + " ops)");
    }
    if (inside[o]) return Status::Error("ops[" + std::to_string(i) + "]: op " + std::to_string(o) + " is listed twice");
    inside[o] = true;
  }
  std::vector<int> tensor_id(problem.num_tensors(), -1);
  for (int o = 0; o < problem.num_ops(); ++o) {
    if (!inside[o]) continue;
    for (int t : problem.op(o).inputs) tensor_id[t] = 0;
    tensor_id[problem.op(o).output] = 0;
  }
  std::vector<Tensor> tensors;
  ProblemNames names;
  for (int t = 0; t < problem.num_tensors(); ++t) {
    if (tensor_id[t] < 0) continue;
    tensor_id[t] = static_cast<int>(tensors.size());
    tensors.push_back(problem.tensor(t));
    names.tensors.push_back(problem.tensor_name(t).empty() ? "tensor " + std::to_string(t) : problem.tensor_name(t));
  }
  std::vector<Op> cut_ops;
  for (int o = 0; o < problem.num_ops(); ++o) {
    if (!inside[o]) continue;
    Op op = problem.op(o);
    for (int& t : op.inputs) t = tensor_id[t];
    op.output = tensor_id[op.output];
    cut_ops.push_back(std::move(op));
    names.ops.push_back(problem.op_name(o).empty() ? "op " + std::to_string(o) : problem.op_name(o));
  }
  auto cut = Problem::Create(std::move(tensors), std::move(cut_ops), problem.hardware());
  if (!cut.ok()) return cut.status();
  return cut->WithNames(std::move(names));
}

}  // namespace tilesched
