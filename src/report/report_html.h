// The HTML page of `tilesched report`: one self-contained file (inline CSS and SVG, no scripts,
// no external resources) describing a judged schedule.
//
// Entry points: ReportHtml(input) builds the page: a header (files, modes, total latency, lower
// bound, ratio, evaluator warnings), the DAG with its subgraph clusters (dot's SVG inline, or
// the DOT text when Graphviz is missing), a timeline with one bar per subgraph (class
// "timeline-bar", data-subgraph="s", placed at its start time, split into compute-bound and
// memory-bound time), a table with a row per subgraph, and the recomputation per subgraph
// (class "recompute-row": each op's output computed relative to once, the compute time beyond
// once; the schedule's in "recompute-total"). InlineSvg strips what may not
// appear inside HTML from dot's output; HtmlEscape escapes text for HTML.
#ifndef TILESCHED_REPORT_REPORT_HTML_H_
#define TILESCHED_REPORT_REPORT_HTML_H_

#include <string>

#include "tilesched/cost_model.h"
#include "tilesched/evaluate.h"
#include "tilesched/lower_bound.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"

namespace tilesched::report {

struct ReportInput {
  std::string problem_path;
  std::string solution_path;
  const Problem* problem = nullptr;
  const Schedule* schedule = nullptr;
  const Evaluation* evaluation = nullptr;  // Evaluate()'s verdict on *schedule
  CostModes modes;
  LowerBounds bounds;
  std::string graph_svg;   // dot -Tsvg output; empty when Graphviz is not available
  std::string graph_dot;   // the DOT text, shown instead when graph_svg is empty
  std::string graph_note;  // why graph_svg is empty (shown above the DOT text)
};

std::string ReportHtml(const ReportInput& input);

// The <svg>...</svg> element of an SVG document, without the XML prolog, DOCTYPE and comments
// that precede it; "" when there is no <svg element.
std::string InlineSvg(const std::string& svg);

// Escapes & < > " ' for HTML text and attribute values.
std::string HtmlEscape(const std::string& text);

}  // namespace tilesched::report

#endif  // TILESCHED_REPORT_REPORT_HTML_H_
