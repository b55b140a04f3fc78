// Greedy: priority fusion by benefit (XLA-style), then a retention pass.
//
// From one op per subgraph, repeatedly merge the two subgraphs (sharing a tensor) whose merge
// saves the most latency, benefit = cost(a) + cost(b) - cost(a u b), while the schedule stays
// valid. Then, left to right, let each subgraph retain what the next one reads when that lowers
// the pair's latency. Both phases are deterministic (ties break on stage order).
#include <algorithm>
#include <map>

#include "op_sets.h"
#include "search.h"
#include "tilesched/graph.h"

namespace tilesched::search {

namespace {

// Merges stages i < j into one placed at j (or at i when that is the only valid place).
bool TryMerge(const Problem& problem, PlanCache& plans, SubgraphCoster& coster, const Draft& in,
              size_t i, size_t j, Draft* out) {
  const SubgraphPlan* plan = plans.Get(Union(in.stages[i].plan->ops(), in.stages[j].plan->ops()));
  if (plan == nullptr) return false;
  auto choice = coster.Configure(*plan, {}, {});
  if (!choice) return false;
  for (size_t place : {j, i}) {
    Draft d;
    for (size_t s = 0; s < in.stages.size(); ++s) {
      if (s == place) {
        d.stages.push_back({plan, {}, *choice});
      } else if (s != i && s != j) {
        d.stages.push_back(in.stages[s]);
      }
    }
    if (DraftIsConsistent(problem, d)) {
      d.total = 0;
      for (const Stage& st : d.stages) d.total += st.choice.latency;
      *out = std::move(d);
      return true;
    }
  }
  return false;
}

}  // namespace

void RunGreedy(SearchContext& ctx) {
  auto start = SingletonDraft(ctx.problem, ctx.plans, ctx.coster);
  if (!start.ok()) return;
  Draft draft = std::move(start).value();
  ctx.incumbent.Offer(draft, "greedy");

  // Phase 1: fusion by benefit.
  while (!ctx.budget.Expired()) {
    std::vector<int> stage_of(ctx.problem.num_ops(), -1);
    for (size_t s = 0; s < draft.stages.size(); ++s) {
      for (int o : draft.stages[s].plan->ops()) stage_of[o] = static_cast<int>(s);
    }
    double best_benefit = 1e-9;
    Draft best;
    bool found = false;
    for (size_t j = 0; j < draft.stages.size(); ++j) {
      // Partners: stages sharing a tensor with stage j, earlier in the schedule.
      std::vector<int> partners;
      for (int o : draft.stages[j].plan->ops()) {
        for (int t : ctx.problem.op(o).inputs) {
          const int p = ctx.problem.producer(t);
          if (p >= 0) partners.push_back(stage_of[p]);
          for (int c : ctx.problem.graph().consumers(t)) partners.push_back(stage_of[c]);
        }
      }
      std::sort(partners.begin(), partners.end());
      partners.erase(std::unique(partners.begin(), partners.end()), partners.end());
      for (int i : partners) {
        if (i < 0 || static_cast<size_t>(i) >= j) continue;
        Draft merged;
        if (!TryMerge(ctx.problem, ctx.plans, ctx.coster, draft, static_cast<size_t>(i), j, &merged)) {
          continue;
        }
        const double benefit = draft.total - merged.total;
        if (benefit > best_benefit) {
          best_benefit = benefit;
          best = std::move(merged);
          found = true;
        }
      }
    }
    if (!found) break;
    draft = std::move(best);
  }
  ctx.incumbent.Offer(draft, "greedy");
  ctx.Note("greedy fusion: " + std::to_string(draft.total) + " in " +
           std::to_string(draft.stages.size()) + " subgraphs");

  // Phase 2: retention, left to right.
  for (size_t s = 0; s + 1 < draft.stages.size() && !ctx.budget.Expired(); ++s) {
    const Stage& cur = draft.stages[s];
    const Stage& next = draft.stages[s + 1];
    std::vector<int> shared;
    std::set_intersection(cur.plan->produced().begin(), cur.plan->produced().end(),
                          next.plan->external_inputs().begin(), next.plan->external_inputs().end(),
                          std::back_inserter(shared));
    if (shared.empty()) continue;
    std::vector<std::vector<int>> options = {shared};
    if (shared.size() > 1) {
      for (int t : shared) options.push_back({t});
    }
    for (const std::vector<int>& keep : options) {
      Draft trial = draft;
      trial.stages[s].retained = keep;
      if (RecostChanged(ctx.problem, ctx.coster, draft, &trial) && trial.total < draft.total) {
        draft = std::move(trial);
      }
    }
  }
  ctx.incumbent.Offer(draft, "greedy");
  ctx.Note("greedy retention: " + std::to_string(draft.total));
}

}  // namespace tilesched::search
