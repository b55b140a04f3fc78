// Draft bookkeeping: re-costing, consistency, conversion.
#include "draft.h"

#include <algorithm>
#include <string>

#include "tilesched/graph.h"
#include "tilesched/grid.h"

namespace tilesched::search {

bool DraftIsConsistent(const Problem& problem, const Draft& draft) {
  std::vector<bool> covered(problem.num_ops(), false);
  std::vector<bool> in_slow(problem.num_tensors(), false);
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
  return std::all_of(covered.begin(), covered.end(), [](bool c) { return c; });
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
  size_t back = 0;
  while (back + front < nb && back + front < na) {
    const size_t b = nb - 1 - back, a = na - 1 - back;
    if (!same(before.stages[b], after.stages[a])) break;
    const std::vector<int>& rb = b ? before.stages[b - 1].retained : std::vector<int>();
    const std::vector<int>& ra = a ? after.stages[a - 1].retained : std::vector<int>();
    if (rb != ra) break;
    ++back;
  }
  return {front, back};
}

bool RecostChanged(const Problem& problem, SubgraphCoster& coster, const Draft& before,
                   Draft* after) {
  if (!DraftIsConsistent(problem, *after)) return false;
  const size_t na = after->stages.size();
  const auto [front, back] = MatchEnds(before, *after);
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
