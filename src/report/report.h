// The report library's public header: pictures and pages of problems, schedules and sweeps.
//
// Entry points: WriteHtmlReport(request) writes the self-contained HTML page of a judged
// schedule (report_html.h; the DAG rendered by Graphviz `dot` when it is installed, else
// embedded as DOT text with a warning), HtmlReport(request) returns it without writing; DagDot(problem, judged) is the Graphviz DOT of the DAG,
// with one cluster per subgraph when a judged schedule is given (report_dot.h);
// WriteSweepPlot(request) draws a sweep CSV with gnuplot (plot_sweep.h). Every file is
// written atomically. External programs run through report_tools.h.
//
// May depend on: io and core. Not on the search, the other workflow libraries or the CLI.
#ifndef TILESCHED_REPORT_REPORT_H_
#define TILESCHED_REPORT_REPORT_H_

#include <cstddef>
#include <string>

#include "plot_sweep.h"
#include "tilesched/cost_model.h"
#include "tilesched/evaluate.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched::report {

// A schedule and Evaluate()'s verdict on it (which accepted it).
struct JudgedSchedule {
  const Schedule* schedule = nullptr;
  const Evaluation* evaluation = nullptr;
};

struct HtmlReportRequest {
  std::string problem_path, solution_path;  // shown in the page's header
  const Problem* problem = nullptr;
  JudgedSchedule judged;
  CostModes modes;
  std::string output;  // the .html file
};

// Returns a warning for the user ("" when the DAG was rendered), or why nothing was written.
Result<std::string> WriteHtmlReport(const HtmlReportRequest& request);

struct HtmlReportPage {
  std::string html;
  std::string warning;  // as WriteHtmlReport's ("" when the DAG was rendered)
};
// The page WriteHtmlReport writes, without writing it (`output` is not used): for a caller that
// shows it itself (the Python results' _repr_html_ in a notebook).
HtmlReportPage HtmlReport(const HtmlReportRequest& request);

// The DAG as DOT; with `judged` (may be null) one cluster per subgraph.
std::string DagDot(const Problem& problem, const JudgedSchedule* judged);

struct PlotRequest {
  std::string csv_path;  // a sweep CSV (tilesched sweep)
  PlotOptions options;   // png is set from `output`
  std::string output;    // .svg or .png
};

struct PlotOutcome {
  size_t lines = 0;   // series drawn
  size_t points = 0;  // status=ok rows plotted
  std::string x;      // the x column used
};

// Fails on a bad output name, an unreadable or malformed CSV, gnuplot missing or failing.
Result<PlotOutcome> WriteSweepPlot(const PlotRequest& request);

}  // namespace tilesched::report

#endif  // TILESCHED_REPORT_REPORT_H_
