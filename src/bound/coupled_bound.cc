// Lemmas L1-L2 of docs/bounds.md (src/bound/coupled_bound.h): traffic passes with each op's
// compute in its role added at the weight lambda / (1 - lambda) x bandwidth elements per unit.
#include "coupled_bound.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "bound_graph.h"
#include "role_graph.h"
#include "tilesched/graph.h"
#include "traffic_bound.h"

namespace tilesched::bound {
namespace {

// Lemma L2: the grid classes. Every op of a subgraph has a role whose grid is the subgraph's
// sink shape: its own output's shape (T, T), or a grid of a reader inside the subgraph, over a
// fusable edge (Lemmas M2, M5). So joining every op with its output's shape and with its
// fusable readers leaves every subgraph inside one class. Returns the class of each op.
std::vector<int> GridClasses(const Problem& problem, const TrafficBound& tb) {
  const int n = problem.num_ops();
  std::vector<std::pair<int64_t, int64_t>> shapes;
  Components components(2 * n);  // ops, then at most one node per distinct output shape
  for (int o = 0; o < n; ++o) {
    const Tensor& out = problem.tensor(problem.op(o).output);
    const std::pair<int64_t, int64_t> shape{out.height, out.width};
    const auto at = std::find(shapes.begin(), shapes.end(), shape);
    const int node = n + static_cast<int>(at - shapes.begin());
    if (at == shapes.end()) shapes.push_back(shape);
    components.Join(o, node);
    for (int e : problem.graph().successors(o)) {
      if (tb.EdgeFusable(o, e)) components.Join(o, e);
    }
  }
  std::vector<int> classes(static_cast<size_t>(n));
  for (int o = 0; o < n; ++o) classes[static_cast<size_t>(o)] = components.Find(o);
  return classes;
}

// Lemmas L1-L2: each grid class at its own lambda, from one traffic pass (no stores) per lambda
// of the grid; the stores that every schedule makes (graph outputs, Lemma M1's forced stores)
// in the class of their producer, whose subgraphs make them. 0 with a single class.
double ClassCoupledBound(const Problem& problem, const CostModes& modes) {
  static constexpr double kLambdas[] = {0, 0.1, 0.2, 0.3, 0.4, 0.5};
  const double bandwidth = problem.hardware().slow_memory_bandwidth;
  const int n = problem.num_ops();
  std::vector<int> classes;
  // Per class, indexed by its representative (an op or a shape node of GridClasses).
  std::vector<double> stores(static_cast<size_t>(2 * n), 0), best(static_cast<size_t>(2 * n), 0);
  for (double lambda : kLambdas) {
    const double coupling = lambda / (1 - lambda) * bandwidth;
    TrafficBound tb(problem, modes, /*with_stores=*/false, {}, Variant::kCapacity, coupling);
    tb.Run();
    if (classes.empty()) {
      classes = GridClasses(problem, tb);
      std::vector<int> distinct = classes;
      std::sort(distinct.begin(), distinct.end());
      if (std::unique(distinct.begin(), distinct.end()) - distinct.begin() < 2) return 0;
      std::vector<int> made = ForcedStores(problem, tb);
      made.insert(made.end(), problem.graph().graph_outputs().begin(), problem.graph().graph_outputs().end());
      for (int t : made) {
        if (problem.producer(t) < 0) continue;
        stores[static_cast<size_t>(classes[static_cast<size_t>(problem.producer(t))])] +=
            static_cast<double>(problem.tensor(t).size());
      }
    }
    std::vector<double> sum = stores;
    for (int o = 0; o < n; ++o) sum[static_cast<size_t>(classes[static_cast<size_t>(o)])] += tb.Charge(o);
    for (int c = 0; c < 2 * n; ++c) {
      best[static_cast<size_t>(c)] = std::max(best[static_cast<size_t>(c)], (1 - lambda) / bandwidth * sum[static_cast<size_t>(c)]);
    }
  }
  double total = 0;
  for (double value : best) total += value;
  return total;
}

}  // namespace

// Every lambda gives a bound; a hill climb in steps of 0.05 from 0.25 picks at most
// kCoupledPasses of them (each is one traffic pass). Computed only in Lemma K3's case (some
// MatMul may run its whole reduction in one k-step), where the tiles that load least are small
// ones that pay padded compute.
double CoupledLowerBound(const Problem& problem, const CostModes& modes) {
  constexpr int kCoupledPasses = 5;
  constexpr double kStep = 0.05;
  bool one_step = false;
  for (int o = 0; o < problem.num_ops(); ++o) {
    one_step |= problem.op(o).type == OpType::kMatMul && !AlwaysSplit(problem, modes, o);
  }
  if (!one_step) return 0;
  const double bandwidth = problem.hardware().slow_memory_bandwidth;
  auto at = [&](double lambda) {
    const double coupling = lambda / (1 - lambda) * bandwidth;
    const double charges =
        TrafficBound(problem, modes, /*with_stores=*/true, {}, Variant::kCapacity, coupling).Run();
    return (1 - lambda) / bandwidth * charges;
  };
  // With two or more grid classes, each at its own lambda (Lemma L2) replaces the single one
  // (its passes cost as much).
  const double classes = ClassCoupledBound(problem, modes);
  if (classes > 0) return classes;
  const double middle = at(0.25), lower = at(0.25 - kStep), upper = at(0.25 + kStep);
  if (middle >= lower && middle >= upper) return middle;
  const double direction = lower > upper ? -kStep : kStep;
  double lambda = 0.25 + direction, best = std::max(lower, upper);
  for (int pass = 3; pass < kCoupledPasses; ++pass) {
    lambda += direction;
    if (lambda < kStep / 2 || lambda > 1 - kStep / 2) break;
    const double value = at(lambda);
    if (value <= best) break;
    best = value;
  }
  return best;
}

}  // namespace tilesched::bound
