// Problem, Tensor, Op, Hardware: the immutable, validated input of one scheduling problem.
//
// Entry point: Problem::Create(tensors, ops, hardware) checks every rule of SPEC.md section 1
// and returns a Problem or a one-line error naming the op or tensor. A Problem never changes
// after creation; WithHardware() makes a copy for hardware sweeps, WithNames() one labelled
// with the model's names of its ops and tensors (optional: contest problems have none).
#ifndef TILESCHED_PROBLEM_H_
#define TILESCHED_PROBLEM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tilesched/status.h"

namespace tilesched {

class Graph;

// A matrix with `height` rows and `width` columns (SPEC.md section 1).
struct Tensor {
  int64_t width = 0;
  int64_t height = 0;
  int64_t size() const { return width * height; }
  bool operator==(const Tensor&) const = default;
};

enum class OpType { kMatMul, kPointwise };

const char* OpTypeName(OpType type);

struct Op {
  OpType type = OpType::kPointwise;
  std::vector<int> inputs;  // MatMul: {LHS, RHS}; Pointwise: one or more.
  int output = -1;
  double base_cost = 0;  // compute cost on one native spatial tile (SPEC.md section 5)
};

struct Hardware {
  int64_t fast_memory_capacity = 0;  // elements
  double slow_memory_bandwidth = 0;  // elements per time unit, reads and writes share it
  int64_t native_w = 0;              // native k equals native w (SPEC.md section 1)
  int64_t native_h = 0;
  int64_t native_k() const { return native_w; }
};

// Model names of an imported problem's ops and tensors (docs/import.md, "Model names"): empty,
// or one entry per op / tensor. They label output only; nothing is computed from them.
struct ProblemNames {
  std::vector<std::string> ops;
  std::vector<std::string> tensors;
};

class Problem {
 public:
  static Result<Problem> Create(std::vector<Tensor> tensors, std::vector<Op> ops,
                                Hardware hardware);

  int num_tensors() const { return static_cast<int>(tensors_.size()); }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  const Tensor& tensor(int t) const { return tensors_[t]; }
  const std::vector<Tensor>& tensors() const { return tensors_; }
  const Op& op(int o) const { return ops_[o]; }
  const std::vector<Op>& ops() const { return ops_; }
  const Hardware& hardware() const { return hardware_; }
  const Graph& graph() const { return *graph_; }

  // The op that writes tensor t, or -1 for a graph input or an unused tensor.
  int producer(int t) const { return producer_[t]; }
  bool is_graph_input(int t) const { return graph_input_[t]; }
  bool is_graph_output(int t) const { return graph_output_[t]; }
  // Reduction extent K of a MatMul (columns of its LHS).
  int64_t reduction_extent(int o) const { return tensors_[ops_[o].inputs[0]].width; }

  // Same graph on other hardware; fails when the hardware values are out of range.
  Result<Problem> WithHardware(Hardware hardware) const;
  // Same problem with model names; fails when a non-empty list has the wrong length.
  Result<Problem> WithNames(ProblemNames names) const;
  const ProblemNames& names() const;
  // The op's / tensor's model name, or "" when the problem has none.
  const std::string& op_name(int o) const;
  const std::string& tensor_name(int t) const;

 private:
  Problem() = default;

  std::vector<Tensor> tensors_;
  std::vector<Op> ops_;
  Hardware hardware_;
  std::shared_ptr<const Graph> graph_;
  std::vector<int> producer_;
  std::vector<bool> graph_input_;
  std::vector<bool> graph_output_;
  std::shared_ptr<const ProblemNames> names_;  // null: no names
};

// The ops `ops` of `problem` (ids, any order, no repeats) as a problem of their own, for study
// (`tilesched cut`, docs/bounds.md "Cut-outs"): its ops in increasing id order, its tensors
// those they read or write, in increasing id order. A tensor produced outside becomes a graph
// input; one produced inside and read by no op inside becomes a graph output. A tensor read
// both inside and outside is no graph output of the cut-out, so its store is not forced there:
// a cut-out's optimum and bounds are not bounds on its share of the whole problem. Names: the
// problem's, else "op N" and "tensor N" with the original ids. Fails, naming the entry, on an
// empty list, an id out of range or a repeated id.
Result<Problem> CutOut(const Problem& problem, const std::vector<int>& ops);

// "128x256 (rows x cols)" style description used in messages.
std::string ShapeString(const Tensor& tensor);

Status ValidateHardware(const Hardware& hardware);

}  // namespace tilesched

#endif  // TILESCHED_PROBLEM_H_
