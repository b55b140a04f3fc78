// Greedy: priority fusion by benefit (XLA-style), then a retention pass.
//
// From one op per subgraph, repeatedly merge the two subgraphs (sharing a tensor) whose merge
// saves the most latency, benefit = cost(a) + cost(b) - cost(a u b), while the schedule stays
// valid. Then, left to right, let each subgraph retain what the next one reads when that lowers
// the pair's latency. Both phases are deterministic (ties break on stage ids) and check the
// budget as they go.
#include <algorithm>
#include <cstdlib>
#include <queue>

#include "context.h"
#include "op_sets.h"
#include "tilesched/graph.h"

namespace tilesched::search {

namespace {

// A possible merge of two live stages (by stable id) and what it would save.
struct Merge {
  double benefit;
  int a, b;  // stage ids, a < b
  const SubgraphPlan* plan;
  TileChoice choice;
};

// Max-heap order: larger benefit first, then smaller ids (deterministic).
struct MergeOrder {
  bool operator()(const Merge& x, const Merge& y) const {
    if (x.benefit != y.benefit) return x.benefit < y.benefit;
    if (x.a != y.a) return x.a > y.a;
    return x.b > y.b;
  }
};

// Priority fusion over stages with stable ids: a heap of candidate merges between stages that
// share a tensor, popped best first, each applied when the schedule stays valid; a merge
// creates a new stage whose merges with its neighbours enter the heap. Work per merge is one
// consistency check of the schedule, so a large graph is handled in a few seconds.
class Fusion {
 public:
  Fusion(SearchContext& ctx, const Draft& start) : ctx_(ctx) {
    for (const Stage& s : start.stages) {
      order_.push_back(static_cast<int>(stages_.size()));
      stages_.push_back(s);
      alive_.push_back(true);
    }
  }

  void Run() {
    for (int id : order_) {
      if (ctx_.budget.Expired()) return;
      PushMergesOf(id);
    }
    int64_t pops = 0;
    while (!heap_.empty()) {
      if ((++pops & 63) == 0 && ctx_.budget.Expired()) return;
      const Merge m = heap_.top();
      heap_.pop();
      if (!alive_[m.a] || !alive_[m.b] || m.benefit <= 1e-9) continue;
      if (Apply(m)) {
        // A merge that was invalid may have become valid (the stage in its way moved).
        for (const Merge& r : retry_) {
          if (alive_[r.a] && alive_[r.b]) heap_.push(r);
        }
        retry_.clear();
      } else if (retry_.size() < kMaxRetry) {
        retry_.push_back(m);
      }
    }
  }

  Draft Result() const {
    Draft d;
    for (int id : order_) {
      d.stages.push_back(stages_[id]);
      d.total += stages_[id].choice.latency;
    }
    return d;
  }

 private:
  // Stages sharing a tensor with stage `id` (ids): producers and consumers of its tensors, and
  // of the other readers of its inputs the kMaxCoReaders nearest in topological order (a tensor
  // read by hundreds of ops would otherwise make the pairs quadratic).
  std::vector<int> Partners(int id) const {
    const Graph& graph = ctx_.problem.graph();
    std::vector<int> partners;
    for (int o : stages_[id].plan->ops()) {
      for (int t : ctx_.problem.op(o).inputs) {
        const int p = ctx_.problem.producer(t);
        if (p >= 0) partners.push_back(owner_.at(p));
        std::vector<int> readers(graph.consumers(t).begin(), graph.consumers(t).end());
        if (readers.size() > kMaxCoReaders) {
          const int rank = graph.topo_rank(o);
          std::partial_sort(readers.begin(), readers.begin() + kMaxCoReaders, readers.end(),
                            [&](int a, int b) {
                              const int da = std::abs(graph.topo_rank(a) - rank);
                              const int db = std::abs(graph.topo_rank(b) - rank);
                              return da != db ? da < db : a < b;
                            });
          readers.resize(kMaxCoReaders);
        }
        for (int c : readers) partners.push_back(owner_.at(c));
      }
      for (int c : graph.consumers(ctx_.problem.op(o).output)) partners.push_back(owner_.at(c));
    }
    std::sort(partners.begin(), partners.end());
    partners.erase(std::unique(partners.begin(), partners.end()), partners.end());
    std::erase(partners, id);
    return partners;
  }

  void PushMergesOf(int id) {
    if (owner_.empty()) RebuildOwners();
    for (int other : Partners(id)) {
      if (ctx_.budget.Expired()) return;
      const int a = std::min(id, other), b = std::max(id, other);
      const SubgraphPlan* plan = ctx_.plans.Get(Union(stages_[a].plan->ops(), stages_[b].plan->ops()));
      if (plan == nullptr) continue;
      auto choice = ctx_.coster.Configure(*plan, {}, {});
      if (!choice) continue;
      const double benefit = stages_[a].choice.latency + stages_[b].choice.latency - choice->latency;
      if (benefit > 1e-9) heap_.push({benefit, a, b, plan, *choice});
    }
  }

  // Each op's stage id (the first stage computing it).
  void RebuildOwners() {
    owner_.assign(static_cast<size_t>(ctx_.problem.num_ops()), -1);
    for (int id : order_) {
      for (int o : stages_[id].plan->ops()) {
        if (owner_[o] < 0) owner_[o] = id;
      }
    }
  }

  // Replaces stages a and b by their union, at the later one's place or else at the earlier
  // one's, if the schedule stays valid.
  bool Apply(const Merge& m) {
    const int merged = static_cast<int>(stages_.size());
    stages_.push_back({m.plan, {}, m.choice});
    alive_.push_back(true);
    const auto pos_a = std::find(order_.begin(), order_.end(), m.a);
    const auto pos_b = std::find(order_.begin(), order_.end(), m.b);
    const int later = pos_a < pos_b ? m.b : m.a, earlier = pos_a < pos_b ? m.a : m.b;
    for (int place : {later, earlier}) {
      std::vector<int> trial;
      for (int id : order_) {
        if (id == place) {
          trial.push_back(merged);
        } else if (id != m.a && id != m.b) {
          trial.push_back(id);
        }
      }
      Draft d;
      for (int id : trial) d.stages.push_back(stages_[id]);
      if (!DraftIsConsistent(ctx_.problem, d)) continue;
      order_ = std::move(trial);
      alive_[m.a] = alive_[m.b] = false;
      owner_.clear();
      PushMergesOf(merged);
      return true;
    }
    alive_[merged] = false;
    return false;
  }

  static constexpr size_t kMaxRetry = 4096;
  static constexpr size_t kMaxCoReaders = 16;

  SearchContext& ctx_;
  std::vector<Stage> stages_;  // by id; merged stages get new ids
  std::vector<bool> alive_;
  std::vector<int> order_;     // live ids in schedule order
  std::vector<int> owner_;     // op -> stage id (rebuilt lazily)
  std::priority_queue<Merge, std::vector<Merge>, MergeOrder> heap_;
  std::vector<Merge> retry_;  // merges found invalid since the last applied one
};

}  // namespace

void RunGreedy(SearchContext& ctx) {
  auto start = SingletonDraft(ctx.problem, ctx.plans, ctx.coster);
  if (!start.ok()) return;
  Draft draft = std::move(start).value();
  ctx.incumbent.Offer(draft, "greedy");

  // Phase 1: fusion by benefit.
  Fusion fusion(ctx, draft);
  fusion.Run();
  draft = fusion.Result();
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
