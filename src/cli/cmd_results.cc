// `tilesched results`: parses the flags, runs the contest benchmarks through the experiment
// library (RunBenchmarks, src/experiment/results.h), and writes the results table, or checks /
// refreshes a golden table of deterministic runs.
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "args.h"
#include "commands.h"
#include "results.h"
#include "search_args.h"
#include "tilesched/file_util.h"

namespace tilesched::cli {

namespace {

Result<std::vector<int>> ParseList(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      const int v = std::stoi(item, &used);
      if (used != item.size() || v < 1) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      return Status::Error("--only: expected benchmark numbers like 1,2,5, got '" + text + "'");
    }
  }
  return out;
}

std::vector<Option> ResultsOptions() {
  std::vector<Option> options = SearchOptionFlags();
  options.insert(options.begin(),
                 {{"output", "FILE", "write the Markdown results table here (default: stdout)", "-o"},
                  {"suite", "NAME", "the problems of a suite instead of the contest benchmarks: "
                   "`large` (data/large, docs/results_large.md)"},
                  {"only", "LIST", "benchmarks to run, e.g. 1,2,3 (default all 24)"},
                  {"budget-scale", "X", "multiply the contest budgets by X (default 1)"},
                  {"tier2-seconds", "SEC", "tier 2 of the bound (covering LP) on every benchmark "
                   "not proven optimal, up to SEC seconds each (default 120; 0 with --iterations)"},
                  {"data-dir", "DIR", "benchmark folder (default: data/benchmarks of the source tree)"},
                  {"targets", "FILE", "targets table (default: data/targets.csv of the source tree)"},
                  {"check", "GOLDEN.csv", "fail (exit 1) when a latency is worse than the golden"},
                  {"write-golden", "GOLDEN.csv", "write the latencies as the new golden table"}});
  return options;
}

// The problem files of a run: the positional arguments, or the suite's files (data/large: every
// .json file, ordered by name); empty for the contest benchmarks.
Result<std::vector<std::string>> ProblemFiles(const Args& args) {
  std::vector<std::string> files = args.positional();
  if (!args.Has("suite")) return files;
  if (args.Get("suite") != "large") {
    return Status::Error("--suite: the only suite is `large`, got '" + args.Get("suite") + "'");
  }
  if (!files.empty()) return Status::Error("give problem files or --suite, not both");
  const std::filesystem::path dir = std::filesystem::path(TILESCHED_DATA_DIR) / "large";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  if (error || files.empty()) return Status::Error("--suite large: no problem files in " + dir.string());
  std::sort(files.begin(), files.end());
  return files;
}

// The request from the flags: search options, budget scale, targets and benchmarks.
Result<experiment::BenchmarkRequest> RequestFromArgs(const Args& args) {
  experiment::BenchmarkRequest request;
  auto base = SearchOptionsFromArgs(args);
  if (!base.ok()) return base.status();
  request.base = *base;
  auto scale = args.GetDouble("budget-scale", 1.0);
  if (!scale.ok() || *scale <= 0) return Status::Error("--budget-scale must be a positive number");
  request.budget_scale = *scale;
  auto tier2 = args.GetDouble("tier2-seconds", request.base.iterations > 0 ? 0.0 : 120.0);
  if (!tier2.ok() || *tier2 < 0) return Status::Error("--tier2-seconds must not be negative");
  request.tier2_seconds = *tier2;
  auto targets = experiment::LoadTargets(args.Get("targets", std::string(TILESCHED_DATA_DIR) + "/targets.csv"));
  if (!targets.ok()) return targets.status();
  request.targets = *targets;
  if (args.Has("only")) {
    auto list = ParseList(args.Get("only"));
    if (!list.ok()) return list.status();
    request.benches = *list;
  } else {
    for (const auto& [bench, target] : request.targets) request.benches.push_back(bench);
  }
  request.data_dir = args.Get("data-dir", std::string(TILESCHED_DATA_DIR) + "/benchmarks");
  auto files = ProblemFiles(args);
  if (!files.ok()) return files.status();
  request.problem_paths = *files;
  if (!request.problem_paths.empty() && (args.Has("only") || args.Has("check") || args.Has("write-golden"))) {
    return Status::Error("--only, --check and --write-golden are for the contest benchmarks, not "
                         "problem files or a suite");
  }
  request.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  return request;
}

std::string Today() {
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
  return date;
}

// --check: the golden comparison's notes on stderr; kExitInvalid on a regression.
int CheckAgainstGolden(const std::vector<experiment::BenchmarkRow>& rows, const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return Fail("results", text.status().message(), kExitUsage);
  auto check = experiment::CheckGolden(rows, *text, path);
  if (!check.ok()) return Fail("results", check.status().message(), kExitUsage);
  for (const std::string& note : check->notes) std::cerr << note << "\n";
  return check->regressed ? kExitInvalid : kExitOk;
}

}  // namespace

int RunResults(int argc, char** argv, int first) {
  Args args("results", "[PROBLEM.json...] [options]",
            "Runs the scheduler on the contest benchmarks, one after the other, each with its\n"
            "contest budget (minus the mlsys safety margin) unless --iterations gives a\n"
            "deterministic work budget, and prints a Markdown table (or writes it to -o FILE):\n"
            "latency, lower bound, ratio, target, field best, time. Every latency comes from\n"
            "Evaluate(). docs/results.md is made by `tilesched results -o docs/results.md`.\n"
            "Golden check (CI): --iterations N --check tests/golden/results.csv; refresh with\n"
            "--write-golden tests/golden/results.csv (see docs/results.md).\n"
            "With problem files (or --suite large, the files of data/large) it runs those\n"
            "instead, each at the contest tier for its op count, and greedy alone on each too:\n"
            "latency, tier 1 and tier 2 bounds, the part of the gap in components tier 2 priced,\n"
            "latency / bound, greedy's latency, time to within 1% of the final result.\n"
            "docs/results_large.md is made by\n"
            "`tilesched results --suite large --threads 2 -o docs/results_large.md`.",
            ResultsOptions(), 0, kMaxProblems);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  if (Status s = CheckOutputOptions(args, {"output", "write-golden"}); !s.ok()) {
    return Fail("results", s.message(), kExitUsage);
  }
  auto request = RequestFromArgs(args);
  if (!request.ok()) return Fail("results", request.status().message(), kExitUsage);
  bool invalid = false;
  auto rows = experiment::RunBenchmarks(*request, &invalid);
  if (!rows.ok()) return Fail("results", rows.status().message(), invalid ? kExitInternal : kExitUsage);

  const std::string markdown = request->problem_paths.empty()
                                   ? experiment::ResultsMarkdown(*request, *rows, Today())
                                   : experiment::ProblemsMarkdown(*request, *rows, Today());
  const std::string output = args.Get("output");
  if (!output.empty()) {
    if (Status s = WriteFileAtomic(output, markdown); !s.ok()) return Fail("results", s.message(), kExitUsage);
    std::cerr << "wrote " << output << "\n";
  } else {
    std::cout << markdown;
  }
  if (args.Has("write-golden")) {
    if (Status s = WriteFileAtomic(args.Get("write-golden"), experiment::GoldenCsv(*request, *rows));
        !s.ok()) {
      return Fail("results", s.message(), kExitUsage);
    }
  }
  if (args.Has("check")) return CheckAgainstGolden(*rows, args.Get("check"));
  return kExitOk;
}

}  // namespace tilesched::cli
