// RunComparison: the runs of a strategy comparison, their improvement timelines, and the
// table's layout (text, CSV or Markdown).
#include "comparison.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>

#include "tilesched/evaluate.h"
#include "tilesched/flat_json.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/table.h"
#include "timeline.h"

namespace tilesched::experiment {

namespace {

using Clock = std::chrono::steady_clock;

// "a,b," -> {"a", "b", ""}: a trailing comma is an empty item (which the parsers refuse).
std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) items.push_back(item);
  if (!text.empty() && text.back() == ',') items.push_back("");
  return items;
}

struct ProblemInput {
  std::string name;  // file name without directory and ".json"
  Problem problem;
  double lower_bound = 0;
};

std::string ProblemName(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

// Ten significant digits, for machine-readable output.
std::string Exact(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.10g", value);
  return buffer;
}

std::string ReachCell(const std::optional<double>& seconds, bool exact) {
  if (!seconds) return exact ? "" : "-";
  return exact ? Exact(*seconds) : FormatNumber(*seconds, 3);
}

const std::vector<std::string>& Header() {
  static const std::vector<std::string> header = {
      "problem", "strategy", "best", "median", "worst", "ratio to best", "to 1% s", "evals/s",
      "time s", "lower bound", "best / bound"};
  return header;
}

std::vector<std::string> Cells(const ComparisonRow& r) {
  const StrategySummary& s = r.summary;
  return {r.problem,
          r.strategy,
          FormatNumber(s.latency.best),
          FormatNumber(s.latency.median),
          FormatNumber(s.latency.worst),
          FormatNumber(r.ratio_to_best, 3),
          ReachCell(s.time_to_within, /*exact=*/false),
          FormatCount(static_cast<int64_t>(s.evaluations_per_second + 0.5)),
          FormatNumber(s.seconds, 3),
          FormatNumber(r.lower_bound),
          r.lower_bound > 0 ? FormatNumber(r.summary.latency.best / r.lower_bound, 3) : "-"};
}

// The columns of the machine-readable formats (csv, jsonl): problem and strategy, then numbers.
const std::vector<std::string>& MachineColumns() {
  static const std::vector<std::string> columns = {
      "problem", "strategy", "runs", "best", "median", "worst", "ratio_to_best", "time_to_1pct_s",
      "evaluations_per_s", "seconds", "lower_bound", "ratio_to_bound"};
  return columns;
}

// A row's cells in MachineColumns() order, numbers exact ("" when there is no value).
std::vector<std::string> MachineCells(const ComparisonRow& r) {
  const StrategySummary& s = r.summary;
  return {r.problem,
          r.strategy,
          std::to_string(s.runs),
          Exact(s.latency.best),
          Exact(s.latency.median),
          Exact(s.latency.worst),
          Exact(r.ratio_to_best),
          ReachCell(s.time_to_within, /*exact=*/true),
          Exact(s.evaluations_per_second),
          Exact(s.seconds),
          Exact(r.lower_bound),
          r.lower_bound > 0 ? Exact(s.latency.best / r.lower_bound) : ""};
}

// One search run, its latency as Evaluate() reports it, and its improvement timeline.
Result<RunRecord> RunOnce(const ProblemInput& input, const search::SearchOptions& options,
                          const std::string& run_name,
                          const std::function<void(const std::string&)>& progress,
                          const std::atomic<bool>* stop, bool* invalid_schedule) {
  const Clock::time_point start = Clock::now();
  TimelineRecorder recorder(start);
  search::SearchHooks hooks;
  hooks.observer = &recorder;
  hooks.stop = stop;
  auto result = search::RunSearch(input.problem, options, hooks);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!result.ok()) return result.status().WithContext(run_name + ": ");
  if (stop && stop->load()) return Status::Error("stopped");
  auto evaluation = Evaluate(input.problem, result->schedule, options.modes);
  if (!evaluation.ok()) {
    if (invalid_schedule) *invalid_schedule = true;
    return evaluation.status().WithContext(run_name + ": invalid schedule: ");
  }
  RunRecord run;
  run.latency = evaluation->total;
  run.seconds = seconds;
  run.evaluations = result->evaluations;
  run.timeline = recorder.Timeline();
  if (progress) {
    progress(run_name + ": " + FormatNumber(evaluation->total) + " in " +
             FormatNumber(seconds, 2) + " s (found by " + result->found_by + ")");
  }
  return run;
}

// "Budget per run: iterations=100; seeds 1,2; threads all; rules=contest ...".
std::string Caption(const search::SearchOptions& base, const std::vector<uint64_t>& seeds) {
  std::string seed_list;
  for (uint64_t seed : seeds) seed_list += (seed_list.empty() ? "" : ",") + std::to_string(seed);
  const std::string budget =
      base.iterations > 0 ? "iterations=" + std::to_string(base.iterations)
                          : "time limit " + FormatNumber(base.time_limit, 2) + " s";
  return "Budget per run: " + budget + "; seeds " + seed_list + "; threads " +
         (base.threads > 0 ? std::to_string(base.threads) : "all") + "; " +
         ModesString(base.modes) +
         ". Latencies are Evaluate()'s; \"to 1% s\" is the median time until a run came within "
         "1% of its final latency.";
}

}  // namespace

std::vector<std::string> DefaultComparisonStrategies() {
  std::vector<std::string> strategies;
  for (const std::string& s : search::StrategyNames()) {
    if (s != "cover") strategies.push_back(s);
  }
  return strategies;
}

Result<std::vector<std::string>> ParseStrategyList(const std::string& text) {
  std::vector<std::string> strategies;
  for (const std::string& name : SplitList(text)) {
    bool known = false;
    for (const std::string& s : search::StrategyNames()) known |= s == name;
    if (!known) {
      return Status::Error("--strategies: unknown strategy '" + name + "' (known: " +
                           search::StrategyList() + ")");
    }
    for (const std::string& s : strategies) {
      if (s == name) return Status::Error("--strategies: '" + name + "' is listed twice");
    }
    strategies.push_back(name);
  }
  if (strategies.empty()) {
    return Status::Error("--strategies: empty list (known: " + search::StrategyList() + ")");
  }
  return strategies;
}

Result<std::vector<uint64_t>> ParseSeedList(const std::string& text) {
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

Status SetComparisonBudget(bool time_limit_given, bool iterations_given,
                           search::SearchOptions* base) {
  if (time_limit_given && iterations_given) {
    return Status::Error("--time-limit and --iterations exclude each other");
  }
  if (time_limit_given) {
    if (base->time_limit <= 0) return Status::Error("--time-limit must be positive");
    base->iterations = 0;
  } else if (iterations_given) {
    if (base->iterations <= 0) return Status::Error("--iterations must be positive");
    base->time_limit = 0;
  } else if (base->time_limit <= 0 && base->iterations <= 0) {
    base->time_limit = kDefaultRunSeconds;
  }
  return Status::Ok();
}

std::string RenderComparison(const ComparisonTable& table, const std::string& format) {
  const std::vector<ComparisonRow>& rows = table.rows;
  const std::string& caption = table.caption;
  std::ostringstream out;
  if (format == "csv") {
    for (size_t c = 0; c < MachineColumns().size(); ++c) out << (c ? "," : "") << MachineColumns()[c];
    out << "\n";
    for (const ComparisonRow& r : rows) {
      const std::vector<std::string> cells = MachineCells(r);
      for (size_t c = 0; c < cells.size(); ++c) out << (c ? "," : "") << cells[c];
      out << "\n";
    }
  } else if (format == "jsonl") {
    for (const ComparisonRow& r : rows) {
      const std::vector<std::string> cells = MachineCells(r);
      std::vector<JsonField> fields;
      for (size_t c = 0; c < cells.size(); ++c) {
        const JsonScalar kind = c < 2 ? JsonScalar::kString
                                : cells[c].empty() ? JsonScalar::kNull
                                                   : JsonScalar::kNumber;
        fields.push_back({MachineColumns()[c], kind, cells[c]});
      }
      out << FlatJsonLine(fields) << "\n";
    }
  } else if (format == "markdown") {
    out << caption << "\n\n|";
    for (const std::string& h : Header()) out << " " << h << " |";
    out << "\n|";
    for (size_t i = 0; i < Header().size(); ++i) out << (i < 2 ? "---|" : "--:|");
    out << "\n";
    for (const ComparisonRow& r : rows) {
      out << "|";
      for (const std::string& cell : Cells(r)) out << " " << cell << " |";
      out << "\n";
    }
  } else {
    out << caption << "\n\n";
    TextTable text(Header());
    for (const ComparisonRow& r : rows) text.AddRow(Cells(r));
    text.Print(out, {true, true});
  }
  return out.str();
}

Result<ComparisonTable> RunComparison(const ComparisonRequest& request, bool* invalid_schedule) {
  const search::SearchOptions& base = request.base;
  // Every problem is read before the first run, so that bad input fails at once.
  std::vector<ProblemInput> problems;
  for (const std::string& path : request.problem_paths) {
    std::vector<std::string> warnings;
    auto problem = LoadProblem(path, &warnings);
    if (!problem.ok()) return problem.status();
    if (request.progress) {
      for (const std::string& w : warnings) request.progress("warning: " + w);
    }
    const double bound = ComputeLowerBounds(*problem, base.modes).best();
    problems.push_back({ProblemName(path), std::move(problem).value(), bound});
  }
  const size_t total_runs = problems.size() * request.strategies.size() * request.seeds.size();
  size_t done = 0;
  ComparisonTable table;
  for (const ProblemInput& input : problems) {
    const size_t first_row = table.rows.size();
    for (const std::string& strategy : request.strategies) {
      std::vector<RunRecord> runs;
      for (uint64_t seed : request.seeds) {
        search::SearchOptions run_options = base;
        run_options.strategy = strategy;
        run_options.seed = seed;
        const std::string run_name = input.name + " " + strategy + " seed " + std::to_string(seed);
        auto progress = [&](const std::string& line) {
          request.progress("[" + std::to_string(done + 1) + "/" + std::to_string(total_runs) +
                           "] " + line);
        };
        auto run = RunOnce(input, run_options, run_name,
                           request.progress ? std::function<void(const std::string&)>(progress)
                                            : nullptr,
                           request.stop, invalid_schedule);
        if (!run.ok()) return run.status();
        runs.push_back(std::move(run).value());
        ++done;
      }
      table.rows.push_back({input.name, strategy, SummarizeRuns(runs, kReachTolerance),
                            /*ratio_to_best=*/0, input.lower_bound});
    }
    std::vector<double> bests;
    for (size_t i = first_row; i < table.rows.size(); ++i) {
      bests.push_back(table.rows[i].summary.latency.best);
    }
    const std::vector<double> ratios = RatiosToBest(bests);
    for (size_t i = first_row; i < table.rows.size(); ++i) {
      table.rows[i].ratio_to_best = ratios[i - first_row];
    }
  }
  table.caption = Caption(base, request.seeds);
  return table;
}

}  // namespace tilesched::experiment
