// `tilesched compare`: parses the comparison's flags, runs it through the experiment library
// (RunComparison, src/experiment/comparison.h) and prints or writes the table.
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "comparison.h"
#include "search_args.h"
#include "tilesched/file_util.h"

namespace tilesched::cli {

namespace {

constexpr double kDefaultTimeLimit = 2;  // seconds per run when no budget is given

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) items.push_back(item);
  if (!text.empty() && text.back() == ',') items.push_back("");
  return items;
}

std::string KnownStrategies() { return search::StrategyList(); }

// What runs without --strategies: every strategy that searches. `cover` computes a bound and
// keeps greedy's schedule, so it is compared only when asked for.
std::vector<std::string> DefaultStrategies() {
  std::vector<std::string> strategies;
  for (const std::string& s : search::StrategyNames()) {
    if (s != "cover") strategies.push_back(s);
  }
  return strategies;
}

std::string JoinedDefaultStrategies() {
  std::string joined;
  for (const std::string& s : DefaultStrategies()) joined += (joined.empty() ? "" : ",") + s;
  return joined;
}

Result<std::vector<std::string>> ParseStrategies(const std::string& text) {
  std::vector<std::string> strategies;
  for (const std::string& name : SplitList(text)) {
    bool known = false;
    for (const std::string& s : search::StrategyNames()) known |= s == name;
    if (!known) {
      return Status::Error("--strategies: unknown strategy '" + name + "' (known: " +
                           KnownStrategies() + ")");
    }
    for (const std::string& s : strategies) {
      if (s == name) return Status::Error("--strategies: '" + name + "' is listed twice");
    }
    strategies.push_back(name);
  }
  if (strategies.empty()) {
    return Status::Error("--strategies: empty list (known: " + KnownStrategies() + ")");
  }
  return strategies;
}

Result<std::vector<uint64_t>> ParseSeeds(const std::string& text) {
  std::vector<uint64_t> seeds;
  for (const std::string& item : SplitList(text)) {
    // At most 18 digits: every such number fits in a uint64_t.
    const bool digits = !item.empty() && item.size() <= 18 &&
                        item.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) {
      return Status::Error("--seeds: expected non-negative integers like 1,2,3, got '" + text +
                           "'");
    }
    const uint64_t seed = std::stoull(item);
    for (uint64_t s : seeds) {
      if (s == seed) return Status::Error("--seeds: seed " + item + " is listed twice");
    }
    seeds.push_back(seed);
  }
  if (seeds.empty()) return Status::Error("--seeds: empty list");
  return seeds;
}

// The options of `compare`: its own, then the search flags (one strategy and seed per run come
// from --strategies and --seeds).
std::vector<Option> CompareOptions() {
  std::vector<Option> options = {
      {"strategies", "LIST", "strategies to compare, e.g. greedy,beam (default: " +
                             JoinedDefaultStrategies() + "; also cover, which only bounds)"},
      {"seeds", "LIST", "seeds, one run per seed (default 1,2,3)"},
      {"format", "F", "table | csv | markdown (default table)"},
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

// One budget kind per comparison: the flag given wins over the config file's.
Status SetBudget(const Args& args, search::SearchOptions* base) {
  if (args.Has("time-limit") && args.Has("iterations")) {
    return Status::Error("--time-limit and --iterations exclude each other");
  }
  if (args.Has("time-limit")) {
    if (base->time_limit <= 0) return Status::Error("--time-limit must be positive");
    base->iterations = 0;
  } else if (args.Has("iterations")) {
    if (base->iterations <= 0) return Status::Error("--iterations must be positive");
    base->time_limit = 0;
  } else if (base->time_limit <= 0 && base->iterations <= 0) {
    base->time_limit = kDefaultTimeLimit;
  }
  return Status::Ok();
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
  std::vector<std::string> strategies = DefaultStrategies();
  if (args.Has("strategies")) {
    auto parsed = ParseStrategies(args.Get("strategies"));
    if (!parsed.ok()) return Fail("compare", parsed.status().message(), kExitUsage);
    strategies = *parsed;
  }
  std::vector<uint64_t> seeds = {1, 2, 3};
  if (args.Has("seeds")) {
    auto parsed = ParseSeeds(args.Get("seeds"));
    if (!parsed.ok()) return Fail("compare", parsed.status().message(), kExitUsage);
    seeds = *parsed;
  }
  const std::string format = args.Get("format", "table");
  if (format != "table" && format != "csv" && format != "markdown") {
    return Fail("compare", "--format: expected table, csv or markdown, got '" + format + "'",
                kExitUsage);
  }
  auto parsed_options = SearchOptionsFromArgs(args);
  if (!parsed_options.ok()) return Fail("compare", parsed_options.status().message(), kExitUsage);
  search::SearchOptions base = *parsed_options;
  if (Status s = SetBudget(args, &base); !s.ok()) return Fail("compare", s.message(), kExitUsage);
  const std::string output = args.Get("output");
  if (Status s = CheckOutputOptions(args, {"output"}); !s.ok()) {
    return Fail("compare", s.message(), kExitUsage);
  }
  experiment::ComparisonRequest request;
  request.problem_paths = args.positional();
  request.strategies = strategies;
  request.seeds = seeds;
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
