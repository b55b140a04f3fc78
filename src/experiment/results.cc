// Benchmark results: the runs, the Markdown table, and the golden table's write and check.
#include "results.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "tilesched/contest.h"
#include "tilesched/csv.h"
#include "tilesched/evaluate.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/table.h"

namespace tilesched::experiment {

namespace {

// How the table is made and checked, appended to every generated docs/results.md.
constexpr const char* kResultsFooter =
    "\n## How this table is made\n\n"
    "- Regenerate: `./build/src/cli/tilesched results -o docs/results.md` (about 10 minutes: every benchmark at its "
    "contest budget, one after the other, and a benchmark proven optimal stops at once; then "
    "tier 2 of the bound, up to `--tier2-seconds` (default 120) on each benchmark not proven "
    "optimal; `--only 1,2,3` for a subset, `--budget-scale X` to scale the budgets).\n"
    "- Targets, field best and Vinci's scores: `data/targets.csv` (from the scheduler issue).\n"
    "- Golden test (CI): `tilesched results --iterations 5000 --check tests/golden/results.csv` "
    "fails when any benchmark gets worse than the golden latency. After an improvement, refresh "
    "it with `./build/src/cli/tilesched results --iterations 5000 --write-golden "
    "tests/golden/results.csv`.\n"
    "- Targets that the cost model does not allow, and how the search works: `docs/search.md`.\n"
    "- The runs, this table and the golden check are the experiment library's "
    "`RunBenchmarks()`, `ResultsMarkdown()` and `CheckGolden()` (`src/experiment/results.h`).\n";

// "targets.csv line 7: ops: expected an integer, got 'x'" style prefix.
std::string Where(const std::string& name, const CsvRecord& record, const char* column) {
  return name + " line " + std::to_string(record.line) + ": " + column + ": ";
}

Result<int> ParseIntCell(const std::string& text, const std::string& where) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return Status::Error(where + "expected a non-negative integer, got '" + text + "'");
  }
  return value;
}

// A number; an empty cell is `empty_value` when `may_be_empty`.
Result<double> ParseNumberCell(const std::string& text, const std::string& where,
                               bool may_be_empty = false) {
  if (text.empty() && may_be_empty) return 0.0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return Status::Error(where + "expected a number, got '" + text + "'");
  }
  return value;
}

Result<Target> ParseTarget(const CsvRecord& record, const std::string& name) {
  std::vector<std::string> cells = record.fields;
  if (cells.size() < 7) cells.resize(7);
  Target t;
  auto bench = ParseIntCell(cells[0], Where(name, record, "bench"));
  if (!bench.ok()) return bench.status();
  auto ops = ParseIntCell(cells[1], Where(name, record, "ops"));
  if (!ops.ok()) return ops.status();
  auto budget = ParseNumberCell(cells[2], Where(name, record, "budget_s"));
  if (!budget.ok()) return budget.status();
  auto vinci = ParseNumberCell(cells[4], Where(name, record, "vinci"), /*may_be_empty=*/true);
  if (!vinci.ok()) return vinci.status();
  auto field_best = ParseNumberCell(cells[5], Where(name, record, "field_best"), true);
  if (!field_best.ok()) return field_best.status();
  auto target = ParseNumberCell(cells[6], Where(name, record, "target"));
  if (!target.ok()) return target.status();
  return Target{*bench, *ops, *budget, *vinci, *field_best, *target};
}

std::string Cell(double v) { return v > 0 ? FormatCount(static_cast<int64_t>(v + 0.5)) : "-"; }

Target TargetOf(const std::map<int, Target>& targets, int bench) {
  const auto it = targets.find(bench);
  return it != targets.end() ? it->second : Target{};
}

// One benchmark: the search at its budget, the result judged by Evaluate().
Result<BenchmarkRow> RunBenchmark(const BenchmarkRequest& request, int bench,
                                  bool* invalid_result) {
  const std::string path = request.data_dir + "/mlsys-2026-" + std::to_string(bench) + ".json";
  auto problem = LoadProblem(path);
  if (!problem.ok()) return problem.status();
  search::SearchOptions run_options = request.base;
  if (run_options.iterations <= 0) {
    const auto it = request.targets.find(bench);
    const double contest = it != request.targets.end() ? it->second.budget : 10;
    run_options.time_limit = ContestTimeLimit(contest * request.budget_scale);
  }
  const std::string where = "benchmark " + std::to_string(bench) + ": ";
  auto result = search::RunSearch(*problem, run_options);
  if (!result.ok()) return result.status().WithContext(where);
  auto evaluation = Evaluate(*problem, result->schedule, run_options.modes);
  if (!evaluation.ok()) {
    if (invalid_result) *invalid_result = true;
    return evaluation.status().WithContext(where + "invalid result: ");
  }
  BenchmarkRow row;
  row.bench = bench;
  row.latency = evaluation->total;
  row.lower_bound = result->lower_bound;
  row.gap = Gap(row.latency, row.lower_bound);
  row.optimal = row.latency <= row.lower_bound * (1 + result->bound_tolerance);
  row.seconds = result->seconds;
  row.subgraphs = result->schedule.subgraphs.size();
  row.found_by = result->found_by;
  if (request.tier2_seconds > 0 && !row.optimal) {
    search::Tier2Options tier2;
    tier2.modes = run_options.modes;
    tier2.time_limit = request.tier2_seconds;
    tier2.threads = run_options.threads;
    tier2.max_tile_configs = run_options.exact_max_tile_configs;
    row.tier2 = search::Tier2Bound(*problem, tier2).value;
    row.lower_bound = std::max(row.lower_bound, row.tier2);
    row.gap = Gap(row.latency, row.lower_bound);
    row.optimal = row.latency <= row.lower_bound * (1 + search::kTier2BoundTolerance);
  }
  return row;
}

}  // namespace

Result<std::map<int, Target>> LoadTargets(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  auto records = ParseCsv(*text, path, /*comments=*/true);
  if (!records.ok()) return records.status();
  std::map<int, Target> targets;
  for (size_t r = 1; r < records->size(); ++r) {  // record 0 is the header
    auto target = ParseTarget((*records)[r], path);
    if (!target.ok()) return target.status();
    targets[target->bench] = *target;
  }
  return targets;
}

Result<std::vector<BenchmarkRow>> RunBenchmarks(const BenchmarkRequest& request,
                                                bool* invalid_result) {
  std::vector<BenchmarkRow> rows;
  for (int bench : request.benches) {
    auto row = RunBenchmark(request, bench, invalid_result);
    if (!row.ok()) return row.status();
    rows.push_back(*row);
    if (request.progress) {
      const double target = TargetOf(request.targets, bench).target;
      request.progress("benchmark " + std::to_string(bench) + ": " + FormatNumber(row->latency) +
                       " (target " + Cell(target) + ", " +
                       (target > 0 ? FormatNumber(row->latency / target, 3) : "-") + "x) in " +
                       FormatNumber(row->seconds, 1) + "s");
    }
  }
  return rows;
}

std::string ResultsMarkdown(const BenchmarkRequest& request, const std::vector<BenchmarkRow>& rows,
                            const std::string& date) {
  std::ostringstream md;
  const search::SearchOptions& o = request.base;
  const bool deterministic = o.iterations > 0;
  int met = 0, within = 0, proven = 0;
  md << "# Results on the contest benchmarks\n\n"
     << "Generated by `tilesched results` on " << date << " (" << std::thread::hardware_concurrency()
     << " hardware threads, threads=" << (o.threads ? std::to_string(o.threads) : "all")
     << ", seed " << o.seed << ", strategy " << o.strategy << ").\n"
     << "Modes: " << ModesString(o.modes) << ". Budget: "
     << (deterministic ? "iterations=" + std::to_string(o.iterations)
                       : "contest time limit x " + FormatNumber(request.budget_scale, 2) +
                             " minus the mlsys margin")
     << ". Every latency below is Evaluate()'s.\n\n"
     << (request.tier2_seconds > 0
             ? "Lower bound: the larger of tier 1 (and the search's proof) and tier 2, the "
               "covering LP of docs/bounds.md, given " + FormatNumber(request.tier2_seconds, 0) +
                   " s on every benchmark not already proven optimal (column tier 2; - where "
                   "not run, 0 where it proved nothing in time or the problem is too large for "
                   "it).\n\n"
             : std::string())
     << "| bench | ops | latency | lower bound | gap | proven | tier 2 | target | latency / target | "
        "field best | Vinci (1st) | subgraphs | time s | found by |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const BenchmarkRow& r : rows) {
    const Target t = TargetOf(request.targets, r.bench);
    const double vs = t.target > 0 ? r.latency / t.target : 0;
    met += vs > 0 && vs <= 1 + 1e-9;
    within += vs > 0 && vs <= 1.05;
    proven += r.optimal;
    md << "| " << r.bench << " | " << t.ops << " | " << FormatNumber(r.latency) << " | "
       << FormatNumber(r.lower_bound) << " | " << FormatNumber(100 * r.gap, 1) << "% | "
       << (r.optimal ? "optimal" : "-") << " | "
       << (r.tier2 >= 0 ? FormatNumber(r.tier2) : "-") << " | "
       << Cell(t.target) << " | " << (vs > 0 ? FormatNumber(vs, 3) : "-")
       << (vs > 0 && vs <= 1 + 1e-9 ? " ✓" : "") << " | " << Cell(t.field_best) << " | "
       << (t.vinci > 0 ? Cell(t.vinci) : "invalid") << " | " << r.subgraphs << " | "
       << FormatNumber(r.seconds, 1) << " | " << r.found_by << " |\n";
  }
  md << "\nAt or below target: " << met << " of " << rows.size() << "; within 1.05 x target: "
     << within << " of " << rows.size() << "; proven optimal (latency = lower bound, "
     << "docs/bounds.md): " << proven << " of " << rows.size() << ".";
  // Latency / lower bound over the rows with a positive bound: median and largest.
  std::vector<std::pair<double, int>> ratios;
  for (const BenchmarkRow& r : rows) {
    if (r.lower_bound > 0) ratios.emplace_back(r.latency / r.lower_bound, r.bench);
  }
  if (!ratios.empty()) {
    std::sort(ratios.begin(), ratios.end());
    const size_t m = ratios.size() / 2;
    const double median = ratios.size() % 2 == 1 ? ratios[m].first
                                                 : (ratios[m - 1].first + ratios[m].first) / 2;
    md << " Latency / lower bound: median " << FormatNumber(median, 3) << ", largest "
       << FormatNumber(ratios.back().first, 3) << " (benchmark " << ratios.back().second << ").";
  }
  md << "\n" << kResultsFooter;
  return md.str();
}

std::string GoldenCsv(const BenchmarkRequest& request, const std::vector<BenchmarkRow>& rows) {
  const int64_t iterations = request.base.iterations;
  std::ostringstream csv;
  csv << "# Golden latencies of `tilesched results "
      << (iterations > 0 ? "--iterations " + std::to_string(iterations) : "") << "`; "
      << "refresh with the command in docs/results.md.\nbench,latency,lower_bound,gap,proven\n";
  csv.precision(17);
  for (const BenchmarkRow& r : rows) {
    csv << r.bench << "," << r.latency << "," << r.lower_bound << "," << r.gap << ","
        << (r.optimal ? 1 : 0) << "\n";
  }
  return csv.str();
}

Result<GoldenCheck> CheckGolden(const std::vector<BenchmarkRow>& rows,
                                const std::string& golden_text, const std::string& name) {
  auto records = ParseCsv(golden_text, name, /*comments=*/true);
  if (!records.ok()) return records.status();
  std::map<int, double> golden;
  for (const CsvRecord& record : *records) {
    if (!record.fields.empty() && record.fields[0] == "bench") continue;  // the header
    if (record.fields.size() != 2 && record.fields.size() != 5) {
      return Status::Error(name + " line " + std::to_string(record.line) +
                           ": expected 5 fields (bench,latency,lower_bound,gap,proven) or 2 "
                           "(bench,latency), got " + std::to_string(record.fields.size()));
    }
    auto bench = ParseIntCell(record.fields[0], Where(name, record, "bench"));
    if (!bench.ok()) return bench.status();
    auto latency = ParseNumberCell(record.fields[1], Where(name, record, "latency"));
    if (!latency.ok()) return latency.status();
    golden[*bench] = *latency;
  }
  GoldenCheck check;
  for (const BenchmarkRow& r : rows) {
    const std::string bench = "benchmark " + std::to_string(r.bench) + ": ";
    auto it = golden.find(r.bench);
    if (it == golden.end()) {
      check.notes.push_back(bench + "not in the golden table");
      check.regressed = true;
    } else if (r.latency > it->second * (1 + 1e-9)) {
      check.notes.push_back(bench + "REGRESSION " + FormatNumber(r.latency) + " > golden " +
                            FormatNumber(it->second));
      check.regressed = true;
    } else if (r.latency < it->second * (1 - 1e-9)) {
      check.notes.push_back(bench + "improved " + FormatNumber(r.latency) + " < golden " +
                            FormatNumber(it->second) + " (refresh the golden table)");
    }
  }
  return check;
}

}  // namespace tilesched::experiment
