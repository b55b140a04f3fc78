// Graph: the op DAG of a Problem (Boost.Graph hidden inside), with topological order,
// producers, consumers, and graph inputs/outputs.
//
// Entry point: Graph::Create(num_tensors, ops) fails with a message naming an op on a cycle or a
// tensor written twice. Vertices are ops; an edge u->v means v reads a tensor u writes.
#ifndef TILESCHED_GRAPH_H_
#define TILESCHED_GRAPH_H_

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tilesched/problem.h"
#include "tilesched/status.h"

namespace tilesched {

// Attributes (key -> value) of one Graphviz element; values are quoted as DOT needs.
using DotAttributes = std::map<std::string, std::string>;

// One cluster of Graph::ToClusteredDot. Graphviz outlines a subgraph only when its name starts
// with "cluster".
struct DotCluster {
  std::string name;
  DotAttributes attributes;
  // When not empty, an extra node drawn inside the cluster (a note about it); it also keeps a
  // cluster whose ops all sit in other clusters from vanishing.
  DotAttributes note;
};

// How Graph::ToClusteredDot draws the DAG.
struct DotLayout {
  DotAttributes graph;  // graph-wide attributes (rankdir, fontname, ...)
  DotAttributes node;   // node defaults
  DotAttributes edge;   // edge defaults
  std::vector<DotAttributes> vertices;  // one per op
  std::vector<int> cluster_of;          // one per op: an index into clusters, or -1 for none
  std::vector<DotCluster> clusters;
};

class Graph {
 public:
  static Result<std::shared_ptr<const Graph>> Create(int num_tensors, const std::vector<Op>& ops);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  int num_ops() const;
  int num_tensors() const { return static_cast<int>(producer_.size()); }
  // Ops in a topological order (producers before consumers; ties by op id).
  const std::vector<int>& topo_order() const { return topo_order_; }
  // Position of op o in topo_order().
  int topo_rank(int o) const { return topo_rank_[o]; }
  int producer(int t) const { return producer_[t]; }
  std::span<const int> consumers(int t) const { return consumers_[t]; }
  // Distinct ops that read a tensor op o writes (successors) / write a tensor o reads.
  std::span<const int> successors(int o) const { return successors_[o]; }
  std::span<const int> predecessors(int o) const { return predecessors_[o]; }
  // Tensors no op produces but some op reads / tensors some op produces but no op reads.
  const std::vector<int>& graph_inputs() const { return graph_inputs_; }
  const std::vector<int>& graph_outputs() const { return graph_outputs_; }
  // Graphviz DOT of the op DAG; `label(o)` names vertex o and `attributes(o)` adds attributes.
  std::string ToDot(const std::vector<std::string>& labels,
                    const std::vector<std::string>& attributes) const;
  // Graphviz DOT of the op DAG with op vertices grouped into clusters, written by Boost.Graph's
  // write_graphviz over a boost::subgraph (one child per cluster). Vertex o is op o; cluster c's
  // note, if any, is vertex num_ops() + (number of notes before it).
  std::string ToClusteredDot(const DotLayout& layout) const;

 private:
  struct Impl;
  Graph();

  std::unique_ptr<Impl> impl_;
  std::vector<int> topo_order_;
  std::vector<int> topo_rank_;
  std::vector<int> producer_;
  std::vector<std::vector<int>> consumers_;
  std::vector<std::vector<int>> successors_;
  std::vector<std::vector<int>> predecessors_;
  std::vector<int> graph_inputs_;
  std::vector<int> graph_outputs_;
};

}  // namespace tilesched

#endif  // TILESCHED_GRAPH_H_
