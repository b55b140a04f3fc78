// `tilesched results`: run the scheduler on the contest benchmarks and write the results table
// (docs/results.md), or check / refresh a golden table of deterministic runs.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "args.h"
#include "commands.h"
#include "search.h"
#include "search_args.h"
#include "table.h"
#include "tilesched/evaluate.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"

namespace tilesched::cli {

namespace {

// How the table is made and checked, appended to every generated docs/results.md.
constexpr const char* kResultsFooter =
    "\n## How this table is made\n\n"
    "- Regenerate: `./build/src/cli/tilesched results` (about 15 minutes: every benchmark at its "
    "contest budget, one after the other; `--only 1,2,3` for a subset, `--budget-scale X` to "
    "scale the budgets).\n"
    "- Targets, field best and Vinci's scores: `data/targets.csv` (from the scheduler issue).\n"
    "- Golden test (CI): `tilesched results --iterations 5000 --check tests/golden/results.csv` "
    "fails when any benchmark gets worse than the golden latency. After an improvement, refresh "
    "it with `./build/src/cli/tilesched results --iterations 5000 --write-golden "
    "tests/golden/results.csv`.\n"
    "- Targets that the cost model does not allow, and how the search works: `docs/search.md`.\n";

struct Target {
  int bench = 0;
  int ops = 0;
  double budget = 0;
  double vinci = 0;       // 0 = invalid / unknown
  double field_best = 0;  // 0 = unknown
  double target = 0;
};

Result<std::map<int, Target>> LoadTargets(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  std::map<int, Target> targets;
  std::istringstream in(*text);
  std::string line;
  int line_no = 0;
  bool header = true;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(cell);
    if (cells.size() < 7) cells.resize(7);
    try {
      Target t;
      t.bench = std::stoi(cells[0]);
      t.ops = std::stoi(cells[1]);
      t.budget = std::stod(cells[2]);
      t.vinci = cells[4].empty() ? 0 : std::stod(cells[4]);
      t.field_best = cells[5].empty() ? 0 : std::stod(cells[5]);
      t.target = std::stod(cells[6]);
      targets[t.bench] = t;
    } catch (const std::exception&) {
      return Status::Error(path + ":" + std::to_string(line_no) + ": malformed row '" + line + "'");
    }
  }
  return targets;
}

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

struct Row {
  int bench = 0;
  double latency = 0, lower_bound = 0, seconds = 0;
  size_t subgraphs = 0;
  std::string found_by;
};

std::string Cell(double v) { return v > 0 ? FormatCount(static_cast<int64_t>(v + 0.5)) : "-"; }

}  // namespace

int RunResults(int argc, char** argv, int first) {
  std::vector<Option> options = SearchOptionFlags();
  options.insert(options.begin(),
                 {{"output", "FILE", "Markdown results table (default docs/results.md)"},
                  {"only", "LIST", "benchmarks to run, e.g. 1,2,3 (default all 24)"},
                  {"budget-scale", "X", "multiply the contest budgets by X (default 1)"},
                  {"data-dir", "DIR", "benchmark folder (default data/benchmarks)"},
                  {"targets", "FILE", "targets table (default data/targets.csv)"},
                  {"check", "GOLDEN.csv", "fail (exit 1) when a latency is worse than the golden"},
                  {"write-golden", "GOLDEN.csv", "write the latencies as the new golden table"}});
  Args args("results", "[options]",
            "Runs the scheduler on the contest benchmarks, one after the other, each with its\n"
            "contest budget (minus the mlsys safety margin) unless --iterations gives a\n"
            "deterministic work budget, and writes a Markdown table: latency, lower bound,\n"
            "ratio, target, field best, time. Every latency comes from Evaluate().\n"
            "Golden check (CI): --iterations N --check tests/golden/results.csv; refresh with\n"
            "--write-golden tests/golden/results.csv (see docs/results.md).",
            options, 0, 0);
  if (Status s = args.Parse(argc, argv, first); !s.ok()) return Fail("results", s.message(), kExitUsage);
  if (args.help()) {
    std::cout << args.HelpText();
    return kExitOk;
  }
  auto base = SearchOptionsFromArgs(args);
  if (!base.ok()) return Fail("results", base.status().message(), kExitUsage);
  auto scale = args.GetDouble("budget-scale", 1.0);
  if (!scale.ok() || *scale <= 0) return Fail("results", "--budget-scale must be a positive number", kExitUsage);
  auto targets = LoadTargets(args.Get("targets", "data/targets.csv"));
  if (!targets.ok()) return Fail("results", targets.status().message(), kExitUsage);
  std::vector<int> benches;
  if (args.Has("only")) {
    auto list = ParseList(args.Get("only"));
    if (!list.ok()) return Fail("results", list.status().message(), kExitUsage);
    benches = *list;
  } else {
    for (const auto& [bench, target] : *targets) benches.push_back(bench);
  }
  const std::string data_dir = args.Get("data-dir", "data/benchmarks");
  const bool deterministic = base->iterations > 0;

  std::vector<Row> rows;
  for (int bench : benches) {
    const std::string path = data_dir + "/mlsys-2026-" + std::to_string(bench) + ".json";
    auto problem = LoadProblem(path);
    if (!problem.ok()) return Fail("results", problem.status().message(), kExitUsage);
    search::SearchOptions run_options = *base;
    if (!deterministic) {
      const auto it = targets->find(bench);
      const double contest = it != targets->end() ? it->second.budget : 10;
      run_options.time_limit = contest * *scale - std::max(0.3, 0.05 * contest * *scale);
      run_options.time_limit = std::max(run_options.time_limit, 0.2);
    }
    auto result = search::RunSearch(*problem, run_options);
    if (!result.ok()) return Fail("results", "benchmark " + std::to_string(bench) + ": " + result.status().message(), kExitUsage);
    auto evaluation = Evaluate(*problem, result->schedule, run_options.modes);
    if (!evaluation.ok()) {
      return Fail("results", "benchmark " + std::to_string(bench) + ": invalid result: " + evaluation.status().message(), 3);
    }
    Row row;
    row.bench = bench;
    row.latency = evaluation->total;
    row.lower_bound = ComputeLowerBounds(*problem, run_options.modes).best();
    row.seconds = result->seconds;
    row.subgraphs = result->schedule.subgraphs.size();
    row.found_by = result->found_by;
    rows.push_back(row);
    const auto it = targets->find(bench);
    const double target = it != targets->end() ? it->second.target : 0;
    std::cerr << "benchmark " << bench << ": " << FormatNumber(row.latency) << " (target "
              << Cell(target) << ", " << (target > 0 ? FormatNumber(row.latency / target, 3) : "-")
              << "x) in " << FormatNumber(row.seconds, 1) << "s\n";
  }

  // Markdown table.
  std::ostringstream md;
  const search::SearchOptions& o = *base;
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
  int met = 0, within = 0;
  md << "# Results on the contest benchmarks\n\n"
     << "Generated by `tilesched results` on " << date << " (" << std::thread::hardware_concurrency()
     << " hardware threads, threads=" << (o.threads ? std::to_string(o.threads) : "all")
     << ", seed " << o.seed << ", strategy " << o.strategy << ").\n"
     << "Modes: " << ModesString(o.modes) << ". Budget: "
     << (deterministic ? "iterations=" + std::to_string(o.iterations)
                       : "contest time limit x " + FormatNumber(*scale, 2) + " minus the mlsys margin")
     << ". Every latency below is Evaluate()'s.\n\n"
     << "| bench | ops | latency | lower bound | ratio to LB | target | latency / target | "
        "field best | Vinci (1st) | subgraphs | time s | found by |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    const auto it = targets->find(r.bench);
    const Target t = it != targets->end() ? it->second : Target{};
    const double vs = t.target > 0 ? r.latency / t.target : 0;
    met += vs > 0 && vs <= 1 + 1e-9;
    within += vs > 0 && vs <= 1.05;
    md << "| " << r.bench << " | " << t.ops << " | " << FormatNumber(r.latency) << " | "
       << Cell(r.lower_bound) << " | " << FormatNumber(r.latency / r.lower_bound, 3) << " | "
       << Cell(t.target) << " | " << (vs > 0 ? FormatNumber(vs, 3) : "-")
       << (vs > 0 && vs <= 1 + 1e-9 ? " ✓" : "") << " | " << Cell(t.field_best) << " | "
       << (t.vinci > 0 ? Cell(t.vinci) : "invalid") << " | " << r.subgraphs << " | "
       << FormatNumber(r.seconds, 1) << " | " << r.found_by << " |\n";
  }
  md << "\nAt or below target: " << met << " of " << rows.size() << "; within 1.05 x target: "
     << within << " of " << rows.size() << ".\n"
     << kResultsFooter;
  const std::string output = args.Get("output", args.Has("check") || args.Has("write-golden") ? "" : "docs/results.md");
  if (!output.empty()) {
    if (Status s = WriteFileAtomic(output, md.str()); !s.ok()) return Fail("results", s.message(), kExitUsage);
    std::cerr << "wrote " << output << "\n";
  } else {
    std::cout << md.str();
  }

  if (args.Has("write-golden")) {
    std::ostringstream csv;
    csv << "# Golden latencies of `tilesched results " << (deterministic ? "--iterations " + std::to_string(o.iterations) : "") << "`; "
        << "refresh with the command in docs/results.md.\nbench,latency\n";
    csv.precision(17);
    for (const Row& r : rows) csv << r.bench << "," << r.latency << "\n";
    if (Status s = WriteFileAtomic(args.Get("write-golden"), csv.str()); !s.ok()) {
      return Fail("results", s.message(), kExitUsage);
    }
  }
  if (args.Has("check")) {
    auto text = ReadFile(args.Get("check"));
    if (!text.ok()) return Fail("results", text.status().message(), kExitUsage);
    std::map<int, double> golden;
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#' || line.rfind("bench", 0) == 0) continue;
      const size_t comma = line.find(',');
      if (comma == std::string::npos) continue;
      golden[std::stoi(line.substr(0, comma))] = std::stod(line.substr(comma + 1));
    }
    bool regressed = false;
    for (const Row& r : rows) {
      auto it = golden.find(r.bench);
      if (it == golden.end()) {
        std::cerr << "benchmark " << r.bench << ": not in the golden table\n";
        regressed = true;
      } else if (r.latency > it->second * (1 + 1e-9)) {
        std::cerr << "benchmark " << r.bench << ": REGRESSION " << FormatNumber(r.latency)
                  << " > golden " << FormatNumber(it->second) << "\n";
        regressed = true;
      } else if (r.latency < it->second * (1 - 1e-9)) {
        std::cerr << "benchmark " << r.bench << ": improved " << FormatNumber(r.latency)
                  << " < golden " << FormatNumber(it->second) << " (refresh the golden table)\n";
      }
    }
    if (regressed) return kExitInvalid;
  }
  return kExitOk;
}

}  // namespace tilesched::cli
