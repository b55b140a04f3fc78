// `tilesched dot`: the DAG of a problem as Graphviz DOT, with one cluster per subgraph when a
// solution is given (report library: DagDot, src/report/report.h).
#include <iostream>

#include "args.h"
#include "commands.h"
#include "judged_input.h"
#include "report.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"

namespace tilesched::cli {

int RunDot(int argc, char** argv, int first) {
  std::vector<Option> options = ModeOptions();
  options.insert(options.begin(), {"output", "OUT.dot", "write the DOT here (default: stdout)", "-o"});
  Args args("dot", "PROBLEM.json [SOLUTION.json] [-o OUT.dot] [mode flags]",
            "Writes the op DAG of PROBLEM.json as Graphviz DOT (render it with, e.g.,\n"
            "'dot -Tsvg OUT.dot -o OUT.svg'). With SOLUTION.json the solution is judged first\n"
            "and each subgraph becomes an outlined, coloured cluster named cluster_sg<N>; an op\n"
            "recomputed in several subgraphs is drawn in its first one with a dashed border.\n"
            "See docs/reports.md.",
            options, 1, 2);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  auto modes = ModesFromArgs(args);
  if (!modes.ok()) return Fail("dot", modes.status().message(), kExitUsage);
  if (Status s = CheckOutputOptions(args, {"output"}); !s.ok()) {
    return Fail("dot", s.message(), kExitUsage);
  }
  std::string dot;
  if (args.positional().size() == 2) {
    int code = kExitOk;
    auto input = LoadJudged("dot", args.positional()[0], args.positional()[1], *modes, &code);
    if (!input) return code;
    const report::JudgedSchedule judged{&input->schedule, &input->evaluation};
    dot = report::DagDot(input->problem, &judged);
  } else {
    std::vector<std::string> warnings;
    auto problem = LoadProblem(args.positional()[0], &warnings);
    if (!problem.ok()) return Fail("dot", problem.status().message(), kExitUsage);
    PrintWarnings("dot", warnings);
    dot = report::DagDot(*problem, nullptr);
  }
  if (!args.Has("output")) {
    std::cout << dot;
    return kExitOk;
  }
  if (Status s = WriteFileAtomic(args.Get("output"), dot); !s.ok()) {
    return Fail("dot", s.message(), kExitUsage);
  }
  return kExitOk;
}

}  // namespace tilesched::cli
