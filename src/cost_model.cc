// CostModel: exact subgraph latency with repeated steps costed once (SPEC.md sections 4-6, 9).
#include "tilesched/cost_model.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <tuple>

#include "tilesched/grid.h"

namespace tilesched {

const char* RulesName(Rules rules) { return rules == Rules::kContest ? "contest" : "algebra"; }
const char* MatmulReductionName(MatmulReduction mode) {
  return mode == MatmulReduction::kFullK ? "full_k" : "native_k";
}
const char* KLimitName(KLimit mode) { return mode == KLimit::kNative ? "native" : "reduction"; }

std::string ModesString(const CostModes& modes) {
  return std::string("rules=") + RulesName(modes.rules) +
         " matmul_reduction=" + MatmulReductionName(modes.matmul_reduction) +
         " k_limit=" + KLimitName(modes.k_limit);
}

Result<Rules> ParseRules(const std::string& text) {
  if (text == "contest") return Rules::kContest;
  if (text == "algebra") return Rules::kAlgebra;
  return Status::Error("rules must be 'contest' or 'algebra', got '" + text + "'");
}
Result<MatmulReduction> ParseMatmulReduction(const std::string& text) {
  if (text == "full_k") return MatmulReduction::kFullK;
  if (text == "native_k") return MatmulReduction::kNativeK;
  return Status::Error("matmul_reduction must be 'full_k' or 'native_k', got '" + text + "'");
}
Result<KLimit> ParseKLimit(const std::string& text) {
  if (text == "native") return KLimit::kNative;
  if (text == "reduction") return KLimit::kReduction;
  return Status::Error("k_limit must be 'native' or 'reduction', got '" + text + "'");
}

double OpComputeOnce(const Problem& problem, int o, MatmulReduction mode) {
  const Op& op = problem.op(o);
  const Hardware& hw = problem.hardware();
  const Tensor& out = problem.tensor(op.output);
  double cost = op.base_cost * ProportionalFactor(out.height, hw.native_h) *
                ProportionalFactor(out.width, hw.native_w);
  if (op.type == OpType::kMatMul) {
    const int64_t k = problem.reduction_extent(o);
    cost *= ReductionFactor(mode, k, k, hw.native_k());
  }
  return cost;
}

int64_t ProportionalLeastTile(const Problem& problem, Rules rules, int op, bool along_rows) {
  if (rules != Rules::kContest || problem.op(op).type != OpType::kPointwise) return 1;
  const Tensor& out = problem.tensor(problem.op(op).output);
  return along_rows ? out.height : out.width;
}

bool ProportionalRegionFits(const Problem& problem, Rules rules, int op, bool along_rows) {
  const Hardware& hw = problem.hardware();
  return ProportionalLeastTile(problem, rules, op, along_rows) <= (along_rows ? hw.native_h : hw.native_w);
}

GranularityBounds CostModel::Bounds(const SubgraphPlan& plan) const {
  const Hardware& hw = problem_->hardware();
  GranularityBounds bounds;
  bounds.max_w = hw.native_w;
  bounds.max_h = hw.native_h;
  if (!plan.split_roots().empty()) {
    bounds.min_root_extent =
        *std::min_element(plan.root_extents().begin(), plan.root_extents().end());
    bounds.max_k = bounds.min_root_extent;
    if (modes_.k_limit == KLimit::kNative) bounds.max_k = std::min(bounds.max_k, hw.native_k());
  }
  for (const ReductionPointwise& pw : plan.reduction_pointwise()) {
    if (pw.proportional_cols) {
      bounds.min_w = std::max(bounds.min_w, ProportionalLeastTile(*problem_, modes_.rules, pw.op, /*along_rows=*/false));
    }
    if (pw.proportional_rows) {
      bounds.min_h = std::max(bounds.min_h, ProportionalLeastTile(*problem_, modes_.rules, pw.op, /*along_rows=*/true));
    }
  }
  return bounds;
}

double RecomputationTime(const std::vector<OpWork>& work) {
  double total = 0;
  for (const OpWork& w : work) total += RecomputationTime(w);
  return total;
}

std::string ComputedSummary(const std::vector<OpWork>& work) {
  std::string out;
  for (const OpWork& w : work) {
    char ratio[32];
    std::snprintf(ratio, sizeof(ratio), "%.2fx", ComputedRelativeToOnce(w));
    out += (out.empty() ? "op " : ", op ") + std::to_string(w.op) + ": " + ratio;
  }
  return out;
}

Status CostModel::CheckGranularity(const SubgraphPlan& plan, const Granularity& g) const {
  const Hardware& hw = problem_->hardware();
  const GranularityBounds bounds = Bounds(plan);
  if (g.w < 1 || g.w > bounds.max_w) {
    return Status::Error("tile width w=" + std::to_string(g.w) + " is outside [1, " +
                         std::to_string(bounds.max_w) + "] (rule 3.4)");
  }
  if (g.h < 1 || g.h > bounds.max_h) {
    return Status::Error("tile height h=" + std::to_string(g.h) + " is outside [1, " +
                         std::to_string(bounds.max_h) + "] (rule 3.4)");
  }
  if (!plan.split_roots().empty()) {
    if (g.k < 1) return Status::Error("k=" + std::to_string(g.k) + " must be at least 1 (rule 3.4)");
    if (modes_.k_limit == KLimit::kNative && g.k > hw.native_k()) {
      return Status::Error("k=" + std::to_string(g.k) + " is above native k " +
                           std::to_string(hw.native_k()) + " (rule 3.4; k_limit=native)");
    }
    // Over the smallest K: name the first split root it exceeds.
    for (size_t i = 0; g.k > bounds.min_root_extent && i < plan.split_roots().size(); ++i) {
      if (g.k > plan.root_extents()[i]) {
        return Status::Error("k=" + std::to_string(g.k) + " is above the reduction K=" +
                             std::to_string(plan.root_extents()[i]) + " of split root op " +
                             std::to_string(plan.split_roots()[i]) + " (rule 3.4)");
      }
    }
  }
  if (g.w >= bounds.min_w && g.h >= bounds.min_h) return Status::Ok();
  // Under a 7b minimum: name the first op that sets it.
  for (const ReductionPointwise& pw : plan.reduction_pointwise()) {
    const int64_t least_w = ProportionalLeastTile(*problem_, modes_.rules, pw.op, /*along_rows=*/false);
    const int64_t least_h = ProportionalLeastTile(*problem_, modes_.rules, pw.op, /*along_rows=*/true);
    if (pw.proportional_cols && g.w < least_w) {
      return Status::Error("op " + std::to_string(pw.op) +
                           " (Pointwise) is read along a reduction axis, so its tile must "
                           "cover all " + std::to_string(least_w) + " columns, but w=" +
                           std::to_string(g.w) + " (rules=contest, SPEC 7b)");
    }
    if (pw.proportional_rows && g.h < least_h) {
      return Status::Error("op " + std::to_string(pw.op) +
                           " (Pointwise) is read along a reduction axis, so its tile must "
                           "cover all " + std::to_string(least_h) + " rows, but h=" +
                           std::to_string(g.h) + " (rules=contest, SPEC 7b)");
    }
  }
  assert(false && "a 7b minimum without an op that sets it");
  return Status::Error("tile below the rule 7b minimum");
}

int64_t CostModel::KSteps(const SubgraphPlan& plan, const Granularity& g) const {
  int64_t n = 1;
  for (int64_t extent : plan.root_extents()) n = std::max(n, CeilDiv(extent, g.k));
  return n;
}

namespace {

// One external tensor slice, made concrete for a step.
struct ConcreteSlice {
  int tensor;
  int64_t r0, r1, c0, c1;
  int64_t size() const { return (r1 - r0) * (c1 - c0); }
  auto operator<=>(const ConcreteSlice&) const = default;
};

struct ConcreteCompute {
  int op;
  bool accumulate;
  int64_t r0, r1, c0, c1;
  double cost;
  double elements;  // region area, times slice/K for a split root's k-slice
  auto Key() const { return std::tie(op, accumulate, r0, r1, c0, c1); }
};

struct StepResult {
  double compute = 0;
  int64_t load = 0;
  int64_t store = 0;
  int64_t working_set = 0;
};

// Sums over a run of steps: the summed fields of SubgraphCost (latency, compute and memory
// time, step counts, compute- and memory-bound shares, traffic), plus the peak and the first
// step over capacity.
struct Totals {
  SubgraphCost sums;
  int64_t peak_ws = -1, peak_j = 0;  // first k-step reaching the peak
  int64_t first_bad_j = -1;          // first k-step over capacity
  int64_t first_bad_ws = 0;          // its working set
  std::vector<OpWork> work;          // per op of the plan (empty: nothing computed)

  // `count` equal steps, the first at k-step j, each costed by the named pieces.
  void Add(const StepResult& s, int64_t j, int64_t count, double bandwidth, int64_t capacity) {
    const double c = static_cast<double>(count);
    const double memory_time = MemoryTime(s.load, s.store, bandwidth);
    const double latency = c * StepLatency(s.compute, s.load, s.store, bandwidth);
    sums.latency += latency;
    sums.compute_time += c * s.compute;
    sums.memory_time += c * memory_time;
    sums.steps += count;
    const bool compute_bound = s.compute >= memory_time;
    (compute_bound ? sums.compute_bound_steps : sums.memory_bound_steps) += count;
    (compute_bound ? sums.compute_bound_time : sums.memory_bound_time) += latency;
    sums.loaded += count * s.load;
    sums.stored += count * s.store;
    if (s.working_set > peak_ws) {
      peak_ws = s.working_set;
      peak_j = j;
    }
    if (s.working_set > capacity && first_bad_j < 0) {
      first_bad_j = j;
      first_bad_ws = s.working_set;
    }
  }
};

// *into += a + b over the summed fields (the tile's first step and its other k-steps; the
// sum is formed first, as before, so totals do not depend on how steps were grouped).
void AddSums(const SubgraphCost& a, const SubgraphCost& b, SubgraphCost* into) {
  into->latency += a.latency + b.latency;
  into->compute_time += a.compute_time + b.compute_time;
  into->memory_time += a.memory_time + b.memory_time;
  into->steps += a.steps + b.steps;
  into->compute_bound_steps += a.compute_bound_steps + b.compute_bound_steps;
  into->memory_bound_steps += a.memory_bound_steps + b.memory_bound_steps;
  into->compute_bound_time += a.compute_bound_time + b.compute_bound_time;
  into->memory_bound_time += a.memory_bound_time + b.memory_bound_time;
  into->loaded += a.loaded + b.loaded;
  into->stored += a.stored + b.stored;
}

// sum += count * add, op by op (`add` empty: nothing).
void AddWork(const std::vector<OpWork>& add, double count, std::vector<OpWork>* sum) {
  if (add.empty()) return;
  if (sum->empty()) {
    *sum = add;
    for (OpWork& w : *sum) w.elements = w.compute_time = 0;
  }
  for (size_t i = 0; i < add.size(); ++i) {
    (*sum)[i].elements += count * add[i].elements;
    (*sum)[i].compute_time += count * add[i].compute_time;
  }
}

// What every step holds besides its slices (SPEC 6), and how many sinks each tile writes.
struct HeldCounts {
  CostModel::HeldSpace space;
  int64_t sinks_written = 0;
};

HeldCounts CountHeld(const Problem& problem, const CostModes& modes, const SubgraphPlan& plan,
                     std::span<const int> retained, std::span<const int> resident) {
  auto is_retained = [&](int t) { return std::binary_search(retained.begin(), retained.end(), t); };
  HeldCounts out;
  for (int t : resident) out.space.held += problem.tensor(t).size();
  for (int t : retained) out.space.held += problem.tensor(t).size();
  int64_t sinks_kept = 0, roots_kept = 0, nonsink_roots_kept = 0;
  for (int t : plan.sinks()) {
    if (!is_retained(t)) ++sinks_kept;
    if (!is_retained(t) || problem.is_graph_output(t)) ++out.sinks_written;
  }
  for (size_t i = 0; i < plan.split_roots().size(); ++i) {
    if (is_retained(problem.op(plan.split_roots()[i]).output)) continue;
    ++roots_kept;
    if (!plan.root_is_sink()[i]) ++nonsink_roots_kept;
  }
  out.space.buffers = TileBuffers(modes.rules, sinks_kept, roots_kept, nonsink_roots_kept);
  return out;
}

// The buffers of one StepEvaluator. Each thread keeps one set and lends it to the evaluator it
// runs (a cost call makes one evaluator and drops it before returning), so a cost call reuses
// the capacity of the calls before it instead of allocating; an evaluator made while another on
// its thread is alive (no caller does so) gets buffers of its own.
struct EvaluatorBuffers {
  std::vector<const DemandGroup*> groups;
  std::vector<std::vector<SliceDemand>> live_slices;
  std::vector<int64_t> root_steps;
  std::vector<ConcreteCompute> computes;
  std::vector<OpWork> step_work;
  std::vector<ConcreteSlice> current, previous;
  std::vector<int64_t> special;
  bool lent = false;
};

class BorrowedBuffers {
 public:
  BorrowedBuffers() {
    thread_local EvaluatorBuffers buffers;
    if (buffers.lent) {
      own_ = std::make_unique<EvaluatorBuffers>();
      buffers_ = own_.get();
    } else {
      buffers_ = &buffers;
    }
    buffers_->lent = true;
  }
  ~BorrowedBuffers() { buffers_->lent = false; }
  BorrowedBuffers(const BorrowedBuffers&) = delete;
  BorrowedBuffers& operator=(const BorrowedBuffers&) = delete;
  EvaluatorBuffers& get() { return *buffers_; }

 private:
  std::unique_ptr<EvaluatorBuffers> own_;
  EvaluatorBuffers* buffers_ = nullptr;
};

class StepEvaluator {
 public:
  StepEvaluator(const Problem& problem, const CostModes& modes, const SubgraphPlan& plan,
                const Granularity& g, std::span<const int> retained, std::span<const int> resident,
                int64_t grid_width = -1, int64_t grid_height = -1)
      : problem_(problem),
        modes_(modes),
        plan_(plan),
        grid_(grid_width < 0 ? plan.width() : grid_width,
              grid_height < 0 ? plan.height() : grid_height, g.w, g.h),
        k_(g.k),
        groups_(borrowed_.get().groups),
        live_slices_(borrowed_.get().live_slices),
        root_steps_(borrowed_.get().root_steps),
        computes_(borrowed_.get().computes),
        step_work_(borrowed_.get().step_work),
        current_(borrowed_.get().current),
        previous_(borrowed_.get().previous),
        special_(borrowed_.get().special) {
    groups_.clear();
    root_steps_.clear();
    step_work_.clear();
    current_.clear();
    previous_.clear();
    const Hardware& hw = problem.hardware();
    native_w_ = hw.native_w;
    native_h_ = hw.native_h;
    bandwidth_ = hw.slow_memory_bandwidth;
    capacity_ = hw.fast_memory_capacity;
    auto is_resident = [&](int t) { return std::binary_search(resident.begin(), resident.end(), t); };
    groups_.push_back(&plan.last_group());
    for (const DemandGroup& group : plan.root_groups()) groups_.push_back(&group);
    // Only ever grown, so the inner vectors keep their capacity from call to call.
    if (live_slices_.size() < groups_.size()) live_slices_.resize(groups_.size());
    for (size_t gi = 0; gi < groups_.size(); ++gi) {
      std::vector<SliceDemand>& live = live_slices_[gi];
      live.clear();
      for (const SliceDemand& s : groups_[gi]->slices) {
        if (!is_resident(s.tensor)) live.push_back(s);
      }
    }
    n_k_ = 1;
    for (int64_t extent : plan.root_extents()) {
      root_steps_.push_back(CeilDiv(extent, k_));
      n_k_ = std::max(n_k_, root_steps_.back());
    }
    const HeldCounts held = CountHeld(problem, modes, plan, retained, resident);
    fixed_ws_ = held.space.held;
    buffers_ = held.space.buffers;
    sinks_written_ = held.sinks_written;
    for (int op : plan.ops()) {
      step_work_.push_back({op, problem.tensor(problem.op(op).output).size(), 0, 0});
    }
  }

  const Grid& grid() const { return grid_; }
  int64_t n_k() const { return n_k_; }
  double bandwidth() const { return bandwidth_; }
  int64_t capacity() const { return capacity_; }

  // Concrete slices (sorted, distinct, not resident) and compute time of step (r, c, j); what
  // each op computes in it is left in step_work_.
  void Step(int64_t r, int64_t c, int64_t j, std::vector<ConcreteSlice>* slices, double* compute) {
    slices->clear();
    computes_.clear();
    const Interval rows = grid_.RowInterval(r), cols = grid_.ColInterval(c);
    for (size_t gi = 0; gi < groups_.size(); ++gi) {
      const bool active = gi == 0 ? j == n_k_ - 1 : j < root_steps_[gi - 1];
      if (!active) continue;
      for (const SliceDemand& s : live_slices_[gi]) {
        const Tensor& t = problem_.tensor(s.tensor);
        const Interval ri = Concrete(s.rows, rows, j, t.height);
        const Interval ci = Concrete(s.cols, cols, j, t.width);
        slices->push_back({s.tensor, ri.begin, ri.end, ci.begin, ci.end});
      }
      for (const ComputeDemand& d : groups_[gi]->computes) {
        computes_.push_back(ComputeOf(d, rows, cols, j));
      }
    }
    std::sort(slices->begin(), slices->end());
    slices->erase(std::unique(slices->begin(), slices->end()), slices->end());
    // Distinct (op, region) pairs; a region demanded with different dimension kinds is computed
    // once, at the larger (padded) cost.
    std::sort(computes_.begin(), computes_.end(),
              [](const ConcreteCompute& a, const ConcreteCompute& b) { return a.Key() < b.Key(); });
    for (OpWork& w : step_work_) w.elements = w.compute_time = 0;
    double total = 0;
    for (size_t i = 0; i < computes_.size();) {
      double cost = computes_[i].cost;
      size_t next = i + 1;
      while (next < computes_.size() && computes_[next].Key() == computes_[i].Key()) {
        cost = std::max(cost, computes_[next].cost);
        ++next;
      }
      total += cost;
      OpWork& w = step_work_[static_cast<size_t>(
          std::lower_bound(plan_.ops().begin(), plan_.ops().end(), computes_[i].op) -
          plan_.ops().begin())];
      w.elements += computes_[i].elements;
      w.compute_time += cost;
      i = next;
    }
    *compute = total;
  }

  // Loads, stores and working set of step (r, c, j) given its slices and the previous step's.
  StepResult Finish(int64_t r, int64_t c, int64_t j, const std::vector<ConcreteSlice>& current,
                    const std::vector<ConcreteSlice>* previous, double compute) const {
    StepResult out;
    out.compute = compute;
    const int64_t tile_area = grid_.RowInterval(r).length() * grid_.ColInterval(c).length();
    int64_t slice_total = 0;
    auto prev = previous ? previous->begin() : current.end();
    const auto prev_end = previous ? previous->end() : current.end();
    for (const ConcreteSlice& s : current) {
      slice_total += s.size();
      while (prev != prev_end && *prev < s) ++prev;
      if (prev == prev_end || !(*prev == s)) out.load += s.size();
    }
    out.working_set = slice_total + fixed_ws_ + buffers_ * tile_area;
    if (j == n_k_ - 1) out.store = sinks_written_ * tile_area;
    return out;
  }

  // The k-step j at which k-slice j covers exactly tile row r (or -1). Only plans that demand
  // one tensor both by tile rows and by k-slice rows can see such a coincidence.
  int64_t RowCoincidence(int64_t r) const {
    return plan_.mixed_rows() ? Coincidence(grid_.RowInterval(r), grid_.height()) : -1;
  }
  int64_t ColCoincidence(int64_t c) const {
    return plan_.mixed_cols() ? Coincidence(grid_.ColInterval(c), grid_.width()) : -1;
  }

  // The k-steps of tile (r, c) whose cost can differ from their neighbours': the first and
  // last, a root's last slice and the step after it, a coincidence and the step after it.
  // The result lives until the next call.
  const std::vector<int64_t>& SpecialSteps(int64_t r, int64_t c) {
    std::vector<int64_t>& special = special_;
    special.assign({0, 1, n_k_ - 1});
    for (int64_t n : root_steps_) {
      special.push_back(n - 1);
      special.push_back(n);
    }
    for (int64_t x : {RowCoincidence(r), ColCoincidence(c)}) {
      if (x >= 0) {
        special.push_back(x);
        special.push_back(x + 1);
      }
    }
    std::sort(special.begin(), special.end());
    special.erase(std::unique(special.begin(), special.end()), special.end());
    special.erase(std::remove_if(special.begin(), special.end(),
                                 [&](int64_t j) { return j < 0 || j >= n_k_; }),
                  special.end());
    return special;
  }

  // Sum over k-steps 1..n_k-1 of tile (r, c). Steps between special points are identical,
  // so each run is costed once and multiplied.
  Totals WithinTile(int64_t r, int64_t c) {
    Totals totals;
    int64_t next_unvisited = 1;
    for (int64_t s : SpecialSteps(r, c)) {
      if (s < 1) continue;
      if (next_unvisited < s) AddStep(r, c, next_unvisited, s - next_unvisited, &totals);
      AddStep(r, c, s, 1, &totals);
      next_unvisited = s + 1;
    }
    assert(n_k_ == 1 || next_unvisited == n_k_);
    return totals;
  }

  // Largest working set over all steps (it does not depend on the traversal order): the
  // special steps and one step of each run, in each class of clipped / unclipped tile.
  // The working set of the first step of tile (0, 0): one of the steps PeakWorkingSet takes.
  int64_t FirstStepWorkingSet() {
    double unused = 0;
    current_key_ = {-1, -1, -1};
    Step(0, 0, 0, &current_, &unused);
    return Finish(0, 0, 0, current_, nullptr, 0).working_set;
  }

  int64_t PeakWorkingSet() {
    int64_t peak = 0;
    const bool mixed = plan_.mixed_rows() || plan_.mixed_cols();
    std::vector<int64_t> rows = {0}, cols = {0};
    // The last row (column) differs only when it is clipped, or in a mixed plan.
    if (grid_.rows() > 1 && (mixed || grid_.RowClipped(grid_.rows() - 1))) rows.push_back(grid_.rows() - 1);
    if (grid_.cols() > 1 && (mixed || grid_.ColClipped(grid_.cols() - 1))) cols.push_back(grid_.cols() - 1);
    for (int64_t r : rows) {
      for (int64_t c : cols) {
        int64_t previous_special = -1;
        for (int64_t s : SpecialSteps(r, c)) {
          for (int64_t j : {previous_special + 1, s}) {
            if (j > s) continue;
            double unused = 0;
            current_key_ = {-1, -1, -1};
            Step(r, c, j, &current_, &unused);
            peak = std::max(peak, Finish(r, c, j, current_, nullptr, 0).working_set);
          }
          previous_special = s;
        }
      }
    }
    return peak;
  }

  // The step cost the order-free bounds sum: the cost model's max(compute, memory), or with
  // SetLambda(lambda), lambda x compute + (1 - lambda) x memory, at most that max for every
  // lambda in [0, 1] (docs/bounds.md "Cores", Lemma V3). The bounds below use only that a step
  // costs more when it loads more, which both keep.
  void SetLambda(double lambda) { lambda_ = lambda; }
  double StepCost(const StepResult& s) const {
    if (lambda_ < 0) return StepLatency(s.compute, s.load, s.store, bandwidth_);
    return lambda_ * s.compute + (1 - lambda_) * MemoryTime(s.load, s.store, bandwidth_);
  }
  // A tile's later k-steps (WithinTile) under the same step cost.
  double Later(const Totals& t) const {
    if (lambda_ < 0) return t.sums.latency;
    return lambda_ * t.sums.compute_time + (1 - lambda_) * t.sums.memory_time;
  }

  // docs/bounds.md Lemma X7: a lower bound on the latency over every traversal order, for a plan
  // that is not mixed. Each tile's later k-steps do not depend on the order; its first step
  // follows some tile of the same row, of the same column, of neither, or nothing, and only
  // which of these (not the other tile's size) decides what is reused, so the cheapest of a
  // same-row and a same-column predecessor bounds it (neither and nothing reuse a subset).
  // Rows 0..rows-2 (columns 0..cols-2) are alike, so the first and the last stand for all.
  // In a mixed plan a tile interval may equal a k-slice here; that only merges identical slices
  // (a smaller value), so the result bounds the grids of the same shape without such a
  // coincidence (Lemma X7, mixed plans), and only those.
  double OrderFreeLatency() {
    const int64_t nr = grid_.rows(), nc = grid_.cols();
    if (nr * nc > 1 && !grid_.RowClipped(nr - 1) && !grid_.ColClipped(nc - 1)) {
      return UniformOrderFree();
    }
    std::vector<std::pair<int64_t, int64_t>> rows = {{0, nr > 1 ? nr - 1 : 1}};
    std::vector<std::pair<int64_t, int64_t>> cols = {{0, nc > 1 ? nc - 1 : 1}};
    if (nr > 1) rows.push_back({nr - 1, 1});
    if (nc > 1) cols.push_back({nc - 1, 1});
    std::vector<OpWork> unused_work;
    double total = 0;
    for (const auto& [r, row_count] : rows) {
      for (const auto& [c, col_count] : cols) {
        double first = std::numeric_limits<double>::infinity();
        const int64_t row = r, col = c;  // clang cannot capture structured bindings
        auto consider = [&](int64_t pr, int64_t pc) {
          const StepResult s = FirstStep(row, col, pr, pc, &unused_work);
          first = std::min(first, StepCost(s));
        };
        if (nc > 1) consider(r, c == 0 ? 1 : c - 1);
        if (nr > 1) consider(r == 0 ? 1 : r - 1, c);
        if (nr == 1 && nc == 1) consider(-1, -1);
        const double tiles = static_cast<double>(row_count * col_count);
        total += tiles * (first + Later(WithinTile(r, c)));
      }
    }
    return total;
  }

  // A lower bound over every order on this very grid, for any plan (mixed included): each tile's
  // later k-steps as they are, and the larger of two bounds on the first steps
  // (docs/bounds.md, X7 "Mixed plans" and X11):
  // - each first step loading only the slices that no tile's last step needs (so no
  //   predecessor can leave them identical);
  // - every first step loading all its slices, less what the predecessors can spare in all:
  //   a slice s is spared only at a tile whose predecessor's last step needs s, and an order
  //   gives each tile one predecessor and each tile at most one successor, so s is spared at
  //   most min(tiles whose first step needs s, tiles whose last step needs s) times.
  // Costs every tile: small grids.
  double AnyPlanOrderFree(double cutoff) {
    std::vector<ConcreteSlice> all_last;
    double unused = 0;
    for (int64_t r = 0; r < grid_.rows(); ++r) {
      for (int64_t c = 0; c < grid_.cols(); ++c) {
        Step(r, c, n_k_ - 1, &previous_, &unused);  // distinct within the step
        all_last.insert(all_last.end(), previous_.begin(), previous_.end());
      }
    }
    std::sort(all_last.begin(), all_last.end());
    // Each distinct last-step slice, with the number of tiles whose last step needs it and of
    // those whose first step does.
    std::vector<ConcreteSlice> last_slices;
    std::vector<int64_t> last_count, first_count;
    for (const ConcreteSlice& s : all_last) {
      if (last_slices.empty() || !(last_slices.back() == s)) {
        last_slices.push_back(s);
        last_count.push_back(0);
        first_count.push_back(0);
      }
      ++last_count.back();
    }
    double total = 0, unspared = 0;
    for (int64_t r = 0; r < grid_.rows(); ++r) {
      for (int64_t c = 0; c < grid_.cols(); ++c) {
        double compute = 0;
        Step(r, c, 0, &current_, &compute);
        const StepResult first = Finish(r, c, 0, current_, &last_slices, compute);
        const StepResult alone = Finish(r, c, 0, current_, nullptr, compute);
        for (const ConcreteSlice& s : current_) {
          auto it = std::lower_bound(last_slices.begin(), last_slices.end(), s);
          if (it != last_slices.end() && *it == s) ++first_count[it - last_slices.begin()];
        }
        current_key_ = {-1, -1, -1};
        const double later = Later(WithinTile(r, c));
        total += StepCost(first) + later;
        unspared += StepCost(alone) + later;
        if (total >= cutoff) return total;
      }
    }
    // max(c, (L - x + S) / bw) >= max(c, (L + S) / bw) - x / bw for every x >= 0.
    double spared = 0;
    for (size_t i = 0; i < last_slices.size(); ++i) {
      spared += static_cast<double>(last_slices[i].size()) *
                static_cast<double>(std::min(last_count[i], first_count[i]));
    }
    // Under a weighted step cost the memory term carries 1 - lambda of it.
    const double memory_share = lambda_ < 0 ? 1 : 1 - lambda_;
    return std::max(total, unspared - memory_share * spared / bandwidth_);
  }

  // OrderFreeLatency on a grid without clipped tiles, where every tile costs alike: an order
  // starts at one tile with no predecessor and makes tiles - 1 moves, of which at most
  // rows x (cols - 1) stay in a row and cols x (rows - 1) in a column (the moves inside one row
  // form a path forest on its cols tiles); the rest change both. The cheapest assignment of the
  // moves within these caps (cheaper kinds first) bounds every order.
  double UniformOrderFree() {
    const int64_t nr = grid_.rows(), nc = grid_.cols();
    std::vector<OpWork> unused_work;
    auto first = [&](int64_t pr, int64_t pc) {
      const StepResult s = FirstStep(0, 0, pr, pc, &unused_work);
      return StepCost(s);
    };
    std::vector<std::pair<double, int64_t>> moves;  // (first-step latency, at most how many)
    if (nc > 1) moves.push_back({first(0, 1), nr * (nc - 1)});
    if (nr > 1) moves.push_back({first(1, 0), nc * (nr - 1)});
    if (nr > 1 && nc > 1) moves.push_back({first(1, 1), nr * nc});
    std::sort(moves.begin(), moves.end());
    double total = first(-1, -1);
    int64_t left = nr * nc - 1;
    for (const auto& [latency, cap] : moves) {
      const int64_t taken = std::min(left, cap);
      total += static_cast<double>(taken) * latency;
      left -= taken;
    }
    assert(left == 0);
    return total + static_cast<double>(nr * nc) * Later(WithinTile(0, 0));
  }

  // docs/bounds.md Lemma X7: a lower bound on the latency of tile (0, 0) wherever an order puts
  // it (in a mixed plan, as for OrderFreeLatency): its later k-steps as they are, and its first
  // step loading only the slices that neither a same-row nor a same-column predecessor (tiles
  // (0, 1) and (1, 0), where the grid has them) could leave identical. As a function of the tile's width
  // (height) alone it is convex: every load is a sum of slice sizes, each affine in it.
  double TileBound() {
    double compute = 0, unused = 0;
    Step(0, 0, 0, &current_, &compute);
    std::vector<ConcreteSlice> previous;
    for (const auto& [pr, pc] : {std::pair<int64_t, int64_t>{0, 1}, {1, 0}}) {
      if (pr >= grid_.rows() || pc >= grid_.cols()) continue;
      Step(pr, pc, n_k_ - 1, &previous_, &unused);
      previous.insert(previous.end(), previous_.begin(), previous_.end());
    }
    std::sort(previous.begin(), previous.end());
    previous.erase(std::unique(previous.begin(), previous.end()), previous.end());
    const StepResult first = Finish(0, 0, 0, current_, &previous, compute);
    current_key_ = {-1, -1, -1};
    return StepCost(first) + Later(WithinTile(0, 0));
  }

  // The first step of tile (r, c) after tile (pr, pc) (pr < 0: the subgraph's first step), and
  // what each op computes in it.
  StepResult FirstStep(int64_t r, int64_t c, int64_t pr, int64_t pc, std::vector<OpWork>* work) {
    double compute = 0;
    Step(r, c, 0, &current_, &compute);
    *work = step_work_;
    current_key_ = {r, c, 0};
    if (pr < 0) return Finish(r, c, 0, current_, nullptr, compute);
    double unused = 0;
    Step(pr, pc, n_k_ - 1, &previous_, &unused);
    return Finish(r, c, 0, current_, &previous_, compute);
  }

 private:
  Interval Concrete(DimKind kind, Interval tile, int64_t j, int64_t extent) const {
    switch (kind) {
      case DimKind::kTile:
        return tile;
      case DimKind::kSlice:
        assert(j * k_ < extent);
        return SliceInterval(j, k_, extent);
      case DimKind::kFull:
        break;
    }
    return {0, extent};
  }

  double Factor(DimKind kind, int64_t length, int64_t native) const {
    return kind == DimKind::kTile ? SpatialFactor(length, native) : ProportionalFactor(length, native);
  }

  ConcreteCompute ComputeOf(const ComputeDemand& d, Interval rows, Interval cols, int64_t j) const {
    const Op& op = problem_.op(d.op);
    const Tensor& out = problem_.tensor(op.output);
    const Interval ri = Concrete(d.rows, rows, j, out.height);
    const Interval ci = Concrete(d.cols, cols, j, out.width);
    double cost = op.base_cost * Factor(d.rows, ri.length(), native_h_) *
                  Factor(d.cols, ci.length(), native_w_);
    double elements = static_cast<double>(ri.length() * ci.length());
    if (op.type == OpType::kMatMul) {
      const int64_t k_extent = problem_.reduction_extent(d.op);
      const int64_t length = d.accumulate ? SliceInterval(j, k_, k_extent).length() : k_extent;
      cost *= ReductionFactor(modes_.matmul_reduction, length, k_extent,
                              problem_.hardware().native_k());
      if (d.accumulate) {
        elements *= static_cast<double>(length) / static_cast<double>(k_extent);
      }
    }
    return {d.op, d.accumulate, ri.begin, ri.end, ci.begin, ci.end, cost, elements};
  }

  int64_t Coincidence(Interval tile, int64_t extent) const {
    if (tile.begin % k_ != 0) return -1;
    const int64_t j = tile.begin / k_;
    return SliceInterval(j, k_, extent) == tile ? j : -1;
  }

  void AddStep(int64_t r, int64_t c, int64_t j, int64_t count, Totals* totals) {
    double compute = 0, unused = 0;
    // Consecutive calls (j - 1, then j) reuse the step just made concrete.
    if (current_key_ == std::array<int64_t, 3>{r, c, j - 1}) {
      std::swap(previous_, current_);
    } else {
      Step(r, c, j - 1, &previous_, &unused);
    }
    Step(r, c, j, &current_, &compute);
    current_key_ = {r, c, j};
    totals->Add(Finish(r, c, j, current_, &previous_, compute), j, count, bandwidth_, capacity_);
    AddWork(step_work_, static_cast<double>(count), &totals->work);
  }

  const Problem& problem_;
  const CostModes& modes_;
  const SubgraphPlan& plan_;
  Grid grid_;
  int64_t k_;
  int64_t native_w_ = 0, native_h_ = 0, capacity_ = 0;
  double bandwidth_ = 0;
  double lambda_ = -1;  // < 0: max(compute, memory) per step; else the weighted sum (SetLambda)
  BorrowedBuffers borrowed_;  // declared before the references into it
  std::vector<const DemandGroup*>& groups_;  // [0] = last step, [1 + i] = split root i
  std::vector<std::vector<SliceDemand>>& live_slices_;  // [group]; may hold more (unused) groups
  std::vector<int64_t>& root_steps_;
  int64_t n_k_ = 1;
  int64_t fixed_ws_ = 0;
  int64_t buffers_ = 0;
  int64_t sinks_written_ = 0;
  std::vector<ConcreteCompute>& computes_;
  std::vector<OpWork>& step_work_;  // per op of the plan: what the last Step() computed
  std::vector<ConcreteSlice>& current_, & previous_;
  std::vector<int64_t>& special_;  // SpecialSteps' result
  std::array<int64_t, 3> current_key_ = {-1, -1, -1};  // (r, c, j) that current_ holds, if any
};

}  // namespace

int64_t CostModel::PeakWorkingSet(const SubgraphPlan& plan, const Granularity& g,
                                  std::span<const int> retained,
                                  std::span<const int> resident) const {
  return StepEvaluator(*problem_, modes_, plan, g, retained, resident).PeakWorkingSet();
}

int64_t CostModel::FirstStepWorkingSet(const SubgraphPlan& plan, const Granularity& g,
                                       std::span<const int> retained,
                                       std::span<const int> resident) const {
  return StepEvaluator(*problem_, modes_, plan, g, retained, resident).FirstStepWorkingSet();
}

CostModel::HeldSpace CostModel::Held(const SubgraphPlan& plan, std::span<const int> retained,
                                     std::span<const int> resident) const {
  return CountHeld(*problem_, modes_, plan, retained, resident).space;
}

double CostModel::OrderFreeBound(const SubgraphPlan& plan, const Granularity& g,
                                 int64_t grid_width, int64_t grid_height,
                                 std::span<const int> retained,
                                 std::span<const int> resident, bool allow_mixed, double lambda) const {
  if (!allow_mixed && (plan.mixed_rows() || plan.mixed_cols())) return 0;
  StepEvaluator eval(*problem_, modes_, plan, g, retained, resident, grid_width, grid_height);
  eval.SetLambda(lambda);
  return eval.OrderFreeLatency();
}

double CostModel::AnyPlanOrderFreeBound(const SubgraphPlan& plan, const Granularity& g,
                                        std::span<const int> retained,
                                        std::span<const int> resident, double cutoff, double lambda) const {
  StepEvaluator eval(*problem_, modes_, plan, g, retained, resident);
  eval.SetLambda(lambda);
  return eval.AnyPlanOrderFree(cutoff);
}

double CostModel::TileBound(const SubgraphPlan& plan, int64_t k, int64_t tile_w, int64_t tile_h,
                            bool one_col, bool one_row, std::span<const int> retained,
                            std::span<const int> resident, bool allow_mixed, double lambda) const {
  if (!allow_mixed && (plan.mixed_rows() || plan.mixed_cols())) return 0;
  const int64_t gw = one_col ? plan.width() : 2 * tile_w;
  const int64_t gh = one_row ? plan.height() : 2 * tile_h;
  StepEvaluator eval(*problem_, modes_, plan, {one_col ? plan.width() : tile_w, one_row ? plan.height() : tile_h, k},
                     retained, resident, gw, gh);
  eval.SetLambda(lambda);
  return eval.TileBound();
}

Result<SubgraphCost> CostModel::Cost(const SubgraphPlan& plan, const Granularity& g,
                                     const std::vector<int64_t>& traversal,
                                     std::span<const int> retained,
                                     std::span<const int> resident) const {
  StepEvaluator eval(*problem_, modes_, plan, g, retained, resident);
  const Grid& grid = eval.grid();
  const int64_t num_tiles = grid.num_tiles();
  assert(traversal.empty() || static_cast<int64_t>(traversal.size()) == num_tiles);
  const bool mixed = plan.mixed_rows() || plan.mixed_cols();

  // Memo of the first step of a tile by (row clipped, col clipped, same row as the tile before,
  // same col, first tile); exact unless the plan is mixed (see RowCoincidence).
  std::array<StepResult, 32> first_memo;
  std::array<bool, 32> first_known{};
  // What each op computes in a memoized first step, and how many tiles used it.
  std::array<std::vector<OpWork>, 32> first_work;
  std::array<int64_t, 32> first_uses{};
  // Memo of k-steps 1..n_k-1 of a tile by (row clipped, col clipped, coincidences), with the
  // number of tiles that used each entry.
  std::map<std::tuple<bool, bool, int64_t, int64_t>, std::pair<Totals, int64_t>> within_memo;
  std::vector<OpWork> work, step_work;  // per op: the sum so far; one unmemoized first step

  SubgraphCost cost;
  cost.tiles = num_tiles;
  cost.k_steps = eval.n_k();
  cost.peak_working_set = -1;
  SubgraphCost all;  // the summed fields; the rest are copied from `cost` at the end
  int64_t pr = -1, pc = -1;
  for (int64_t idx = 0; idx < num_tiles; ++idx) {
    const int64_t tile = traversal.empty() ? idx : traversal[idx];
    const int64_t r = tile / grid.cols(), c = tile % grid.cols();
    const bool clip_r = grid.RowClipped(r), clip_c = grid.ColClipped(c);

    StepResult first;
    if (mixed) {
      first = eval.FirstStep(r, c, pr, pc, &step_work);
      AddWork(step_work, /*count=*/1, &work);
    } else {
      const int key = (clip_r ? 1 : 0) | (clip_c ? 2 : 0) | (pr == r ? 4 : 0) | (pc == c ? 8 : 0) |
                      (pr < 0 ? 16 : 0);
      if (!first_known[key]) {
        first_memo[key] = eval.FirstStep(r, c, pr, pc, &first_work[key]);
        first_known[key] = true;
      }
      first = first_memo[key];
      ++first_uses[key];
    }
    Totals tile_totals;
    tile_totals.Add(first, 0, 1, eval.bandwidth(), eval.capacity());
    const auto key = std::make_tuple(clip_r, clip_c, eval.RowCoincidence(r), eval.ColCoincidence(c));
    auto it = within_memo.find(key);
    if (it == within_memo.end()) {
      it = within_memo.emplace(key, std::make_pair(eval.WithinTile(r, c), int64_t{0})).first;
    }
    const Totals& within = it->second.first;
    ++it->second.second;

    if (tile_totals.first_bad_j >= 0 || within.first_bad_j >= 0) {
      const Totals& bad = tile_totals.first_bad_j >= 0 ? tile_totals : within;
      return Status::Error("working set " + std::to_string(bad.first_bad_ws) +
                           " exceeds capacity " + std::to_string(eval.capacity()) + " at tile " +
                           std::to_string(tile) + " (row " + std::to_string(r) + ", col " +
                           std::to_string(c) + "), k-step " + std::to_string(bad.first_bad_j + 1) +
                           " of " + std::to_string(eval.n_k()) + " (rule 3.8)");
    }
    const int64_t tile_peak = std::max(first.working_set, within.peak_ws);
    if (tile_peak > cost.peak_working_set) {
      cost.peak_working_set = tile_peak;
      cost.peak_tile = tile;
      cost.peak_k_step = first.working_set >= within.peak_ws ? 0 : within.peak_j;
    }
    AddSums(tile_totals.sums, within.sums, &all);
    pr = r;
    pc = c;
  }
  for (size_t key = 0; key < first_work.size(); ++key) {
    AddWork(first_work[key], static_cast<double>(first_uses[key]), &work);
  }
  for (const auto& [key, entry] : within_memo) {
    AddWork(entry.first.work, static_cast<double>(entry.second), &work);
  }
  all.op_work = std::move(work);
  all.tiles = cost.tiles;
  all.k_steps = cost.k_steps;
  all.peak_working_set = cost.peak_working_set;
  all.peak_tile = cost.peak_tile;
  all.peak_k_step = cost.peak_k_step;
  return all;
}

}  // namespace tilesched
