// `tilesched report`: a self-contained HTML page describing a judged schedule, written by the
// report library (WriteHtmlReport, src/report/report.h).
#include <iostream>

#include "args.h"
#include "commands.h"
#include "judged_input.h"
#include "report.h"

namespace tilesched::cli {

int RunReport(int argc, char** argv, int first) {
  std::vector<Option> options = ModeOptions();
  options.insert(options.begin(), {"output", "OUT.html", "write the report here (required)", "-o"});
  Args args("report", "PROBLEM.json SOLUTION.json -o OUT.html [mode flags]",
            "Judges SOLUTION.json and writes one self-contained HTML page (no external\n"
            "resources): total latency, lower bound and ratio; the DAG with each subgraph\n"
            "outlined and coloured (rendered by Graphviz 'dot'; without it the DOT text is\n"
            "embedded and a warning printed); a timeline with one bar per subgraph split into\n"
            "compute-bound and memory-bound time; and a table per subgraph (ops, tile,\n"
            "traversal, retained tensors, latency, peak working set against capacity).\n"
            "See docs/reports.md.",
            options, 2, 2);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  auto modes = ModesFromArgs(args);
  if (!modes.ok()) return Fail("report", modes.status().message(), kExitUsage);
  report::HtmlReportRequest request;
  request.output = args.Get("output");
  if (!args.Has("output")) return Fail("report", "--output OUT.html is required", kExitUsage);
  if (Status s = CheckOutputOptions(args, {"output"}); !s.ok()) {
    return Fail("report", s.message(), kExitUsage);
  }
  request.problem_path = args.positional()[0];
  request.solution_path = args.positional()[1];
  int code = kExitOk;
  auto input = LoadJudged("report", request.problem_path, request.solution_path, *modes, &code);
  if (!input) return code;
  request.problem = &input->problem;
  request.judged = {&input->schedule, &input->evaluation};
  request.modes = *modes;
  auto warning = report::WriteHtmlReport(request);
  if (!warning.ok()) return Fail("report", warning.status().message(), kExitUsage);
  if (!warning->empty()) std::cerr << "tilesched report: warning: " << *warning << "\n";
  return kExitOk;
}

}  // namespace tilesched::cli
