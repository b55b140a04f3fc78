// The report library's entry points: the HTML report, the DOT text and the sweep plot.
#include "report.h"

#include "report_dot.h"
#include "report_html.h"
#include "report_tools.h"
#include "tilesched/file_util.h"
#include "tilesched/lower_bound.h"

namespace tilesched::report {

namespace {

// Generous for the largest contest graphs (about a hundred ops render in well under a second).
constexpr double kDotTimeoutSeconds = 120;
// gnuplot draws a sweep of any size in well under a second; this only guards against a hang.
constexpr double kGnuplotTimeoutSeconds = 120;

// Renders `dot_text` to SVG with Graphviz; fails with why it could not.
Result<std::string> RenderSvg(const std::string& dot_text) {
  const std::string dot = FindProgram("dot");
  if (dot.empty()) {
    return Status::Error("Graphviz 'dot' not found (install the Debian package graphviz)");
  }
  TempDir dir("tilesched_report");
  if (dir.path().empty()) return Status::Error("cannot create a temporary directory");
  if (Status s = WriteFileAtomic(dir.File("graph.dot"), dot_text); !s.ok()) return s;
  if (Status s = RunProgram(dir.path(), {dot, "-Tsvg", "graph.dot", "-o", "graph.svg"},
                            kDotTimeoutSeconds);
      !s.ok()) {
    return s;
  }
  return ReadFile(dir.File("graph.svg"));
}

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Runs gnuplot on `files` in a private directory; returns the image it drew.
Result<std::string> RunGnuplot(const PlotFiles& files) {
  const std::string gnuplot = FindProgram("gnuplot");
  if (gnuplot.empty()) {
    return Status::Error("gnuplot not found: install the Debian package gnuplot-nox");
  }
  TempDir dir("tilesched_plot");
  if (dir.path().empty()) return Status::Error("cannot create a temporary directory");
  for (const auto& [name, contents] : files.data) {
    if (Status s = WriteFileAtomic(dir.File(name), contents); !s.ok()) return s;
  }
  if (Status s = WriteFileAtomic(dir.File("plot.gp"), files.script); !s.ok()) return s;
  if (Status s = RunProgram(dir.path(), {gnuplot, "plot.gp"}, kGnuplotTimeoutSeconds); !s.ok()) {
    return s;
  }
  auto image = ReadFile(dir.File(files.output));
  if (!image.ok() || image->empty()) return Status::Error("gnuplot wrote no " + files.output);
  return image;
}

}  // namespace

HtmlReportPage HtmlReport(const HtmlReportRequest& request) {
  const Problem& problem = *request.problem;
  ReportInput input;
  input.problem_path = request.problem_path;
  input.solution_path = request.solution_path;
  input.problem = &problem;
  input.schedule = request.judged.schedule;
  input.evaluation = request.judged.evaluation;
  input.modes = request.modes;
  input.bounds = ComputeLowerBounds(problem, request.modes);
  input.graph_dot = DagDot(problem, &request.judged);
  HtmlReportPage page;
  auto svg = RenderSvg(input.graph_dot);
  if (svg.ok() && !InlineSvg(*svg).empty()) {
    input.graph_svg = *svg;
  } else {
    const std::string why = svg.ok() ? "dot produced no SVG" : svg.status().message();
    input.graph_note = why + "; the graph is given as DOT text (render it with 'dot -Tsvg').";
    page.warning = why + "; embedding the DOT text instead";
  }
  page.html = ReportHtml(input);
  return page;
}

Result<std::string> WriteHtmlReport(const HtmlReportRequest& request) {
  const HtmlReportPage page = HtmlReport(request);
  if (Status s = WriteFileAtomic(request.output, page.html); !s.ok()) return s;
  return page.warning;
}

std::string DagDot(const Problem& problem, const JudgedSchedule* judged) {
  if (!judged || !judged->schedule) return ProblemDot(problem);
  return ScheduleDot(problem, *judged->schedule, *judged->evaluation);
}

Result<PlotOutcome> WriteSweepPlot(const PlotRequest& request) {
  PlotOptions options = request.options;
  options.png = EndsWith(request.output, ".png");
  if (!options.png && !EndsWith(request.output, ".svg")) {
    return Status::Error("--output: expected a file name ending in .svg or .png, got '" +
                         request.output + "'");
  }
  if (Status s = CheckPlotOptions(options); !s.ok()) return s;
  auto text = ReadFile(request.csv_path);
  if (!text.ok()) return text.status();
  auto points = ParseSweepCsv(*text, request.csv_path);
  if (!points.ok()) return points.status();
  auto files = BuildPlot(*points, options);
  if (!files.ok()) return files.status().WithContext(request.csv_path + ": ");
  auto image = RunGnuplot(*files);
  if (!image.ok()) return image.status();
  if (Status s = WriteFileAtomic(request.output, *image); !s.ok()) return s;
  return PlotOutcome{files->labels.size(), points->size(), files->x};
}

}  // namespace tilesched::report
