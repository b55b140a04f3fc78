// tilesched: command-line entry point. Parses the subcommand name and dispatches.
#include <cstring>
#include <iostream>
#include <string>

#include "commands.h"
#include "exit_codes.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int, char**, int);
  const char* summary;
};

const Command kCommands[] = {
    {"schedule", tilesched::cli::RunSchedule, "search for the best schedule of a problem"},
    {"evaluate", tilesched::cli::RunEvaluate, "check a solution and print its latency breakdown"},
    {"info", tilesched::cli::RunInfo, "describe a problem and its lower bounds"},
    {"bound", tilesched::cli::RunBound, "print the lower bound on any schedule's latency"},
    {"results", tilesched::cli::RunResults, "run the contest benchmarks and write the results table"},
    {"sweep", tilesched::cli::RunSweep, "re-schedule problems over a grid of hardware parameters"},
    {"merge", tilesched::cli::RunMerge, "join sweep shard files, checking every point once"},
    {"plot", tilesched::cli::RunPlot, "plot a sweep (latency and lower bound) with gnuplot"},
    {"compare", tilesched::cli::RunCompare, "benchmark search strategies against each other"},
    {"report", tilesched::cli::RunReport, "write a self-contained HTML report of a schedule"},
    {"dot", tilesched::cli::RunDot, "write the DAG (and a schedule's subgraphs) as Graphviz DOT"},
    {"import", tilesched::cli::RunImport, "import an ONNX model with a hardware description"},
    {"cut", tilesched::cli::RunCut, "write some ops of a problem (or one link component) as a problem of their own"},
    {"generate", tilesched::cli::RunGenerate, "write a generated problem (a transformer-like stack or a random layered DAG)"},
};

void PrintUsage(std::ostream& out) {
  out << "usage: tilesched COMMAND [ARGS] [--help]\n\n"
         "tilesched schedules tiled execution of tensor DAGs on a two-level memory.\n\n"
         "commands:\n";
  for (const Command& c : kCommands) {
    std::string name = c.name;
    name.resize(12, ' ');
    out << "  " << name << c.summary << "\n";
  }
  out << "\nRun 'tilesched COMMAND --help' for a command's options.\n\n"
      << tilesched::cli::ExitStatusHelp();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(std::cerr);
    return tilesched::cli::kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(std::cout);
    return tilesched::cli::kExitOk;
  }
  if (name == "--version") {
    std::cout << "tilesched 0.1.0\n";
    return tilesched::cli::kExitOk;
  }
  for (const Command& c : kCommands) {
    if (name == c.name) return c.run(argc, argv, 2);
  }
  std::cerr << "tilesched: unknown command '" << name << "' (run 'tilesched --help')\n";
  return tilesched::cli::kExitUsage;
}
