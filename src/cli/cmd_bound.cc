// `tilesched bound`: the lower bound on any valid schedule's latency (docs/bounds.md).
#include <chrono>
#include <iostream>

#include "args.h"
#include "commands.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/summary_json.h"
#include "tilesched/table.h"

namespace tilesched::cli {

int RunBound(int argc, char** argv, int first) {
  std::vector<Option> options = ModeOptions();
  options.push_back({"json", "",
                     "print JSON: lower_bound, every part (compute, io, traffic, mixed, phase, capacity, coupled, "
                     "shared, squeeze, held), modes, time_s"});
  Args args("bound", "PROBLEM.json [--json] [mode flags]",
            "Prints a lower bound on the total latency of every valid schedule of PROBLEM.json\n"
            "under the chosen modes: the largest of its parts, each printed below: compute (every\n"
            "op once, padded tiles), I/O (graph inputs and outputs once), traffic (every load a\n"
            "schedule cannot avoid), mixed (per subgraph, the larger of compute and traffic),\n"
            "phase (last-step compute and earlier re-streamed loads), capacity (charges over the\n"
            "tiles that fit), coupled (compute and traffic of one tile choice), shared (a shared\n"
            "input's loads split by what each reader holds), squeeze (what is held shrinks the\n"
            "tile), held (what a resident operand leaves for a producer computed inside). The lemmas\n"
            "are in docs/bounds.md. A schedule whose latency equals it is optimal.",
            options, 1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  auto modes = ModesFromArgs(args);
  if (!modes.ok()) return Fail("bound", modes.status().message(), kExitUsage);
  auto problem = LoadProblem(args.positional()[0]);
  if (!problem.ok()) return Fail("bound", problem.status().message(), kExitUsage);
  const auto start = std::chrono::steady_clock::now();
  const LowerBounds bounds = ComputeLowerBounds(*problem, *modes);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (args.Has("json")) {
    std::cout << LowerBoundsToJson(bounds, *modes, seconds);
    return kExitOk;
  }
  std::cout << "lower bound " << FormatNumber(bounds.best()) << " (" << ModesString(*modes) << ")\n"
            << "  compute:  " << FormatNumber(bounds.compute) << "\n"
            << "  I/O:      " << FormatNumber(bounds.io) << "\n"
            << "  traffic:  " << FormatNumber(bounds.traffic) << "\n"
            << "  mixed:    " << FormatNumber(bounds.mixed) << "\n"
            << "  phase:    " << FormatNumber(bounds.phase) << "\n"
            << "  capacity: " << FormatNumber(bounds.capacity) << "\n"
            << "  coupled:  " << FormatNumber(bounds.coupled) << "\n"
            << "  shared:   " << FormatNumber(bounds.shared) << "\n"
            << "  squeeze:  " << FormatNumber(bounds.squeeze) << "\n"
            << "  held:     " << FormatNumber(bounds.held) << "\n"
            << "computed in " << FormatNumber(seconds * 1000, 2) << " ms\n";
  return kExitOk;
}

}  // namespace tilesched::cli
