// `tilesched compare`: parses the comparison's flags, runs it through the experiment library
// (RunComparison, src/experiment/comparison.h) and prints or writes the table.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "comparison.h"
#include "search_args.h"
#include "tilesched/file_util.h"

namespace tilesched::cli {

namespace {

// "greedy,beam,..." for the help text.
std::string JoinedDefaultStrategies() {
  std::string joined;
  for (const std::string& s : experiment::DefaultComparisonStrategies()) {
    joined += (joined.empty() ? "" : ",") + s;
  }
  return joined;
}

// The options of `compare`: its own, then the search flags (one strategy and seed per run come
// from --strategies and --seeds).
std::vector<Option> CompareOptions() {
  std::vector<Option> options = {
      {"strategies", "LIST", "strategies to compare, e.g. greedy,beam (default: " +
                             JoinedDefaultStrategies() + "; also cover, which only bounds)"},
      {"seeds", "LIST", "seeds, one run per seed (default 1,2,3)"},
      {"format", "F", "table | csv | jsonl | markdown (default table)"},
      {"output", "FILE", "write the table here, atomically (default: stdout)", "-o"},
      {"quiet", "", "no progress lines on stderr"},
  };
  for (const Option& o : SearchOptionFlags()) {
    if (o.name == "strategy" || o.name == "seed") continue;
    if (o.name == "time-limit") {
      options.push_back({o.name, o.value_name, "wall-clock budget per run (default 2)"});
    } else if (o.name == "iterations") {
      options.push_back({o.name, o.value_name,
                         "work budget per run instead of time (deterministic latencies)"});
    } else {
      options.push_back(o);
    }
  }
  return options;
}

}  // namespace

int RunCompare(int argc, char** argv, int first) {
  Args args("compare", "PROBLEM.json... [options]",
            "Runs every strategy on every problem once per seed, one run after another, each\n"
            "under the same budget (--time-limit, default 2 s, or --iterations), and prints one\n"
            "row per problem and strategy: best / median / worst latency over the seeds (as\n"
            "Evaluate() reports it), the ratio of the strategy's best to the best strategy's\n"
            "best on that problem, the median time until a run came within 1% of its final\n"
            "latency, the median rate of subgraph configurations costed per second, the median\n"
            "run time and the problem's lower bound. With --iterations the latencies do not\n"
            "depend on the machine or the thread count; the times always do.",
            CompareOptions(), 1, kMaxProblems);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  experiment::ComparisonRequest request;
  if (args.Has("strategies")) {
    auto parsed = experiment::ParseStrategyList(args.Get("strategies"));
    if (!parsed.ok()) return Fail("compare", parsed.status().message(), kExitUsage);
    request.strategies = *parsed;
  }
  if (args.Has("seeds")) {
    auto parsed = experiment::ParseSeedList(args.Get("seeds"));
    if (!parsed.ok()) return Fail("compare", parsed.status().message(), kExitUsage);
    request.seeds = *parsed;
  }
  const std::string format = args.Get("format", "table");
  if (format != "table" && format != "csv" && format != "jsonl" && format != "markdown") {
    return Fail("compare", "--format: expected table, csv, jsonl or markdown, got '" + format + "'",
                kExitUsage);
  }
  auto parsed_options = SearchOptionsFromArgs(args);
  if (!parsed_options.ok()) return Fail("compare", parsed_options.status().message(), kExitUsage);
  search::SearchOptions base = *parsed_options;
  if (Status s = experiment::SetComparisonBudget(args.Has("time-limit"), args.Has("iterations"),
                                                 &base);
      !s.ok()) {
    return Fail("compare", s.message(), kExitUsage);
  }
  const std::string output = args.Get("output");
  if (Status s = CheckOutputOptions(args, {"output"}); !s.ok()) {
    return Fail("compare", s.message(), kExitUsage);
  }
  request.problem_paths = args.positional();
  request.base = base;
  if (!args.Has("quiet")) {
    request.progress = [](const std::string& line) { std::cerr << "compare: " << line << "\n"; };
  }
  bool invalid = false;
  auto table = experiment::RunComparison(request, &invalid);
  if (!table.ok()) {
    return Fail("compare", table.status().message(), invalid ? kExitInvalid : kExitUsage);
  }
  const std::string text = experiment::RenderComparison(*table, format);
  if (output.empty()) {
    std::cout << text;
  } else if (Status s = WriteFileAtomic(output, text); !s.ok()) {
    return Fail("compare", s.message(), kExitUsage);
  }
  return kExitOk;
}

}  // namespace tilesched::cli
