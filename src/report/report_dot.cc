// DAG drawing: op vertices labelled with type and output shape, clusters per subgraph.
#include "report_dot.h"

#include <algorithm>
#include <cassert>

#include "tilesched/table.h"
#include "tilesched/graph.h"

namespace tilesched::report {

namespace {

// Pastel fills with a darker outline of the same hue (ColorBrewer "Set3"-like, chosen so black
// text stays readable on every fill).
constexpr const char* kFills[] = {"#cfe8f3", "#fde2c8", "#d6efd0", "#f6d5da", "#e4dcf1", "#f3e9c6",
                                  "#d1ece8", "#f5d9ef", "#e2e6c5", "#dbe1ea", "#f7e0d0", "#d9eedd"};
constexpr const char* kPens[] = {"#2b7bb9", "#d9711c", "#3a9a2f", "#c0394f", "#6a4fa3", "#a88a12",
                                 "#1f8f84", "#b0468f", "#6f7d1b", "#4a5d7e", "#b5602e", "#2e8a4e"};
constexpr int kPaletteSize = sizeof(kFills) / sizeof(kFills[0]);

std::string Shape(const Tensor& t) {
  return std::to_string(t.height) + "x" + std::to_string(t.width);
}

DotLayout BaseLayout(const Problem& problem) {
  DotLayout layout;
  layout.graph = {{"rankdir", "TB"},
                  {"fontname", "Helvetica"},
                  {"fontsize", "11"},
                  {"nodesep", "0.25"},
                  {"ranksep", "0.35"}};
  layout.node = {{"fontname", "Helvetica"},
                 {"fontsize", "10"},
                 {"style", "filled"},
                 {"fillcolor", "white"},
                 {"color", "#333333"}};
  layout.edge = {{"color", "#555555"}, {"arrowsize", "0.7"}};
  const int ops = problem.num_ops();
  layout.vertices.resize(ops);
  layout.cluster_of.assign(ops, -1);
  for (int o = 0; o < ops; ++o) {
    const Op& op = problem.op(o);
    const int out = op.output;
    DotAttributes& v = layout.vertices[o];
    // "\n" is DOT's own line break inside a label.
    v["label"] = "op " + std::to_string(o) + " " + OpTypeName(op.type) + "\\nT" +
                 std::to_string(out) + " " + Shape(problem.tensor(out));
    if (!problem.op_name(o).empty()) v["label"] += "\\n" + problem.op_name(o);
    v["shape"] = op.type == OpType::kMatMul ? "box" : "ellipse";
    v["tooltip"] = "op " + std::to_string(o) + ": writes T" + std::to_string(out) +
                   (problem.tensor_name(out).empty() ? "" : " (" + problem.tensor_name(out) + ")");
    // A double border marks an op that writes a graph output.
    if (problem.is_graph_output(out)) v["peripheries"] = "2";
  }
  return layout;
}

std::string SubgraphList(const std::vector<int>& subgraphs) {
  std::string text;
  for (size_t i = 0; i < subgraphs.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(subgraphs[i]);
  }
  return text;
}

}  // namespace

std::string ClusterName(int subgraph) { return "cluster_sg" + std::to_string(subgraph); }

const char* SubgraphFill(int subgraph) { return kFills[subgraph % kPaletteSize]; }
const char* SubgraphPen(int subgraph) { return kPens[subgraph % kPaletteSize]; }

std::string ProblemDot(const Problem& problem) {
  return problem.graph().ToClusteredDot(BaseLayout(problem));
}

std::string ScheduleDot(const Problem& problem, const Schedule& schedule,
                        const Evaluation& evaluation) {
  assert(evaluation.subgraphs.size() == schedule.subgraphs.size());
  DotLayout layout = BaseLayout(problem);
  const int ops = problem.num_ops();
  // Subgraphs each op runs in, in execution order (an op listed twice in one subgraph counts
  // once).
  std::vector<std::vector<int>> runs_in(ops);
  for (size_t s = 0; s < schedule.subgraphs.size(); ++s) {
    for (int o : schedule.subgraphs[s].ops) {
      assert(o >= 0 && o < ops);
      if (runs_in[o].empty() || runs_in[o].back() != static_cast<int>(s)) {
        runs_in[o].push_back(static_cast<int>(s));
      }
    }
  }
  for (int o = 0; o < ops; ++o) {
    if (runs_in[o].empty()) continue;
    layout.cluster_of[o] = runs_in[o].front();
    if (runs_in[o].size() > 1) {
      DotAttributes& v = layout.vertices[o];
      const std::vector<int> later(runs_in[o].begin() + 1, runs_in[o].end());
      v["style"] = "filled,dashed";
      v["penwidth"] = "2";
      v["label"] += "\\n(recomputed in sg " + SubgraphList(later) + ")";
    }
  }
  for (size_t s = 0; s < schedule.subgraphs.size(); ++s) {
    const int sg = static_cast<int>(s);
    const Subgraph& subgraph = schedule.subgraphs[s];
    const Granularity& g = subgraph.granularity;
    DotCluster cluster;
    cluster.name = ClusterName(sg);
    cluster.attributes = {
        {"label", "sg " + std::to_string(sg) + ": tile " + std::to_string(g.w) + "x" +
                      std::to_string(g.h) + "x" + std::to_string(g.k) + ", latency " +
                      FormatNumber(evaluation.subgraphs[s].cost.latency)},
        {"style", "filled,rounded"},
        {"fillcolor", SubgraphFill(sg)},
        {"color", SubgraphPen(sg)},
        {"penwidth", "2"},
        {"labeljust", "l"},
    };
    std::vector<int> recomputed;
    for (int o : subgraph.ops) {
      if (layout.cluster_of[o] != sg &&
          std::find(recomputed.begin(), recomputed.end(), o) == recomputed.end()) {
        recomputed.push_back(o);
      }
    }
    if (!recomputed.empty()) {
      std::string ops_text;
      for (size_t i = 0; i < recomputed.size(); ++i) {
        ops_text += (i ? ", op " : "op ") + std::to_string(recomputed[i]);
      }
      cluster.note = {{"label", "recomputes " + ops_text},
                      {"shape", "note"},
                      {"style", "filled,dashed"},
                      {"fillcolor", "white"},
                      {"fontsize", "9"}};
    }
    layout.clusters.push_back(std::move(cluster));
  }
  return problem.graph().ToClusteredDot(layout);
}

}  // namespace tilesched::report
