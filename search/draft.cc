// Draft bookkeeping: re-costing, consistency, conversion.
#include "draft.h"

#include <algorithm>
#include <string>

#include "tilesched/graph.h"
#include "tilesched/grid.h"

namespace tilesched::search {

bool DraftIsConsistent(const Problem& problem, const Draft& draft) {
  // Per-thread buffers: annealing checks every move's draft.
  thread_local std::vector<char> covered, in_slow;
  covered.assign(static_cast<size_t>(problem.num_ops()), 0);
  in_slow.resize(static_cast<size_t>(problem.num_tensors()));
  for (int t = 0; t < problem.num_tensors(); ++t) in_slow[t] = problem.is_graph_input(t);
  const std::vector<int>* resident = nullptr;
  for (const Stage& stage : draft.stages) {
    for (int t : stage.plan->external_inputs()) {
      const bool kept = resident && std::binary_search(resident->begin(), resident->end(), t);
      if (!in_slow[t] && !kept) return false;
    }
    for (int t : stage.retained) {
      if (!std::binary_search(stage.plan->produced().begin(), stage.plan->produced().end(), t)) {
        return false;
      }
    }
    for (int o : stage.plan->ops()) covered[o] = true;
    for (int t : stage.plan->sinks()) {
      if (problem.is_graph_output(t) ||
          !std::binary_search(stage.retained.begin(), stage.retained.end(), t)) {
        in_slow[t] = true;
      }
    }
    resident = &stage.retained;
  }
  return std::all_of(covered.begin(), covered.end(), [](char c) { return c != 0; });
}

namespace {

// Per-thread membership marks over ids that need no clearing: an id is in the set when its stamp
// is the current generation.
class Marks {
 public:
  void Start(size_t n) {
    if (stamps_.size() < n) stamps_.resize(n, 0);
    if (++generation_ == 0) {
      std::fill(stamps_.begin(), stamps_.end(), 0);
      generation_ = 1;
    }
  }
  void Add(int id) { stamps_[static_cast<size_t>(id)] = generation_; }
  bool Has(int id) const { return stamps_[static_cast<size_t>(id)] == generation_; }

 private:
  std::vector<uint32_t> stamps_;
  uint32_t generation_ = 0;
};

// Whether stage s writes t to slow memory (rule 3.6: a retained sink is written only when it is
// a graph output).
bool Writes(const Problem& problem, const Stage& stage, int t) {
  const std::vector<int>& sinks = stage.plan->sinks();
  if (!std::binary_search(sinks.begin(), sinks.end(), t)) return false;
  return problem.is_graph_output(t) || !std::binary_search(stage.retained.begin(), stage.retained.end(), t);
}

// Whether t is in slow memory before stage `end` of `draft` runs: a graph input, or written by one
// of the stages before it (the nearest are looked at first: a stage mostly reads recent tensors).
bool InSlowBefore(const Problem& problem, const Draft& draft, size_t end, int t) {
  if (problem.is_graph_input(t)) return true;
  for (size_t s = end; s-- > 0;) {
    if (Writes(problem, draft.stages[s], t)) return true;
  }
  return false;
}

}  // namespace

bool ChangeIsConsistent(const Problem& problem, const Draft& before, const Draft& after,
                        const MatchedEnds& ends) {
  const size_t front = ends.front, after_end = after.stages.size() - ends.back,
               before_end = before.stages.size() - ends.back;
  thread_local Marks ops_in_window, written_in_window;
  // Coverage: the other stages are the same, so every op before's window computed must be
  // computed in after's; otherwise (an op now computed only outside, or nowhere) ask the scan.
  ops_in_window.Start(static_cast<size_t>(problem.num_ops()));
  for (size_t s = front; s < after_end; ++s) {
    for (int o : after.stages[s].plan->ops()) ops_in_window.Add(o);
  }
  for (size_t s = front; s < before_end; ++s) {
    for (int o : before.stages[s].plan->ops()) {
      if (!ops_in_window.Has(o)) return DraftIsConsistent(problem, after);
    }
  }
  // Rules 3.5 and 3.6 in the window, from the slow memory the same prefix leaves.
  static const std::vector<int> kNone;
  written_in_window.Start(static_cast<size_t>(problem.num_tensors()));
  const std::vector<int>* resident = front > 0 ? &after.stages[front - 1].retained : &kNone;
  for (size_t s = front; s < after_end; ++s) {
    const Stage& stage = after.stages[s];
    for (int t : stage.plan->external_inputs()) {
      if (std::binary_search(resident->begin(), resident->end(), t) || written_in_window.Has(t)) continue;
      if (!InSlowBefore(problem, after, front, t)) return false;
    }
    for (int t : stage.retained) {
      if (!std::binary_search(stage.plan->produced().begin(), stage.plan->produced().end(), t)) {
        return false;
      }
    }
    for (int t : stage.plan->sinks()) {
      if (Writes(problem, stage, t)) written_in_window.Add(t);
    }
    resident = &stage.retained;
  }
  // The stages after the window read what they read before, after the same retention (MatchEnds),
  // so they can only miss a tensor that before's window wrote and after's does not; if there is
  // one that the prefix does not write either, ask the scan whether a later stage reads it.
  for (size_t s = front; s < before_end; ++s) {
    const Stage& stage = before.stages[s];
    for (int t : stage.plan->sinks()) {
      if (!Writes(problem, stage, t) || written_in_window.Has(t)) continue;
      if (!InSlowBefore(problem, after, front, t)) return DraftIsConsistent(problem, after);
    }
  }
  return true;
}

bool RecostDraft(const Problem& problem, SubgraphCoster& coster, Draft* draft) {
  if (!DraftIsConsistent(problem, *draft)) return false;
  static const std::vector<int> kNone;
  double total = 0;
  std::vector<TileChoice> choices;
  for (size_t s = 0; s < draft->stages.size(); ++s) {
    const std::vector<int>& resident = s ? draft->stages[s - 1].retained : kNone;
    auto choice = coster.Configure(*draft->stages[s].plan, draft->stages[s].retained, resident);
    if (!choice) return false;
    choices.push_back(*choice);
    total += choice->latency;
  }
  for (size_t s = 0; s < draft->stages.size(); ++s) draft->stages[s].choice = choices[s];
  draft->total = total;
  return true;
}

MatchedEnds MatchEnds(const Draft& before, const Draft& after) {
  const size_t nb = before.stages.size(), na = after.stages.size();
  auto same = [](const Stage& a, const Stage& b) { return a.plan == b.plan && a.retained == b.retained; };
  // Stage i of both drafts is unchanged when it and everything before it is the same.
  size_t front = 0;
  while (front < nb && front < na && same(before.stages[front], after.stages[front])) ++front;
  // Stage i from the back is unchanged when it and its predecessor's retention are the same.
  // (Both arms of each conditional are lvalues, so that it copies no vector: this runs for
  // every annealing move.)
  static const std::vector<int> kNone;
  size_t back = 0;
  while (back + front < nb && back + front < na) {
    const size_t b = nb - 1 - back, a = na - 1 - back;
    if (!same(before.stages[b], after.stages[a])) break;
    const std::vector<int>& rb = b ? before.stages[b - 1].retained : kNone;
    const std::vector<int>& ra = a ? after.stages[a - 1].retained : kNone;
    if (rb != ra) break;
    ++back;
  }
  return {front, back};
}

bool RecostChanged(const Problem& problem, SubgraphCoster& coster, const Draft& before,
                   Draft* after) {
  const size_t na = after->stages.size();
  const MatchedEnds ends = MatchEnds(before, *after);
  if (!ChangeIsConsistent(problem, before, *after, ends)) return false;
  const auto [front, back] = ends;
  static const std::vector<int> kNone;
  for (size_t s = front; s + back < na; ++s) {
    const std::vector<int>& resident = s ? after->stages[s - 1].retained : kNone;
    auto choice = coster.Configure(*after->stages[s].plan, after->stages[s].retained, resident);
    if (!choice) return false;
    after->stages[s].choice = *choice;
  }
  double total = 0;
  for (const Stage& st : after->stages) total += st.choice.latency;
  after->total = total;
  return true;
}

Schedule ToSchedule(const Draft& draft) {
  Schedule schedule;
  for (const Stage& stage : draft.stages) {
    Subgraph sg;
    sg.ops = stage.plan->ops();
    sg.granularity = stage.choice.granularity;
    sg.retained = stage.retained;
    const Grid grid(stage.plan->width(), stage.plan->height(), sg.granularity.w, sg.granularity.h);
    sg.traversal = stage.choice.order.empty()
                       ? MakeTraversal(stage.choice.traversal, grid.rows(), grid.cols())
                       : stage.choice.order;
    sg.reported_latency = stage.choice.latency;
    schedule.subgraphs.push_back(std::move(sg));
  }
  return schedule;
}

Result<Draft> DraftOf(PlanCache& plans, const Schedule& schedule, const std::vector<double>& latencies) {
  Draft draft;
  for (size_t s = 0; s < schedule.subgraphs.size(); ++s) {
    const Subgraph& sg = schedule.subgraphs[s];
    std::vector<int> ops = sg.ops;
    std::sort(ops.begin(), ops.end());
    Stage stage;
    stage.plan = plans.Get(ops);
    if (stage.plan == nullptr) {  // Evaluate() rejects it too (rule 3.3)
      return Status::Error("subgraph " + std::to_string(s) + ": its sinks have several shapes");
    }
    stage.retained = sg.retained;
    std::sort(stage.retained.begin(), stage.retained.end());
    stage.choice.granularity = sg.granularity;
    stage.choice.traversal = TraversalKind::kRaster;  // an empty traversal is raster order
    stage.choice.order = sg.traversal;
    stage.choice.latency = latencies[s];
    draft.total += latencies[s];
    draft.stages.push_back(std::move(stage));
  }
  return draft;
}

Result<Draft> SingletonDraft(const Problem& problem, PlanCache& plans, SubgraphCoster& coster) {
  Draft draft;
  for (int o : problem.graph().topo_order()) {
    const SubgraphPlan* plan = plans.Get({o});
    auto choice = coster.Configure(*plan, {}, {});
    if (!choice) {
      return Status::Error("op " + std::to_string(o) + " (" + OpTypeName(problem.op(o).type) +
                           ") fits in fast memory at no tile size: even its smallest tile needs "
                           "more than " +
                           std::to_string(problem.hardware().fast_memory_capacity) + " elements");
    }
    draft.stages.push_back({plan, {}, *choice});
    draft.total += choice->latency;
  }
  return draft;
}

}  // namespace tilesched::search
