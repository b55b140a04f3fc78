// `tilesched dot`: the DAG of a problem as Graphviz DOT, with one cluster per subgraph when a
// solution is given (see report_dot.h for what the drawing shows).
#include <iostream>

#include "args.h"
#include "commands.h"
#include "report_dot.h"
#include "report_tools.h"
#include "tilesched/evaluate.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"

namespace tilesched::cli {

int RunDot(int argc, char** argv, int first) {
  std::vector<Option> options = ModeOptions();
  options.insert(options.begin(),
                 {"output", "OUT.dot", "write the DOT here (default: stdout); -o for short"});
  Args args("dot", "PROBLEM.json [SOLUTION.json] [-o OUT.dot] [mode flags]",
            "Writes the op DAG of PROBLEM.json as Graphviz DOT (render it with, e.g.,\n"
            "'dot -Tsvg OUT.dot -o OUT.svg'). With SOLUTION.json the solution is judged first\n"
            "and each subgraph becomes an outlined, coloured cluster named cluster_sg<N>; an op\n"
            "recomputed in several subgraphs is drawn in its first one with a dashed border.\n"
            "Exit status: 0 written, 1 invalid schedule, 2 usage or input error.\n"
            "See docs/reports.md.",
            options, 1, 2);
  std::vector<char*> expanded = ExpandShortOutput(argc, argv, first);
  if (Status s = args.Parse(argc, expanded.data(), first); !s.ok()) {
    return Fail("dot", s.message(), kExitUsage);
  }
  if (args.help()) {
    std::cout << args.HelpText();
    return kExitOk;
  }
  auto modes = ModesFromArgs(args);
  if (!modes.ok()) return Fail("dot", modes.status().message(), kExitUsage);
  if (args.Has("output") && args.Get("output").empty()) {
    return Fail("dot", "--output: expected a file name", kExitUsage);
  }
  auto problem = LoadProblem(args.positional()[0]);
  if (!problem.ok()) return Fail("dot", problem.status().message(), kExitUsage);
  std::string dot;
  if (args.positional().size() == 2) {
    auto schedule = LoadSolution(args.positional()[1]);
    if (!schedule.ok()) return Fail("dot", schedule.status().message(), kExitUsage);
    auto evaluation = Evaluate(*problem, *schedule, *modes);
    if (!evaluation.ok()) {
      return Fail("dot", "invalid schedule: " + evaluation.status().message(), kExitInvalid);
    }
    dot = ScheduleDot(*problem, *schedule, *evaluation);
  } else {
    dot = ProblemDot(*problem);
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
