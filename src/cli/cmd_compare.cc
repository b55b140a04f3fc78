// `tilesched compare`: runs search strategies against each other on the same problems, under
// equal budgets and several seeds, one run after another (each run has the whole machine), and
// prints one row per problem and strategy: best / median / worst latency over the seeds (every
// latency is Evaluate()'s), the strategy's best against the best strategy's, the median time
// to come within 1% of the run's final result, the median evaluation rate, the median run time
// and the problem's lower bound. Entry point: RunCompare() (commands.h). The statistics are
// compare_stats.h; this file runs the searches, records their improvement timelines and lays
// out the table (text, CSV or Markdown).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "compare_stats.h"
#include "search.h"
#include "search_args.h"
#include "table.h"
#include "tilesched/evaluate.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"

namespace tilesched::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kDefaultTimeLimit = 2;  // seconds per run when no budget is given
// "Within 1% of the run's final result" (the time-to-quality column).
constexpr double kReachTolerance = 0.01;
// Upper bound on PROBLEM.json arguments, only so that the usage error can state a range.
constexpr int kMaxProblems = 1000;

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) items.push_back(item);
  if (!text.empty() && text.back() == ',') items.push_back("");
  return items;
}

std::string KnownStrategies() {
  std::string known;
  for (const std::string& name : search::StrategyNames()) {
    known += (known.empty() ? "" : ", ") + name;
  }
  return known;
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

// Records the time and latency of every improvement the search reports.
class TimelineRecorder : public search::SearchObserver {
 public:
  explicit TimelineRecorder(Clock::time_point start) : start_(start) {}
  void Improved(const Schedule&, double total, const std::string&) override {
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    std::lock_guard<std::mutex> lock(mutex_);
    timeline_.push_back({seconds, total});
  }
  std::vector<Improvement> Timeline() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return timeline_;
  }

 private:
  Clock::time_point start_;
  mutable std::mutex mutex_;
  std::vector<Improvement> timeline_;
};

struct ProblemInput {
  std::string name;  // file name without directory and ".json"
  Problem problem;
  double lower_bound = 0;
};

struct Row {
  std::string problem, strategy;
  StrategySummary summary;
  double ratio_to_best = 0;
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
      "time s", "lower bound"};
  return header;
}

std::vector<std::string> Cells(const Row& r) {
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
          FormatNumber(r.lower_bound)};
}

std::string Render(const std::vector<Row>& rows, const std::string& format,
                   const std::string& caption) {
  std::ostringstream out;
  if (format == "csv") {
    out << "problem,strategy,runs,best,median,worst,ratio_to_best,time_to_1pct_s,"
           "evaluations_per_s,seconds,lower_bound\n";
    for (const Row& r : rows) {
      const StrategySummary& s = r.summary;
      out << r.problem << "," << r.strategy << "," << s.runs << "," << Exact(s.latency.best)
          << "," << Exact(s.latency.median) << "," << Exact(s.latency.worst) << ","
          << Exact(r.ratio_to_best) << "," << ReachCell(s.time_to_within, /*exact=*/true) << ","
          << Exact(s.evaluations_per_second) << "," << Exact(s.seconds) << ","
          << Exact(r.lower_bound) << "\n";
    }
  } else if (format == "markdown") {
    out << caption << "\n\n|";
    for (const std::string& h : Header()) out << " " << h << " |";
    out << "\n|";
    for (size_t i = 0; i < Header().size(); ++i) out << (i < 2 ? "---|" : "--:|");
    out << "\n";
    for (const Row& r : rows) {
      out << "|";
      for (const std::string& cell : Cells(r)) out << " " << cell << " |";
      out << "\n";
    }
  } else {
    out << caption << "\n\n";
    TextTable table(Header());
    for (const Row& r : rows) table.AddRow(Cells(r));
    table.Print(out, {true, true});
  }
  return out.str();
}

}  // namespace

int RunCompare(int argc, char** argv, int first) {
  std::vector<Option> options = {
      {"strategies", "LIST", "strategies to compare, e.g. greedy,beam (default: all: " +
                                 KnownStrategies() + ")"},
      {"seeds", "LIST", "seeds, one run per seed (default 1,2,3)"},
      {"format", "F", "table | csv | markdown (default table)"},
      {"output", "FILE", "write the table here, atomically (default: stdout); also -o"},
      {"quiet", "", "no progress lines on stderr"},
  };
  for (const Option& o : SearchOptionFlags()) {
    // One strategy and one seed per run come from the lists above.
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
  Args args("compare", "PROBLEM.json... [options]",
            "Runs every strategy on every problem once per seed, one run after another, each\n"
            "under the same budget (--time-limit, default 2 s, or --iterations), and prints one\n"
            "row per problem and strategy: best / median / worst latency over the seeds (as\n"
            "Evaluate() reports it), the ratio of the strategy's best to the best strategy's\n"
            "best on that problem, the median time until a run came within 1% of its final\n"
            "latency, the median rate of subgraph configurations costed per second, the median\n"
            "run time and the problem's lower bound. With --iterations the latencies do not\n"
            "depend on the machine or the thread count; the times always do.",
            options, 1, kMaxProblems);
  std::vector<char*> rewritten(argv, argv + argc);
  std::string long_output = "--output";
  for (int i = first; i < argc; ++i) {
    if (std::string(argv[i]) == "-o") rewritten[static_cast<size_t>(i)] = long_output.data();
  }
  if (Status s = args.Parse(argc, rewritten.data(), first); !s.ok()) {
    return Fail("compare", s.message(), kExitUsage);
  }
  if (args.help()) {
    std::cout << args.HelpText();
    return kExitOk;
  }
  std::vector<std::string> strategies = search::StrategyNames();
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
  // One budget kind per comparison: the flag given wins over the config file's.
  if (args.Has("time-limit") && args.Has("iterations")) {
    return Fail("compare", "--time-limit and --iterations exclude each other", kExitUsage);
  }
  if (args.Has("time-limit")) {
    if (base.time_limit <= 0) return Fail("compare", "--time-limit must be positive", kExitUsage);
    base.iterations = 0;
  } else if (args.Has("iterations")) {
    if (base.iterations <= 0) return Fail("compare", "--iterations must be positive", kExitUsage);
    base.time_limit = 0;
  } else if (base.time_limit <= 0 && base.iterations <= 0) {
    base.time_limit = kDefaultTimeLimit;
  }
  // Fail on an unwritable destination now rather than after minutes of runs.
  const std::string output = args.Get("output");
  if (!output.empty()) {
    const std::filesystem::path parent = std::filesystem::path(output).parent_path();
    std::error_code error;
    if (!parent.empty() && !std::filesystem::is_directory(parent, error)) {
      return Fail("compare", "--output: directory '" + parent.string() + "' does not exist",
                  kExitUsage);
    }
  }
  // Every problem is read before the first run, so that bad input fails at once.
  std::vector<ProblemInput> problems;
  for (const std::string& path : args.positional()) {
    auto problem = LoadProblem(path);
    if (!problem.ok()) return Fail("compare", problem.status().message(), kExitUsage);
    const double bound = ComputeLowerBounds(*problem, base.modes).best();
    problems.push_back({ProblemName(path), std::move(problem).value(), bound});
  }

  const bool progress = !args.Has("quiet");
  const size_t total_runs = problems.size() * strategies.size() * seeds.size();
  size_t done = 0;
  std::vector<Row> rows;
  for (const ProblemInput& input : problems) {
    const size_t first_row = rows.size();
    for (const std::string& strategy : strategies) {
      std::vector<RunRecord> runs;
      for (uint64_t seed : seeds) {
        search::SearchOptions run_options = base;
        run_options.strategy = strategy;
        run_options.seed = seed;
        const Clock::time_point start = Clock::now();
        TimelineRecorder recorder(start);
        search::SearchHooks hooks;
        hooks.observer = &recorder;
        auto result = search::RunSearch(input.problem, run_options, hooks);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        const std::string run_name =
            input.name + " " + strategy + " seed " + std::to_string(seed);
        if (!result.ok()) {
          return Fail("compare", run_name + ": " + result.status().message(), kExitUsage);
        }
        auto evaluation = Evaluate(input.problem, result->schedule, run_options.modes);
        if (!evaluation.ok()) {
          return Fail("compare", run_name + ": invalid schedule: " + evaluation.status().message(),
                      kExitInvalid);
        }
        RunRecord run;
        run.latency = evaluation->total;
        run.seconds = seconds;
        run.evaluations = result->evaluations;
        run.timeline = recorder.Timeline();
        runs.push_back(std::move(run));
        ++done;
        if (progress) {
          std::cerr << "compare: [" << done << "/" << total_runs << "] " << run_name << ": "
                    << FormatNumber(evaluation->total) << " in " << FormatNumber(seconds, 2)
                    << " s (found by " << result->found_by << ")\n";
        }
      }
      Row row;
      row.problem = input.name;
      row.strategy = strategy;
      row.summary = SummarizeRuns(runs, kReachTolerance);
      row.lower_bound = input.lower_bound;
      rows.push_back(std::move(row));
    }
    std::vector<double> bests;
    for (size_t i = first_row; i < rows.size(); ++i) bests.push_back(rows[i].summary.latency.best);
    const std::vector<double> ratios = RatiosToBest(bests);
    for (size_t i = first_row; i < rows.size(); ++i) rows[i].ratio_to_best = ratios[i - first_row];
  }

  std::string seed_list;
  for (uint64_t seed : seeds) seed_list += (seed_list.empty() ? "" : ",") + std::to_string(seed);
  const std::string budget =
      base.iterations > 0 ? "iterations=" + std::to_string(base.iterations)
                          : "time limit " + FormatNumber(base.time_limit, 2) + " s";
  const std::string caption =
      "Budget per run: " + budget + "; seeds " + seed_list + "; threads " +
      (base.threads > 0 ? std::to_string(base.threads) : "all") + "; " + ModesString(base.modes) +
      ". Latencies are Evaluate()'s; \"to 1% s\" is the median time until a run came within 1% "
      "of its final latency.";
  const std::string text = Render(rows, format, caption);
  if (output.empty()) {
    std::cout << text;
  } else if (Status s = WriteFileAtomic(output, text); !s.ok()) {
    return Fail("compare", s.message(), kExitUsage);
  }
  return kExitOk;
}

}  // namespace tilesched::cli
