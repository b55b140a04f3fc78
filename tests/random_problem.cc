// Random problem and schedule generators (see random_problem.h).
#include "random_problem.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "tilesched/demand.h"
#include "tilesched/graph.h"
#include "tilesched/grid.h"

namespace tilesched::testing {

namespace {

int64_t Pick(std::mt19937_64& rng, const std::vector<int64_t>& values) {
  return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
}

}  // namespace

Problem RandomProblem(uint64_t seed, const RandomProblemOptions& options) {
  std::mt19937_64 rng(seed);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  auto add_tensor = [&](int64_t rows, int64_t cols) {
    tensors.push_back({cols, rows});
    return static_cast<int>(tensors.size()) - 1;
  };
  add_tensor(Pick(rng, options.dims), Pick(rng, options.dims));
  const int num_ops = std::uniform_int_distribution<int>(options.min_ops, options.max_ops)(rng);
  auto any_tensor = [&]() {
    // Favour recent tensors so that chains form.
    const int n = static_cast<int>(tensors.size());
    const int back = std::min(n - 1, std::geometric_distribution<int>(0.4)(rng));
    return n - 1 - back;
  };
  while (static_cast<int>(ops.size()) < num_ops) {
    Op op;
    const int units = options.cost_units.empty()
                          ? std::uniform_int_distribution<int>(1, 40)(rng)
                          : options.cost_units[std::uniform_int_distribution<size_t>(
                                0, options.cost_units.size() - 1)(rng)];
    op.base_cost = static_cast<double>(units * 50);
    const int a = any_tensor();
    if (chance(options.matmul_share)) {
      op.type = OpType::kMatMul;
      const int64_t rows = tensors[a].height, k = tensors[a].width;
      int rhs = -1;
      for (int t = 0; t < static_cast<int>(tensors.size()); ++t) {
        if (tensors[t].height == k && chance(0.5)) rhs = t;
      }
      if (rhs < 0) rhs = add_tensor(k, Pick(rng, options.dims));
      op.inputs = {a, rhs};
      op.output = add_tensor(rows, tensors[rhs].width);
    } else {
      op.type = OpType::kPointwise;
      op.inputs = {a};
      for (int t = 0; t < static_cast<int>(tensors.size()); ++t) {
        if (t != a && tensors[t] == tensors[a] && chance(0.3)) op.inputs.push_back(t);
      }
      if (chance(0.2)) op.inputs.push_back(add_tensor(tensors[a].height, tensors[a].width));
      op.output = add_tensor(tensors[a].height, tensors[a].width);
    }
    ops.push_back(op);
  }
  Hardware hw;
  hw.native_w = options.native;
  hw.native_h = options.native;
  if (options.bandwidths.empty()) {
    hw.slow_memory_bandwidth = static_cast<double>(std::uniform_int_distribution<int>(5, 40)(rng));
  } else {
    hw.slow_memory_bandwidth = options.bandwidths[std::uniform_int_distribution<size_t>(
        0, options.bandwidths.size() - 1)(rng)];
  }
  if (options.max_capacity_fraction > 0) {
    int64_t total = 0;
    for (const Tensor& t : tensors) total += t.size();
    const double log_fraction = std::uniform_real_distribution<double>(
        std::log(options.min_capacity_fraction), std::log(options.max_capacity_fraction))(rng);
    hw.fast_memory_capacity = std::max(
        options.min_capacity,
        static_cast<int64_t>(std::llround(static_cast<double>(total) * std::exp(log_fraction))));
  } else {
    hw.fast_memory_capacity =
        std::uniform_int_distribution<int64_t>(options.min_capacity, options.max_capacity)(rng);
  }
  if (!options.natives.empty()) {
    hw.native_w = hw.native_h = Pick(rng, options.natives);
  }
  auto problem = Problem::Create(std::move(tensors), std::move(ops), hw);
  return std::move(problem).value();
}

Schedule RandomSchedule(const Problem& problem, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  const Graph& graph = problem.graph();
  const std::vector<int>& order = graph.topo_order();
  const Hardware& hw = problem.hardware();
  Schedule schedule;
  size_t i = 0;
  while (i < order.size()) {
    const size_t len = std::uniform_int_distribution<size_t>(1, 4)(rng);
    std::vector<int> chunk(order.begin() + static_cast<long>(i),
                           order.begin() + static_cast<long>(std::min(order.size(), i + len)));
    i += chunk.size();
    // Split the chunk into connected components (ops sharing a tensor).
    std::vector<int> comp(chunk.size());
    std::iota(comp.begin(), comp.end(), 0);
    auto find = [&](int x) {
      while (comp[x] != x) x = comp[x] = comp[comp[x]];
      return x;
    };
    for (size_t a = 0; a < chunk.size(); ++a) {
      for (size_t b = 0; b < a; ++b) {
        const Op& oa = problem.op(chunk[a]);
        const Op& ob = problem.op(chunk[b]);
        bool share = false;
        for (int t : oa.inputs) {
          share |= t == ob.output || std::find(ob.inputs.begin(), ob.inputs.end(), t) != ob.inputs.end();
        }
        for (int t : ob.inputs) share |= t == oa.output;
        if (share) comp[find(static_cast<int>(a))] = find(static_cast<int>(b));
      }
    }
    std::vector<std::vector<int>> groups;
    for (size_t root = 0; root < chunk.size(); ++root) {
      if (find(static_cast<int>(root)) != static_cast<int>(root)) continue;
      std::vector<int> group;
      for (size_t a = 0; a < chunk.size(); ++a) {
        if (find(static_cast<int>(a)) == static_cast<int>(root)) group.push_back(chunk[a]);
      }
      // Mostly keep to structurally valid subgraphs (one sink shape) so that costs get compared.
      if (!SubgraphPlan::Create(problem, group).ok() && chance(0.9)) {
        for (int o : group) groups.push_back({o});
      } else {
        groups.push_back(group);
      }
    }
    for (const std::vector<int>& group : groups) {
      Subgraph sg;
      sg.ops = group;
      // Occasionally recompute a producer of an input inside this subgraph.
      if (chance(0.2)) {
        for (int o : sg.ops) {
          for (int t : problem.op(o).inputs) {
            const int p = problem.producer(t);
            if (p >= 0 && std::find(sg.ops.begin(), sg.ops.end(), p) == sg.ops.end()) {
              sg.ops.push_back(p);
              break;
            }
          }
          if (sg.ops.size() > 1) break;
        }
      }
      std::vector<int64_t> sizes = {1, 3, 8, 16, 24, 32, 40, hw.native_w};
      sg.granularity.w = std::min(hw.native_w, Pick(rng, sizes));
      sg.granularity.h = std::min(hw.native_h, Pick(rng, sizes));
      int64_t min_k = hw.native_w;
      for (int o : sg.ops) {
        if (problem.op(o).type == OpType::kMatMul) min_k = std::min(min_k, problem.reduction_extent(o));
      }
      std::vector<int64_t> ks = {4, 8, 16, 24, 32, 48, min_k};
      sg.granularity.k = std::min(min_k, Pick(rng, ks));
      if (chance(0.3)) {
        for (int o : sg.ops) {
          if (chance(0.5)) sg.retained.push_back(problem.op(o).output);
        }
      }
      schedule.subgraphs.push_back(sg);
    }
  }
  // Random traversal orders need the grid size, which depends on the sinks; the differential
  // test fills them in after planning (see cost_model_test.cc).
  return schedule;
}

void RandomizeTraversals(const Problem& problem, Schedule* schedule, std::mt19937_64& rng) {
  for (Subgraph& sg : schedule->subgraphs) {
    auto plan = SubgraphPlan::Create(problem, sg.ops);
    if (!plan.ok() || sg.granularity.w < 1 || sg.granularity.h < 1) continue;
    const Grid grid(plan->width(), plan->height(), sg.granularity.w, sg.granularity.h);
    if (grid.num_tiles() > 4096) continue;
    const int choice = static_cast<int>(rng() % 3);
    if (choice == 0) continue;
    sg.traversal.resize(static_cast<size_t>(grid.num_tiles()));
    if (choice == 1) {
      std::iota(sg.traversal.begin(), sg.traversal.end(), 0);
      std::shuffle(sg.traversal.begin(), sg.traversal.end(), rng);
    } else {
      size_t i = 0;
      for (int64_t r = 0; r < grid.rows(); ++r) {
        for (int64_t c = 0; c < grid.cols(); ++c) {
          sg.traversal[i++] = r * grid.cols() + (r % 2 ? grid.cols() - 1 - c : c);
        }
      }
    }
  }
}

}  // namespace tilesched::testing
