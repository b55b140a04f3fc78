// Region-demand analysis: demand flows backward from the sink tile (SPEC.md section 4).
#include "tilesched/demand.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "tilesched/schedule.h"

namespace tilesched {

namespace {

class DemandBuilder {
 public:
  DemandBuilder(const Problem& problem, const std::vector<char>& member)
      : problem_(problem), member_(member) {}

  // Demand region (rows, cols) of tensor t into `group`.
  void Demand(int t, DimKind rows, DimKind cols, DemandGroup* group) {
    const int p = problem_.producer(t);
    if (p < 0 || !member_[p]) {
      const SliceDemand slice{t, rows, cols};
      if (std::find(group->slices.begin(), group->slices.end(), slice) == group->slices.end()) {
        group->slices.push_back(slice);
      }
      return;
    }
    const Op& op = problem_.op(p);
    if (op.type == OpType::kMatMul && rows == DimKind::kTile && cols == DimKind::kTile) {
      // A MatMul whose output region is the tile: a split root. Its slices are demanded by its
      // own group; here (the epilogue) it is the finished accumulator.
      if (std::find(roots_.begin(), roots_.end(), p) == roots_.end()) roots_.push_back(p);
      return;
    }
    const ComputeDemand compute{p, rows, cols, false};
    if (std::find(group->computes.begin(), group->computes.end(), compute) !=
        group->computes.end()) {
      return;
    }
    group->computes.push_back(compute);
    if (op.type == OpType::kPointwise) {
      for (int in : op.inputs) Demand(in, rows, cols, group);
    } else {
      // Inner MatMul: its region over the full reduction.
      Demand(op.inputs[0], rows, DimKind::kFull, group);
      Demand(op.inputs[1], DimKind::kFull, cols, group);
    }
  }

  // The group of split root `root`: one k-slice of its accumulation per step.
  DemandGroup RootGroup(int root) {
    DemandGroup group;
    group.computes.push_back({root, DimKind::kTile, DimKind::kTile, true});
    const Op& op = problem_.op(root);
    Demand(op.inputs[0], DimKind::kTile, DimKind::kSlice, &group);
    Demand(op.inputs[1], DimKind::kSlice, DimKind::kTile, &group);
    return group;
  }

  std::vector<int>& roots() { return roots_; }

 private:
  const Problem& problem_;
  const std::vector<char>& member_;
  std::vector<int> roots_;
};

// Rule 3.2: link two ops when they share a tensor; the subgraph must be one component.
bool Connected(const Problem& problem, const std::vector<int>& ops) {
  std::vector<int> parent(ops.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  std::vector<int> owner(problem.num_tensors(), -1);
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    const Op& op = problem.op(ops[i]);
    auto touch = [&](int t) {
      if (owner[t] < 0) {
        owner[t] = i;
      } else {
        parent[find(i)] = find(owner[t]);
      }
    };
    touch(op.output);
    for (int t : op.inputs) touch(t);
  }
  const int root = find(0);
  for (int i = 1; i < static_cast<int>(ops.size()); ++i) {
    if (find(i) != root) return false;
  }
  return true;
}

void NoteKinds(int tensor, DimKind rows, DimKind cols, std::vector<uint8_t>* row_kinds,
               std::vector<uint8_t>* col_kinds) {
  (*row_kinds)[tensor] |= static_cast<uint8_t>(1u << static_cast<int>(rows));
  (*col_kinds)[tensor] |= static_cast<uint8_t>(1u << static_cast<int>(cols));
}

}  // namespace

bool SubgraphPlan::Contains(int op) const {
  return std::binary_search(ops_.begin(), ops_.end(), op);
}

Result<SubgraphPlan> SubgraphPlan::Create(const Problem& problem, std::vector<int> ops) {
  if (ops.empty()) return Status::Error("the subgraph has no ops (rule 3.2)");
  for (int o : ops) {
    if (o < 0 || o >= problem.num_ops()) {
      return Status::Error("op id " + std::to_string(o) + " is out of range [0, " +
                           std::to_string(problem.num_ops()) + ")");
    }
  }
  std::sort(ops.begin(), ops.end());
  for (size_t i = 1; i < ops.size(); ++i) {
    if (ops[i] == ops[i - 1]) {
      return Status::Error("op " + std::to_string(ops[i]) + " is listed twice (rule 3.2)");
    }
  }
  if (!Connected(problem, ops)) {
    return Status::Error("ops " + IdList(ops) +
                         " are not connected (no chain of shared tensors links them all; rule 3.2)");
  }

  SubgraphPlan plan;
  plan.ops_ = std::move(ops);
  std::vector<char> member(problem.num_ops(), 0);
  for (int o : plan.ops_) member[o] = 1;
  std::vector<char> consumed_inside(problem.num_tensors(), 0);
  for (int o : plan.ops_) {
    for (int t : problem.op(o).inputs) consumed_inside[t] = 1;
  }
  for (int o : plan.ops_) {
    const int t = problem.op(o).output;
    plan.produced_.push_back(t);
    if (!consumed_inside[t]) plan.sinks_.push_back(t);
  }
  std::sort(plan.produced_.begin(), plan.produced_.end());
  std::sort(plan.sinks_.begin(), plan.sinks_.end());
  for (int o : plan.ops_) {
    for (int t : problem.op(o).inputs) {
      const int p = problem.producer(t);
      if (p < 0 || !member[p]) plan.external_inputs_.push_back(t);
    }
  }
  std::sort(plan.external_inputs_.begin(), plan.external_inputs_.end());
  plan.external_inputs_.erase(
      std::unique(plan.external_inputs_.begin(), plan.external_inputs_.end()),
      plan.external_inputs_.end());

  // A DAG always has a sink; all sinks share one shape (rule 3.3).
  const Tensor& first = problem.tensor(plan.sinks_.front());
  for (int t : plan.sinks_) {
    if (!(problem.tensor(t) == first)) {
      return Status::Error("sinks tensor " + std::to_string(plan.sinks_.front()) + " (" +
                           ShapeString(first) + ") and tensor " + std::to_string(t) + " (" +
                           ShapeString(problem.tensor(t)) + ") differ in shape (rule 3.3)");
    }
  }
  plan.width_ = first.width;
  plan.height_ = first.height;

  DemandBuilder builder(problem, member);
  for (int t : plan.sinks_) builder.Demand(t, DimKind::kTile, DimKind::kTile, &plan.last_group_);
  std::vector<int>& roots = builder.roots();
  std::sort(roots.begin(), roots.end());
  plan.split_roots_ = roots;
  for (int root : plan.split_roots_) {
    plan.root_extents_.push_back(problem.reduction_extent(root));
    plan.root_is_sink_.push_back(
        std::binary_search(plan.sinks_.begin(), plan.sinks_.end(), problem.op(root).output));
    plan.root_groups_.push_back(builder.RootGroup(root));
  }
  // Every op lies on a path to a sink, so every op is demanded by some group.
  assert(builder.roots().size() == plan.split_roots_.size());

  std::vector<uint8_t> row_kinds(problem.num_tensors(), 0), col_kinds(problem.num_tensors(), 0);
  std::vector<ReductionPointwise> reduction(problem.num_ops());
  auto scan = [&](const DemandGroup& group) {
    for (const SliceDemand& s : group.slices) NoteKinds(s.tensor, s.rows, s.cols, &row_kinds, &col_kinds);
    for (const ComputeDemand& c : group.computes) {
      NoteKinds(problem.op(c.op).output, c.rows, c.cols, &row_kinds, &col_kinds);
      if (problem.op(c.op).type == OpType::kPointwise) {
        reduction[c.op].op = c.op;
        reduction[c.op].proportional_rows |= IsProportional(c.rows);
        reduction[c.op].proportional_cols |= IsProportional(c.cols);
      }
    }
  };
  scan(plan.last_group_);
  for (const DemandGroup& group : plan.root_groups_) scan(group);
  constexpr uint8_t kTileBit = 1u << static_cast<int>(DimKind::kTile);
  constexpr uint8_t kSliceBit = 1u << static_cast<int>(DimKind::kSlice);
  for (int t = 0; t < problem.num_tensors(); ++t) {
    plan.mixed_rows_ |= (row_kinds[t] & kTileBit) && (row_kinds[t] & kSliceBit);
    plan.mixed_cols_ |= (col_kinds[t] & kTileBit) && (col_kinds[t] & kSliceBit);
  }
  for (int o : plan.ops_) {
    if (reduction[o].proportional_rows || reduction[o].proportional_cols) {
      plan.reduction_pointwise_.push_back(reduction[o]);
    }
  }
  return plan;
}

}  // namespace tilesched
