// The annealing moves.
#include "moves.h"

#include <algorithm>

#include "candidates.h"
#include "op_sets.h"
#include "tilesched/graph.h"

namespace tilesched::search {

namespace {

size_t Pick(Rng& rng, size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

// Retained lists must stay within what each stage produces.
void PruneRetention(Draft* d) {
  for (Stage& s : d->stages) {
    std::erase_if(s.retained, [&](int t) {
      return !std::binary_search(s.plan->produced().begin(), s.plan->produced().end(), t);
    });
  }
}

// Merges stage s with stage s + 1.
class MergeMove : public Move {
 public:
  const char* name() const override { return "merge"; }
  bool ApplyInto(const Draft& d, const Problem&, PlanCache& plans, Rng& rng, Draft* out) const override {
    if (d.stages.size() < 2) return false;
    const size_t s = Pick(rng, d.stages.size() - 1);
    const SubgraphPlan* plan = plans.Get(Union(d.stages[s].plan->ops(), d.stages[s + 1].plan->ops()));
    if (!plan) return false;
    *out = d;
    out->stages[s].plan = plan;
    out->stages[s].retained = d.stages[s + 1].retained;
    out->stages.erase(out->stages.begin() + static_cast<long>(s) + 1);
    PruneRetention(out);
    return true;
  }
};

// Takes one op out of a stage into a stage of its own, just before or after.
class SplitMove : public Move {
 public:
  const char* name() const override { return "split"; }
  bool ApplyInto(const Draft& d, const Problem&, PlanCache& plans, Rng& rng, Draft* out) const override {
    const size_t s = Pick(rng, d.stages.size());
    const std::vector<int>& ops = d.stages[s].plan->ops();
    if (ops.size() < 2) return false;
    const int op = ops[Pick(rng, ops.size())];
    const SubgraphPlan* rest = plans.Get(Without(ops, op));
    const SubgraphPlan* alone = plans.Get({op});
    if (!rest || !alone) return false;
    *out = d;
    out->stages[s].plan = rest;
    Stage single{alone, {}, {}};
    const bool before = rng() & 1;
    out->stages.insert(out->stages.begin() + static_cast<long>(s) + (before ? 0 : 1), single);
    PruneRetention(out);
    return true;
  }
};

// Moves one op from a stage to the next or previous stage.
class MoveOpMove : public Move {
 public:
  const char* name() const override { return "move-op"; }
  bool ApplyInto(const Draft& d, const Problem&, PlanCache& plans, Rng& rng, Draft* out) const override {
    if (d.stages.size() < 2) return false;
    const size_t s = Pick(rng, d.stages.size());
    const size_t t = (rng() & 1) ? (s == 0 ? 1 : s - 1) : (s + 1 == d.stages.size() ? s - 1 : s + 1);
    const std::vector<int>& ops = d.stages[s].plan->ops();
    if (ops.size() < 2) return false;
    const int op = ops[Pick(rng, ops.size())];
    const SubgraphPlan* from = plans.Get(Without(ops, op));
    const SubgraphPlan* to = plans.Get(Union(d.stages[t].plan->ops(), {op}));
    if (!from || !to) return false;
    *out = d;
    out->stages[s].plan = from;
    out->stages[t].plan = to;
    PruneRetention(out);
    return true;
  }
};

// Recomputes the producer of one of a stage's inputs inside that stage.
class RecomputeMove : public Move {
 public:
  const char* name() const override { return "recompute"; }
  bool ApplyInto(const Draft& d, const Problem& problem, PlanCache& plans, Rng& rng,
                 Draft* out) const override {
    const size_t s = Pick(rng, d.stages.size());
    const auto& inputs = d.stages[s].plan->external_inputs();
    if (inputs.empty()) return false;
    const int p = problem.producer(inputs[Pick(rng, inputs.size())]);
    if (p < 0) return false;
    const SubgraphPlan* plan = plans.Get(Union(d.stages[s].plan->ops(), {p}));
    if (!plan) return false;
    *out = d;
    out->stages[s].plan = plan;
    return true;
  }
};

// Removes an op from a stage when another stage also computes it.
class UncomputeMove : public Move {
 public:
  const char* name() const override { return "uncompute"; }
  bool ApplyInto(const Draft& d, const Problem& problem, PlanCache& plans, Rng& rng,
                 Draft* out) const override {
    thread_local std::vector<int> count;
    count.assign(static_cast<size_t>(problem.num_ops()), 0);
    for (const Stage& st : d.stages) {
      for (int o : st.plan->ops()) ++count[o];
    }
    std::vector<std::pair<size_t, int>> spots;
    for (size_t s = 0; s < d.stages.size(); ++s) {
      for (int o : d.stages[s].plan->ops()) {
        if (count[o] > 1) spots.push_back({s, o});
      }
    }
    if (spots.empty()) return false;
    const auto [s, op] = spots[Pick(rng, spots.size())];
    *out = d;
    if (d.stages[s].plan->ops().size() == 1) {
      out->stages.erase(out->stages.begin() + static_cast<long>(s));
    } else {
      const SubgraphPlan* plan = plans.Get(Without(d.stages[s].plan->ops(), op));
      if (!plan) return false;
      out->stages[s].plan = plan;
    }
    PruneRetention(out);
    return true;
  }
};

// Toggles retention of one tensor the next stage reads.
class RetainMove : public Move {
 public:
  const char* name() const override { return "retain"; }
  bool ApplyInto(const Draft& d, const Problem&, PlanCache&, Rng& rng, Draft* out) const override {
    if (d.stages.size() < 2) return false;
    const size_t s = Pick(rng, d.stages.size() - 1);
    std::vector<int> shared;
    const SubgraphPlan& a = *d.stages[s].plan;
    const SubgraphPlan& b = *d.stages[s + 1].plan;
    std::set_intersection(a.produced().begin(), a.produced().end(), b.external_inputs().begin(),
                          b.external_inputs().end(), std::back_inserter(shared));
    if (shared.empty()) return false;
    const int t = shared[Pick(rng, shared.size())];
    *out = d;
    auto& kept = out->stages[s].retained;
    auto it = std::lower_bound(kept.begin(), kept.end(), t);
    if (it != kept.end() && *it == t) {
      kept.erase(it);
    } else {
      kept.insert(it, t);
    }
    return true;
  }
};

// Swaps two neighbouring stages.
class SwapMove : public Move {
 public:
  const char* name() const override { return "swap"; }
  bool ApplyInto(const Draft& d, const Problem&, PlanCache&, Rng& rng, Draft* out) const override {
    if (d.stages.size() < 2) return false;
    const size_t s = Pick(rng, d.stages.size() - 1);
    *out = d;
    std::swap(out->stages[s], out->stages[s + 1]);
    out->stages[s].retained.clear();
    out->stages[s + 1].retained.clear();
    if (s > 0) out->stages[s - 1].retained.clear();
    return true;
  }
};

}  // namespace

const std::vector<std::unique_ptr<Move>>& AllMoves() {
  static const std::vector<std::unique_ptr<Move>> moves = [] {
    std::vector<std::unique_ptr<Move>> m;
    m.push_back(std::make_unique<MergeMove>());
    m.push_back(std::make_unique<SplitMove>());
    m.push_back(std::make_unique<MoveOpMove>());
    m.push_back(std::make_unique<RecomputeMove>());
    m.push_back(std::make_unique<UncomputeMove>());
    m.push_back(std::make_unique<RetainMove>());
    m.push_back(std::make_unique<SwapMove>());
    return m;
  }();
  return moves;
}

}  // namespace tilesched::search
