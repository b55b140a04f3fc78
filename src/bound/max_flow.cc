// Dinic's maximum flow (src/bound/max_flow.h).
#include "max_flow.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <queue>

namespace tilesched::bound {

namespace {
// Residuals below this fraction of the largest capacity count as saturated: rounding leaves
// crumbs that would otherwise cost a phase each.
constexpr double kRelativeEpsilon = 1e-12;
}  // namespace

MaxFlow::MaxFlow(int nodes) : out_(static_cast<size_t>(nodes)) {}

void MaxFlow::AddEdge(int from, int to, double capacity) {
  epsilon_ = std::max(epsilon_, capacity * kRelativeEpsilon);
  out_[static_cast<size_t>(from)].push_back(static_cast<int>(edges_.size()));
  edges_.push_back({to, capacity});
  out_[static_cast<size_t>(to)].push_back(static_cast<int>(edges_.size()));
  edges_.push_back({from, 0});
}

bool MaxFlow::Levels(int source, int sink) {
  level_.assign(out_.size(), -1);
  std::queue<int> queue;
  level_[static_cast<size_t>(source)] = 0;
  queue.push(source);
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop();
    for (int e : out_[static_cast<size_t>(v)]) {
      const Edge& edge = edges_[static_cast<size_t>(e)];
      if (edge.capacity > epsilon_ && level_[static_cast<size_t>(edge.to)] < 0) {
        level_[static_cast<size_t>(edge.to)] = level_[static_cast<size_t>(v)] + 1;
        queue.push(edge.to);
      }
    }
  }
  return level_[static_cast<size_t>(sink)] >= 0;
}

double MaxFlow::Push(int node, int sink, double limit) {
  if (node == sink) return limit;
  auto& outs = out_[static_cast<size_t>(node)];
  for (int& i = next_[static_cast<size_t>(node)]; i < static_cast<int>(outs.size()); ++i) {
    const int e = outs[static_cast<size_t>(i)];
    Edge& edge = edges_[static_cast<size_t>(e)];
    if (edge.capacity <= epsilon_ ||
        level_[static_cast<size_t>(edge.to)] != level_[static_cast<size_t>(node)] + 1) {
      continue;
    }
    const double pushed = Push(edge.to, sink, std::min(limit, edge.capacity));
    if (pushed > 0) {
      edge.capacity -= pushed;
      edges_[static_cast<size_t>(e ^ 1)].capacity += pushed;
      return pushed;
    }
  }
  return 0;
}

double MaxFlow::Run(int source, int sink) {
  double total = 0;
  while (Levels(source, sink)) {
    next_.assign(out_.size(), 0);
    for (;;) {
      const double pushed = Push(source, sink, std::numeric_limits<double>::infinity());
      if (pushed <= 0) break;
      total += pushed;
    }
  }
  return total;
}

}  // namespace tilesched::bound
