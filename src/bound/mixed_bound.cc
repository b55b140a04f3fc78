// Lemmas G1-G3 of docs/bounds.md (src/bound/mixed_bound.h): the traffic bound's charges without
// stores (each a load of the op's first subgraph), compute-heavy and memory-heavy ops paired in
// a bipartite max flow, at most five traffic passes (Lemma G3).
#include "mixed_bound.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "bound_graph.h"
#include "max_flow.h"
#include "shared_inputs.h"
#include "tilesched/graph.h"

namespace tilesched::bound {
namespace {

// Producer -> reader edges of the graph (b reads a's output), each once.
std::vector<std::pair<int, int>> ReadEdges(const Problem& problem) {
  std::vector<std::pair<int, int>> edges;
  for (int a = 0; a < problem.num_ops(); ++a) {
    const int t = problem.op(a).output;
    for (int b : problem.graph().successors(a)) {
      const auto& ins = problem.op(b).inputs;
      if (std::find(ins.begin(), ins.end(), t) != ins.end()) edges.emplace_back(a, b);
    }
  }
  return edges;
}

struct MixedPass {
  double bound = 0;
  double excess_l = 0;  // the L excess of the pass, including the forced stores
  std::vector<double> by_component;  // Lemma W4: the same per link component (when asked)
};

// Lemmas G2 and G4: per op a, the ops a subgraph that hides anything can hold with a as a first
// op. Lemma G2: a subgraph holding producer p and a reader e of its output computes p in a role e
// demands; when that costs at least every L excess more than p's cheapest compute, such a
// subgraph hides nothing. The others are connected (rule 3.2) over the other fusable edges
// (Lemma M5) and over the reads of one tensor. Lemma G4: a subgraph where a is first holds no op
// that can never be in a's first subgraph (Lemma M6), so its ops are connected to a avoiding
// those. One search from every op: quadratic in ops, bounded by kMaxMixedOps.
std::vector<Bitset> PairableReach(const Problem& problem, const CostModes& modes, const TrafficBound& tb,
                                  const std::vector<double>& compute, double excess_l) {
  const int n = problem.num_ops();
  std::vector<std::vector<int>> linked(static_cast<size_t>(n));
  for (const auto& [p, e] : ReadEdges(problem)) {
    double extra = std::numeric_limits<double>::infinity();
    for (const Role& d : tb.DemandedOf(p, e)) {
      extra = std::min(extra, RoleCompute(problem, p, d, modes.matmul_reduction) - compute[static_cast<size_t>(p)]);
    }
    if (extra < excess_l) {
      linked[static_cast<size_t>(p)].push_back(e);
      linked[static_cast<size_t>(e)].push_back(p);
    }
  }
  const ReadLists reads = ReadsOf(problem);
  std::vector<Bitset> reach(static_cast<size_t>(n), Bitset(n));
  std::vector<int> seen_tensor(static_cast<size_t>(problem.num_tensors()), -1);  // the last search that met it
  std::vector<int> stack;
  for (int a = 0; a < n; ++a) {
    Bitset& seen = reach[static_cast<size_t>(a)];
    auto visit = [&](int e) {
      if (seen.Test(e) || tb.Excluded(a, e)) return;
      seen.Set(e);
      stack.push_back(e);
    };
    seen.Set(a);
    stack.assign(1, a);
    while (!stack.empty()) {
      const int o = stack.back();
      stack.pop_back();
      for (int e : linked[static_cast<size_t>(o)]) visit(e);
      for (int t : problem.op(o).inputs) {
        if (seen_tensor[static_cast<size_t>(t)] == a) continue;
        seen_tensor[static_cast<size_t>(t)] = a;
        for (const Read& r : reads[static_cast<size_t>(t)]) visit(r.op);
      }
    }
  }
  return reach;
}

// Lemmas G1-G3 once, G4-G6 ruling pairs out (`sink_shapes` false: G6 left out). `own_kinds`
// restricts each op's own charge (Lemma G3, empty: none); the pass is valid only when its
// excess_l is at most the threshold own_kinds was built with.
MixedPass RunMixedPass(const Problem& problem, const CostModes& modes, std::vector<uint16_t> own_kinds,
                       Variant variant, const std::vector<int>* component_of, bool sink_shapes) {
  const int n = problem.num_ops();
  TrafficBound tb(problem, modes, /*with_stores=*/false, std::move(own_kinds), variant);
  tb.Run();
  const Graph& g = problem.graph();
  const double bandwidth = problem.hardware().slow_memory_bandwidth;
  std::vector<double> compute(static_cast<size_t>(n)), memory(static_cast<size_t>(n));
  std::vector<bool> is_output(static_cast<size_t>(problem.num_tensors()), false);
  for (int t : g.graph_outputs()) is_output[static_cast<size_t>(t)] = true;
  for (int o = 0; o < n; ++o) {
    compute[static_cast<size_t>(o)] = TiledCompute(problem, tb, o, modes.matmul_reduction);
    // A graph output is a sink of every subgraph holding its producer, always written (3.6).
    const int out = problem.op(o).output;
    const double store = is_output[static_cast<size_t>(out)] ? static_cast<double>(problem.tensor(out).size()) : 0;
    memory[static_cast<size_t>(o)] = (tb.Charge(o) + store) / bandwidth;
  }
  const std::vector<int> forced = ForcedStores(problem, tb);
  double forced_stores = 0;
  for (int t : forced) forced_stores += static_cast<double>(problem.tensor(t).size()) / bandwidth;
  // Lemma G1: sum over ops of max(compute, memory) minus the largest excess that can be paired
  // across compute-heavy (H) and memory-heavy (L) ops that may share a first subgraph.
  MixedPass pass;
  double total = forced_stores;
  std::vector<int> heavy, light;
  for (int o = 0; o < n; ++o) {
    const double c = compute[static_cast<size_t>(o)], m = memory[static_cast<size_t>(o)];
    total += std::max(c, m);
    if (c > m) heavy.push_back(o);
    if (m > c) light.push_back(o);
  }
  double excess_l = forced_stores;
  for (int o : light) excess_l += memory[static_cast<size_t>(o)] - compute[static_cast<size_t>(o)];
  pass.excess_l = excess_l;
  assert(tb.HaveReach());
  const std::vector<Bitset> reach = PairableReach(problem, modes, tb, compute, excess_l);
  // Lemma G1's flow over the H ops `hs`, the L ops `ls` and the forced stores `fs`. Nodes:
  // source, H ops, L ops, one per forced store, sink. A forced store is made by a subgraph
  // holding its producer (Lemma G5), so it pairs with the H ops that can share one with it.
  // Edges H x (L + stores): quadratic, bounded by kMaxMixedOps.
  // The pair edges carry the H ops' whole excess (no limit of their own); it is the excess of
  // `hs`, not of the whole problem, so that MaxFlow's cut-off (relative to its largest
  // capacity) is on the scale of the network's own values.
  auto paired = [&](const std::vector<int>& hs, const std::vector<int>& ls, const std::vector<int>& fs) {
    const int nh = static_cast<int>(hs.size()), nl = static_cast<int>(ls.size());
    const int stores = 1 + nh + nl, sink = stores + static_cast<int>(fs.size()), source = 0;
    double unlimited = 0;
    for (int a : hs) unlimited += compute[static_cast<size_t>(a)] - memory[static_cast<size_t>(a)];
    MaxFlow flow(sink + 1);
    for (int i = 0; i < nh; ++i) {
      const int a = hs[static_cast<size_t>(i)];
      const Bitset& from_a = reach[static_cast<size_t>(a)];
      flow.AddEdge(source, 1 + i, compute[static_cast<size_t>(a)] - memory[static_cast<size_t>(a)]);
      for (int j = 0; j < nl; ++j) {
        const int b = ls[static_cast<size_t>(j)];
        // Lemma G4: a and b first in one subgraph are connected there avoiding what neither's
        // first subgraph can hold; Lemma G6: their sinks there have one shape.
        if (from_a.Test(b) && reach[static_cast<size_t>(b)].Test(a) && (!sink_shapes || tb.SinksMayMeet(a, b))) {
          flow.AddEdge(1 + i, 1 + nh + j, unlimited);
        }
      }
      for (size_t k = 0; k < fs.size(); ++k) {
        if (from_a.Test(problem.producer(fs[k])) && (!sink_shapes || tb.MayWriteShapeOf(a, fs[k]))) {
          flow.AddEdge(1 + i, stores + static_cast<int>(k), unlimited);
        }
      }
    }
    for (int j = 0; j < nl; ++j) {
      const int b = ls[static_cast<size_t>(j)];
      flow.AddEdge(1 + nh + j, sink, memory[static_cast<size_t>(b)] - compute[static_cast<size_t>(b)]);
    }
    for (size_t k = 0; k < fs.size(); ++k) {
      flow.AddEdge(stores + static_cast<int>(k), sink, static_cast<double>(problem.tensor(fs[k]).size()) / bandwidth);
    }
    return flow.Run(source, sink);
  };
  pass.bound = total - paired(heavy, light, forced);
  if (component_of == nullptr) return pass;
  // Lemma W4: every subgraph lies in one link component (W1), and so does every group g(S) and
  // every forced store it makes (its producer is in S); the groups' flows within a component
  // form a flow of the network restricted to that component's nodes.
  const size_t count = component_of->empty() ? 0 : static_cast<size_t>(*std::max_element(component_of->begin(), component_of->end())) + 1;
  std::vector<std::vector<int>> hs(count), ls(count), fs(count);
  pass.by_component.assign(count, 0);
  for (int o : heavy) hs[static_cast<size_t>((*component_of)[static_cast<size_t>(o)])].push_back(o);
  for (int o : light) ls[static_cast<size_t>((*component_of)[static_cast<size_t>(o)])].push_back(o);
  for (int t : forced) {
    const size_t c = static_cast<size_t>((*component_of)[static_cast<size_t>(problem.producer(t))]);
    fs[c].push_back(t);
    pass.by_component[c] += static_cast<double>(problem.tensor(t).size()) / bandwidth;
  }
  for (int o = 0; o < n; ++o) {
    pass.by_component[static_cast<size_t>((*component_of)[static_cast<size_t>(o)])] +=
        std::max(compute[static_cast<size_t>(o)], memory[static_cast<size_t>(o)]);
  }
  for (size_t c = 0; c < count; ++c) pass.by_component[c] -= paired(hs[c], ls[c], fs[c]);
  return pass;
}

// Lemma G3: in a subgraph without a costly pair (Lemma G2, threshold `threshold`), op a has
// role (tile, tile) or one its readers there demand at less than `threshold` extra compute.
// `tb` is the unrestricted traffic pass (no stores), the same for every threshold.
std::vector<uint16_t> CheapKinds(const Problem& problem, const CostModes& modes, const TrafficBound& tb,
                                 double threshold) {
  std::vector<uint16_t> kinds(static_cast<size_t>(problem.num_ops()),
                              static_cast<uint16_t>(1u << RoleKey(DimKind::kTile, DimKind::kTile)));
  for (const auto& [a, b] : ReadEdges(problem)) {
    const double own = TiledCompute(problem, tb, a, modes.matmul_reduction);
    for (const Role& d : tb.DemandedOf(a, b)) {
      if (RoleCompute(problem, a, d, modes.matmul_reduction) - own < threshold) {
        kinds[static_cast<size_t>(a)] |= static_cast<uint16_t>(1u << RoleKey(d.rows, d.cols));
      }
    }
  }
  return kinds;
}

}  // namespace

double MixedBound(const Problem& problem, const CostModes& modes, Variant variant,
                  const std::vector<int>* component_of, std::vector<double>* by_component, bool sink_shapes) {
  if (problem.num_ops() > kMaxMixedOps) return 0;
  // Lemma W4: a valid pass bounds each component's share by its own part; per component the
  // best valid pass is kept.
  auto keep = [&](const MixedPass& pass) {
    if (by_component == nullptr) return;
    by_component->resize(pass.by_component.size(), 0);
    for (size_t c = 0; c < pass.by_component.size(); ++c) {
      (*by_component)[c] = std::max((*by_component)[c], pass.by_component[c]);
    }
  };
  // Without restricted charges the pass is always valid. A restricted pass built with
  // threshold X is valid when its own L excess is at most X; X is raised to the excess seen.
  const MixedPass open = RunMixedPass(problem, modes, {}, variant, component_of, sink_shapes);
  keep(open);
  double best = open.bound;
  double threshold = open.excess_l;
  TrafficBound unrestricted(problem, modes, /*with_stores=*/false);
  unrestricted.Run();
  for (int attempt = 0; attempt < 4; ++attempt) {
    const MixedPass pass =
        RunMixedPass(problem, modes, CheapKinds(problem, modes, unrestricted, threshold), variant, component_of,
                     sink_shapes);
    if (pass.excess_l <= threshold) {
      best = std::max(best, pass.bound);
      keep(pass);
    }
    if (pass.excess_l == threshold) break;
    threshold = pass.excess_l;
  }
  return best;
}

double MixedLowerBound(const Problem& problem, const CostModes& modes) {
  return MixedBound(problem, modes, Variant::kPlain);
}

double CapacityLowerBound(const Problem& problem, const CostModes& modes) {
  // With stores, Lemma M8's gains and Lemma J1 exclude each other (TrafficBound::JoinsUsed):
  // one pass with each.
  ChargeLemmas joins;
  joins.pair_gains = false;
  const double traffic =
      std::max(TrafficBound(problem, modes, /*with_stores=*/true, {}, Variant::kCapacity).Run(),
               TrafficBound(problem, modes, /*with_stores=*/true, {}, Variant::kCapacity, 0, joins).Run());
  return std::max(traffic / problem.hardware().slow_memory_bandwidth, MixedBound(problem, modes, Variant::kCapacity));
}

bool AnySharedSplit(const Problem& problem) {
  const SharedPlan any = PlanSharedInputs(problem, std::vector<double>(static_cast<size_t>(problem.num_tensors()), 0));
  return std::any_of(any.split.begin(), any.split.end(), [](bool split) { return split; });
}

double SharedLowerBound(const Problem& problem, const CostModes& modes) {
  // A split input needs a reader owning an operand that can be resident, whatever alpha is
  // (alpha > 0); without one Lemma S1 changes nothing and the part is not computed (0).
  if (!AnySharedSplit(problem)) return 0;
  const double traffic = TrafficBound(problem, modes, /*with_stores=*/true, {}, Variant::kShared).Run();
  return std::max(traffic / problem.hardware().slow_memory_bandwidth, MixedBound(problem, modes, Variant::kShared));
}

}  // namespace tilesched::bound
