// Tier 2 by link components (docs/bounds.md, "Tier 2 by components", Lemmas W1-W4): every
// subgraph lies inside one link component (W1), so the covering LP splits into one LP per
// component once the flow rows of the tensors that cross between components are dropped; each
// component is priced as a problem of its own with the relaxations of W2, and counts at least
// at its floor (W3) and at tier 1's mixed roofline restricted to it (W4), which is all a
// component that tier 2 cannot price (too many ops, op sets or contexts, or out of time) gets.
// The sum bounds every valid schedule.
//
// Entry points: SplitTier2Bound(problem, options), SplitTier2Summary(result) and
// SplitTier2Shares (a schedule's latency per component; tilesched/search.h), SplitTier2Pays(problem, modes) (search/tier2.h: whether RunSearch runs it). The components come from the bound module (LinkComponents,
// tilesched/lower_bound.h); each component's LP is RunCoveringLp (search/tier2.h). Components are
// priced in parallel (oneTBB), each into its own slot, and summed in component order; a
// component that is the same problem as an earlier one (SamePricing) takes its run.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include "tier2.h"
#include "tilesched/graph.h"
#include "tilesched/lower_bound.h"

namespace tilesched::search {

namespace {

// One link component as a problem of its own (Lemma W2), with what it needs from the whole.
struct Component {
  std::vector<int> ops;       // op ids of the whole problem
  std::optional<Problem> own;  // the component's problem (when it could be built)
  Tier2Relaxation relaxation;
  double floor = 0;  // Lemma W3
};

// The component's problem: its ops, and every tensor they read or write, renumbered. A tensor
// produced outside is a graph input there, one read only outside a graph output (rule: a tensor
// nobody reads is a graph output).
Component BuildComponent(const Problem& problem, const CostModes& modes, std::vector<int> ops,
                         const std::vector<int>& component_of) {
  Component c;
  c.ops = std::move(ops);
  const int64_t capacity = problem.hardware().fast_memory_capacity;
  const double bandwidth = problem.hardware().slow_memory_bandwidth;
  const int me = component_of[static_cast<size_t>(c.ops.front())];
  std::vector<int> renumber(static_cast<size_t>(problem.num_tensors()), -1);
  std::vector<Tensor> tensors;
  std::vector<int> whole;  // component tensor id -> tensor of the whole problem
  auto local = [&](int t) {
    int& id = renumber[static_cast<size_t>(t)];
    if (id < 0) {
      id = static_cast<int>(tensors.size());
      tensors.push_back(problem.tensor(t));
      whole.push_back(t);
    }
    return id;
  };
  std::vector<Op> own_ops;
  double compute = 0;
  for (int o : c.ops) {
    Op op = problem.op(o);
    for (int& t : op.inputs) t = local(t);
    op.output = local(op.output);
    own_ops.push_back(std::move(op));
    compute += OpComputeOnce(problem, o, modes.matmul_reduction);
  }
  // Lemma W3: every op computes its output once; a graph input, or a tensor from outside too
  // large to be resident, is loaded at least once; a graph output, or a tensor read outside too
  // large to be retained, is stored at least once (all by subgraphs of this component).
  int64_t moved = 0;
  const Graph& g = problem.graph();
  for (size_t i = 0; i < whole.size(); ++i) {
    const int t = whole[i];
    const int producer = problem.producer(t);
    const bool inside = producer >= 0 && component_of[static_cast<size_t>(producer)] == me;
    const bool too_large = problem.tensor(t).size() >= capacity;
    if (!inside) {
      if (producer < 0 || too_large) moved += problem.tensor(t).size();
      else if (i < static_cast<size_t>(Mask::kBits)) c.relaxation.free_resident |= Mask{1} << static_cast<int>(i);
      continue;
    }
    const bool read_here = std::any_of(g.successors(producer).begin(), g.successors(producer).end(), [&](int r) {
      const auto& ins = problem.op(r).inputs;
      return component_of[static_cast<size_t>(r)] == me && std::find(ins.begin(), ins.end(), t) != ins.end();
    });
    if (read_here) continue;
    const bool graph_output = std::find(g.graph_outputs().begin(), g.graph_outputs().end(), t) != g.graph_outputs().end();
    if (graph_output || too_large) moved += problem.tensor(t).size();
    else if (i < static_cast<size_t>(Mask::kBits)) c.relaxation.rebate |= Mask{1} << static_cast<int>(i);
  }
  c.floor = std::max(compute, static_cast<double>(moved) / bandwidth);
  auto own = Problem::Create(std::move(tensors), std::move(own_ops), problem.hardware());
  if (own.ok()) c.own.emplace(std::move(*own));
  return c;
}

// The first reason, in component order, that a component was not priced to convergence.
Tier2Status Worse(Tier2Status so_far, Tier2Status next) {
  return so_far == Tier2Status::kConverged ? next : so_far;
}

// The ops of each link component, in component order.
std::vector<std::vector<int>> Members(const std::vector<int>& component_of) {
  std::vector<std::vector<int>> members;
  for (size_t o = 0; o < component_of.size(); ++o) {
    const size_t id = static_cast<size_t>(component_of[o]);
    if (members.size() <= id) members.resize(id + 1);
    members[id].push_back(static_cast<int>(o));
  }
  return members;
}

// Whether tier 2 on component b is tier 2 on component a: the same problem (ops, ids, shapes,
// base costs; both cut out of one problem, so the same hardware) with the same W2 masks.
bool SamePricing(const Component& a, const Component& b) {
  if (!a.own || !b.own) return false;
  const Problem& p = *a.own;
  const Problem& q = *b.own;
  if (p.num_ops() != q.num_ops() || p.num_tensors() != q.num_tensors()) return false;
  if (a.relaxation.free_resident != b.relaxation.free_resident || a.relaxation.rebate != b.relaxation.rebate) {
    return false;
  }
  for (int t = 0; t < p.num_tensors(); ++t) {
    if (!(p.tensor(t) == q.tensor(t))) return false;
  }
  for (int o = 0; o < p.num_ops(); ++o) {
    const Op& x = p.op(o);
    const Op& y = q.op(o);
    if (x.type != y.type || x.inputs != y.inputs || x.output != y.output || x.base_cost != y.base_cost) return false;
  }
  return true;
}

}  // namespace

bool SplitTier2Pays(const Problem& problem, const CostModes& modes) {
  const std::vector<std::vector<int>> members = Members(LinkComponents(problem, modes));
  if (members.size() < 2) return false;
  int within = 0;
  std::vector<size_t> counted_in(static_cast<size_t>(problem.num_tensors()), members.size());  // last component
  for (size_t c = 0; c < members.size(); ++c) {
    int tensors = 0;
    auto count = [&](int t) {
      if (counted_in[static_cast<size_t>(t)] == c) return;
      counted_in[static_cast<size_t>(t)] = c;
      ++tensors;
    };
    for (int o : members[c]) {
      for (int t : problem.op(o).inputs) count(t);
      count(problem.op(o).output);
    }
    const int ops = static_cast<int>(members[c].size());
    if (ops <= ContextPricer::kMaxOps && tensors <= ContextPricer::kMaxTensors) within += ops;
  }
  // Lemma W4 keeps every component at least at its mixed roofline, so the split is never below
  // tier 1's mixed part, and any component within reach may raise it.
  return within > 0;
}

SplitTier2Result SplitTier2Bound(const Problem& problem, const Tier2Options& options) {
  std::optional<tbb::global_control> threads;
  if (options.threads > 0) {
    threads.emplace(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(options.threads));
  }
  const Budget budget(options.time_limit, options.stop);
  const std::vector<int> component_of = LinkComponents(problem, options.modes);
  std::vector<std::vector<int>> members = Members(component_of);
  std::vector<Component> components;
  components.reserve(members.size());
  for (auto& ops : members) {
    components.push_back(BuildComponent(problem, options.modes, std::move(ops), component_of));
    components.back().relaxation.retention_subsets = options.retention_subsets;
    components.back().relaxation.max_contexts = options.max_contexts;
    components.back().relaxation.quick_contexts = options.quick_contexts;
    components.back().relaxation.symmetry = options.symmetry;
  }
  // Lemma W4: each component's share is also at least its tier-1 mixed-roofline bound.
  const std::vector<double> tier1 = ComponentLowerBounds(problem, options.modes, component_of);
  // A component that is the same problem as an earlier one (a repeated layer, an expert) is
  // priced once: its LP, and so its run, is the same.
  std::vector<size_t> priced_as(components.size());
  for (size_t i = 0; i < components.size(); ++i) {
    priced_as[i] = i;
    for (size_t j = 0; j < i; ++j) {
      if (priced_as[j] == j && SamePricing(components[j], components[i])) {
        priced_as[i] = j;
        break;
      }
    }
  }
  std::vector<Tier2Result> runs(components.size());
  tbb::parallel_for(size_t{0}, components.size(), [&](size_t i) {
    const Component& c = components[i];
    if (priced_as[i] != i || !c.own || !ContextPricer::Fits(*c.own)) return;  // a copy; kTooManyOps
    runs[i] = RunCoveringLp(*c.own, options.modes, budget, options.max_tile_configs, c.relaxation,
                            options.keep_until_exit);
  });
  SplitTier2Result result;
  result.status = Tier2Status::kConverged;
  result.components = static_cast<int>(components.size());
  for (size_t i = 0; i < components.size(); ++i) {
    const bool copy = priced_as[i] != i;
    const Tier2Result& run = runs[priced_as[i]];
    // The floor and the tier-1 part are reported a relative 1e-9 low, like every tier-2
    // certificate (Lemma T2), so that the sum stays below a schedule that meets it exactly.
    SplitTier2Component part;
    part.first_op = components[i].ops.front();
    part.ops = static_cast<int>(components[i].ops.size());
    part.tensors = components[i].own ? components[i].own->num_tensors() : 0;
    part.tier2 = run.value;
    part.floor = components[i].floor * (1 - 1e-9);
    part.tier1 = (i < tier1.size() ? tier1[i] : 0) * (1 - 1e-9);
    part.value = std::max({part.tier2, part.floor, part.tier1});
    part.tier2_summary = Tier2Summary(run);
    result.value += part.value;
    result.parts.push_back(std::move(part));
    result.largest = std::max(result.largest, static_cast<int>(components[i].ops.size()));
    if (copy) {
      ++result.copies;
    } else {
      result.contexts_costed += run.contexts_costed;
      result.lp_rounds += run.lp_rounds;
    }
    if (run.status == Tier2Status::kConverged) ++result.converged;
    else result.status = Worse(result.status, run.status);
  }
  result.seconds = budget.Elapsed();
  return result;
}

std::string SplitTier2Summary(const SplitTier2Result& result) {
  std::string line = std::to_string(result.components) + " link components (largest " +
                     std::to_string(result.largest) + " ops), " + std::to_string(result.converged) +
                     " priced to convergence, " + std::to_string(result.contexts_costed) + " contexts costed";
  if (result.copies > 0) {
    line += ", " + std::to_string(result.copies) + " priced as a copy of an identical component";
  }
  if (result.status != Tier2Status::kConverged) {
    line += "; the others at their floor or their certificate so far (first reason: " +
            std::string(Tier2StatusName(result.status)) + ")";
  }
  return line;
}

Result<std::vector<double>> SplitTier2Shares(const Problem& problem, const CostModes& modes,
                                             const Schedule& schedule, const std::vector<double>& latencies,
                                             const SplitTier2Result& result) {
  if (latencies.size() != schedule.subgraphs.size()) {
    return Status::Error("latencies: " + std::to_string(latencies.size()) + " for " +
                         std::to_string(schedule.subgraphs.size()) + " subgraphs");
  }
  const std::vector<int> component_of = LinkComponents(problem, modes);
  std::vector<int> part_of_component(problem.num_ops(), -1);  // component id -> index in parts
  for (size_t i = 0; i < result.parts.size(); ++i) {
    part_of_component[component_of[result.parts[i].first_op]] = static_cast<int>(i);
  }
  std::vector<double> shares(result.parts.size(), 0.0);
  for (size_t s = 0; s < schedule.subgraphs.size(); ++s) {
    const std::vector<int>& ops = schedule.subgraphs[s].ops;
    if (ops.empty()) continue;
    const int part = part_of_component[component_of[ops.front()]];
    for (int op : ops) {
      if (part < 0 || part_of_component[component_of[op]] != part) {
        return Status::Error("subgraph " + std::to_string(s) + ": ops " + std::to_string(ops.front()) + " and " +
                             std::to_string(op) + " lie in different link components (Lemma W1 rules that out)");
      }
    }
    shares[part] += latencies[s];
  }
  return shares;
}

}  // namespace tilesched::search
