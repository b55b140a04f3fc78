// Graph: Boost.Graph adjacency_list of ops; cycle detection by DFS back edges, topological
// order by Kahn's algorithm with the smallest ready op id first (deterministic). DOT export with
// Boost.Graph's write_graphviz, clusters through a boost::subgraph.

// GCC 12 reports -Wmaybe-uninitialized inside Boost's edge iterator (its boost::optional
// member) and the std::vector code it inlines once write_graphviz's subgraph overload is
// instantiated; the iterator is always set before use. The warning is silenced for the headers
// only (GCC attributes it to their lines), not for this file's own code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "tilesched/graph.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <sstream>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/graph/subgraph.hpp>
#pragma GCC diagnostic pop

namespace tilesched {

using BoostDag = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;

struct Graph::Impl {
  BoostDag dag;
};

namespace {

// Records the first back edge the DFS meets: its target is on a cycle.
class CycleFinder : public boost::default_dfs_visitor {
 public:
  explicit CycleFinder(std::pair<int, int>* found) : found_(found) {}
  void back_edge(BoostDag::edge_descriptor e, const BoostDag& g) {
    if (found_->first < 0) {
      *found_ = {static_cast<int>(boost::source(e, g)), static_cast<int>(boost::target(e, g))};
    }
  }

 private:
  std::pair<int, int>* found_;
};

}  // namespace

Graph::Graph() : impl_(std::make_unique<Impl>()) {}
Graph::~Graph() = default;

int Graph::num_ops() const { return static_cast<int>(boost::num_vertices(impl_->dag)); }

Result<std::shared_ptr<const Graph>> Graph::Create(int num_tensors, const std::vector<Op>& ops) {
  std::shared_ptr<Graph> graph(new Graph());
  const int num_ops = static_cast<int>(ops.size());
  graph->producer_.assign(num_tensors, -1);
  graph->consumers_.assign(num_tensors, {});
  for (int o = 0; o < num_ops; ++o) {
    const int t = ops[o].output;
    if (graph->producer_[t] >= 0) {
      return Status::Error("tensor " + std::to_string(t) + " is produced twice (ops " +
                           std::to_string(graph->producer_[t]) + " and " + std::to_string(o) +
                           ")");
    }
    graph->producer_[t] = o;
  }
  for (int o = 0; o < num_ops; ++o) {
    for (int t : ops[o].inputs) {
      auto& list = graph->consumers_[t];
      if (list.empty() || list.back() != o) list.push_back(o);
    }
  }

  BoostDag& dag = graph->impl_->dag;
  dag = BoostDag(num_ops);
  graph->successors_.assign(num_ops, {});
  graph->predecessors_.assign(num_ops, {});
  for (int o = 0; o < num_ops; ++o) {
    std::vector<int> preds;
    for (int t : ops[o].inputs) {
      if (graph->producer_[t] >= 0) preds.push_back(graph->producer_[t]);
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (int p : preds) {
      boost::add_edge(p, o, dag);
      graph->successors_[p].push_back(o);
    }
    graph->predecessors_[o] = std::move(preds);
  }

  std::pair<int, int> back_edge{-1, -1};
  CycleFinder finder(&back_edge);
  boost::depth_first_search(dag, boost::visitor(finder));
  if (back_edge.first >= 0) {
    // The back edge writer -> reader means reader reads writer's output; reader is a DFS
    // ancestor of writer, so writer depends on reader.
    const int writer = back_edge.first;
    const int reader = back_edge.second;
    return Status::Error("the graph has a cycle through op " + std::to_string(reader) +
                         " (op " + std::to_string(writer) + " writes tensor " +
                         std::to_string(ops[writer].output) + ", which op " +
                         std::to_string(reader) + " reads, and op " + std::to_string(writer) +
                         " depends on op " + std::to_string(reader) + ")");
  }

  std::vector<int> in_degree(num_ops);
  for (int o = 0; o < num_ops; ++o) in_degree[o] = static_cast<int>(boost::in_degree(o, dag));
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int o = 0; o < num_ops; ++o) {
    if (in_degree[o] == 0) ready.push(o);
  }
  graph->topo_rank_.assign(num_ops, -1);
  while (!ready.empty()) {
    const int o = ready.top();
    ready.pop();
    graph->topo_rank_[o] = static_cast<int>(graph->topo_order_.size());
    graph->topo_order_.push_back(o);
    for (auto [it, end] = boost::adjacent_vertices(o, dag); it != end; ++it) {
      const int next = static_cast<int>(*it);
      if (--in_degree[next] == 0) ready.push(next);
    }
  }
  assert(static_cast<int>(graph->topo_order_.size()) == num_ops);

  for (int t = 0; t < num_tensors; ++t) {
    const bool produced = graph->producer_[t] >= 0;
    const bool consumed = !graph->consumers_[t].empty();
    if (!produced && consumed) graph->graph_inputs_.push_back(t);
    if (produced && !consumed) graph->graph_outputs_.push_back(t);
  }
  return std::shared_ptr<const Graph>(std::move(graph));
}

std::string Graph::ToDot(const std::vector<std::string>& labels,
                         const std::vector<std::string>& attributes) const {
  std::ostringstream out;
  boost::write_graphviz(
      out, impl_->dag,
      [&](std::ostream& os, BoostDag::vertex_descriptor v) {
        os << "[label=\"" << labels[v] << "\"";
        if (!attributes[v].empty()) os << ", " << attributes[v];
        os << "]";
      },
      boost::default_writer(),
      [](std::ostream& os) { os << "rankdir=TB;\nnode [shape=box, style=\"rounded,filled\"];\n"; });
  return out.str();
}

namespace {

// The property bundle boost's subgraph overload of write_graphviz reads: attribute maps on
// vertices, edges and (per subgraph) the graph, plus the subgraph's name.
using ClusterDag = boost::subgraph<boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS,
    boost::property<boost::vertex_attribute_t, DotAttributes>,
    boost::property<boost::edge_index_t, int,
                    boost::property<boost::edge_attribute_t, DotAttributes>>,
    boost::property<boost::graph_name_t, std::string,
                    boost::property<boost::graph_graph_attribute_t, DotAttributes,
                                    boost::property<boost::graph_vertex_attribute_t, DotAttributes,
                                                    boost::property<boost::graph_edge_attribute_t,
                                                                    DotAttributes>>>>>>;

}  // namespace

std::string Graph::ToClusteredDot(const DotLayout& layout) const {
  const int ops = num_ops();
  assert(static_cast<int>(layout.vertices.size()) == ops);
  assert(static_cast<int>(layout.cluster_of.size()) == ops);
  int notes = 0;
  for (const DotCluster& c : layout.clusters) notes += c.note.empty() ? 0 : 1;

  ClusterDag root(static_cast<size_t>(ops + notes));
  boost::get_property(root, boost::graph_name) = "G";
  boost::get_property(root, boost::graph_graph_attribute) = layout.graph;
  boost::get_property(root, boost::graph_vertex_attribute) = layout.node;
  boost::get_property(root, boost::graph_edge_attribute) = layout.edge;
  for (int o = 0; o < ops; ++o) boost::put(boost::vertex_attribute, root, o, layout.vertices[o]);
  for (auto [it, end] = boost::edges(impl_->dag); it != end; ++it) {
    boost::add_edge(boost::source(*it, impl_->dag), boost::target(*it, impl_->dag), root);
  }

  int next_note = ops;
  for (size_t c = 0; c < layout.clusters.size(); ++c) {
    const DotCluster& cluster = layout.clusters[c];
    ClusterDag& child = root.create_subgraph();
    boost::get_property(child, boost::graph_name) = cluster.name;
    boost::get_property(child, boost::graph_graph_attribute) = cluster.attributes;
    for (int o = 0; o < ops; ++o) {
      if (layout.cluster_of[o] == static_cast<int>(c)) boost::add_vertex(o, child);
    }
    if (!cluster.note.empty()) {
      boost::put(boost::vertex_attribute, root, next_note, cluster.note);
      boost::add_vertex(next_note++, child);
    }
  }
  std::ostringstream out;
  boost::write_graphviz(out, root);
  return out.str();
}

}  // namespace tilesched
