// RunSweepPlan: the sweep engine (rows kept by --resume, the parallel run, the sorted rewrite).
#include "sweep.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "point_runner.h"
#include "sweep_log.h"
#include "sweep_progress.h"
#include "sweep_run.h"
#include "tilesched/csv.h"
#include "tilesched/file_util.h"
#include "tilesched/hardware.h"
#include "tilesched/io.h"

namespace tilesched::sweep {

namespace {

// The problem column: the file name without its .json extension.
std::string ProblemName(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) name.resize(name.size() - 5);
  return name;
}

// "mlsys-2026-1, capacity 20000, bandwidth 20, native 128, contest/full_k/native, seed 1"
std::string Describe(const SweepRow& row) {
  auto cell = [&](const char* column) { return row.cells[SweepColumn(column)]; };
  return cell("problem") + ", capacity " + cell("capacity") + ", bandwidth " + cell("bandwidth") +
         ", native " + cell("native") + ", " + cell("rules") + "/" + cell("matmul_reduction") +
         "/" + cell("k_limit") + ", seed " + cell("seed");
}

// Position of `point` among the shard's points (ShardPoints order).
size_t SlotOf(int64_t point, const Shard& shard) {
  return static_cast<size_t>((point - shard.index) / shard.count);
}

// Rows kept by --resume must be points of this grid and shard, each once. `expected(point)`
// gives the identifying columns this grid has for a point.
Status CheckKeptRows(const std::vector<SweepRow>& kept, const std::string& path,
                     const SweepGrid& grid, const Shard& shard,
                     const std::function<SweepRow(int64_t)>& expected) {
  std::map<int64_t, int> seen;
  for (const SweepRow& row : kept) {
    const std::string where = path + " line " + std::to_string(row.line) + ": ";
    if (row.of != grid.size()) {
      return Status::Error(where + "of is " + std::to_string(row.of) + " but this sweep has " +
                           std::to_string(grid.size()) +
                           " points (another grid? rerun without --resume to start over)");
    }
    if (!shard.Contains(row.point)) {
      return Status::Error(where + "point " + std::to_string(row.point) + " is not in shard " +
                           std::to_string(shard.index) + "/" + std::to_string(shard.count));
    }
    const SweepRow want = expected(row.point);
    for (size_t c = 0; c < kSweepKeyColumns; ++c) {
      if (row.cells[c] != want.cells[c]) {
        return Status::Error(where + "point " + std::to_string(row.point) + " has " +
                             SweepColumns()[c] + " " + row.cells[c] + " but this grid's point " +
                             std::to_string(row.point) + " has " + want.cells[c] +
                             " (another grid? rerun without --resume to start over)");
      }
    }
    if (const auto [it, fresh] = seen.emplace(row.point, row.line); !fresh) {
      return Status::Error(where + "point " + std::to_string(row.point) + " already appears on line " +
                           std::to_string(it->second));
    }
  }
  return Status::Ok();
}

// The plan's problems, read before anything runs, and their names for the problem column.
struct LoadedProblems {
  std::vector<Problem> problems;
  std::vector<std::string> names;
  // The identifying row of a point (what a kept row must match).
  SweepRow Expected(const SweepPlan& plan, int64_t point) const {
    const int p = plan.grid.At(point).problem;
    return PointRow(problems[p], names[p], plan.grid, point, plan.search.strategy);
  }
};

// Reads every problem once; the readers' warnings (unknown keys) go to `warnings` when given.
Result<LoadedProblems> LoadProblems(const SweepGrid& grid, std::vector<std::string>* warnings) {
  LoadedProblems loaded;
  for (const std::string& path : grid.problems) {
    auto problem = LoadProblemOnHardware(path, grid.hardware, warnings);
    if (!problem.ok()) return problem.status();
    loaded.problems.push_back(std::move(problem).value());
    loaded.names.push_back(ProblemName(path));
  }
  return loaded;
}

// Runs the pending slots, appending each row to `log` (may be null: rows kept in memory only);
// returns the first write failure (which also stops the sweep).
Status RunPending(const SweepRequest& request, const LoadedProblems& loaded,
                  const std::vector<int64_t>& points, const std::vector<size_t>& pending,
                  SweepLog* log, SweepProgress& progress,
                  std::vector<std::optional<SweepRow>>& rows) {
  const SweepGrid& grid = request.plan.grid;
  std::mutex write_mutex;
  Status write_status = Status::Ok();
  RunPoints(
      static_cast<int64_t>(pending.size()), static_cast<int>(request.jobs),
      [&](int64_t k) {
        const size_t slot = pending[static_cast<size_t>(k)];
        const int p = grid.At(points[slot]).problem;
        std::optional<SweepRow> row = RunSweepPoint(loaded.problems[p], loaded.names[p], grid,
                                                    points[slot], request.plan.search,
                                                    request.stop);
        if (!row) return;  // stopped mid-search: no row, --resume runs it again
        if (Status s = log ? log->Append(*row) : Status::Ok(); !s.ok()) {
          std::lock_guard<std::mutex> lock(write_mutex);
          if (write_status.ok()) write_status = s;
          if (request.stop) request.stop->store(true);
          return;
        }
        const std::string& status = row->cells[SweepColumn("status")];
        if (status != "ok") {
          progress.Note("sweep: point " + std::to_string(row->point) + " (" + Describe(*row) +
                        "): " + status + ": " + row->cells[SweepColumn("message")]);
        }
        rows[slot] = std::move(row);
        progress.PointDone();
      },
      request.stop);
  return write_status;
}

}  // namespace

Result<std::optional<SweepRow>> RunSweepPlanPoint(const SweepPlan& plan, int64_t point,
                                                  const std::atomic<bool>* stop) {
  if (point < 0 || point >= plan.grid.size()) {
    return Status::Error("point " + std::to_string(point) + " is not in the grid of " +
                         std::to_string(plan.grid.size()) + " points");
  }
  const std::string& path = plan.grid.problems[plan.grid.At(point).problem];
  auto problem = LoadProblemOnHardware(path, plan.grid.hardware);
  if (!problem.ok()) return problem.status();
  return RunSweepPoint(*problem, ProblemName(path), plan.grid, point, plan.search, stop);
}

Result<std::string> DryRunCsv(const SweepPlan& plan, const Shard& shard) {
  auto loaded = LoadProblems(plan.grid, nullptr);
  if (!loaded.ok()) return loaded.status();
  const std::vector<std::string> key_columns(SweepColumns().begin(),
                                             SweepColumns().begin() + kSweepKeyColumns);
  std::string csv = CsvLine(key_columns);
  for (int64_t point : ShardPoints(plan.grid.size(), shard)) {
    const SweepRow row = loaded->Expected(plan, point);
    csv += CsvLine(std::vector<std::string>(row.cells.begin(), row.cells.begin() + kSweepKeyColumns));
  }
  return csv;
}

Result<SweepOutcome> RunSweepPlan(const SweepRequest& request) {
  const SweepPlan& plan = request.plan;
  const Shard& shard = request.shard;
  std::ostream null_stream(nullptr);
  std::ostream& messages = request.messages ? *request.messages : null_stream;
  std::vector<std::string> warnings;
  auto loaded = LoadProblems(plan.grid, &warnings);
  if (!loaded.ok()) return loaded.status();
  for (const std::string& w : warnings) messages << "sweep: warning: " << w << "\n";
  const std::vector<int64_t> points = ShardPoints(plan.grid.size(), shard);
  if (request.jobs < 0 || request.jobs > kMaxJobs) {
    return Status::Error("--jobs must be in [0, " + std::to_string(kMaxJobs) + "]");
  }
  const std::string& output = request.output;
  if (output.empty() && request.resume) return Status::Error("--resume needs the rows file (-o FILE)");
  const SweepFormat format = plan.format_set ? plan.format : SweepFormatForPath(output);
  SweepLog::Opened opened;
  if (!output.empty()) {
    auto open_result = SweepLog::Open(output, format, request.resume);
    if (!open_result.ok()) return open_result.status();
    opened = std::move(open_result).value();
  }
  auto expected = [&](int64_t point) { return loaded->Expected(plan, point); };
  if (Status s = CheckKeptRows(opened.kept, output, plan.grid, shard, expected); !s.ok()) return s;
  if (opened.truncated) {
    messages << "sweep: " << output << ": cut off a partial last line (from a killed sweep)\n";
  }

  std::vector<std::optional<SweepRow>> rows(points.size());
  for (SweepRow& row : opened.kept) rows[SlotOf(row.point, shard)] = std::move(row);
  std::vector<size_t> pending;
  for (size_t i = 0; i < points.size(); ++i) {
    if (!rows[i]) pending.push_back(i);
  }
  const auto start = std::chrono::steady_clock::now();
  SweepProgress progress(messages, static_cast<int64_t>(points.size()),
                         static_cast<int64_t>(points.size() - pending.size()), request.terminal,
                         request.progress);
  const Status written = RunPending(request, *loaded, points, pending, opened.log.get(), progress, rows);
  progress.Finish();
  const Status closed = opened.log ? opened.log->Close() : Status::Ok();
  if (!written.ok()) return written;
  if (!closed.ok()) return closed;

  SweepOutcome outcome;
  outcome.points = static_cast<int64_t>(points.size());
  for (auto& row : rows) {
    if (!row) continue;
    ++outcome.written;
    ++outcome.by_status[row->cells[SweepColumn("status")]];
    outcome.rows.push_back(std::move(*row));
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (outcome.stopped() || output.empty()) return outcome;
  // Complete: leave the rows in point order (atomic replace of the append-as-you-go file).
  std::string sorted = SweepHeader(format);
  for (const SweepRow& row : outcome.rows) sorted += FormatSweepRow(row, format);
  if (Status s = WriteFileAtomic(output, sorted); !s.ok()) return s;
  return outcome;
}

Result<size_t> MergeSweepFiles(const std::vector<std::string>& shards, const std::string& output,
                               const std::optional<std::string>& format_name) {
  std::vector<NamedRows> files;
  bool all_jsonl = true;
  for (const std::string& path : shards) {
    auto text = ReadFile(path);
    if (!text.ok()) return text.status();
    auto file = ParseSweepFile(*text, path);
    if (!file.ok()) return file.status();
    all_jsonl &= file->format == SweepFormat::kJsonl;
    files.push_back({path, std::move(file).value().rows});
  }
  // A .csv or .jsonl name decides; any other name keeps the shards' format.
  const std::string extension = std::filesystem::path(output).extension().string();
  SweepFormat format = SweepFormatForPath(output);
  if (extension != ".csv" && all_jsonl) format = SweepFormat::kJsonl;
  if (format_name) {
    auto parsed = ParseSweepFormat(*format_name);
    if (!parsed.ok()) return parsed.status().WithContext("--format: ");
    format = *parsed;
  }
  auto merged = MergeSweepRows(files);
  if (!merged.ok()) return merged.status();
  std::string text = SweepHeader(format);
  for (const SweepRow& row : *merged) text += FormatSweepRow(row, format);
  if (Status s = WriteFileAtomic(output, text); !s.ok()) return s;
  return merged->size();
}

}  // namespace tilesched::sweep
