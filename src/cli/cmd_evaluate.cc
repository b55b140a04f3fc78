// `tilesched evaluate`: judge a solution file and print the breakdown.
#include <iostream>

#include "args.h"
#include "commands.h"
#include "tilesched/table.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/report_json.h"

namespace tilesched::cli {

namespace {

std::string Ops(const std::vector<int>& ops) {
  std::string out;
  for (size_t i = 0; i < ops.size(); ++i) out += (i ? "," : "") + std::to_string(ops[i]);
  return out;
}

void PrintHuman(const Schedule& schedule, const Evaluation& ev,
                const CostModes& modes, const LowerBounds& bounds) {
  std::cout << "modes: " << ModesString(modes) << "\n\n";
  TextTable table({"sg", "ops", "tile w,h,k", "retain", "tiles x k", "compute-bound", "mem-bound",
                   "compute", "memory", "peak WS (tile, k-step)", "latency"});
  for (size_t s = 0; s < ev.subgraphs.size(); ++s) {
    const Subgraph& sg = schedule.subgraphs[s];
    const SubgraphCost& c = ev.subgraphs[s].cost;
    const Granularity& g = sg.granularity;
    table.AddRow({std::to_string(s), Ops(sg.ops),
                  std::to_string(g.w) + "," + std::to_string(g.h) + "," + std::to_string(g.k),
                  Ops(sg.retained), FormatCount(c.tiles) + " x " + FormatCount(c.k_steps),
                  FormatCount(c.compute_bound_steps), FormatCount(c.memory_bound_steps),
                  FormatNumber(c.compute_time), FormatNumber(c.memory_time),
                  FormatCount(c.peak_working_set) + " (" + std::to_string(c.peak_tile) + ", " +
                      std::to_string(c.peak_k_step + 1) + ")",
                  FormatNumber(c.latency)});
  }
  table.Print(std::cout, {false, true, true, true});
  std::cout << "\ntotal latency: " << FormatNumber(ev.total) << "\n"
            << "lower bound:   " << FormatNumber(bounds.best()) << " (compute "
            << FormatNumber(bounds.compute) << ", I/O " << FormatNumber(bounds.io) << ", traffic "
            << FormatNumber(bounds.traffic) << "); ratio " << FormatNumber(ev.total / bounds.best(), 3)
            << (ev.total <= bounds.best() * (1 + 1e-9) ? " (optimal)" : "") << "\n";
  for (const std::string& w : ev.warnings) std::cout << "warning: " << w << "\n";
}

}  // namespace

int RunEvaluate(int argc, char** argv, int first) {
  std::vector<Option> options = ModeOptions();
  options.push_back({"json", "", "print machine-readable JSON instead of a table"});
  Args args("evaluate", "PROBLEM.json SOLUTION.json [options]",
            "Checks a solution against every validity rule of the spec and prints its latency:\n"
            "total, per subgraph, and a breakdown (steps, compute and memory time, how many\n"
            "steps are compute- or memory-bound, peak working set and where).\n"
            "Exit status: 0 valid, 1 invalid schedule, 2 usage or input error.",
            options, 2, 2);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  auto modes = ModesFromArgs(args);
  if (!modes.ok()) return Fail("evaluate", modes.status().message(), kExitUsage);
  auto problem = LoadProblem(args.positional()[0]);
  if (!problem.ok()) return Fail("evaluate", problem.status().message(), kExitUsage);
  auto schedule = LoadSolution(args.positional()[1]);
  if (!schedule.ok()) return Fail("evaluate", schedule.status().message(), kExitUsage);
  const bool json = args.Has("json");
  auto evaluation = Evaluate(*problem, *schedule, *modes);
  if (!evaluation.ok()) {
    if (json) std::cout << InvalidEvaluationToJson(evaluation.status().message(), *modes);
    return Fail("evaluate", "invalid schedule: " + evaluation.status().message(), kExitInvalid);
  }
  const LowerBounds bounds = ComputeLowerBounds(*problem, *modes);
  if (json) {
    std::cout << EvaluationToJson(*schedule, *evaluation, *modes, bounds);
  } else {
    PrintHuman(*schedule, *evaluation, *modes, bounds);
  }
  return kExitOk;
}

}  // namespace tilesched::cli
