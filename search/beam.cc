// Beam search over schedule prefixes (Halide's beam search, adapted to subgraph sequences).
//
// A state is a prefix of the schedule: the ops covered, the tensors in slow memory, and the last
// subgraph (whose retention is still open). A child appends one candidate subgraph that contains
// one of the first `anchors` ready uncovered ops and reads only available tensors, optionally
// letting the last subgraph retain what the new one reads (which re-costs the last subgraph).
// States are kept in layers by the number of ops covered; each layer keeps its `width` best by
// latency so far plus an estimate of the rest (the remaining compute lower bound scaled by the
// incumbent's ratio to the lower bound). Children are built in parallel into slots indexed by
// (state, child) and deduplicated by (covered, slow memory, last subgraph, its resident set),
// ties broken by the stable slot order, so the result does not depend on the thread count.
//
// The same search re-optimizes a window of an existing schedule (large-neighbourhood search):
// it starts from the fixed prefix before the window, covers only the window's ops, and the
// result is accepted when the untouched suffix still reads only available tensors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>

#include <tbb/parallel_for.h>

#include "context.h"
#include "hashing.h"
#include "retention.h"
#include "tilesched/bitset.h"
#include "tilesched/graph.h"

namespace tilesched::search {

namespace {

// One appended subgraph; `parent_*` overrides the parent's last stage (its retention).
struct Node {
  std::shared_ptr<const Node> parent;
  const SubgraphPlan* plan = nullptr;
  std::vector<int> resident_in;  // retained by the previous stage
  TileChoice choice;             // with nothing retained
  std::vector<int> parent_retained;
  TileChoice parent_choice;
};

struct State {
  std::shared_ptr<const Node> node;  // null for the empty prefix
  Bitset covered;
  Bitset slow_before_last;  // slow memory before the last stage wrote
  double g = 0;           // latency of the prefix
  double rest = 0;        // compute once of the target ops not covered
  double f = 0;           // g + estimate of the rest (rest scaled)
  int covered_count = 0;
  uint64_t key = 0;
};

// The schedule of `leaf`'s prefix: the fixed stages before the beam's root, then one stage per
// node from the root down.
Draft Reconstruct(std::span<const Stage> fixed, const std::shared_ptr<const Node>& leaf) {
  std::vector<Stage> reversed;
  const Node* child = nullptr;
  for (const Node* n = leaf.get(); n != nullptr; n = n->parent.get()) {
    Stage stage;
    stage.plan = n->plan;
    if (child) {
      stage.retained = child->parent_retained;
      stage.choice = child->parent_choice;
    } else {
      stage.choice = n->choice;
    }
    reversed.push_back(std::move(stage));
    child = n;
  }
  Draft draft;
  draft.stages.reserve(fixed.size() + reversed.size());
  draft.stages.assign(fixed.begin(), fixed.end());
  draft.stages.insert(draft.stages.end(), reversed.rbegin(), reversed.rend());
  for (const Stage& s : draft.stages) draft.total += s.choice.latency;
  return draft;
}

class Beam {
 public:
  // `stop_at`: seconds into the run after which the beam gives up.
  Beam(SearchContext& ctx, int width,
       double stop_at = std::numeric_limits<double>::infinity())
      : ctx_(ctx), width_(width), problem_(ctx.problem), stop_at_(stop_at),
        anchors_(ctx.options.anchors), by_op_(&ctx.pool.by_op) {
    cands_.reserve(ctx.pool.candidates.size());
    for (const Candidate& c : ctx.pool.candidates) cands_.push_back(&c);
    const int n = problem_.num_ops();
    remaining_.resize(n);
    for (int o = 0; o < n; ++o) {
      remaining_[o] = OpComputeOnce(problem_, o, ctx.options.modes.matmul_reduction);
    }
    total_compute_ = 0;
    for (double c : remaining_) total_compute_ += c;
    // LowerBounds::simple() (compute once, or graph I/O), from the compute summed above and
    // the I/O summed as ComputeLowerBounds() sums it, without the traffic bound the beam does
    // not use: that is a pass over the whole graph per beam, i.e. per LNS window, and took most
    // of a window's time on a 3,840-op stack (docs/scaling.md).
    int64_t io = 0;
    for (int t : problem_.graph().graph_inputs()) io += problem_.tensor(t).size();
    for (int t : problem_.graph().graph_outputs()) io += problem_.tensor(t).size();
    const double io_bound = static_cast<double>(io) / problem_.hardware().slow_memory_bandwidth;
    const double lb = std::max(1e-9, total_compute_ > io_bound ? total_compute_ : io_bound);
    const double best = ctx.incumbent.BestTotal();
    ratio_ = std::isfinite(best) ? std::max(1.0, best / lb) : 1.0;
  }

  // Covers `target` (sorted op ids) after the fixed `prefix`; returns the prefix plus the best
  // window found (the last window stage retaining nothing), or nullopt. With a window (a target
  // that is not every op) the candidates are the pool's subgraphs made of target ops only and
  // `extra` (the window's own subgraphs, which may be larger than any in the pool), so that the
  // work per window does not grow with the graph, and every ready op of the window may start
  // the next subgraph.
  std::optional<Draft> Solve(std::span<const Stage> prefix, const std::vector<int>& target,
                             std::span<const SubgraphPlan* const> extra = {}) {
    const int n = problem_.num_ops();
    in_target_ = Bitset(n);
    for (int o : target) in_target_.Set(o);
    target_by_rank_ = target;
    std::sort(target_by_rank_.begin(), target_by_rank_.end(), [&](int a, int b) {
      return problem_.graph().topo_rank(a) < problem_.graph().topo_rank(b);
    });
    if (static_cast<int>(target.size()) < n) {
      LimitCandidatesToTarget(target, extra);
      anchors_ = static_cast<int>(target.size());
    }
    const int goal = static_cast<int>(target.size());
    std::vector<std::vector<State>> layers(static_cast<size_t>(goal) + 1);
    auto root = Root(prefix);
    if (!root) return std::nullopt;
    for (int o : target) root->rest += remaining_[static_cast<size_t>(o)];
    layers[0].push_back(*root);
    std::optional<State> best_done;
    for (int layer = 0; layer < goal; ++layer) {
      if (OutOfTime()) return std::nullopt;
      std::vector<State>& states = layers[static_cast<size_t>(layer)];
      if (states.empty()) continue;
      SelectBest(&states);
      std::vector<std::vector<State>> children(states.size());
      tbb::parallel_for(size_t{0}, states.size(), [&](size_t i) {
        if (!OutOfTime()) Expand(states[i], &children[i]);
      });
      if (OutOfTime()) return std::nullopt;
      for (auto& list : children) {
        for (State& child : list) {
          if (child.covered_count == goal) {
            if (!best_done || child.g < best_done->g) best_done = child;
          } else {
            layers[static_cast<size_t>(child.covered_count)].push_back(std::move(child));
          }
        }
      }
      states.clear();
      states.shrink_to_fit();
    }
    if (!best_done) return std::nullopt;
    return Reconstruct(prefix.empty() ? prefix : prefix.first(prefix.size() - 1), best_done->node);
  }

 private:
  bool OutOfTime() const { return ctx_.budget.Expired() || ctx_.budget.Elapsed() >= stop_at_; }

  // The state after the fixed prefix: one node, the prefix's last stage with its retention
  // left open (the stages before it are fixed and never revisited).
  std::optional<State> Root(std::span<const Stage> prefix) const {
    State root;
    root.covered = Bitset(problem_.num_ops());
    root.slow_before_last = Bitset(problem_.num_tensors());
    for (int t = 0; t < problem_.num_tensors(); ++t) {
      if (problem_.is_graph_input(t)) root.slow_before_last.Set(t);
    }
    for (size_t i = 0; i < prefix.size(); ++i) {
      for (int o : prefix[i].plan->ops()) root.covered.Set(o);
      if (i + 1 == prefix.size()) break;
      // The writes of every stage before the last, now final.
      for (int t : prefix[i].plan->sinks()) {
        if (problem_.is_graph_output(t) ||
            !std::binary_search(prefix[i].retained.begin(), prefix[i].retained.end(), t)) {
          root.slow_before_last.Set(t);
        }
      }
    }
    if (!prefix.empty()) {
      static const std::vector<int> kNone;
      const Stage& stage = prefix.back();
      const std::vector<int>& resident = prefix.size() > 1 ? prefix[prefix.size() - 2].retained : kNone;
      auto node = std::make_shared<Node>();
      node->plan = stage.plan;
      node->resident_in = resident;
      auto open = ctx_.coster.Configure(*stage.plan, {}, resident);
      if (!open) return std::nullopt;
      node->choice = *open;
      root.g = open->latency;
      root.node = std::move(node);
    }
    return root;
  }

  // The candidates of a window: those of the pool made of `target` ops only, and the plans
  // `extra` not among them; listed by op.
  void LimitCandidatesToTarget(const std::vector<int>& target,
                               std::span<const SubgraphPlan* const> extra) {
    cands_.clear();
    local_by_op_.assign(static_cast<size_t>(problem_.num_ops()), {});
    auto inside = [&](const std::vector<int>& ops) {
      return std::all_of(ops.begin(), ops.end(), [&](int x) { return in_target_.Test(x); });
    };
    auto add = [&](const Candidate* c) {
      for (int o : c->ops) local_by_op_[static_cast<size_t>(o)].push_back(static_cast<int>(cands_.size()));
      cands_.push_back(c);
    };
    std::vector<const SubgraphPlan*> listed;
    for (int o : target) {
      for (int index : ctx_.pool.by_op[static_cast<size_t>(o)]) {
        const Candidate& c = ctx_.pool.candidates[static_cast<size_t>(index)];
        // Each candidate once: under its first op.
        if (c.ops.front() == o && inside(c.ops)) {
          add(&c);
          listed.push_back(c.plan);
        }
      }
    }
    std::sort(listed.begin(), listed.end());
    extra_.reserve(extra.size());
    for (const SubgraphPlan* plan : extra) {
      if (std::binary_search(listed.begin(), listed.end(), plan) || !inside(plan->ops())) continue;
      extra_.push_back({plan->ops(), plan, Classify(problem_, plan->ops())});
      listed.insert(std::upper_bound(listed.begin(), listed.end(), plan), plan);
    }
    for (const Candidate& c : extra_) add(&c);
    by_op_ = &local_by_op_;
  }

  // Keeps the `width_` best states, one per key (deterministic: stable order). Sorts indices, not
  // the states themselves (a state is a few hundred bytes), and moves only the kept ones.
  void SelectBest(std::vector<State>* states) const {
    const std::vector<State>& all = *states;
    std::vector<uint32_t> order(all.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      if (all[a].key != all[b].key) return all[a].key < all[b].key;
      return all[a].g < all[b].g;
    });
    std::vector<uint32_t> unique;
    for (uint32_t i : order) {
      if (unique.empty() || all[unique.back()].key != all[i].key) unique.push_back(i);
    }
    std::stable_sort(unique.begin(), unique.end(),
                     [&](uint32_t a, uint32_t b) { return all[a].f < all[b].f; });
    if (static_cast<int>(unique.size()) > width_) unique.resize(static_cast<size_t>(width_));
    std::vector<State> kept;
    kept.reserve(unique.size());
    for (uint32_t i : unique) kept.push_back(std::move((*states)[i]));
    *states = std::move(kept);
  }

  // Uncovered ops whose producers are all covered, by topological rank; when the last stage
  // left a tensor unwritten for the next one (Owed), the first op owed it, which every child
  // must hold.
  std::vector<int> Anchors(const State& s) const {
    if (const Node* last = s.node.get()) {
      const Debt debt = Owed(*last->plan, s.covered);
      if (!debt.empty()) return {debt.ops.front()};
    }
    std::vector<int> anchors;
    for (int o : target_by_rank_) {
      if (s.covered.Test(o)) continue;
      bool ready = true;
      for (int p : problem_.graph().predecessors(o)) ready &= s.covered.Test(p);
      if (!ready) continue;
      anchors.push_back(o);
      if (static_cast<int>(anchors.size()) >= anchors_) break;
    }
    return anchors;
  }

  void Expand(const State& s, std::vector<State>* out) const {

    const Node* last = s.node.get();
    // Slow memory once the last stage has written its sinks (retaining nothing).
    Bitset slow_now = s.slow_before_last;
    if (last) {
      for (int t : last->plan->sinks()) slow_now.Set(t);
    }
    // Candidates already tried from this state (several anchors share candidates): per-thread
    // stamps, so that the check is O(1) and nothing of the pool's size is cleared per state.
    thread_local std::vector<uint32_t> seen;
    thread_local uint32_t generation = 0;
    if (seen.size() < cands_.size()) seen.assign(cands_.size(), 0);
    if (++generation == 0) {
      std::fill(seen.begin(), seen.end(), 0);
      generation = 1;
    }
    for (int anchor : Anchors(s)) {
      for (int index : (*by_op_)[static_cast<size_t>(anchor)]) {
        // One state's children can take longer than the time limit's margin (cold caches).
        if (OutOfTime()) return;
        if (seen[static_cast<size_t>(index)] == generation) continue;
        seen[static_cast<size_t>(index)] = generation;
        const Candidate& cand = *cands_[static_cast<size_t>(index)];
        TryCandidate(s, cand, slow_now, out);
      }
    }
  }

  // True when a tensor of the last stage that an uncovered op still needs would be lost: it
  // does not reach slow memory (consumed inside the last stage, or retained instead of
  // written) and the candidate does not cover all its remaining readers. A stage may thus leave
  // tensors pending that only the next stage, through retention, can consume. The beam keeps
  // to prefixes that can complete without recomputation; annealing explores recomputation.
  bool LeavesDeadEnd(const State& s, const SubgraphPlan& plan, const std::vector<int>& keep) const {
    const Node* last = s.node.get();
    if (!last) return false;
    for (int t : last->plan->produced()) {
      const bool sink = std::binary_search(last->plan->sinks().begin(), last->plan->sinks().end(), t);
      const bool kept = std::binary_search(keep.begin(), keep.end(), t);
      if (sink && (!kept || problem_.is_graph_output(t))) continue;  // written
      for (int c : problem_.graph().consumers(t)) {
        if (!plan.Contains(c) && !s.covered.Test(c)) return true;
      }
    }
    return false;
  }

  // What a stage leaves unwritten for the next one: the tensors it consumes inside (so never
  // writes) that uncovered ops outside it still read, and those ops (both sorted).
  // LeavesDeadEnd makes the next stage retain-read them all. `covered` may include plan's ops.
  struct Debt {
    std::vector<int> tensors, ops;
    bool empty() const { return ops.empty(); }
  };
  Debt Owed(const SubgraphPlan& plan, const Bitset& covered) const {
    Debt debt;
    for (int t : plan.produced()) {
      if (std::binary_search(plan.sinks().begin(), plan.sinks().end(), t)) continue;
      bool read_outside = false;
      for (int c : problem_.graph().consumers(t)) {
        if (!plan.Contains(c) && !covered.Test(c)) {
          debt.ops.push_back(c);
          read_outside = true;
        }
      }
      if (read_outside) debt.tensors.push_back(t);
    }
    std::sort(debt.ops.begin(), debt.ops.end());
    debt.ops.erase(std::unique(debt.ops.begin(), debt.ops.end()), debt.ops.end());
    return debt;
  }

  // True when `plan` (with `resident` in fast memory) can retain the debt's tensors and some
  // candidate could come next and settle it: it holds every op owed, its ops are inside the
  // window or already covered (`covered`, with plan's ops), their producers covered or inside
  // it, and it fits with the debt resident. Without this check a beam fills with prefixes that
  // skipped a write and cannot go on: on transformer layers (a residual read by the norm
  // beside it and by the block's last add) every beam of width 4 and 16 died that way.
  bool CanSettle(const SubgraphPlan& plan, const Debt& debt, const Bitset& covered,
                 const std::vector<int>& resident) const {
    if (!ctx_.coster.Configure(plan, debt.tensors, resident)) return false;
    for (int index : (*by_op_)[static_cast<size_t>(debt.ops.front())]) {
      const Candidate& next = *cands_[static_cast<size_t>(index)];
      const std::vector<int>& ops = next.ops;
      if (!std::includes(ops.begin(), ops.end(), debt.ops.begin(), debt.ops.end())) continue;
      const auto ready = [&](int o) {
        if (!in_target_.Test(o) && !covered.Test(o)) return false;
        for (int p : problem_.graph().predecessors(o)) {
          if (!covered.Test(p) && !std::binary_search(ops.begin(), ops.end(), p)) return false;
        }
        return true;
      };
      if (std::all_of(ops.begin(), ops.end(), ready) &&
          ctx_.coster.Configure(*next.plan, {}, debt.tensors)) {
        return true;
      }
    }
    return false;
  }

  void TryCandidate(const State& s, const Candidate& cand, const Bitset& slow_now,
                    std::vector<State>* out) const {
    const Node* last = s.node.get();
    const SubgraphPlan& plan = *cand.plan;
    // Every op not yet covered must be in the target (a window's ops), and one must be new.
    int added = 0;
    for (int o : plan.ops()) {
      if (s.covered.Test(o)) continue;
      if (!in_target_.Test(o)) return;
      ++added;
    }
    if (added == 0) return;
    // Inputs not in slow memory must come from the last stage's retention. Scratch lists per
    // thread: this runs for every candidate of every state.
    thread_local std::vector<int> missing, keepable;
    missing.clear();
    keepable.clear();
    for (int t : plan.external_inputs()) {
      if (!slow_now.Test(t)) missing.push_back(t);
    }
    if (last) {
      // Produced by the last stage and read here.
      std::set_intersection(last->plan->produced().begin(), last->plan->produced().end(),
                            plan.external_inputs().begin(), plan.external_inputs().end(),
                            std::back_inserter(keepable));
    }
    for (int t : missing) {
      if (!std::binary_search(keepable.begin(), keepable.end(), t)) return;
    }
    const Debt debt = Owed(plan, s.covered);
    Bitset covered_after;
    if (!debt.empty()) {
      covered_after = s.covered;
      for (int o : plan.ops()) covered_after.Set(o);
    }
    auto child_with = [&](const std::vector<int>& keep) {
      if (LeavesDeadEnd(s, plan, keep)) return;
      if (!debt.empty() && !CanSettle(plan, debt, covered_after, keep)) return;
      TileChoice parent_choice;
      if (last) {
        parent_choice = last->choice;
        if (!keep.empty()) {
          auto recosted = ctx_.coster.Configure(*last->plan, keep, last->resident_in);
          if (!recosted) return;
          parent_choice = *recosted;
        }
      }
      auto choice = ctx_.coster.Configure(plan, {}, keep);
      if (!choice) return;
      out->push_back(MakeChild(s, plan, keep, *choice, parent_choice, added));
      ctx_.CountMoves(1);
    };
    // Retention options: every subset of the keepable tensors that holds the missing ones
    // when there are few, otherwise all of them or one at a time.
    static const std::vector<int> kNone;
    if (keepable.empty()) {
      child_with(kNone);
      return;
    }
    auto holds_missing = [&](const std::vector<int>& keep) {
      return std::includes(keep.begin(), keep.end(), missing.begin(), missing.end());
    };
    std::vector<int> keep;
    if (keepable.size() <= 3) {
      for (uint32_t mask = 0; mask < (1u << keepable.size()); ++mask) {
        keep.clear();
        for (size_t i = 0; i < keepable.size(); ++i) {
          if (mask >> i & 1) keep.push_back(keepable[i]);
        }
        if (holds_missing(keep)) child_with(keep);
      }
    } else {
      if (missing.empty()) child_with(kNone);
      child_with(keepable);
      for (int t : keepable) {
        keep.assign(1, t);
        if (holds_missing(keep)) child_with(keep);
      }
    }
  }

  // The state after appending `plan` to `s`, its last stage retaining `keep`.
  State MakeChild(const State& s, const SubgraphPlan& plan, const std::vector<int>& keep,
                  const TileChoice& choice, const TileChoice& parent_choice, int added) const {
    const Node* last = s.node.get();
    State child;
    child.covered = s.covered;
    child.rest = s.rest;
    for (int o : plan.ops()) {
      if (child.covered.Test(o)) continue;
      child.covered.Set(o);
      child.rest -= remaining_[static_cast<size_t>(o)];
    }
    child.covered_count = s.covered_count + added;
    child.slow_before_last = s.slow_before_last;
    if (last) {
      for (int t : last->plan->sinks()) {
        if (problem_.is_graph_output(t) || !std::binary_search(keep.begin(), keep.end(), t)) {
          child.slow_before_last.Set(t);
        }
      }
    }
    child.g = s.g - (last ? last->choice.latency : 0) + (last ? parent_choice.latency : 0) +
              choice.latency;
    child.f = child.g + ratio_ * child.rest;
    auto node = std::make_shared<Node>();
    node->parent = s.node;
    node->plan = &plan;
    node->resident_in = keep;
    node->choice = choice;
    node->parent_retained = keep;
    node->parent_choice = parent_choice;
    child.node = std::move(node);
    child.key = MixHash(MixHash(HashBits(child.covered), HashBits(child.slow_before_last)),
                        HashIds(plan.ops(), HashIds(keep)));
    return child;
  }

  SearchContext& ctx_;
  int width_;
  const Problem& problem_;
  std::vector<double> remaining_;
  double total_compute_ = 0;
  double ratio_ = 1;
  double stop_at_;
  Bitset in_target_;
  std::vector<int> target_by_rank_;  // the target ops in topological order
  // Candidate indices by op: the pool's, or for a window those of target ops only.
  int anchors_;  // ready ops a state may start its next subgraph from
  // The candidates (the pool's, or a window's) and their indices by op.
  std::vector<const Candidate*> cands_;
  const std::vector<std::vector<int>>* by_op_;
  std::vector<std::vector<int>> local_by_op_;
  std::vector<Candidate> extra_;  // a window's own subgraphs that the pool lacks
};

}  // namespace

bool RunBeam(SearchContext& ctx, int width, double max_seconds) {
  ctx.Phase("beam " + std::to_string(width));
  std::vector<int> all(static_cast<size_t>(ctx.problem.num_ops()));
  for (int o = 0; o < ctx.problem.num_ops(); ++o) all[static_cast<size_t>(o)] = o;
  auto draft = Beam(ctx, width, ctx.budget.Elapsed() + max_seconds).Solve({}, all);
  if (!draft) {
    ctx.Note("beam width " + std::to_string(width) + ": no complete schedule in time");
    return false;
  }
  ctx.Note("beam width " + std::to_string(width) + ": " + std::to_string(draft->total) + " in " +
           std::to_string(draft->stages.size()) + " subgraphs");
  if (OptimizeRetention(ctx.problem, ctx.coster, &*draft, 0, draft->stages.size())) {
    ctx.Note("beam width " + std::to_string(width) + " retention: " + std::to_string(draft->total));
  }
  ctx.incumbent.Offer(*draft, "beam");
  return true;
}

std::optional<Draft> ReoptimizeWindow(SearchContext& ctx, const Draft& draft, size_t first,
                                      size_t last, int width) {
  const std::span<const Stage> prefix(draft.stages.data(), first);
  std::vector<int> target;
  for (size_t s = first; s < last; ++s) {
    for (int o : draft.stages[s].plan->ops()) target.push_back(o);
  }
  std::sort(target.begin(), target.end());
  target.erase(std::unique(target.begin(), target.end()), target.end());
  // Ops also computed outside the window stay where they are.
  for (size_t s = 0; s < draft.stages.size(); ++s) {
    if (s >= first && s < last) continue;
    for (int o : draft.stages[s].plan->ops()) {
      target.erase(std::remove(target.begin(), target.end(), o), target.end());
    }
  }
  if (target.empty()) return std::nullopt;
  std::vector<const SubgraphPlan*> own;
  for (size_t s = first; s < last; ++s) own.push_back(draft.stages[s].plan);
  auto window = Beam(ctx, width).Solve(prefix, target, own);
  if (!window) return std::nullopt;
  Draft out = std::move(*window);
  for (size_t s = last; s < draft.stages.size(); ++s) out.stages.push_back(draft.stages[s]);
  if (!RecostChanged(ctx.problem, ctx.coster, draft, &out)) return std::nullopt;
  // The beam chooses each boundary's retention as it appends a stage; choose the window's again
  // as a chain, from the stage before it to the one after it.
  OptimizeChangedRetention(ctx.problem, ctx.coster, draft, &out);
  return out;
}

}  // namespace tilesched::search
