// mlsys: drop-in entry point for the MLSys 2026 contest harness.
//
//   mlsys IN.json OUT.json [--time-limit SEC] [search options]
//
// The default budget follows the contest's tiers by op count (<= 5 ops: 2 s, <= 20: 5 s,
// <= 40: 15 s, <= 70: 30 s, <= 110: 60 s, else 120 s) minus a safety margin, since the harness
// kills the process at its deadline. A valid schedule is on disk almost at once and is
// replaced atomically on every improvement.
#include <algorithm>
#include <iostream>

#include "args.h"
#include "schedule_runner.h"
#include "search_args.h"
#include "tilesched/io.h"

namespace {

double ContestBudget(int ops) {
  const double tier = ops <= 5 ? 2 : ops <= 20 ? 5 : ops <= 40 ? 15 : ops <= 70 ? 30 : ops <= 110 ? 60 : 120;
  // Margin for process start-up, the final write, and a loaded machine.
  return tier - std::max(0.3, 0.05 * tier);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tilesched;
  using namespace tilesched::cli;
  std::vector<Option> options = SearchOptionFlags();
  options.push_back({"quiet", "", "no progress output on stderr"});
  Args args("mlsys", "IN.json OUT.json [options]",
            "Contest entry point: schedules IN.json and writes the solution to OUT.json.\n"
            "Default budget: the contest tier for the problem's op count minus a margin.",
            options, 2, 2);
  if (Status s = args.Parse(argc, argv, 1); !s.ok()) return Fail("mlsys", s.message(), kExitUsage);
  if (args.help()) {
    std::cout << args.HelpText();
    return kExitOk;
  }
  auto problem = LoadProblem(args.positional()[0]);
  if (!problem.ok()) return Fail("mlsys", problem.status().message(), kExitUsage);
  search::SearchOptions base;
  base.time_limit = ContestBudget(problem->num_ops());
  auto search_options = SearchOptionsFromArgs(args, base);
  if (!search_options.ok()) return Fail("mlsys", search_options.status().message(), kExitUsage);
  InstallStopHandlers();
  RunnerOptions runner;
  runner.output = args.positional()[1];
  runner.progress = !args.Has("quiet");
  runner.command = "mlsys";
  return RunScheduler(*problem, *search_options, runner);
}
