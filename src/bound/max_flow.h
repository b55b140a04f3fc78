// Maximum flow on a small directed graph with real capacities (Dinic's algorithm).
//
// Entry point: MaxFlow (AddEdge, Run). Used by the mixed-roofline lower bound (docs/bounds.md,
// Lemma G1) to bound how much of the compute-heavy ops' excess can hide behind memory-heavy
// ops' excess when they share subgraphs. O(V^2 E) worst case; callers keep V small.
#ifndef TILESCHED_BOUND_MAX_FLOW_H_
#define TILESCHED_BOUND_MAX_FLOW_H_

#include <vector>

namespace tilesched::bound {

class MaxFlow {
 public:
  explicit MaxFlow(int nodes);
  void AddEdge(int from, int to, double capacity);
  // The value of a maximum flow from `source` to `sink`; edges keep their residuals.
  double Run(int source, int sink);

 private:
  struct Edge {
    int to;
    double capacity;
  };
  bool Levels(int source, int sink);
  double Push(int node, int sink, double limit);

  std::vector<Edge> edges_;  // edge i and i ^ 1 are a pair (forward, residual)
  std::vector<std::vector<int>> out_;
  std::vector<int> level_, next_;
  double epsilon_ = 0;
};

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_MAX_FLOW_H_
