// Greedy: priority fusion by benefit (XLA-style), then a retention pass.
//
// From one op per subgraph, repeatedly merge the two subgraphs (sharing a tensor) whose merge
// saves the most latency, benefit = cost(a) + cost(b) - cost(a u b), while the schedule stays
// valid. Then choose what each subgraph retains for the next one, the best choice along the
// whole chain (OptimizeRetention). Both phases are deterministic (ties break on stage ids).
//
// Restarts (RunGreedyRestarts, run by the portfolio after its beams): the same fusion with every benefit
// scaled by a random factor exp(noise x N(0, 1)), each restart with its own RNG stream, so the
// fusion order, and with it the stages greedy settles on, differ; each gets the retention pass.
// Fusion is blind to retention and settles in a local optimum the later moves rarely leave:
// other fusion orders start the search elsewhere.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <queue>
#include <random>

#include <tbb/parallel_for.h>

#include "context.h"
#include "op_sets.h"
#include "retention.h"
#include "tilesched/graph.h"

namespace tilesched::search {

namespace {

// A possible merge of two live stages (by stable id) and what it would save.
struct Merge {
  double benefit;
  int a, b;  // stage ids, a < b
  const SubgraphPlan* plan;
  TileChoice choice;
  // While the merge waits on its blockers: its index in Fusion::waits_ and the wait it belongs to.
  int serial = -1, wait = 0;
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
// creates a new stage whose merges with its neighbours enter the heap. Work per merge is local
// (the two stages' edges and their new neighbours), so fusion grows linearly with the graph.
class Fusion {
 public:
  // `noise` > 0: every benefit is scaled by exp(noise x N(0, 1)) drawn from `rng_seed`'s stream.
  Fusion(SearchContext& ctx, const Draft& start, double noise = 0, uint64_t rng_seed = 0)
      : ctx_(ctx), noise_(noise), rng_(rng_seed) {
    for (const Stage& s : start.stages) {
      slot_.push_back(static_cast<int>(stages_.size()));
      stages_.push_back(s);
      alive_.push_back(true);
    }
    waiting_.resize(stages_.size());
    RebuildOwners();
  }

  void Run() {
    for (size_t id = 0; id < stages_.size(); ++id) {
      if (ctx_.budget.Expired()) return;
      PushMergesOf(static_cast<int>(id));
    }
    int64_t pops = 0;
    while (!heap_.empty() || !pending_.empty()) {
      if ((++pops & 63) == 0 && ctx_.budget.Expired()) return;
      // The best of the heap and the woken retries (both in MergeOrder): the order one heap
      // holding both would pop them in.
      Merge m;
      if (pending_.empty() || (!heap_.empty() && MergeOrder()(pending_.top(), heap_.top()))) {
        m = heap_.top();
        heap_.pop();
      } else {
        m = pending_.top();
        pending_.pop();
      }
      if (!alive_[m.a] || !alive_[m.b] || m.benefit <= 1e-9) continue;
      Blockers blockers;
      if (Apply(m, &blockers)) continue;
      // Found invalid: a stage between the two is in the way of each placement. Only that
      // stage's death (merged into another) can make the placement valid (slots never change
      // otherwise), so the merge waits on both blockers and is woken when one of them dies:
      // each stage dies once, so a merge is re-checked at most once per death of a blocker,
      // not after every applied merge (docs/scaling.md).
      if (m.serial < 0) {
        m.serial = static_cast<int>(waits_.size());
        waits_.push_back(0);
      }
      m.wait = ++waits_[static_cast<size_t>(m.serial)];
      for (int blocker : {blockers.at_later, blockers.at_earlier}) {
        waiting_[static_cast<size_t>(blocker)].push_back(m);
      }
    }
  }

  Draft Result() const {
    std::vector<int> order;
    for (size_t id = 0; id < stages_.size(); ++id) {
      if (alive_[id]) order.push_back(static_cast<int>(id));
    }
    std::sort(order.begin(), order.end(), [&](int x, int y) { return slot_[x] < slot_[y]; });
    Draft d;
    for (int id : order) {
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
    for (int other : Partners(id)) {
      if (ctx_.budget.Expired()) return;
      const int a = std::min(id, other), b = std::max(id, other);
      const SubgraphPlan* plan = ctx_.plans.Get(Union(stages_[a].plan->ops(), stages_[b].plan->ops()));
      if (plan == nullptr || HidesTensor(*plan)) continue;
      auto choice = ctx_.coster.Configure(*plan, {}, {});
      if (!choice) continue;
      double benefit = stages_[a].choice.latency + stages_[b].choice.latency - choice->latency;
      if (benefit <= 1e-9) continue;
      if (noise_ > 0) benefit *= std::exp(noise_ * std::normal_distribution<double>(0, 1)(rng_));
      heap_.push({benefit, a, b, plan, *choice});
    }
  }

  // True when the union consumes inside a tensor that is also read outside it: no sink, so
  // not written, so that reader could never have it; such a merge is never valid, and leaving
  // it out of the heap (and so out of the retry list) keeps the retries to merges that can
  // become valid when the stages between them move.
  bool HidesTensor(const SubgraphPlan& plan) const {
    for (int o : plan.ops()) {
      const int t = ctx_.problem.op(o).output;
      if (std::binary_search(plan.sinks().begin(), plan.sinks().end(), t)) continue;
      for (int c : ctx_.problem.graph().consumers(t)) {
        if (!plan.Contains(c)) return true;
      }
    }
    return false;
  }

  // Each op's stage id (stages are disjoint: singletons and unions of disjoint stages).
  void RebuildOwners() {
    owner_.assign(static_cast<size_t>(ctx_.problem.num_ops()), -1);
    for (size_t id = 0; id < stages_.size(); ++id) {
      for (int o : stages_[id].plan->ops()) owner_[o] = static_cast<int>(id);
    }
  }

  // The stage (id) in the way when the union of stages `earlier` and `later` runs at the
  // later slot (`at_later`) or the earlier one, or -1 when the schedule stays valid there,
  // given that the union writes every tensor read outside it (HidesTensor is false). Nothing is
  // retained during fusion, so a schedule is valid when every stage's inputs come from earlier
  // stages' writes; only the stages between the two slots change sides: at the later slot none
  // of them may read what `earlier` produces, at the earlier slot `later` may read nothing they
  // produce. Work: the two stages' edges, independent of the graph's size (the whole-schedule
  // check it replaces was linear).
  int Blocker(int earlier, int later, bool at_later) const {
    const int lo = slot_[earlier], hi = slot_[later];
    auto between = [&](int op) {
      const int owner = owner_[op];
      return owner != earlier && owner != later && slot_[owner] > lo && slot_[owner] < hi;
    };
    const Graph& graph = ctx_.problem.graph();
    if (at_later) {
      for (int o : stages_[earlier].plan->ops()) {
        for (int c : graph.consumers(ctx_.problem.op(o).output)) {
          if (between(c)) return owner_[c];
        }
      }
      return -1;
    }
    for (int o : stages_[later].plan->ops()) {
      for (int t : ctx_.problem.op(o).inputs) {
        const int p = ctx_.problem.producer(t);
        if (p >= 0 && between(p)) return owner_[p];
      }
    }
    return -1;
  }

  struct Blockers {
    int at_later = -1, at_earlier = -1;
  };

  // Replaces stages a and b by their union, at the later one's place or else at the earlier
  // one's, if the schedule stays valid; otherwise `*blockers` names the stage in each one's way.
  bool Apply(const Merge& m, Blockers* blockers) {
    const int later = slot_[m.a] < slot_[m.b] ? m.b : m.a;
    const int earlier = later == m.b ? m.a : m.b;
    for (bool at_later : {true, false}) {
      const int blocker = Blocker(earlier, later, at_later);
      if (blocker >= 0) {
        (at_later ? blockers->at_later : blockers->at_earlier) = blocker;
        continue;
      }
      const int merged = static_cast<int>(stages_.size());
      stages_.push_back({m.plan, {}, m.choice});
      alive_.push_back(true);
      slot_.push_back(slot_[at_later ? later : earlier]);
      waiting_.emplace_back();
      for (int dead : {m.a, m.b}) {
        alive_[dead] = false;
        for (const Merge& w : waiting_[static_cast<size_t>(dead)]) {
          // The first of its two blockers to die wakes it; the other entry is then stale.
          int& current = waits_[static_cast<size_t>(w.serial)];
          if (w.wait != current) continue;
          ++current;
          pending_.push(w);
        }
        std::vector<Merge>().swap(waiting_[static_cast<size_t>(dead)]);
      }
      for (int o : m.plan->ops()) owner_[o] = merged;
      PushMergesOf(merged);
      return true;
    }
    return false;
  }

  static constexpr size_t kMaxCoReaders = 16;

  SearchContext& ctx_;
  const double noise_;
  std::mt19937_64 rng_;
  std::vector<Stage> stages_;  // by id; merged stages get new ids
  std::vector<bool> alive_;
  // Schedule position of each stage: the singletons' topological index, inherited by a merge
  // from the stage whose place it takes, so live stages in slot order are the schedule.
  std::vector<int> slot_;
  std::vector<int> owner_;     // op -> live stage id
  std::priority_queue<Merge, std::vector<Merge>, MergeOrder> heap_;
  // waiting_[id]: merges found invalid with stage `id` in their way, tried again when it dies.
  std::vector<std::vector<Merge>> waiting_;
  // Per waiting merge (Merge::serial): the number of its current wait.
  std::vector<int> waits_;
  // Woken merges, tried again in MergeOrder beside the heap.
  std::priority_queue<Merge, std::vector<Merge>, MergeOrder> pending_;
};

}  // namespace

void RunGreedy(SearchContext& ctx) {
  ctx.Phase("greedy");
  if (ctx.budget.Expired()) return;  // RunSearch has offered the singletons already
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

  // Phase 2: the retention of every stage, by dynamic programming along the chain
  // (search/retention.h; each stage's options are few, so this is linear in the stages).
  OptimizeRetention(ctx.problem, ctx.coster, &draft, 0, draft.stages.size());
  ctx.incumbent.Offer(draft, "greedy");
  ctx.Note("greedy retention: " + std::to_string(draft.total));
}

void RunGreedyRestarts(SearchContext& ctx) {
  const int restarts = ctx.options.greedy_restarts;
  if (restarts <= 0 || ctx.options.greedy_noise <= 0 || ctx.budget.Expired()) return;
  ctx.Phase("greedy restarts");
  auto start = SingletonDraft(ctx.problem, ctx.plans, ctx.coster);
  if (!start.ok()) return;
  const Draft singletons = std::move(start).value();
  std::vector<Draft> found(static_cast<size_t>(restarts));
  tbb::parallel_for(0, restarts, [&](int r) {
    if (ctx.budget.Expired()) return;
    Fusion fusion(ctx, singletons, ctx.options.greedy_noise,
                  ctx.options.seed * 0x9e3779b97f4a7c15ULL + 0x5851f42d4c957f2dULL * static_cast<uint64_t>(r + 1));
    fusion.Run();
    Draft draft = fusion.Result();
    OptimizeRetention(ctx.problem, ctx.coster, &draft, 0, draft.stages.size());
    found[static_cast<size_t>(r)] = std::move(draft);
  });
  // Offered in restart order, so that the incumbent is the same at any thread count.
  int ran = 0, improved = 0;
  double best = std::numeric_limits<double>::infinity();
  for (const Draft& draft : found) {
    if (draft.stages.empty()) continue;  // not run: the budget ran out
    ++ran;
    best = std::min(best, draft.total);
    if (ctx.incumbent.Offer(draft, "greedy:restart")) ++improved;
  }
  ctx.Note("greedy restarts: " + std::to_string(ran) + " of " + std::to_string(restarts) + " at noise " +
           std::to_string(ctx.options.greedy_noise) + ", best " + std::to_string(best) + ", " +
           std::to_string(improved) + " improved the best schedule");
}

}  // namespace tilesched::search
