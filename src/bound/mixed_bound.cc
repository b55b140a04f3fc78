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
};

// Lemma G2: a subgraph holding producer a and a reader b of its output computes a in a role b
// demands; when that costs at least every L excess more than a's cheapest compute, such a
// subgraph hides nothing. The others are connected (rule 3.2) without these links; readers of
// one tensor are linked (rule 3.2).
Components PairableComponents(const Problem& problem, const CostModes& modes, const TrafficBound& tb,
                              const std::vector<double>& compute, double excess_l) {
  const int n = problem.num_ops();
  Components components(n);
  for (const auto& [a, b] : ReadEdges(problem)) {
    double extra = std::numeric_limits<double>::infinity();
    for (const Role& d : tb.DemandedOf(a, b)) {
      extra = std::min(extra, RoleCompute(problem, a, d, modes.matmul_reduction) - compute[static_cast<size_t>(a)]);
    }
    if (extra < excess_l) components.Join(a, b);
  }
  std::vector<int> reader_of(static_cast<size_t>(problem.num_tensors()), -1);
  for (int b = 0; b < n; ++b) {
    for (int t : problem.op(b).inputs) {
      int& first = reader_of[static_cast<size_t>(t)];
      if (first < 0) first = b;
      else components.Join(first, b);
    }
  }
  return components;
}

// Lemmas G1-G3 once. `own_kinds` restricts each op's own charge (Lemma G3, empty: none); the
// pass is valid only when its excess_l is at most the threshold own_kinds was built with.
MixedPass RunMixedPass(const Problem& problem, const CostModes& modes, std::vector<uint16_t> own_kinds,
                       Variant variant) {
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
  double forced_stores = 0;
  for (int t : ForcedStores(problem, tb)) forced_stores += static_cast<double>(problem.tensor(t).size()) / bandwidth;
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
  double excess_h = 0, excess_l = forced_stores;
  for (int o : heavy) excess_h += compute[static_cast<size_t>(o)] - memory[static_cast<size_t>(o)];
  for (int o : light) excess_l += memory[static_cast<size_t>(o)] - compute[static_cast<size_t>(o)];
  pass.excess_l = excess_l;
  assert(tb.HaveReach());
  Components components = PairableComponents(problem, modes, tb, compute, excess_l);
  // Nodes: source, H ops, L ops, the stores (compatible with every op), sink. Edges H x L:
  // quadratic, bounded by kMaxMixedOps.
  const int nh = static_cast<int>(heavy.size()), nl = static_cast<int>(light.size());
  const int source = 0, stores = 1 + nh + nl, sink = stores + 1;
  MaxFlow flow(sink + 1);
  for (int i = 0; i < nh; ++i) {
    const int a = heavy[static_cast<size_t>(i)];
    flow.AddEdge(source, 1 + i, compute[static_cast<size_t>(a)] - memory[static_cast<size_t>(a)]);
    for (int j = 0; j < nl; ++j) {
      const int b = light[static_cast<size_t>(j)];
      if (!tb.Separated(a, b) && components.Find(a) == components.Find(b)) flow.AddEdge(1 + i, 1 + nh + j, excess_h);
    }
    if (forced_stores > 0) flow.AddEdge(1 + i, stores, excess_h);
  }
  for (int j = 0; j < nl; ++j) {
    const int b = light[static_cast<size_t>(j)];
    flow.AddEdge(1 + nh + j, sink, memory[static_cast<size_t>(b)] - compute[static_cast<size_t>(b)]);
  }
  if (forced_stores > 0) flow.AddEdge(stores, sink, forced_stores);
  pass.bound = total - flow.Run(source, sink);
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

double MixedBound(const Problem& problem, const CostModes& modes, Variant variant) {
  if (problem.num_ops() > kMaxMixedOps) return 0;
  // Without restricted charges the pass is always valid. A restricted pass built with
  // threshold X is valid when its own L excess is at most X; X is raised to the excess seen.
  const MixedPass open = RunMixedPass(problem, modes, {}, variant);
  double best = open.bound;
  double threshold = open.excess_l;
  TrafficBound unrestricted(problem, modes, /*with_stores=*/false);
  unrestricted.Run();
  for (int attempt = 0; attempt < 4; ++attempt) {
    const MixedPass pass =
        RunMixedPass(problem, modes, CheapKinds(problem, modes, unrestricted, threshold), variant);
    if (pass.excess_l <= threshold) best = std::max(best, pass.bound);
    if (pass.excess_l == threshold) break;
    threshold = pass.excess_l;
  }
  return best;
}

double MixedLowerBound(const Problem& problem, const CostModes& modes) {
  return MixedBound(problem, modes, Variant::kPlain);
}

double CapacityLowerBound(const Problem& problem, const CostModes& modes) {
  const double traffic = TrafficBound(problem, modes, /*with_stores=*/true, {}, Variant::kCapacity).Run();
  return std::max(traffic / problem.hardware().slow_memory_bandwidth, MixedBound(problem, modes, Variant::kCapacity));
}

double SharedLowerBound(const Problem& problem, const CostModes& modes) {
  // A split input needs a reader owning an operand that can be resident, whatever alpha is
  // (alpha > 0); without one Lemma S1 changes nothing and the part is not computed (0).
  const SharedPlan any = PlanSharedInputs(problem, std::vector<double>(static_cast<size_t>(problem.num_tensors()), 0));
  if (std::none_of(any.split.begin(), any.split.end(), [](bool split) { return split; })) return 0;
  const double traffic = TrafficBound(problem, modes, /*with_stores=*/true, {}, Variant::kShared).Run();
  return std::max(traffic / problem.hardware().slow_memory_bandwidth, MixedBound(problem, modes, Variant::kShared));
}

}  // namespace tilesched::bound
