// `tilesched report`: a self-contained HTML page describing a judged schedule (see
// report_html.h for its sections); the DAG is rendered by Graphviz `dot` when it is installed.
#include <iostream>

#include "args.h"
#include "commands.h"
#include "report_dot.h"
#include "report_html.h"
#include "report_tools.h"
#include "tilesched/evaluate.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"

namespace tilesched::cli {

namespace {

// Generous for the largest contest graphs (about a hundred ops render in well under a second).
constexpr double kDotTimeoutSeconds = 120;

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

}  // namespace

int RunReport(int argc, char** argv, int first) {
  std::vector<Option> options = ModeOptions();
  options.insert(options.begin(),
                 {"output", "OUT.html", "write the report here (required); -o for short"});
  Args args("report", "PROBLEM.json SOLUTION.json -o OUT.html [mode flags]",
            "Judges SOLUTION.json and writes one self-contained HTML page (no external\n"
            "resources): total latency, lower bound and ratio; the DAG with each subgraph\n"
            "outlined and coloured (rendered by Graphviz 'dot'; without it the DOT text is\n"
            "embedded and a warning printed); a timeline with one bar per subgraph split into\n"
            "compute-bound and memory-bound time; and a table per subgraph (ops, tile,\n"
            "traversal, retained tensors, latency, peak working set against capacity).\n"
            "Exit status: 0 written, 1 invalid schedule, 2 usage or input error.\n"
            "See docs/reports.md.",
            options, 2, 2);
  std::vector<char*> expanded = ExpandShortOutput(argc, argv, first);
  if (Status s = args.Parse(argc, expanded.data(), first); !s.ok()) {
    return Fail("report", s.message(), kExitUsage);
  }
  if (args.help()) {
    std::cout << args.HelpText();
    return kExitOk;
  }
  auto modes = ModesFromArgs(args);
  if (!modes.ok()) return Fail("report", modes.status().message(), kExitUsage);
  const std::string output = args.Get("output");
  if (output.empty()) return Fail("report", "--output OUT.html is required", kExitUsage);
  ReportInput input;
  input.problem_path = args.positional()[0];
  input.solution_path = args.positional()[1];
  auto problem = LoadProblem(input.problem_path);
  if (!problem.ok()) return Fail("report", problem.status().message(), kExitUsage);
  auto schedule = LoadSolution(input.solution_path);
  if (!schedule.ok()) return Fail("report", schedule.status().message(), kExitUsage);
  auto evaluation = Evaluate(*problem, *schedule, *modes);
  if (!evaluation.ok()) {
    return Fail("report", "invalid schedule: " + evaluation.status().message(), kExitInvalid);
  }
  input.problem = &*problem;
  input.schedule = &*schedule;
  input.evaluation = &*evaluation;
  input.modes = *modes;
  input.bounds = ComputeLowerBounds(*problem, *modes);
  input.graph_dot = ScheduleDot(*problem, *schedule, *evaluation);
  auto svg = RenderSvg(input.graph_dot);
  if (svg.ok() && !InlineSvg(*svg).empty()) {
    input.graph_svg = *svg;
  } else {
    const std::string why = svg.ok() ? "dot produced no SVG" : svg.status().message();
    input.graph_note = why + "; the graph is given as DOT text (render it with 'dot -Tsvg').";
    std::cerr << "tilesched report: warning: " << why << "; embedding the DOT text instead\n";
  }
  if (Status s = WriteFileAtomic(output, ReportHtml(input)); !s.ok()) {
    return Fail("report", s.message(), kExitUsage);
  }
  return kExitOk;
}

}  // namespace tilesched::cli
