// Tier 2 of the lower bound (docs/bounds.md, "Tier 2: the covering LP", Lemmas T1-T7): column
// generation over every subgraph context, with a certificate checked against every column; an
// op set with too many retention subsets is priced once per resident set for all of them
// (Lemma T5), and too many contexts are listed again that way with fewer subsets; where the op
// sets are too many, they are listed up to the problem's interchangeable branches, one per
// orbit, with the LP's rows summed per orbit (Lemma T7, search/symmetry.h).
//
// Entry points: Tier2Bound(problem, options) and Tier2Summary(result) (tilesched/search.h),
// RunCover(ctx) (search/context.h: the same on the run's budget, as the strategy `cover`), and
// RunCoveringLp (search/tier2.h: the column generation itself, with the relaxations of a link
// component, Lemma W2). The contexts are listed and priced by the context pricer
// (search/context_pricer.h, mode kLowerOnly), the LP is solved by COIN-OR CLP
// (search/cover_lp.h), and the sub-problems' tier-1 bounds (Lemma X5) come from the bound module
// (tilesched/lower_bound.h). With several threads the scan, the starting columns and the
// contexts the raises will most likely cost are computed in parallel (oneTBB), to the values one
// thread computes (docs/bounds.md, T4).
#include "tier2.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "context_pricer.h"
#include "cover_lp.h"
#include "plan_cache.h"
#include "symmetry.h"
#include "tilesched/lower_bound.h"

namespace tilesched::search {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Above this many connected op sets or subgraph contexts tier 2 proves nothing.
constexpr int64_t kMaxCoverOpSets = 1000000;
// Lemma T5: the retention subsets listed per op set on a retry after too many contexts.
constexpr int64_t kRetentionLadder[] = {64, 4};
// The cost in the restricted LP of a starting column (an op alone) whose context fits no tile
// (an op that fits only fused): this many times the finite starting columns' costs (plus 1).
// Any finite cost is sound (a column's cost only has to be at most its context's bound, which is
// infinite); this one is far above any schedule's latency, so the LP drops the column as soon as
// a real one covers the op, and CLP still solves it (it fails with costs near 1e20 beside costs
// near 1, and asserts on 1e25 and above).
constexpr double kCoverBigCostFactor = 1e6;
constexpr size_t kCoverChunk = 256;  // suspects whose X5 bounds are computed together
constexpr int64_t kCoverRoundWork = 256;  // bounds computed per LP round once one is violated
constexpr size_t kMaxViolatedPerRound = 50;
// With several threads, the contexts of this many suspects per thread are priced ahead at once.
constexpr size_t kAheadPerThread = 4;

// One column of the covering LP: a subgraph context (Lemma T3).
struct Column {
  int op_set;  // an index into the pricer's op sets
  // Lemma T5: `retained` is every tensor the op set may retain and stands for each subset of
  // them; the column is priced as retaining nothing, less the stores retention can save.
  bool relaxed = false;
  Mask retained, resident;
};

// How far a column's bound has been raised (Lemma T4, cheapest first).
enum Level : uint8_t { kCheap, kSubproblemTried, kBaseApplied, kContextCosted };

class CoveringLp {
 public:
  CoveringLp(const Problem& problem, const CostModes& modes, const Budget& budget, int64_t max_tile_configs,
             const Tier2Relaxation& relaxation)
      : problem_(problem), modes_(modes), budget_(budget), plans_(problem),
        pricer_(problem, modes, plans_, budget, max_tile_configs),
        bandwidth_(problem.hardware().slow_memory_bandwidth), relaxation_(relaxation) {}

  Tier2Result Run();

 private:
  // Every context (Lemma T3); false above relaxation_.max_contexts or out of time.
  bool ListColumns();
  // Each context's base: the same op set and resident set, nothing retained (Lemma X9).
  bool LinkBases();  // false: out of time
  // Lemma W2: the stores of the column's rebate sinks (0 without a relaxation).
  void ListRebates();
  // The column's cost in the LP and the certificate: its best bound so far, less its rebate
  // (with a margin of 1e-12 for the subtraction's rounding).
  double Price(size_t ci) const;
  // What the column's own bound must reach for its price to reach its bracket.
  double Target(size_t ci) const;
  // What a column's own bound is computed with as retained: nothing for a relaxed one (T5).
  Mask Held(const Column& col) const;
  // The larger of C1, X3 and X8 b.
  double Cheap(const Column& col) const;
  // Lemma X5 applies: nothing read resident and no sink kept back from slow memory.
  bool Plain(const Column& col) const;
  // The tier-1 bound of the problem made of op set `index`'s ops alone (0 if none).
  double SubproblemBound(int index);
  double ComputeSubproblemBound(int index) const;  // the same, not memoized (thread-safe)
  int64_t PrefetchSubproblemBounds(const std::vector<std::pair<double, size_t>>& suspects, size_t from);
  // The context's own bound, refined up to `target` at least (priced ahead when it was).
  void CostContext(size_t ci, double target);
  // Where column ci's bound is raised by its base towards `target` (Lemma X9): the base, the
  // stores retention saves (seconds), and the target the base is costed to.
  struct BaseStep {
    size_t base;
    double saved, target;
  };
  BaseStep BaseOf(size_t ci, double target) const;
  // The column's price were its best bound `known` (Price(ci) is PriceOf(ci, known_[ci])).
  double PriceOf(size_t ci, double known) const;
  // Prices in parallel, into ahead_, the contexts that the suspects [from, from + count) will
  // most likely cost (their bases first, then their own); RaiseSuspects then takes them from
  // there, so its results are the sequential ones.
  void PriceAhead(const std::vector<std::pair<double, size_t>>& suspects, size_t from, size_t count);
  void PriceInParallel(std::vector<std::pair<size_t, double>> requests);
  // One level up, cheapest first, towards `target` (the column's dual sum).
  void Raise(size_t ci, double target);
  // The start: every op alone, nothing resident or retained (a feasible LP).
  void AddSingletons(CoverLp* lp);
  // Lemma T2: every column's bracket under duals (y, z) into lhs_; the columns whose known bound
  // is below it, smaller op sets first, then the most violated.
  // Every column's bracket (lhs_) and the suspects among them; nullopt when the time limit
  // struck first (lhs_ is then partly stale and this round certifies nothing).
  std::optional<std::vector<std::pair<double, size_t>>> Scan(const std::vector<double>& y,
                                                             const std::vector<double>& z);
  void ScanColumn(size_t ci, const std::vector<double>& y, const std::vector<double>& z,
                  std::vector<std::pair<double, size_t>>* suspects);
  // Raises the suspects' bounds until kMaxViolatedPerRound stay violated (or the round's work
  // is done); returns the violated columns.
  std::vector<size_t> RaiseSuspects(const std::vector<std::pair<double, size_t>>& suspects);
  Tier2Result Finish(Tier2Status status, const CoverLp* lp);

  const Problem& problem_;
  const CostModes modes_;
  const Budget& budget_;
  PlanCache plans_;
  ContextPricer pricer_;
  const double bandwidth_;
  const Tier2Relaxation relaxation_;
  std::vector<Column> columns_;
  std::vector<double> rebate_;  // per column, Lemmas W2 and T5 (empty without either)
  std::vector<double> relaxed_floor_;  // per column, Lemma T5's C1 and X3 (empty without T5)
  std::vector<uint32_t> base_;
  std::vector<double> known_;  // best bound computed so far (< 0: cheap only)
  std::vector<uint8_t> level_;
  // The target a costed context was cut at (it may stop refining there): infinity when none.
  std::vector<double> cut_;
  std::vector<double> lhs_;
  std::vector<uint8_t> in_lp_;  // per column: already a column of the LP
  std::vector<double> subproblem_bound_;  // per op set; < 0 until computed
  // Contexts priced ahead (PriceAhead): (column, target) -> its value; cleared every round.
  std::map<std::pair<size_t, double>, ContextValue> ahead_;
  Symmetry symmetry_;  // Lemma T7 (trivial: every op set listed)
  size_t threads_ = 1;  // the threads the pricing may use
  int64_t contexts_costed_ = 0, rounds_ = 0, priced_ahead_ = 0, ahead_used_ = 0;
  double proven_ = 0;
};

Tier2Result CoveringLp::Run() {
  if (!ContextPricer::Fits(problem_)) return Finish(Tier2Status::kTooManyOps, nullptr);
  threads_ = std::min<size_t>(tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism),
                              static_cast<size_t>(tbb::this_task_arena::max_concurrency()));
  // Lemma T7: op sets up to the interchangeable branches (always, or where every op set would
  // be too many), each tensor mask of W2 kept by every automorphism.
  const Mask kept[] = {relaxation_.free_resident, relaxation_.rebate};
  if (relaxation_.symmetry == Tier2Symmetry::kAlways) symmetry_ = Symmetry::Find(problem_, kept);
  bool listed = pricer_.EnumerateOpSets(kMaxCoverOpSets, nullptr, relaxation_.retention_subsets, &symmetry_);
  if (!listed && relaxation_.symmetry == Tier2Symmetry::kWhenTooMany && !budget_.Expired()) {
    symmetry_ = Symmetry::Find(problem_, kept);
    if (!symmetry_.trivial()) {
      listed = pricer_.EnumerateOpSets(kMaxCoverOpSets, nullptr, relaxation_.retention_subsets, &symmetry_);
    }
  }
  if (!listed) return Finish(budget_.Expired() ? Tier2Status::kTimeLimit : Tier2Status::kTooManyOpSets, nullptr);
  subproblem_bound_.assign(pricer_.op_sets().size(), -1);
  if (!ListColumns()) {
    return Finish(budget_.Expired() ? Tier2Status::kTimeLimit : Tier2Status::kTooManyContexts, nullptr);
  }
  // Millions of contexts take a second or more to link: the time limit is checked here too.
  if (!LinkBases()) return Finish(Tier2Status::kTimeLimit, nullptr);
  ListRebates();
  known_.assign(columns_.size(), -1);
  level_.assign(columns_.size(), kCheap);
  cut_.assign(columns_.size(), kInf);
  lhs_.assign(columns_.size(), 0);
  in_lp_.assign(columns_.size(), 0);
  CoverLp lp(problem_.num_ops(), problem_.num_tensors(), symmetry_.op_orbit(), symmetry_.tensor_orbit());
  AddSingletons(&lp);
  std::vector<double> y, z;
  while (!budget_.Expired()) {
    ++rounds_;
    if (!lp.Solve()) return Finish(Tier2Status::kSolverFailed, &lp);
    lp.Duals(&y, &z);
    double y_sum = 0;
    for (double v : y) y_sum += v;
    const auto suspects = Scan(y, z);
    if (!suspects) break;  // out of time: the certificate of the last whole round stands
    const std::vector<size_t> violated = RaiseSuspects(*suspects);
    // Lemma T2: the duals scaled by alpha satisfy every column, alpha <= 1 the least ratio of
    // a column's bound to its left-hand side.
    double alpha = 1;
    for (size_t ci = 0; ci < columns_.size(); ++ci) {
      if (lhs_[ci] > 0 && lhs_[ci] > Price(ci)) alpha = std::min(alpha, Price(ci) / lhs_[ci]);
    }
    // The rest of the rounding (y_sum, the ratios, the product): a relative 1e-9 less
    // (docs/bounds.md, Lemma T2).
    proven_ = std::max(proven_, alpha * y_sum * (1 - 1e-9));
    if (violated.empty() && alpha >= 1 - 1e-9) {
      return Finish(budget_.Expired() ? Tier2Status::kTimeLimit : Tier2Status::kConverged, &lp);
    }
    if (violated.empty()) break;  // out of time
    // A column the LP already has is violated only by the solver's rounding (its cost there is
    // at most its price now): adding it again would change nothing, so the certificate so far
    // stands (scaled by alpha above).
    bool added = false;
    for (size_t ci : violated) {
      if (in_lp_[ci]) continue;
      in_lp_[ci] = 1;
      added = true;
      const Column& col = columns_[ci];
      lp.AddColumn(pricer_.op_set(col.op_set).ops, col.retained, col.resident & ~relaxation_.free_resident,
                   Price(ci));
    }
    if (!added) return Finish(Tier2Status::kSolverFailed, &lp);
  }
  return Finish(Tier2Status::kTimeLimit, &lp);
}

bool CoveringLp::ListColumns() {
  // A resident set is made of tensors the op set reads that an op produces (graph inputs are
  // never retained: rule 3.6), with resident and retained fitting together (Lemma X6); with a
  // relaxation, also of tensors produced outside the component (Lemma W2).
  Mask produced_by_ops = relaxation_.free_resident;
  for (int o = 0; o < problem_.num_ops(); ++o) produced_by_ops |= Mask{1} << problem_.op(o).output;
  const int64_t capacity = problem_.hardware().fast_memory_capacity;
  bool stopped = false;
  const std::vector<OpSet>& op_sets = pricer_.op_sets();
  for (int i = 0; i < static_cast<int>(op_sets.size()) && !stopped; ++i) {
    const OpSet& c = op_sets[static_cast<size_t>(i)];
    const std::vector<int> readable = Ids(c.external & produced_by_ops);
    for (const Mask r : c.retention) {
      // Lemma T5: every resident set that fits alone (each real subset held with it is smaller).
      const bool relaxed = c.retention_relaxed && r != 0;
      int64_t held = 0;
      for (int t : Ids(r)) held += relaxed ? 0 : problem_.tensor(t).size();
      stopped = !ForEachFittingSubset(problem_, readable, held, capacity, [&](Mask resident) {
        columns_.push_back({i, relaxed, r, resident});
        return static_cast<int64_t>(columns_.size()) <= relaxation_.max_contexts &&
               ((columns_.size() & 4095) != 0 || !budget_.Expired());
      });
      if (stopped) break;
    }
  }
  return !stopped;
}

bool CoveringLp::LinkBases() {
  base_.resize(columns_.size());
  // ListColumns lists each op set's columns together: its base columns, sorted by resident
  // set, are looked up there (one small vector, reused: nothing to free per column).
  std::vector<std::pair<Mask, uint32_t>> bases;
  for (size_t begin = 0; begin < columns_.size();) {
    if (budget_.Expired()) return false;  // millions of contexts take a second or more
    const int op_set = columns_[begin].op_set;
    size_t end = begin;
    while (end < columns_.size() && columns_[end].op_set == op_set) ++end;
    bases.clear();
    for (size_t ci = begin; ci < end; ++ci) {
      if (columns_[ci].retained == 0) bases.emplace_back(columns_[ci].resident, static_cast<uint32_t>(ci));
    }
    std::sort(bases.begin(), bases.end());
    for (size_t ci = begin; ci < end; ++ci) {
      const Mask resident = columns_[ci].resident;
      if (columns_[ci].relaxed) {  // priced as its base context itself (Lemma T5)
        base_[ci] = static_cast<uint32_t>(ci);
        continue;
      }
      const auto it = std::lower_bound(bases.begin(), bases.end(), std::make_pair(resident, uint32_t{0}));
      base_[ci] = it != bases.end() && it->first == resident ? it->second : static_cast<uint32_t>(ci);  // none: itself
    }
    begin = end;
  }
  return true;
}

void CoveringLp::ListRebates() {
  bool any_relaxed = false;
  for (const Column& col : columns_) any_relaxed |= col.relaxed;
  if (relaxation_.rebate == 0 && !any_relaxed) return;
  const int64_t capacity = problem_.hardware().fast_memory_capacity;
  rebate_.resize(columns_.size());
  if (any_relaxed) relaxed_floor_.resize(columns_.size());
  for (size_t ci = 0; ci < columns_.size(); ++ci) {
    const Column& col = columns_[ci];
    const OpSet& c = pricer_.op_set(col.op_set);
    int64_t saved = 0;
    for (int t : Ids(c.sinks & relaxation_.rebate)) saved += problem_.tensor(t).size();
    if (col.relaxed) {
      // Lemma T5 (X9 for every subset at once): the retained sinks that are not graph outputs
      // are not written, and what is retained fits beside the resident set. The price stays at
      // least C1 and X3 with everything retained, which hold for every subset (X3 less W2's
      // rebate: it counts the stores of a component's crossing-out sinks).
      const double w2 = static_cast<double>(saved) / bandwidth_;
      int64_t sinks = 0, resident = 0;
      for (int t : Ids(col.retained & c.sinks & ~c.output_sinks)) sinks += problem_.tensor(t).size();
      for (int t : Ids(col.resident)) resident += problem_.tensor(t).size();
      saved += std::min(sinks, std::max<int64_t>(0, capacity - resident));
      const double x3 = pricer_.LoadStoreBound(c, col.retained, col.resident);
      relaxed_floor_[ci] = std::max(c.compute_once, std::max(0.0, x3 - w2 - 1e-12 * (x3 + w2)));
    }
    rebate_[ci] = static_cast<double>(saved) / bandwidth_;
  }
}

Mask CoveringLp::Held(const Column& col) const { return col.relaxed ? 0 : col.retained; }

double CoveringLp::Price(size_t ci) const { return PriceOf(ci, known_[ci]); }

double CoveringLp::PriceOf(size_t ci, double known) const {
  if (rebate_.empty() || rebate_[ci] == 0 || !std::isfinite(known)) return known;
  const double floor = columns_[ci].relaxed ? relaxed_floor_[ci] : 0.0;
  return std::max(floor, known - rebate_[ci] - 1e-12 * (known + rebate_[ci]));
}

double CoveringLp::Target(size_t ci) const {
  if (rebate_.empty() || rebate_[ci] == 0) return lhs_[ci];
  return (lhs_[ci] + rebate_[ci]) * (1 + 1e-10);
}

double CoveringLp::Cheap(const Column& col) const {
  const OpSet& c = pricer_.op_set(col.op_set);
  return std::max({c.compute_once, pricer_.LoadStoreBound(c, Held(col), col.resident),
                   pricer_.FitComputeBound(c, Held(col), col.resident)});
}

bool CoveringLp::Plain(const Column& col) const {
  const OpSet& c = pricer_.op_set(col.op_set);
  return (c.external & col.resident) == 0 && (Held(col) & c.sinks & ~c.output_sinks) == 0;
}

double CoveringLp::SubproblemBound(int index) {
  double& memo = subproblem_bound_[static_cast<size_t>(index)];
  if (memo < 0) memo = ComputeSubproblemBound(index);
  return memo;
}

double CoveringLp::ComputeSubproblemBound(int index) const {
  const OpSet& c = pricer_.op_set(index);
  std::vector<int> renumber(static_cast<size_t>(problem_.num_tensors()), -1);
  std::vector<Tensor> tensors;
  auto local = [&](int t) {
    int& id = renumber[static_cast<size_t>(t)];
    if (id < 0) {
      id = static_cast<int>(tensors.size());
      tensors.push_back(problem_.tensor(t));
    }
    return id;
  };
  std::vector<Op> ops;
  for (int o : c.plan->ops()) {
    Op op = problem_.op(o);
    for (int& t : op.inputs) t = local(t);
    op.output = local(op.output);
    ops.push_back(std::move(op));
  }
  auto sub = Problem::Create(std::move(tensors), std::move(ops), problem_.hardware());
  return sub.ok() ? ComputeLowerBounds(*sub, modes_).best() : 0;
}

// X5 is a pure function of the op set: computed in parallel (oneTBB) for the plain contexts
// among the next kCoverChunk suspects, then read from the memo.
int64_t CoveringLp::PrefetchSubproblemBounds(const std::vector<std::pair<double, size_t>>& suspects, size_t from) {
  std::vector<int> todo;
  for (size_t i = from; i < std::min(suspects.size(), from + kCoverChunk); ++i) {
    const size_t ci = suspects[i].second;
    const Column& col = columns_[ci];
    if (level_[ci] == kCheap && subproblem_bound_[static_cast<size_t>(col.op_set)] < 0 && Plain(col)) {
      todo.push_back(col.op_set);
    }
  }
  std::sort(todo.begin(), todo.end());
  todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
  std::vector<double> values(todo.size());
  tbb::this_task_arena::isolate([&] {  // as in PriceInParallel
    tbb::parallel_for(size_t{0}, todo.size(), [&](size_t i) { values[i] = ComputeSubproblemBound(todo[i]); });
  });
  for (size_t i = 0; i < todo.size(); ++i) subproblem_bound_[static_cast<size_t>(todo[i])] = values[i];
  return static_cast<int64_t>(todo.size());
}

// Again, if an earlier costing stopped below the target.
void CoveringLp::CostContext(size_t ci, double target) {
  if (level_[ci] == kContextCosted && cut_[ci] >= target) return;
  const Column& col = columns_[ci];
  ContextValue value;
  if (const auto it = ahead_.find({ci, target}); it != ahead_.end()) {
    value = it->second;
    pricer_.Count(value);
    ahead_.erase(it);
    ++ahead_used_;
  } else {
    value = pricer_.Price(col.op_set, Held(col), col.resident, Pricing::kLowerOnly, target);
  }
  known_[ci] = std::max(known_[ci], value.lb);
  cut_[ci] = target;
  level_[ci] = kContextCosted;
  ++contexts_costed_;
}

CoveringLp::BaseStep CoveringLp::BaseOf(size_t ci, double target) const {
  // Lemma X9: retaining r saves at most the stores of its sinks that are not graph outputs.
  const Column& col = columns_[ci];
  const OpSet& c = pricer_.op_set(col.op_set);
  int64_t saved = 0;
  for (int t : Ids(col.retained & c.sinks & ~c.output_sinks)) saved += problem_.tensor(t).size();
  const double s = static_cast<double>(saved) / bandwidth_;
  // A base cut exactly at target + s would leave the column a rounding short of target.
  return {base_[ci], s, (target + s) * (1 + 1e-10)};
}

void CoveringLp::PriceInParallel(std::vector<std::pair<size_t, double>> requests) {
  std::sort(requests.begin(), requests.end());
  requests.erase(std::unique(requests.begin(), requests.end()), requests.end());
  std::erase_if(requests, [this](const auto& r) { return ahead_.count(r) != 0; });
  std::vector<ContextValue> values(requests.size());
  // Isolated: a thread waiting here takes no other task (under the split, another component's
  // whole LP), so this round does not wait for that LP to end.
  tbb::this_task_arena::isolate([&] {
    tbb::parallel_for(size_t{0}, requests.size(), [&](size_t i) {
      const Column& col = columns_[requests[i].first];
      values[i] = pricer_.Evaluate(col.op_set, Held(col), col.resident, Pricing::kLowerOnly, requests[i].second);
    });
  });
  for (size_t i = 0; i < requests.size(); ++i) ahead_.emplace(requests[i], values[i]);
  priced_ahead_ += static_cast<int64_t>(requests.size());
}

// What Raise would cost for each suspect, from what is known now: its base where its X5 does
// not reach its bracket, then itself where its base (priced ahead) would not either. A guess
// only: a context priced ahead but not used costs time, never a value (CostContext takes a
// value from ahead_ only for the same column and target, and Evaluate is a pure function of
// them).
void CoveringLp::PriceAhead(const std::vector<std::pair<double, size_t>>& suspects, size_t from, size_t count) {
  const size_t end = std::min(suspects.size(), from + count);
  std::vector<std::pair<size_t, double>> bases, own;
  std::vector<double> guess(end - from);
  for (size_t i = from; i < end; ++i) {
    const size_t ci = suspects[i].second;
    const Column& col = columns_[ci];
    double v = known_[ci] < 0 ? Cheap(col) : known_[ci];
    if (level_[ci] == kCheap && Plain(col) && subproblem_bound_[static_cast<size_t>(col.op_set)] >= 0) {
      v = std::max(v, subproblem_bound_[static_cast<size_t>(col.op_set)]);
    }
    guess[i - from] = v;
    if (level_[ci] >= kBaseApplied || base_[ci] == ci || lhs_[ci] <= PriceOf(ci, v)) continue;
    const BaseStep step = BaseOf(ci, Target(ci));
    if (level_[step.base] == kContextCosted && cut_[step.base] >= step.target) continue;
    bases.emplace_back(step.base, step.target);
  }
  PriceInParallel(std::move(bases));
  for (size_t i = from; i < end; ++i) {
    const size_t ci = suspects[i].second;
    const double target = Target(ci);
    if (level_[ci] == kContextCosted && cut_[ci] >= target) continue;
    double v = guess[i - from];
    if (level_[ci] < kBaseApplied && base_[ci] != ci) {
      const BaseStep step = BaseOf(ci, target);
      double base = known_[step.base];
      if (const auto it = ahead_.find({step.base, step.target}); it != ahead_.end()) {
        base = std::max(base, it->second.lb);
      }
      v = std::max(v, base - step.saved - 1e-12 * (base + step.saved));
    }
    if (lhs_[ci] > PriceOf(ci, v)) own.emplace_back(ci, target);
  }
  PriceInParallel(std::move(own));
}

void CoveringLp::Raise(size_t ci, double target) {
  const Column& col = columns_[ci];
  double& v = known_[ci];
  if (v < 0) v = Cheap(col);
  if (level_[ci] == kCheap) {
    level_[ci] = kSubproblemTried;
    if (Plain(col)) v = std::max(v, SubproblemBound(col.op_set));
    return;
  }
  if (level_[ci] == kSubproblemTried) {
    level_[ci] = kBaseApplied;
    const size_t bi = base_[ci];
    if (bi == ci) return;
    const OpSet& c = pricer_.op_set(col.op_set);
    const BaseStep step = BaseOf(ci, target);
    const double s = step.saved;
    if (known_[bi] < 0) known_[bi] = Cheap(columns_[bi]);
    if (level_[bi] == kCheap) {  // its X5 first, where it applies (nothing retained)
      level_[bi] = kSubproblemTried;
      if ((c.external & columns_[bi].resident) == 0) {
        known_[bi] = std::max(known_[bi], SubproblemBound(col.op_set));
      }
    }
    CostContext(bi, step.target);
    v = std::max(v, known_[bi] - s - 1e-12 * (known_[bi] + s));
    return;
  }
  CostContext(ci, target);
}

void CoveringLp::AddSingletons(CoverLp* lp) {
  std::vector<size_t> singletons;
  double finite = 0;
  if (threads_ > 1) {  // each is costed in full (its own base): priced ahead in parallel
    std::vector<std::pair<size_t, double>> requests;
    for (size_t ci = 0; ci < columns_.size(); ++ci) {
      const Column& col = columns_[ci];
      if (Popcount(pricer_.op_set(col.op_set).ops) == 1 && col.retained == 0 && col.resident == 0) {
        requests.emplace_back(ci, kInf);
      }
    }
    PriceInParallel(std::move(requests));
  }
  for (size_t ci = 0; ci < columns_.size(); ++ci) {
    const Column& col = columns_[ci];
    if (Popcount(pricer_.op_set(col.op_set).ops) != 1 || col.retained != 0 || col.resident != 0) continue;
    while (level_[ci] < kContextCosted) Raise(ci, kInf);
    singletons.push_back(ci);
    if (std::isfinite(known_[ci])) finite += Price(ci);
  }
  for (size_t ci : singletons) {
    in_lp_[ci] = 1;
    const double cost = std::isfinite(known_[ci]) ? Price(ci) : kCoverBigCostFactor * (1 + finite);
    lp->AddColumn(pricer_.op_set(columns_[ci].op_set).ops, 0, 0, cost);
  }
  ahead_.clear();
  priced_ahead_ = ahead_used_ = 0;  // the counts are the raises' (these are always used)
}

// Column ci's bracket under duals (y, z) into lhs_, and the column into `suspects` if its known
// bound is below it (reads and writes column ci's entries only).
void CoveringLp::ScanColumn(size_t ci, const std::vector<double>& y, const std::vector<double>& z,
                            std::vector<std::pair<double, size_t>>* suspects) {
  const Column& col = columns_[ci];
  // In long double: a sum of at most 192 terms (64 ops, 128 tensors) is then off by less than
  // 192 x 2^-64 of the sum of the terms' magnitudes; the bracket is raised by 1e-15 of it
  // (Lemma T2).
  long double v = 0, magnitude = 0;
  for (Mask m = pricer_.op_set(col.op_set).ops; m; m &= m - 1) v += y[static_cast<size_t>(CountrZero(m))];
  for (Mask m = col.retained; m; m &= m - 1) v += z[static_cast<size_t>(CountrZero(m))];
  magnitude = v;  // every term so far is >= 0
  for (Mask m = col.resident & ~relaxation_.free_resident; m; m &= m - 1) {
    v -= z[static_cast<size_t>(CountrZero(m))];
    magnitude += z[static_cast<size_t>(CountrZero(m))];
  }
  // Rounded up to a double (never below the long double value).
  const long double raised = v + 1e-15L * magnitude;
  double bracket = static_cast<double>(raised);
  if (static_cast<long double>(bracket) < raised) bracket = std::nextafter(bracket, kInf);
  lhs_[ci] = bracket;
  if (bracket <= 0) return;  // every bound is at least 0
  if (known_[ci] < 0) known_[ci] = Cheap(col);
  if (bracket > Price(ci)) suspects->emplace_back(Price(ci) - bracket, ci);
}

std::optional<std::vector<std::pair<double, size_t>>> CoveringLp::Scan(const std::vector<double>& y,
                                                                      const std::vector<double>& z) {
  // Blocks of columns in parallel (oneTBB), each into its own list, joined in block order. The
  // first scan prices millions of columns (Cheap): the time limit is checked per block too.
  constexpr size_t kBlock = 512;
  const size_t blocks = (columns_.size() + kBlock - 1) / kBlock;
  std::vector<std::vector<std::pair<double, size_t>>> found(blocks);
  std::atomic<bool> expired = false;
  tbb::this_task_arena::isolate([&] {  // as in PriceInParallel
    tbb::parallel_for(size_t{0}, blocks, [&](size_t b) {
      if (expired.load(std::memory_order_relaxed) || budget_.Expired()) {
        expired = true;
        return;
      }
      const size_t end = std::min(columns_.size(), (b + 1) * kBlock);
      for (size_t ci = b * kBlock; ci < end; ++ci) ScanColumn(ci, y, z, &found[b]);
    });
  });
  if (expired) return std::nullopt;
  std::vector<std::pair<double, size_t>> suspects;
  for (auto& f : found) suspects.insert(suspects.end(), f.begin(), f.end());
  // Smaller op sets first (cheaper to bound, and more often truly violated), then the most
  // violated by what is known.
  std::sort(suspects.begin(), suspects.end(), [&](const auto& a, const auto& b) {
    const int pa = Popcount(pricer_.op_set(columns_[a.second].op_set).ops);
    const int pb = Popcount(pricer_.op_set(columns_[b.second].op_set).ops);
    return std::tie(pa, a) < std::tie(pb, b);
  });
  return suspects;
}

// A round ends at kMaxViolatedPerRound violated columns, or at the first violated one after
// kCoverRoundWork bounds were computed (X5 or context): new duals then prune the rest (a count,
// not a clock, so that the bound does not depend on the machine's speed).
std::vector<size_t> CoveringLp::RaiseSuspects(const std::vector<std::pair<double, size_t>>& suspects) {
  std::vector<size_t> violated;
  int64_t work = 0;
  for (size_t next = 0; next < suspects.size(); ++next) {
    if (violated.size() >= kMaxViolatedPerRound || (!violated.empty() && work >= kCoverRoundWork) ||
        budget_.Expired()) {
      break;
    }
    if (next % kCoverChunk == 0) work += PrefetchSubproblemBounds(suspects, next);
    if (threads_ > 1 && next % (kAheadPerThread * threads_) == 0) {
      PriceAhead(suspects, next, kAheadPerThread * threads_);
    }
    const size_t ci = suspects[next].second;
    const int64_t costed_before = contexts_costed_;
    while (lhs_[ci] > Price(ci) && (level_[ci] < kContextCosted || cut_[ci] < Target(ci))) Raise(ci, Target(ci));
    work += contexts_costed_ - costed_before;
    if (lhs_[ci] > Price(ci) * (1 + 1e-9)) violated.push_back(ci);
  }
  ahead_.clear();  // the next round's targets differ
  return violated;
}

Tier2Result CoveringLp::Finish(Tier2Status status, const CoverLp* lp) {
  Tier2Result result;
  result.status = status;
  result.value = proven_;
  result.seconds = budget_.Elapsed();
  result.op_sets = static_cast<int64_t>(pricer_.op_sets().size());
  result.contexts = static_cast<int64_t>(columns_.size());
  result.contexts_costed = contexts_costed_;
  result.priced_ahead = priced_ahead_;
  result.ahead_used = ahead_used_;
  result.class_contexts = pricer_.class_contexts();
  result.lp_rounds = rounds_;
  result.lp_columns = lp != nullptr ? lp->num_columns() : 0;
  for (const OpSet& c : pricer_.op_sets()) result.relaxed_op_sets += c.retention_relaxed ? 1 : 0;
  result.symmetry_classes = static_cast<int64_t>(symmetry_.classes().size());
  result.symmetry_branches = symmetry_.branches();
  return result;
}

}  // namespace

Tier2Result Tier2Bound(const Problem& problem, const Tier2Options& options) {
  std::optional<tbb::global_control> threads;
  if (options.threads > 0) {
    threads.emplace(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(options.threads));
  }
  const Budget budget(options.time_limit, options.stop);
  Tier2Relaxation relaxation;
  relaxation.retention_subsets = options.retention_subsets;
  relaxation.max_contexts = options.max_contexts;
  relaxation.quick_contexts = options.quick_contexts;
  relaxation.symmetry = options.symmetry;
  return RunCoveringLp(problem, options.modes, budget, options.max_tile_configs, relaxation, options.keep_until_exit);
}

Tier2Result RunCoveringLp(const Problem& problem, const CostModes& modes, const Budget& budget,
                          int64_t max_tile_configs, const Tier2Relaxation& relaxation, bool keep_until_exit) {
  // Lemma T5's ladder: where the contexts are too many to list, again with fewer retention
  // subsets listed per op set (the others priced together), until they fit or time runs out.
  std::vector<int64_t> ladder{std::max<int64_t>(1, relaxation.retention_subsets)};
  for (const int64_t level : kRetentionLadder) {
    if (level < ladder.back()) ladder.push_back(level);
  }
  // Levels [first, last) at `limit` contexts; `listed` becomes the level that listed (or last).
  auto run = [&](int64_t limit, size_t first, size_t last, size_t* listed) {
    Tier2Result result;
    *listed = last;
    for (size_t i = first; i < last; ++i) {
      Tier2Relaxation at = relaxation;
      at.retention_subsets = ladder[i];
      at.max_contexts = limit;
      auto lp = std::make_unique<CoveringLp>(problem, modes, budget, max_tile_configs, at);
      result = lp->Run();
      const bool too_many = result.status == Tier2Status::kTooManyContexts;
      if (!too_many) *listed = i;
      const bool retry = too_many && i + 1 < last && !budget.Expired();
      if (keep_until_exit && !retry) {
        // Never destroyed (its references to the problem and budget are never used again), and
        // reachable from a global, so that leak checkers do not report it.
        static std::mutex mutex;
        static auto* kept = new std::vector<std::unique_ptr<CoveringLp>>();
        const std::lock_guard<std::mutex> lock(mutex);
        kept->push_back(std::move(lp));
      }
      if (!retry) break;
    }
    return result;
  };
  // A quick pass first, so that a short budget still ends with a certificate; then, where it
  // went down the ladder only for the quick limit, the levels above it at the full limit. Both
  // certify bounds (T2), so the larger stands.
  const int64_t quick = std::min(relaxation.quick_contexts, relaxation.max_contexts);
  size_t listed = 0;
  Tier2Result result = run(quick, 0, ladder.size(), &listed);
  if (quick < relaxation.max_contexts && listed > 0 && !budget.Expired()) {
    size_t finer = 0;
    Tier2Result full = run(relaxation.max_contexts, 0, listed, &finer);
    // Ties go to the full listing when it converged (its counts describe the finer LP).
    const bool better = full.value > result.value ||
                        (full.value == result.value && full.status == Tier2Status::kConverged);
    if (better || listed == ladder.size()) result = std::move(full);
  }
  return result;
}

void RunCover(SearchContext& ctx) {
  ctx.Phase("cover");
  const Tier2Result tier2 = RunCoveringLp(ctx.problem, ctx.options.modes, ctx.budget, ctx.options.exact_max_tile_configs);
  ctx.Note("tier 2: " + Tier2Summary(tier2));
  if (ctx.proven != nullptr && tier2.value > 0) {
    ctx.proven->set = true;
    ctx.proven->value = tier2.value;
  }
}

const char* Tier2StatusName(Tier2Status status) {
  switch (status) {
    case Tier2Status::kConverged:
      return "converged";
    case Tier2Status::kTimeLimit:
      return "stopped";
    case Tier2Status::kSolverFailed:
      return "stopped (the LP solver failed)";
    case Tier2Status::kTooManyOps:
    case Tier2Status::kTooManyOpSets:
    case Tier2Status::kTooManyContexts:
      return "too large";
  }
  return "?";
}

std::string Tier2Summary(const Tier2Result& result) {
  switch (result.status) {
    case Tier2Status::kTooManyOps:
      return "more than 64 ops or 128 tensors; nothing proven beyond the tier-1 bound";
    case Tier2Status::kTooManyOpSets:
      return "more than " + std::to_string(kMaxCoverOpSets) + " op sets; nothing proven";
    case Tier2Status::kTooManyContexts:
      return "more than " + std::to_string(Tier2Options{}.max_contexts) + " subgraph contexts; nothing proven";
    default:
      break;
  }
  if (result.lp_rounds == 0) {
    return "out of time before the LP (" + std::to_string(result.op_sets) + " op sets, " +
           std::to_string(result.contexts) + " subgraph contexts listed); nothing proven";
  }
  const std::string relaxed =
      result.relaxed_op_sets == 0 ? ""
                                  : " (" + std::to_string(result.relaxed_op_sets) + " with retention relaxed, Lemma T5)";
  const std::string orbits = result.symmetry_classes == 0
                                 ? ""
                                 : " up to " + std::to_string(result.symmetry_branches) + " interchangeable branches in " +
                                       std::to_string(result.symmetry_classes) +
                                       (result.symmetry_classes == 1 ? " class" : " classes") + " (Lemma T7)";
  return std::to_string(result.op_sets) + " op sets" + orbits + relaxed + ", " + std::to_string(result.contexts) +
         " subgraph contexts, " +
         std::to_string(result.contexts_costed) + " costed (" + std::to_string(result.class_contexts) +
         " by tile classes" +
         (result.priced_ahead == 0 ? std::string()
                                   : ", " + std::to_string(result.priced_ahead) + " priced ahead in parallel, " +
                                         std::to_string(result.ahead_used) + " of them used") +
         "), " + std::to_string(result.lp_rounds) + " LP rounds, " +
         std::to_string(result.lp_columns) + " columns; " + Tier2StatusName(result.status) + ", bound " +
         std::to_string(result.value);
}

}  // namespace tilesched::search
