// ScheduleRunner: anytime output and signal handling around RunSearch.
#include "schedule_runner.h"

#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "args.h"
#include "process_clock.h"
#include "search_trace.h"
#include "stop_signal.h"
#include "tilesched/evaluate.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/summary_json.h"
#include "tilesched/search.h"
#include "tilesched/table.h"

namespace tilesched::cli {

namespace {

bool SameSchedule(const Schedule& a, const Schedule& b) {
  if (a.subgraphs.size() != b.subgraphs.size()) return false;
  for (size_t i = 0; i < a.subgraphs.size(); ++i) {
    const Subgraph& x = a.subgraphs[i];
    const Subgraph& y = b.subgraphs[i];
    if (x.ops != y.ops || !(x.granularity == y.granularity) || x.retained != y.retained ||
        x.traversal != y.traversal) {
      return false;
    }
  }
  return true;
}

// Writes each improvement to disk (at most every 100 ms; the last one always): the first at
// once, later ones by a writer thread once 100 ms have passed since the previous write, so that
// neither the search threads wait for a write nor a held-back improvement waits for the end of
// the run (its JSON and fsync would then come after the time limit; docs/scaling.md, "Short
// limits").
class FileObserver : public search::SearchObserver {
 public:
  // `trace` (may be null) hears of every improvement and phase too.
  FileObserver(const Problem& problem, const CostModes& modes, std::string path, SearchTrace* trace)
      : problem_(problem), modes_(modes), path_(std::move(path)), trace_(trace) {
    if (!path_.empty()) writer_ = std::thread([this] { WriteWhenDue(); });
  }
  ~FileObserver() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    due_.notify_all();
    if (writer_.joinable()) writer_.join();
  }

  void Improved(const Schedule& schedule, double total, const std::string& by) override {
    if (trace_) trace_->Improved(total, by);
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ = schedule;
    best_total_ = total;
    best_by_ = by;
    dirty_ = true;
    // The first schedule is written at once; later ones by the writer thread.
    if (!written_once_) {
      FlushLocked();
    } else {
      due_.notify_all();
    }
  }

  void PhaseStarted(const std::string& phase) override {
    if (trace_) trace_->PhaseStarted(phase);
  }

  // Writes the pending schedule if it has not been written yet.
  Status Flush() {
    std::lock_guard<std::mutex> lock(mutex_);
    return FlushLocked();
  }

  double best_total() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return best_total_;
  }
  std::string best_by() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return best_by_;
  }
  const Status& write_status() const { return write_status_; }
  // The evaluator's total of the schedule last written, when it is `schedule` (the runner
  // then needs no second pass over it).
  std::optional<double> WrittenTotal(const Schedule& schedule) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (dirty_ || !written_total_ || !SameSchedule(written_, schedule)) return std::nullopt;
    return written_total_;
  }

 private:
  Status FlushLocked() {
    if (!dirty_ || path_.empty()) return write_status_;
    // Every schedule written is checked by Evaluate(): the search hands over schedules it has
    // evaluated (SearchObserver), with the evaluator's latencies as reported_latency; one
    // without them is evaluated here. At the deadline a second pass over a large graph would
    // come after the limit.
    std::vector<double> latencies;
    for (const Subgraph& sg : pending_.subgraphs) {
      if (!sg.reported_latency) break;
      latencies.push_back(*sg.reported_latency);
    }
    double total = best_total_;
    if (latencies.size() != pending_.subgraphs.size()) {
      auto evaluation = Evaluate(problem_, pending_, modes_);
      if (!evaluation.ok()) {
        write_status_ = Status::Error("internal error: search produced an invalid schedule: " +
                                      evaluation.status().message());
        return write_status_;
      }
      latencies.clear();
      for (const SubgraphReport& r : evaluation->subgraphs) latencies.push_back(r.cost.latency);
      total = evaluation->total;
    }
    write_status_ = WriteFileAtomic(path_, SolutionToJson(pending_, latencies));
    written_ = pending_;
    written_total_ = total;
    dirty_ = false;
    written_once_ = true;
    last_write_ = std::chrono::steady_clock::now();
    return write_status_;
  }

  static constexpr std::chrono::milliseconds kSpacing{100};

  // The writer thread: writes a held-back improvement once kSpacing has passed since the last
  // write.
  void WriteWhenDue() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!quit_) {
      if (!dirty_ || !written_once_) {
        due_.wait(lock);
      } else if (std::chrono::steady_clock::now() - last_write_ > kSpacing) {
        // A failure is reported by the runner's final Flush().
        if (!FlushLocked().ok()) return;
      } else {
        due_.wait_until(lock, last_write_ + kSpacing + std::chrono::milliseconds(1));
      }
    }
  }

  const Problem& problem_;
  CostModes modes_;
  std::string path_;
  SearchTrace* trace_;
  mutable std::mutex mutex_;
  std::condition_variable due_;
  bool quit_ = false;
  std::thread writer_;
  Schedule pending_;
  Schedule written_;
  std::optional<double> written_total_;
  double best_total_ = 0;
  std::string best_by_;
  bool dirty_ = false, written_once_ = false;
  std::chrono::steady_clock::time_point last_write_;
  Status write_status_ = Status::Ok();
};

}  // namespace

namespace {

// The run's outcome: the --summary JSON (when asked for) and the last progress line.
int ReportOutcome(const Problem& problem, const search::SearchOptions& options, const RunnerOptions& runner,
                  const search::SearchResult& result, double total) {
  const bool optimal = total <= result.lower_bound * (1 + result.bound_tolerance);
  if (!runner.summary.empty()) {
    ScheduleSummary summary;
    summary.latency = total;
    summary.lower_bound = result.lower_bound;
    summary.gap = Gap(total, result.lower_bound);
    summary.optimal = optimal;
    summary.found_by = result.found_by;
    summary.time_s = result.seconds;
    summary.subgraphs = static_cast<int>(result.schedule.subgraphs.size());
    summary.modes = options.modes;
    if (Status s = WriteFileAtomic(runner.summary, ScheduleSummaryToJson(summary)); !s.ok()) {
      return Fail(runner.command, s.message(), kExitUsage);
    }
  }
  if (runner.progress) {
    const std::string how = StopFlag().load() ? "stopped" : result.reached_gap ? "solved" : "done";
    std::cerr << how << " after " << FormatNumber(result.seconds, 2) << "s: latency "
              << FormatNumber(total) << " (" << result.found_by << "), "
              << result.schedule.subgraphs.size() << " subgraphs, lower bound "
              << FormatNumber(result.lower_bound) << " (" << result.bound_source << "), gap "
              << FormatNumber(100 * Gap(total, result.lower_bound), 2) << "%"
              << (optimal ? " (optimal)" : "") << ", " << FormatCount(result.evaluations)
              << " configurations" << (runner.output.empty() ? "" : "; written to " + runner.output)
              << "\n";
    // The gap is to a bound, not to the optimum: say how to get a tighter one where there is.
    if (!optimal && options.tier2_first <= 0 && result.bound_source.rfind("tier 1", 0) == 0 &&
        problem.num_ops() <= search::kTier2MaxOps && problem.num_tensors() <= search::kTier2MaxTensors) {
      std::cerr << "(the gap is to tier 1 of the bound; tier 2 may prove more: --tier2-first SEC, "
                   "or tilesched bound --tier2)\n";
    }
  }
  return kExitOk;
}

}  // namespace

int RunScheduler(const Problem& problem, const search::SearchOptions& options,
                 const RunnerOptions& runner) {
  // Fail before searching when an output cannot be written (commands check their options
  // first; this covers mlsys's positional OUT.json too).
  const std::pair<const std::string*, std::string> outputs[] = {
      {&runner.output, runner.command == "mlsys" ? "OUT.json" : "--output"},
      {&runner.summary, "--summary"}, {&runner.trace, "--trace"}};
  for (const auto& [path, what] : outputs) {
    if (path->empty()) continue;
    if (Status s = CheckOutputPath(*path, what); !s.ok()) return Fail(runner.command, s.message(), kExitUsage);
  }
  search::SearchProgress counters;
  std::optional<SearchTrace> trace;
  if (!runner.trace.empty()) trace.emplace(counters);
  FileObserver observer(problem, options.modes, runner.output, trace ? &*trace : nullptr);
  search::SearchHooks hooks;
  hooks.observer = &observer;
  hooks.stop = &StopFlag();
  hooks.progress = &counters;
  hooks.exiting = true;  // both commands exit after the run

  // Progress: a line every 2 s on long runs.
  std::mutex progress_mutex;
  std::condition_variable progress_cv;
  bool done = false;
  const auto start = std::chrono::steady_clock::now();
  std::thread progress;
  if (runner.progress) {
    progress = std::thread([&] {
      std::unique_lock<std::mutex> lock(progress_mutex);
      while (!progress_cv.wait_for(lock, std::chrono::seconds(2), [&] { return done; })) {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const int64_t evals = counters.configurations.load();
        std::cerr << "[" << FormatNumber(seconds, 1) << "s] best " << FormatNumber(observer.best_total())
                  << " (" << observer.best_by() << "), " << FormatCount(evals) << " configurations, "
                  << FormatCount(static_cast<int64_t>(static_cast<double>(evals) / std::max(seconds, 1e-3)))
                  << "/s\n";
      }
    });
  }
  // The limit counts from the process's start and includes the final write (issue 12).
  search::SearchOptions timed = options;
  timed.time_limit = SearchSeconds(options.time_limit, problem.num_ops());
  const double search_start = SecondsSinceProcessStart();
  auto result = search::RunSearch(problem, timed, hooks);
  {
    std::lock_guard<std::mutex> lock(progress_mutex);
    done = true;
  }
  progress_cv.notify_all();
  if (progress.joinable()) progress.join();
  if (!result.ok()) return Fail(runner.command, result.status().message(), kExitUsage);
  if (trace) {
    if (Status s = WriteFileAtomic(runner.trace, trace->Finish()); !s.ok()) {
      return Fail(runner.command, s.message(), kExitUsage);
    }
  }

  if (Status s = observer.Flush(); !s.ok()) return Fail(runner.command, s.message(), kExitUsage);
  // The schedule on disk was evaluated by the search (Incumbent::Offer); anything else is
  // evaluated here.
  std::optional<double> total = observer.WrittenTotal(result->schedule);
  if (!total) {
    auto evaluation = Evaluate(problem, result->schedule, options.modes);
    if (!evaluation.ok()) {
      return Fail(runner.command, "internal error: invalid result: " + evaluation.status().message(),
                  kExitInternal);
    }
    total = evaluation->total;
    if (runner.output.empty()) {
      std::vector<double> latencies;
      for (const SubgraphReport& r : evaluation->subgraphs) latencies.push_back(r.cost.latency);
      std::cout << SolutionToJson(result->schedule, latencies);
    }
  }
  if (runner.verbose) {
    // The report's time stamps count from the search's start.
    std::cerr << "  search started " << FormatNumber(search_start, 3) << " s after the process\n";
    for (const std::string& line : result->report) std::cerr << "  " << line << "\n";
  }
  return ReportOutcome(problem, options, runner, *result, *total);
}

}  // namespace tilesched::cli
