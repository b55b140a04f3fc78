// SubgraphPlan: the region-demand analysis of one subgraph (SPEC.md sections 3.2-3.3 and 4).
//
// Entry point: SubgraphPlan::Create(problem, ops) checks that the op set is a non-empty,
// duplicate-free, connected subgraph whose sinks share one shape, then derives, independent of
// the tile size, what each step demands: which ops compute which region of their output and
// which external tensor slices they read. Regions are symbolic: each dimension is the tile's
// rows/cols (kTile), the current k-slice (kSlice), or the full extent (kFull). The cost model
// makes them concrete per step.
//
// Demands are grouped by when they occur: one group per split root (active at k-step j while
// the root has a slice j) and one group for the tile's last step (the epilogue and the other
// tile-region Pointwise ops).
#ifndef TILESCHED_DEMAND_H_
#define TILESCHED_DEMAND_H_

#include <cstdint>
#include <vector>

#include "tilesched/problem.h"
#include "tilesched/status.h"

namespace tilesched {

enum class DimKind : uint8_t {
  kTile,   // the tile's rows (or columns): spatial
  kSlice,  // the current k-slice of a reduction: proportional
  kFull,   // the whole extent of a reduction: proportional
};

inline bool IsProportional(DimKind kind) { return kind != DimKind::kTile; }

// An external tensor slice a step reads.
struct SliceDemand {
  int tensor = -1;
  DimKind rows = DimKind::kTile;
  DimKind cols = DimKind::kTile;
  bool operator==(const SliceDemand&) const = default;
};

// A region of op's output that a step computes. `accumulate` marks a split root adding the
// current k-slice's contribution to its tile accumulator.
struct ComputeDemand {
  int op = -1;
  DimKind rows = DimKind::kTile;
  DimKind cols = DimKind::kTile;
  bool accumulate = false;
  bool operator==(const ComputeDemand&) const = default;
};

struct DemandGroup {
  std::vector<SliceDemand> slices;
  std::vector<ComputeDemand> computes;
};

// A Pointwise op whose output region has a proportional dimension (contest rule 7b).
struct ReductionPointwise {
  int op = -1;
  bool proportional_rows = false;
  bool proportional_cols = false;
};

class SubgraphPlan {
 public:
  // `ops` in any order; fails on rules 3.2 (empty, duplicate, disconnected) and 3.3 (sinks).
  static Result<SubgraphPlan> Create(const Problem& problem, std::vector<int> ops);

  const std::vector<int>& ops() const { return ops_; }  // sorted
  bool Contains(int op) const;
  // Sink shape: the execution grid's extent.
  int64_t width() const { return width_; }
  int64_t height() const { return height_; }
  const std::vector<int>& sinks() const { return sinks_; }          // sorted tensor ids
  const std::vector<int>& produced() const { return produced_; }    // sorted tensor ids
  const std::vector<int>& external_inputs() const { return external_inputs_; }  // sorted
  // MatMul ops whose output region is the tile (sorted), their reduction extents, and whether
  // each one's output is a sink.
  const std::vector<int>& split_roots() const { return split_roots_; }
  const std::vector<int64_t>& root_extents() const { return root_extents_; }
  const std::vector<bool>& root_is_sink() const { return root_is_sink_; }
  // Demand group of split root i, and of the tile's last step.
  const std::vector<DemandGroup>& root_groups() const { return root_groups_; }
  const DemandGroup& last_group() const { return last_group_; }
  const std::vector<ReductionPointwise>& reduction_pointwise() const { return reduction_pointwise_; }
  // True when some tensor is demanded both with tile rows and k-slice rows (resp. columns), so
  // that concrete ranges of different kinds may coincide.
  bool mixed_rows() const { return mixed_rows_; }
  bool mixed_cols() const { return mixed_cols_; }

 private:
  SubgraphPlan() = default;

  std::vector<int> ops_;
  int64_t width_ = 0, height_ = 0;
  std::vector<int> sinks_, produced_, external_inputs_;
  std::vector<int> split_roots_;
  std::vector<int64_t> root_extents_;
  std::vector<bool> root_is_sink_;
  std::vector<DemandGroup> root_groups_;
  DemandGroup last_group_;
  std::vector<ReductionPointwise> reduction_pointwise_;
  bool mixed_rows_ = false, mixed_cols_ = false;
};

}  // namespace tilesched

#endif  // TILESCHED_DEMAND_H_
