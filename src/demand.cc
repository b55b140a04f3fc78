// Region-demand analysis: demand flows backward from the sink tile (SPEC.md section 4).
#include "tilesched/demand.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "tilesched/schedule.h"

namespace tilesched {

namespace {

// Work here is proportional to the subgraph, not to the whole problem: plans are built for
// every candidate op set of graphs with thousands of ops (docs/reliability.md).
bool IsMember(const std::vector<int>& sorted_ops, int o) {
  return std::binary_search(sorted_ops.begin(), sorted_ops.end(), o);
}

class DemandBuilder {
 public:
  DemandBuilder(const Problem& problem, const std::vector<int>& sorted_ops)
      : problem_(problem), ops_(sorted_ops) {}

  // Demand region (rows, cols) of tensor t into `group`.
  void Demand(int t, DimKind rows, DimKind cols, DemandGroup* group) {
    const int p = problem_.producer(t);
    if (p < 0 || !IsMember(ops_, p)) {
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
  const std::vector<int>& ops_;
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
  // (tensor, op index) pairs; sorted, the ops touching one tensor are adjacent.
  std::vector<std::pair<int, int>> touches;
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    const Op& op = problem.op(ops[i]);
    touches.emplace_back(op.output, i);
    for (int t : op.inputs) touches.emplace_back(t, i);
  }
  std::sort(touches.begin(), touches.end());
  for (size_t k = 1; k < touches.size(); ++k) {
    if (touches[k].first == touches[k - 1].first) {
      parent[find(touches[k].second)] = find(touches[k - 1].second);
    }
  }
  const int root = find(0);
  for (int i = 1; i < static_cast<int>(ops.size()); ++i) {
    if (find(i) != root) return false;
  }
  return true;
}

// The kinds of rows and columns in which one tensor is demanded, as DimKind bits.
struct TensorKinds {
  int tensor = -1;
  uint8_t rows = 0;
  uint8_t cols = 0;
};

TensorKinds Kinds(int tensor, DimKind rows, DimKind cols) {
  return {tensor, static_cast<uint8_t>(1u << static_cast<int>(rows)),
          static_cast<uint8_t>(1u << static_cast<int>(cols))};
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
  std::vector<int> consumed_inside;
  for (int o : plan.ops_) {
    for (int t : problem.op(o).inputs) consumed_inside.push_back(t);
  }
  std::sort(consumed_inside.begin(), consumed_inside.end());
  for (int o : plan.ops_) {
    const int t = problem.op(o).output;
    plan.produced_.push_back(t);
    if (!std::binary_search(consumed_inside.begin(), consumed_inside.end(), t)) {
      plan.sinks_.push_back(t);
    }
  }
  std::sort(plan.produced_.begin(), plan.produced_.end());
  std::sort(plan.sinks_.begin(), plan.sinks_.end());
  for (int o : plan.ops_) {
    for (int t : problem.op(o).inputs) {
      const int p = problem.producer(t);
      if (p < 0 || !IsMember(plan.ops_, p)) plan.external_inputs_.push_back(t);
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

  DemandBuilder builder(problem, plan.ops_);
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

  std::vector<TensorKinds> kinds;
  // Indexed like plan.ops_.
  std::vector<ReductionPointwise> reduction(plan.ops_.size());
  auto scan = [&](const DemandGroup& group) {
    for (const SliceDemand& s : group.slices) kinds.push_back(Kinds(s.tensor, s.rows, s.cols));
    for (const ComputeDemand& c : group.computes) {
      kinds.push_back(Kinds(problem.op(c.op).output, c.rows, c.cols));
      if (problem.op(c.op).type == OpType::kPointwise) {
        const auto at = std::lower_bound(plan.ops_.begin(), plan.ops_.end(), c.op);
        ReductionPointwise& r = reduction[static_cast<size_t>(at - plan.ops_.begin())];
        r.op = c.op;
        r.proportional_rows |= IsProportional(c.rows);
        r.proportional_cols |= IsProportional(c.cols);
      }
    }
  };
  scan(plan.last_group_);
  for (const DemandGroup& group : plan.root_groups_) scan(group);
  constexpr uint8_t kTileBit = 1u << static_cast<int>(DimKind::kTile);
  constexpr uint8_t kSliceBit = 1u << static_cast<int>(DimKind::kSlice);
  std::sort(kinds.begin(), kinds.end(),
            [](const TensorKinds& a, const TensorKinds& b) { return a.tensor < b.tensor; });
  for (size_t k = 0; k < kinds.size();) {
    // OR together the kinds of one tensor.
    uint8_t rows = 0, cols = 0;
    const int t = kinds[k].tensor;
    for (; k < kinds.size() && kinds[k].tensor == t; ++k) {
      rows |= kinds[k].rows;
      cols |= kinds[k].cols;
    }
    plan.mixed_rows_ |= (rows & kTileBit) && (rows & kSliceBit);
    plan.mixed_cols_ |= (cols & kTileBit) && (cols & kSliceBit);
  }
  for (const ReductionPointwise& r : reduction) {
    if (r.proportional_rows || r.proportional_cols) plan.reduction_pointwise_.push_back(r);
  }
  return plan;
}

}  // namespace tilesched
