// The exact mode (strategy `exact`): best-first branch and bound over schedule prefixes with a
// proven lower bound, anytime. docs/bounds.md "The exact mode" states the space it is exact over
// and proves every reduction used here. Tier 2 of the lower bound prices the same subgraph
// contexts (search/tier2.cc); both use the context pricer (search/context_pricer.h).
//
// Entry point: RunExact(ctx). It runs a cheap beam first (the incumbent prunes), then an A*
// search over states (ops covered, tensors in slow memory, tensors retained by the previous
// subgraph). A transition appends one subgraph: any op set SubgraphPlan accepts (recomputation
// allowed), any retention subset of what it produces, at its cheapest granularity and order.
// Every edge carries two costs: `ub`, the latency of a real configuration (the cheapest one the
// pricer found for that subgraph context), and `lb`, a lower bound on every configuration of
// the context (equal to `ub` where tiles and orders were enumerated completely). States carry
// the cheapest lb-path and the cheapest ub-path to them; the queue is ordered by
// f = g_lb + h, with h an admissible bound on the rest. At any stop, every schedule's latency
// is at least min(incumbent, smallest open f, the lb of every complete path reached): that is
// the proven bound. When the queue closes below the incumbent with nothing left, the incumbent
// is optimal.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "context.h"
#include "context_pricer.h"
#include "hashing.h"

namespace tilesched::search {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Above this many connected op sets, or fitting retention subsets of one subgraph, the
// transitions are not all enumerated, and the search proves nothing beyond the tier-1 bound.
constexpr int64_t kMaxOpSets = 200000;

struct State {
  Mask covered = 0, slow = 0, resident = 0;
  bool operator==(const State&) const = default;
};

// A mask's high word is mixed in only when set, so a problem of at most 64 tensors hashes as
// before the masks had 128 bits.
uint64_t MixMask(uint64_t h, Mask m) {
  h = MixHash(h, m.low());
  return m.high() != 0 ? MixHash(h, m.high()) : h;
}

struct StateHash {
  size_t operator()(const State& s) const {
    uint64_t h = MixMask(0x243f6a8885a308d3ULL, s.covered);
    h = MixMask(h, s.slow);
    return static_cast<size_t>(MixMask(h, s.resident));
  }
};

struct Parent {
  State from;
  int op_set = -1;
  Mask retained = 0;
};

struct Node {
  double lb = kInf, ub = kInf;
  double expanded_lb = kInf, expanded_ub = kInf;  // values at the last expansion
  Parent ub_parent;                              // last edge of the cheapest ub-path
};

// A queue entry: a state to expand (op_set < 0) or a lazy edge out of `state`.
struct Entry {
  double key = 0;
  int64_t seq = 0;
  State state;
  int op_set = -1;
  Mask retained = 0;
  bool operator>(const Entry& o) const { return std::tie(key, seq) > std::tie(o.key, o.seq); }
};

class ExactSearch {
 public:
  explicit ExactSearch(SearchContext& ctx)
      : ctx_(ctx), problem_(ctx.problem), bandwidth_(ctx.problem.hardware().slow_memory_bandwidth),
        pricer_(ctx.problem, ctx.options.modes, ctx.plans, ctx.budget, ctx.options.exact_max_tile_configs) {}

  void Run();

 private:
  using Queue = std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>>;
  // The per-op and per-tensor facts of Lemma X4 (graph inputs read, graph outputs).
  void Prepare();
  double Heuristic(const State& s) const;
  // A priced context, memoized: its lb and the cheapest configuration found.
  const ContextValue& Context(int op_set, Mask retained, Mask resident);
  // Every edge out of `from` (a state popped from the queue), lazily: its context is priced
  // when the edge is popped.
  void Expand(const Entry& e, const Node& node, Queue* queue);
  // A popped edge: prices its context and relaxes the state it leads to.
  void Relax(const Entry& e, Queue* queue);
  void OfferPath(const State& last_from, int op_set, Mask retained);
  // The stopping key of SearchOptions::gap (see Run).
  double Target() const { return ctx_.incumbent.BestTotal() / (1 + std::max(0.0, ctx_.options.gap)); }
  bool Hopeless(double key) const { return key >= Target() * (1 - 1e-9); }
  void Note(bool cut, bool closed, double bound) const;

  SearchContext& ctx_;
  const Problem& problem_;
  double bandwidth_;
  ContextPricer pricer_;
  std::vector<Mask> op_graph_inputs_;
  Mask graph_outputs_ = 0, all_ops_ = 0;
  bool complete_ = true;  // every transition is enumerated
  std::map<std::tuple<int, Mask, Mask>, ContextValue> contexts_;
  std::unordered_map<State, Node, StateHash> nodes_;
  int64_t seq_ = 0, expansions_ = 0, pruned_ = 0;
  double goal_floor_ = kInf;  // smallest lb of a complete path reached
};

void ExactSearch::Prepare() {
  const int n = problem_.num_ops();
  op_graph_inputs_.resize(static_cast<size_t>(n));
  for (int o = 0; o < n; ++o) {
    for (int t : problem_.op(o).inputs) {
      if (problem_.is_graph_input(t)) op_graph_inputs_[static_cast<size_t>(o)] |= Mask{1} << t;
    }
  }
  for (int t = 0; t < problem_.num_tensors(); ++t) {
    if (problem_.is_graph_output(t)) graph_outputs_ |= Mask{1} << t;
  }
  all_ops_ = (Mask{1} << n) - 1;
}

// Lemma X4: what the rest of a schedule costs at least from state `s`.
double ExactSearch::Heuristic(const State& s) const {
  double compute = 0;
  Mask inputs = 0;
  for (int o = 0; o < problem_.num_ops(); ++o) {
    if ((s.covered >> o) & 1) continue;
    compute += pricer_.OpCompute(o);
    inputs |= op_graph_inputs_[static_cast<size_t>(o)];
  }
  int64_t elements = 0;
  for (int t : Ids(inputs | (graph_outputs_ & ~s.slow))) elements += problem_.tensor(t).size();
  return std::max(compute, static_cast<double>(elements) / bandwidth_);
}

const ContextValue& ExactSearch::Context(int index, Mask retained, Mask resident) {
  const auto key = std::make_tuple(index, retained, resident);
  if (auto it = contexts_.find(key); it != contexts_.end()) return it->second;
  ContextValue value = pricer_.Price(index, retained, resident, Pricing::kExact, Target());
  return contexts_.emplace(key, std::move(value)).first->second;
}

void ExactSearch::OfferPath(const State& last_from, int op_set, Mask retained) {
  std::vector<Stage> reversed;
  auto add = [&](int index, Mask kept, Mask resident) {
    const ContextValue& v = Context(index, kept, resident);
    reversed.push_back(Stage{pricer_.op_set(index).plan, Ids(kept), v.choice});
  };
  add(op_set, retained, last_from.resident);
  State s = last_from;
  // Every ub-path edge costs more than zero, so the parents form no cycle; the count guards it.
  for (size_t guard = 0; guard <= nodes_.size(); ++guard) {
    const Node& node = nodes_.at(s);
    if (node.ub_parent.op_set < 0) break;  // the start state
    add(node.ub_parent.op_set, node.ub_parent.retained, node.ub_parent.from.resident);
    s = node.ub_parent.from;
  }
  Draft draft;
  draft.stages.assign(reversed.rbegin(), reversed.rend());
  for (const Stage& stage : draft.stages) draft.total += stage.choice.latency;
  ctx_.incumbent.Offer(draft, "exact");
}

void ExactSearch::Expand(const Entry& e, const Node& node, Queue* queue) {
  const Mask available = e.state.slow | e.state.resident;
  const std::vector<OpSet>& op_sets = pricer_.op_sets();
  for (int i = 0; i < static_cast<int>(op_sets.size()); ++i) {
    const OpSet& c = op_sets[static_cast<size_t>(i)];
    if ((c.external & ~available) != 0) continue;  // rule 3.5
    for (const Mask r : c.retention) {  // every fitting retention subset (rule 3.6)
      if (!pricer_.HoldsFit(r, e.state.resident)) continue;  // never fits (Lemma X6)
      const Mask written = (c.sinks & ~r) | c.output_sinks;
      const State next{e.state.covered | c.ops, e.state.slow | written, r};
      const double key = node.lb + std::max(c.compute_once, pricer_.LoadStoreBound(c, r, e.state.resident)) +
                         Heuristic(next);
      if (Hopeless(key)) {
        ++pruned_;
      } else {
        queue->push({key, seq_++, e.state, i, r});
      }
    }
  }
}

void ExactSearch::Relax(const Entry& e, Queue* queue) {
  const ContextValue& v = Context(e.op_set, e.retained, e.state.resident);
  if (v.lb == kInf) return;  // nothing fits in the whole tile space
  const OpSet& c = pricer_.op_set(e.op_set);
  const Node from = nodes_.at(e.state);
  const Mask written = (c.sinks & ~e.retained) | c.output_sinks;
  const State next{e.state.covered | c.ops, e.state.slow | written, e.retained};
  const double lb = from.lb + v.lb, ub = from.ub + v.ub;
  if (next.covered == all_ops_) {
    goal_floor_ = std::min(goal_floor_, lb);
    if (ub < ctx_.incumbent.BestTotal() * (1 - 1e-9)) OfferPath(e.state, e.op_set, e.retained);
    return;
  }
  Node& head = nodes_[next];
  bool improved = false;
  if (lb < head.lb) {
    head.lb = lb;
    improved = true;
  }
  if (ub < head.ub) {
    head.ub = ub;
    head.ub_parent = Parent{e.state, e.op_set, e.retained};
    improved = true;
  }
  if (!improved) return;
  const double key = head.lb + Heuristic(next);
  if (Hopeless(key)) {
    ++pruned_;
  } else {
    queue->push({key, seq_++, next});
  }
}

void ExactSearch::Run() {
  if (!ContextPricer::Fits(problem_)) {
    ctx_.Note("exact: more than 64 ops or 128 tensors; nothing proven beyond the tier-1 bound");
    return;
  }
  Prepare();
  complete_ = pricer_.EnumerateOpSets(kMaxOpSets);
  State start;
  for (int t = 0; t < problem_.num_tensors(); ++t) {
    if (problem_.is_graph_input(t)) start.slow |= Mask{1} << t;
  }
  Queue queue;
  nodes_[start] = Node{0, 0, kInf, kInf, {}};
  queue.push({Heuristic(start), seq_++, start});
  // With SearchOptions::gap = G > 0 the search only needs to prove incumbent / (1 + G): a
  // key at least that (less a relative 1e-9 of rounding) is not searched further. With G = 0,
  // such a key cannot lead to a strictly better schedule.
  bool cut = false;
  while (!queue.empty() && !Hopeless(queue.top().key)) {
    // The queue holds up to an expansion's edges per state: capped at 16 entries per state
    // allowed (about 1 GB at the default), beside the states themselves.
    // A work budget (SearchOptions::iterations) counts expansions: deterministic.
    const int64_t work = ctx_.options.iterations;
    if (ctx_.budget.Expired() || static_cast<int64_t>(nodes_.size()) > ctx_.options.exact_max_states ||
        static_cast<int64_t>(queue.size()) > 16 * ctx_.options.exact_max_states ||
        (work > 0 && expansions_ >= work)) {
      cut = true;
      break;
    }
    const Entry e = queue.top();
    queue.pop();
    if (e.op_set >= 0) {  // a lazy edge: price its context now
      Relax(e, &queue);
      continue;
    }
    Node& node = nodes_.at(e.state);
    if (node.lb >= node.expanded_lb && node.ub >= node.expanded_ub) continue;  // stale
    node.expanded_lb = node.lb;
    node.expanded_ub = node.ub;
    ++expansions_;
    Expand(e, node, &queue);
  }
  // Every schedule passes through an open entry (its latency is at least the entry's key), or
  // was pruned (at least the target), or is a complete path already reached (at least its
  // lb): the smallest of these is proven.
  double bound = std::min(Target(), goal_floor_);
  if (!queue.empty()) bound = std::min(bound, queue.top().key);
  const bool closed = !cut && bound >= Target() * (1 - 1e-9);
  Note(cut, closed, bound);
  if (complete_ && ctx_.proven != nullptr) {
    ctx_.proven->set = true;
    ctx_.proven->value = bound;
  }
}

void ExactSearch::Note(bool cut, bool closed, double bound) const {
  ctx_.Note("exact: " + std::to_string(pricer_.op_sets().size()) + " op sets, " +
            std::to_string(nodes_.size()) + " states, " + std::to_string(expansions_) + " expansions, " +
            std::to_string(contexts_.size()) + " subgraph contexts (" + std::to_string(pricer_.class_contexts()) +
            " by tile classes, " + std::to_string(pricer_.orders_unproven()) +
            " with orders not proven complete), " + std::to_string(pruned_) + " pruned by the incumbent; " +
            (cut ? "cut by the limit" : closed ? "closed" : "open") + ", bound " + std::to_string(bound) +
            (complete_ ? "" : " (transitions not all enumerated: not used)"));
}

}  // namespace

void RunExact(SearchContext& ctx) {
  ctx.Phase("exact");
  // A cheap incumbent first: greedy has run; a narrow beam within a fifth of the time left.
  RunBeam(ctx, ctx.options.beam_width, ctx.budget.has_deadline() ? 0.2 * ctx.budget.Remaining() : kInf);
  ExactSearch(ctx).Run();
}

}  // namespace tilesched::search
