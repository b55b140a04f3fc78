// `tilesched sweep`: re-schedule problems over a grid of hardware parameters and cost-model
// modes, one row per point, written as the sweep goes; sharding, resume and clean stops.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>

#include "args.h"
#include "search_args.h"
#include "commands.h"
#include "sweep.h"
#include "sweep_config.h"
#include "sweep_grid.h"
#include "sweep_log.h"
#include "sweep_progress.h"
#include "sweep_rows.h"
#include "sweep_run.h"
#include "table.h"
#include "tilesched/file_util.h"
#include "tilesched/hardware.h"
#include "tilesched/io.h"

namespace tilesched::cli {

namespace {

constexpr const char* kCommand = "sweep";

std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;

// The first SIGTERM / SIGINT stops the sweep after the running points; a second one ends the
// process at once (every row on disk is complete either way).
extern "C" void HandleSweepSignal(int signal) {
  if (g_stop.exchange(true)) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_signal = signal;
}

void InstallSweepSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = HandleSweepSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

std::vector<Option> SweepOptions() {
  return {
      {"output", "FILE", "rows go here, one per point (required; -o FILE)"},
      {"config", "FILE", "sweep definition (JSON; keys mirror these flags, see docs/sweeps.md)"},
      {"search-config", "FILE", "search preset for every point (configs/*.json, e.g. fast.json)"},
      {"capacity", "LIST", "fast memory capacities: 20000,40000 or 20000:320000:x2 or a:b:+s"},
      {"bandwidth", "LIST", "slow memory bandwidths (same syntax)"},
      {"native", "LIST", "native tile edges, each sets native w = h (same syntax)"},
      {"matmul-throughput", "LIST", "MatMul MACs per time unit (same syntax; needs --hardware)"},
      {"vector-throughput", "LIST", "Pointwise elements per time unit (same syntax; needs --hardware)"},
      {"rules", "LIST", "contest,algebra (default contest)"},
      {"matmul-reduction", "LIST", "full_k,native_k (default full_k)"},
      {"k-limit", "LIST", "native,reduction (default native)"},
      {"seeds", "LIST", "search seeds (default 1; same syntax)"},
      {"strategy", "S", "greedy | beam | lns | anneal | portfolio (default portfolio)"},
      {"time-limit", "SEC", "search time per point (default 2 unless --iterations is given)"},
      {"iterations", "N", "work budget per point instead of time (deterministic per seed)"},
      {"jobs", "N", "points run in parallel (default 0 = all cores)"},
      {"shard", "I/N", "run only the points with index % N == I"},
      {"format", "csv|jsonl", "row format (default: jsonl for *.jsonl / *.ndjson, else csv)"},
      {"resume", "", "keep the rows already in FILE and run only the missing points"},
      {"dry-run", "", "print this shard's points (CSV on stdout) and run nothing"},
      {"quiet", "", "no progress on stderr"},
      {"hardware", "HW.json", "replace every problem's hardware by a description (docs/import.md)"},
  };
}

// Rewrites -o as --output (the Args parser knows long options only).
std::vector<char*> WithLongOutput(int argc, char** argv, int first) {
  static std::string long_output = "--output";
  std::vector<char*> rewritten(argv, argv + argc);
  for (int i = first; i < argc; ++i) {
    if (std::string(argv[i]) == "-o") rewritten[static_cast<size_t>(i)] = long_output.data();
  }
  return rewritten;
}

Result<SweepSettings> SettingsFromArgs(const Args& args) {
  SweepSettings settings;
  if (args.Has("config")) {
    const std::string path = args.Get("config");
    auto text = ReadFile(path);
    if (!text.ok()) return text.status();
    if (Status s = ApplySweepDefinition(*text, path, &settings); !s.ok()) return s;
  }
  if (!args.positional().empty()) settings.problems = args.positional();
  const std::pair<const char*, SweepSetting*> flags[] = {
      {"capacity", &settings.capacity},
      {"bandwidth", &settings.bandwidth},
      {"native", &settings.native},
      {"matmul-throughput", &settings.matmul_throughput},
      {"vector-throughput", &settings.vector_throughput},
      {"rules", &settings.rules},
      {"matmul-reduction", &settings.matmul_reduction},
      {"k-limit", &settings.k_limit},
      {"seeds", &settings.seeds},
      {"strategy", &settings.strategy},
      {"time-limit", &settings.time_limit},
      {"iterations", &settings.iterations},
      {"format", &settings.format},
      {"search-config", &settings.search_config},
  };
  for (const auto& [flag, setting] : flags) {
    if (args.Has(flag)) *setting = {args.Get(flag), std::string("--") + flag};
  }
  return settings;
}

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

}  // namespace

int RunSweep(int argc, char** argv, int first) {
  Args args(kCommand, "PROBLEM.json... -o FILE [options]",
            "Re-schedules each problem at every point of a grid over hardware parameters\n"
            "(capacity x bandwidth x native) and cost-model modes (rules x matmul_reduction x\n"
            "k_limit) and seeds, and writes one row per point: latency (Evaluate()'s total of the\n"
            "schedule found), lower bound, ratio, subgraphs, compute-bound share, wall time.\n"
            "Points are numbered in that order, problems slowest and seeds fastest. A LIST is a\n"
            "comma list of values and ranges: START:STOP:xFACTOR (geometric) or START:STOP:+STEP,\n"
            "both inclusive. Unset hardware values keep each problem's own. Flags override the\n"
            "--config definition; PROBLEM arguments replace its problems.\n"
            "Each finished row is appended to FILE at once (one complete line), so a killed sweep\n"
            "keeps its rows and --resume runs only the missing points; a completed sweep rewrites\n"
            "FILE sorted by point. A point where some op fits in fast memory at no tile size is a\n"
            "row with status infeasible. SIGTERM / SIGINT stop the sweep: running points are\n"
            "abandoned without a row (--resume reruns them); exit 128 + the signal, and a second\n"
            "signal ends at once. See docs/sweeps.md for sharding and merge.",
            SweepOptions(), 0, 1 << 20);
  std::vector<char*> rewritten = WithLongOutput(argc, argv, first);
  if (Status s = args.Parse(argc, rewritten.data(), first); !s.ok()) {
    return Fail(kCommand, s.message(), kExitUsage);
  }
  if (args.help()) {
    std::cout << args.HelpText();
    return kExitOk;
  }
  auto settings = SettingsFromArgs(args);
  if (!settings.ok()) return Fail(kCommand, settings.status().message(), kExitUsage);
  if (settings->problems.empty()) {
    return Fail(kCommand, "no problem files: give PROBLEM.json arguments or problems in --config",
                kExitUsage);
  }
  search::SearchOptions base;
  if (settings->search_config.set()) {
    if (Status s = LoadSearchConfig(settings->search_config.text, &base); !s.ok()) {
      return Fail(kCommand, s.message(), kExitUsage);
    }
  }
  auto plan = BuildSweepPlan(*settings, base);
  if (!plan.ok()) return Fail(kCommand, plan.status().message(), kExitUsage);
  if (!plan->grid.matmul_throughput.empty() || !plan->grid.vector_throughput.empty()) {
    if (!args.Has("hardware")) {
      return Fail(kCommand, "--matmul-throughput and --vector-throughput need --hardware HW.json", kExitUsage);
    }
    auto hw = LoadHardwareDescription(args.Get("hardware"));
    if (!hw.ok()) return Fail(kCommand, hw.status().message(), kExitUsage);
    plan.value().grid.matmul_reference = hw->matmul_macs_per_time;
    plan.value().grid.vector_reference = hw->vector_elements_per_time;
  }
  auto jobs = args.GetInt("jobs", 0);
  if (!jobs.ok()) return Fail(kCommand, jobs.status().message(), kExitUsage);
  if (*jobs < 0 || *jobs > 1024) return Fail(kCommand, "--jobs must be in [0, 1024]", kExitUsage);
  Shard shard;
  if (args.Has("shard")) {
    auto parsed = ParseShard(args.Get("shard"));
    if (!parsed.ok()) return Fail(kCommand, parsed.status().message(), kExitUsage);
    shard = *parsed;
  }
  const SweepGrid& grid = plan->grid;
  std::vector<Problem> problems;
  std::vector<std::string> names;
  for (const std::string& path : grid.problems) {
    auto problem = LoadProblemOnHardware(path, args.Get("hardware"));
    if (!problem.ok()) return Fail(kCommand, problem.status().message(), kExitUsage);
    problems.push_back(std::move(problem).value());
    names.push_back(ProblemName(path));
  }
  const std::string& strategy = plan->search.strategy;
  const std::vector<int64_t> points = ShardPoints(grid.size(), shard);
  auto expected = [&](int64_t point) {
    const int p = grid.At(point).problem;
    return PointRow(problems[p], names[p], grid, point, strategy);
  };

  if (args.Has("dry-run")) {
    const std::vector<std::string> key_columns(SweepColumns().begin(),
                                               SweepColumns().begin() + kSweepKeyColumns);
    std::cout << CsvLine(key_columns);
    for (int64_t point : points) {
      const SweepRow row = expected(point);
      std::cout << CsvLine(std::vector<std::string>(row.cells.begin(),
                                                    row.cells.begin() + kSweepKeyColumns));
    }
    std::cerr << "sweep: " << points.size() << " of " << grid.size() << " points in shard "
              << shard.index << "/" << shard.count << "\n";
    return kExitOk;
  }

  const std::string output = args.Get("output");
  if (output.empty()) return Fail(kCommand, "-o FILE is required (where the rows go)", kExitUsage);
  const SweepFormat format = plan->format_set ? plan->format : SweepFormatForPath(output);
  auto open_result = SweepLog::Open(output, format, args.Has("resume"));
  if (!open_result.ok()) return Fail(kCommand, open_result.status().message(), kExitUsage);
  SweepLog::Opened opened = std::move(open_result).value();
  SweepLog& log = *opened.log;
  if (Status s = CheckKeptRows(opened.kept, output, grid, shard, expected); !s.ok()) {
    return Fail(kCommand, s.message(), kExitUsage);
  }
  if (opened.truncated) {
    std::cerr << "sweep: " << output << ": cut off a partial last line (from a killed sweep)\n";
  }

  std::vector<std::optional<SweepRow>> rows(points.size());
  for (SweepRow& row : opened.kept) rows[SlotOf(row.point, shard)] = std::move(row);
  std::vector<size_t> pending;
  for (size_t i = 0; i < points.size(); ++i) {
    if (!rows[i]) pending.push_back(i);
  }

  InstallSweepSignalHandlers();
  const auto start = std::chrono::steady_clock::now();
  SweepProgress progress(std::cerr, static_cast<int64_t>(points.size()),
                         static_cast<int64_t>(points.size() - pending.size()),
                         isatty(STDERR_FILENO) == 1, !args.Has("quiet"));
  std::mutex write_mutex;
  Status write_status = Status::Ok();
  search::RunPoints(
      static_cast<int64_t>(pending.size()), static_cast<int>(*jobs),
      [&](int64_t k) {
        const size_t slot = pending[static_cast<size_t>(k)];
        const int p = grid.At(points[slot]).problem;
        std::optional<SweepRow> row =
            RunSweepPoint(problems[p], names[p], grid, points[slot], plan->search, &g_stop);
        if (!row) return;  // stopped mid-search: no row, --resume runs it again
        if (Status s = log.Append(*row); !s.ok()) {
          std::lock_guard<std::mutex> lock(write_mutex);
          if (write_status.ok()) write_status = s;
          g_stop.store(true);
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
      &g_stop);
  progress.Finish();
  const Status closed = log.Close();
  if (!write_status.ok()) return Fail(kCommand, write_status.message(), kExitUsage);
  if (!closed.ok()) return Fail(kCommand, closed.message(), kExitUsage);

  int64_t done = 0;
  std::map<std::string, int64_t> by_status;
  for (const auto& row : rows) {
    if (!row) continue;
    ++done;
    ++by_status[row->cells[SweepColumn("status")]];
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (done < static_cast<int64_t>(points.size())) {
    std::cerr << "sweep: stopped; " << done << " of " << points.size() << " points written to "
              << output << "; finish with the same command and --resume\n";
    return 128 + (g_signal ? static_cast<int>(g_signal) : SIGTERM);
  }
  // Complete: leave the rows in point order (atomic replace of the append-as-you-go file).
  std::string sorted = SweepHeader(format);
  for (const auto& row : rows) sorted += FormatSweepRow(*row, format);
  if (Status s = WriteFileAtomic(output, sorted); !s.ok()) return Fail(kCommand, s.message(), kExitUsage);
  std::cerr << "sweep: " << points.size() << " points (" << by_status["ok"] << " ok, "
            << by_status["infeasible"] << " infeasible, " << by_status["error"] << " error) in "
            << FormatNumber(seconds, 1) << "s; written to " << output << "\n";
  return kExitOk;
}

}  // namespace tilesched::cli
