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
#include <limits>
#include <map>
#include <memory>

#include <tbb/parallel_for.h>

#include "context.h"
#include "hashing.h"
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
  double f = 0;           // g + estimate of the rest
  int covered_count = 0;
  uint64_t key = 0;
};

Draft Reconstruct(const std::shared_ptr<const Node>& leaf) {
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
  draft.stages.assign(reversed.rbegin(), reversed.rend());
  for (const Stage& s : draft.stages) draft.total += s.choice.latency;
  return draft;
}

class Beam {
 public:
  // `stop_at`: seconds into the run after which the beam gives up.
  Beam(SearchContext& ctx, int width,
       double stop_at = std::numeric_limits<double>::infinity())
      : ctx_(ctx), width_(width), problem_(ctx.problem), stop_at_(stop_at) {
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
  // window found (the last window stage retaining nothing), or nullopt.
  std::optional<Draft> Solve(const std::vector<Stage>& prefix, const std::vector<int>& target) {
    const int n = problem_.num_ops();
    in_target_ = Bitset(n);
    for (int o : target) in_target_.Set(o);
    const int goal = static_cast<int>(target.size());
    std::vector<std::vector<State>> layers(static_cast<size_t>(goal) + 1);
    auto root = Root(prefix);
    if (!root) return std::nullopt;
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
    return Reconstruct(best_done->node);
  }

 private:
  bool OutOfTime() const { return ctx_.budget.Expired() || ctx_.budget.Elapsed() >= stop_at_; }

  // The state after the fixed prefix (its last stage's retention left open).
  std::optional<State> Root(const std::vector<Stage>& prefix) const {
    State root;
    root.covered = Bitset(problem_.num_ops());
    root.slow_before_last = Bitset(problem_.num_tensors());
    for (int t = 0; t < problem_.num_tensors(); ++t) {
      if (problem_.is_graph_input(t)) root.slow_before_last.Set(t);
    }
    std::shared_ptr<const Node> node;
    static const std::vector<int> kNone;
    for (size_t i = 0; i < prefix.size(); ++i) {
      const Stage& stage = prefix[i];
      const std::vector<int>& resident = i ? prefix[i - 1].retained : kNone;
      auto n = std::make_shared<Node>();
      n->parent = node;
      n->plan = stage.plan;
      n->resident_in = resident;
      if (i + 1 == prefix.size()) {
        auto open = ctx_.coster.Configure(*stage.plan, {}, resident);
        if (!open) return std::nullopt;
        n->choice = *open;
      } else {
        n->choice = stage.choice;
      }
      if (i > 0) {
        n->parent_retained = prefix[i - 1].retained;
        n->parent_choice = prefix[i - 1].choice;
        // The previous stage's writes, now final.
        for (int t : prefix[i - 1].plan->sinks()) {
          if (problem_.is_graph_output(t) ||
              !std::binary_search(prefix[i - 1].retained.begin(), prefix[i - 1].retained.end(), t)) {
            root.slow_before_last.Set(t);
          }
        }
      }
      for (int o : stage.plan->ops()) root.covered.Set(o);
      root.g += i + 1 == prefix.size() ? n->choice.latency : stage.choice.latency;
      node = std::move(n);
    }
    root.node = std::move(node);
    return root;
  }

  // Keeps the `width_` best states, one per key (deterministic: stable order).
  void SelectBest(std::vector<State>* states) const {
    std::stable_sort(states->begin(), states->end(), [](const State& a, const State& b) {
      if (a.key != b.key) return a.key < b.key;
      return a.g < b.g;
    });
    std::vector<State> unique;
    for (State& s : *states) {
      if (unique.empty() || unique.back().key != s.key) unique.push_back(std::move(s));
    }
    std::stable_sort(unique.begin(), unique.end(),
                     [](const State& a, const State& b) { return a.f < b.f; });
    if (static_cast<int>(unique.size()) > width_) unique.resize(static_cast<size_t>(width_));
    *states = std::move(unique);
  }

  // Uncovered ops whose producers are all covered, by topological rank.
  std::vector<int> Anchors(const State& s) const {
    std::vector<int> anchors;
    for (int o : problem_.graph().topo_order()) {
      if (s.covered.Test(o) || !in_target_.Test(o)) continue;
      bool ready = true;
      for (int p : problem_.graph().predecessors(o)) ready &= s.covered.Test(p);
      if (!ready) continue;
      anchors.push_back(o);
      if (static_cast<int>(anchors.size()) >= ctx_.options.anchors) break;
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
    if (seen.size() < ctx_.pool.candidates.size()) seen.assign(ctx_.pool.candidates.size(), 0);
    if (++generation == 0) {
      std::fill(seen.begin(), seen.end(), 0);
      generation = 1;
    }
    for (int anchor : Anchors(s)) {
      for (int index : ctx_.pool.by_op[static_cast<size_t>(anchor)]) {
        // One state's children can take longer than the time limit's margin (cold caches).
        if (OutOfTime()) return;
        if (seen[static_cast<size_t>(index)] == generation) continue;
        seen[static_cast<size_t>(index)] = generation;
        const Candidate& cand = ctx_.pool.candidates[static_cast<size_t>(index)];
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

  void TryCandidate(const State& s, const Candidate& cand, const Bitset& slow_now,
                    std::vector<State>* out) const {
    const Node* last = s.node.get();
    const SubgraphPlan& plan = *cand.plan;
    // Inputs not in slow memory must come from the last stage's retention.
    std::vector<int> missing;
    for (int t : plan.external_inputs()) {
      if (!slow_now.Test(t)) missing.push_back(t);
    }
    std::vector<int> keepable;  // produced by the last stage and read here
    if (last) {
      std::set_intersection(last->plan->produced().begin(), last->plan->produced().end(),
                            plan.external_inputs().begin(), plan.external_inputs().end(),
                            std::back_inserter(keepable));
    }
    for (int t : missing) {
      if (!std::binary_search(keepable.begin(), keepable.end(), t)) return;
    }

    // Retention options: every subset of the keepable tensors that holds the missing ones
    // when there are few, otherwise all of them or one at a time.
    std::vector<std::vector<int>> retentions;
    auto holds_missing = [&](const std::vector<int>& keep) {
      return std::includes(keep.begin(), keep.end(), missing.begin(), missing.end());
    };
    if (keepable.size() <= 3) {
      for (uint32_t mask = 0; mask < (1u << keepable.size()); ++mask) {
        std::vector<int> keep;
        for (size_t i = 0; i < keepable.size(); ++i) {
          if (mask >> i & 1) keep.push_back(keepable[i]);
        }
        if (holds_missing(keep)) retentions.push_back(std::move(keep));
      }
    } else {
      if (missing.empty()) retentions.push_back({});
      retentions.push_back(keepable);
      for (int t : keepable) {
        if (holds_missing({t})) retentions.push_back({t});
      }
    }
    for (const std::vector<int>& keep : retentions) {
      if (LeavesDeadEnd(s, plan, keep)) continue;
      TileChoice parent_choice;
      if (last) {
        parent_choice = last->choice;
        if (!keep.empty()) {
          auto recosted = ctx_.coster.Configure(*last->plan, keep, last->resident_in);
          if (!recosted) continue;
          parent_choice = *recosted;
        }
      }
      auto choice = ctx_.coster.Configure(plan, {}, keep);
      if (!choice) continue;
      State child;
      child.covered = s.covered;
      int added = 0;
      for (int o : plan.ops()) {
        if (!child.covered.Test(o)) {
          if (!in_target_.Test(o)) return;  // outside the window
          child.covered.Set(o);
          ++added;
        }
      }
      if (added == 0) return;
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
                choice->latency;
      double rest = 0;
      for (int o = 0; o < problem_.num_ops(); ++o) {
        if (!child.covered.Test(o)) rest += remaining_[static_cast<size_t>(o)];
      }
      child.f = child.g + ratio_ * rest;
      auto node = std::make_shared<Node>();
      node->parent = s.node;
      node->plan = &plan;
      node->resident_in = keep;
      node->choice = *choice;
      node->parent_retained = keep;
      node->parent_choice = parent_choice;
      child.node = std::move(node);
      child.key = MixHash(MixHash(HashBits(child.covered), HashBits(child.slow_before_last)),
                          HashIds(plan.ops(), HashIds(keep)));
      out->push_back(std::move(child));
    }
  }

  SearchContext& ctx_;
  int width_;
  const Problem& problem_;
  std::vector<double> remaining_;
  double total_compute_ = 0;
  double ratio_ = 1;
  double stop_at_;
  Bitset in_target_;
};

}  // namespace

bool RunBeam(SearchContext& ctx, int width, double max_seconds) {
  std::vector<int> all(static_cast<size_t>(ctx.problem.num_ops()));
  for (int o = 0; o < ctx.problem.num_ops(); ++o) all[static_cast<size_t>(o)] = o;
  auto draft = Beam(ctx, width, ctx.budget.Elapsed() + max_seconds).Solve({}, all);
  if (!draft) {
    ctx.Note("beam width " + std::to_string(width) + ": no complete schedule in time");
    return false;
  }
  ctx.Note("beam width " + std::to_string(width) + ": " + std::to_string(draft->total) + " in " +
           std::to_string(draft->stages.size()) + " subgraphs");
  ctx.incumbent.Offer(*draft, "beam");
  return true;
}

std::optional<Draft> ReoptimizeWindow(SearchContext& ctx, const Draft& draft, size_t first,
                                      size_t last, int width) {
  const std::vector<Stage> prefix(draft.stages.begin(), draft.stages.begin() + static_cast<long>(first));
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
  auto window = Beam(ctx, width).Solve(prefix, target);
  if (!window) return std::nullopt;
  Draft out = std::move(*window);
  for (size_t s = last; s < draft.stages.size(); ++s) out.stages.push_back(draft.stages[s]);
  if (!RecostChanged(ctx.problem, ctx.coster, draft, &out)) return std::nullopt;
  return out;
}

}  // namespace tilesched::search
