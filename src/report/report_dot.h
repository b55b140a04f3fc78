// The DAG drawing shared by `tilesched dot` and `tilesched report`: Graphviz DOT of a problem's
// ops and, given a judged schedule, one outlined and coloured cluster per subgraph.
//
// Entry points: ProblemDot(problem) and ScheduleDot(problem, schedule, evaluation); cluster s is
// named "cluster_sg<s>" (Graphviz renders it as <g class="cluster"><title>cluster_sg<s></title>).
// An op computed in several subgraphs (recomputation) is drawn once, in the cluster of its
// first subgraph, with a dashed border and a note naming the others; every later subgraph
// that recomputes ops gets a note node listing them, so no cluster is ever empty.
// SubgraphFill / SubgraphPen give the palette the HTML report reuses.
#ifndef TILESCHED_REPORT_REPORT_DOT_H_
#define TILESCHED_REPORT_REPORT_DOT_H_

#include <string>

#include "tilesched/evaluate.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"

namespace tilesched::report {

// "cluster_sg3": the DOT name of subgraph 3's cluster.
std::string ClusterName(int subgraph);

// Light fill and darker outline of subgraph s ("#rrggbb"); the palette repeats every 12.
const char* SubgraphFill(int subgraph);
const char* SubgraphPen(int subgraph);

std::string ProblemDot(const Problem& problem);
// `evaluation` must be Evaluate()'s verdict on `schedule` (so every op id is in range).
std::string ScheduleDot(const Problem& problem, const Schedule& schedule,
                        const Evaluation& evaluation);

}  // namespace tilesched::report

#endif  // TILESCHED_REPORT_REPORT_DOT_H_
