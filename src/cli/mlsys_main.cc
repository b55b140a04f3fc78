// mlsys: drop-in entry point for the MLSys 2026 contest harness.
//
//   mlsys IN.json OUT.json [--time-limit SEC] [search options]
//
// The default budget follows the contest's tiers by op count minus a safety margin, since the
// harness kills the process at its deadline (tilesched/contest.h). A valid schedule is on disk almost at once and is
// replaced atomically on every improvement.
#include <iostream>

#include "args.h"
#include "schedule_runner.h"
#include "search_args.h"
#include "stop_signal.h"
#include "tilesched/contest.h"
#include "tilesched/io.h"

int main(int argc, char** argv) {
  using namespace tilesched;
  using namespace tilesched::cli;
  std::vector<Option> options = SearchOptionFlags();
  options.push_back({"quiet", "", "no progress output on stderr"});
  Args args("mlsys", "IN.json OUT.json [options]",
            "Contest entry point: schedules IN.json and writes the solution to OUT.json.\n"
            "Default budget: the contest tier for the problem's op count minus a margin; the run\n"
            "ends earlier once the schedule is proven optimal (its latency equals the lower\n"
            "bound of docs/bounds.md; --gap G stops within G of it).",
            options, 2, 2);
  if (auto code = ParseCommandLine(args, argc, argv, 1)) return *code;
  std::vector<std::string> warnings;
  auto problem = LoadProblem(args.positional()[0], &warnings);
  if (!problem.ok()) return Fail("mlsys", problem.status().message(), kExitUsage);
  PrintWarnings("mlsys", warnings);
  search::SearchOptions base;
  base.time_limit = ContestTimeLimit(ContestTierSeconds(problem->num_ops()));
  auto search_options = SearchOptionsFromArgs(args, base);
  if (!search_options.ok()) return Fail("mlsys", search_options.status().message(), kExitUsage);
  InstallStopSignals(SecondSignal::kKeepStopping);
  RunnerOptions runner;
  runner.output = args.positional()[1];
  runner.progress = !args.Has("quiet");
  runner.command = "mlsys";
  return RunScheduler(*problem, *search_options, runner);
}
