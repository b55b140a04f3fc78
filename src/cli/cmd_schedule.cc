// `tilesched schedule`: search for the lowest-latency schedule of a problem.
#include <iostream>

#include "args.h"
#include "commands.h"
#include "schedule_runner.h"
#include "search_args.h"
#include "stop_signal.h"
#include "tilesched/evaluate.h"
#include "tilesched/hardware.h"
#include "tilesched/io.h"

namespace tilesched::cli {

int RunSchedule(int argc, char** argv, int first) {
  std::vector<Option> options = SearchOptionFlags();
  options.insert(options.begin(),
                 {"output", "OUT.json", "write the schedule here (default: stdout)", "-o"});
  options.push_back({"quiet", "", "no progress output on stderr"});
  options.push_back({"hardware", "HW.json", "replace the problem's hardware by a description (configs/hardware/, docs/import.md)"});
  options.push_back({"start", "SOLUTION.json", "start from this valid schedule (it is judged first): the "
                                               "result is never worse than it"});
  options.push_back({"verbose", "", "print what each strategy did (moves, beams) on stderr"});
  options.push_back({"summary", "FILE", "write the outcome as JSON: latency, lower_bound, gap, "
                                        "optimal, found_by, time_s, modes"});
  options.push_back({"trace", "FILE", "write the run's timeline as CSV: phases, improvements and "
                                      "every 0.25 s the configurations, costings and moves so far "
                                      "(docs/search.md, \"Where the time goes\")"});
  Args args("schedule", "PROBLEM.json [-o OUT.json] [options]",
            "Searches for the lowest-latency valid schedule of PROBLEM.json within a time or\n"
            "work budget, using all cores. The best schedule so far is kept in OUT.json (atomic\n"
            "replace on every improvement; SIGTERM or SIGINT stops the search with the best\n"
            "written). Without --time-limit or --iterations the budget is 10 seconds. The run\n"
            "stops early once the best schedule is within --gap of the lower bound (default 0:\n"
            "when it is proven optimal; docs/bounds.md); the last line reports bound and gap.",
            options, 1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  if (Status s = CheckOutputOptions(args, {"output", "summary", "trace"}); !s.ok()) {
    return Fail("schedule", s.message(), kExitUsage);
  }
  auto search_options = SearchOptionsFromArgs(args);
  if (!search_options.ok()) return Fail("schedule", search_options.status().message(), kExitUsage);
  search::SearchOptions opts = *search_options;
  if (opts.time_limit <= 0 && opts.iterations <= 0) opts.time_limit = search::kDefaultScheduleSeconds;
  std::vector<std::string> warnings;
  auto problem = LoadProblemOnHardware(args.positional()[0], args.Get("hardware"), &warnings);
  if (!problem.ok()) return Fail("schedule", problem.status().message(), kExitUsage);
  PrintWarnings("schedule", warnings);
  if (args.Has("start")) {
    // Judged here, before any output exists: an invalid start exits 1 like `evaluate`.
    std::vector<std::string> start_warnings;
    auto start = LoadSolution(args.Get("start"), &start_warnings);
    if (!start.ok()) return Fail("schedule", "--start: " + start.status().message(), kExitUsage);
    PrintWarnings("schedule", start_warnings);
    auto judged = Evaluate(*problem, *start, opts.modes);
    if (!judged.ok()) {
      return Fail("schedule", "--start: invalid schedule: " + judged.status().message(), kExitInvalid);
    }
    opts.start = std::move(start).value();
  }
  InstallStopSignals(SecondSignal::kKeepStopping);
  RunnerOptions runner;
  runner.output = args.Get("output");
  runner.progress = !args.Has("quiet");
  runner.verbose = args.Has("verbose");
  runner.summary = args.Get("summary");
  runner.trace = args.Get("trace");
  return RunScheduler(*problem, opts, runner);
}

}  // namespace tilesched::cli
