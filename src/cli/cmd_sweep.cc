// `tilesched sweep`: parses the sweep's flags and plan file (--plan) into a plan, runs it through the
// sweep library (RunSweepPlan, src/sweep/sweep.h) and prints the summary.
#include <unistd.h>

#include <csignal>
#include <iostream>

#include "args.h"
#include "commands.h"
#include "search_args.h"
#include "stop_signal.h"
#include "sweep.h"
#include "tilesched/table.h"

namespace tilesched::cli {

namespace {

using sweep::SweepSetting;
using sweep::SweepSettings;

constexpr const char* kCommand = "sweep";

std::vector<Option> SweepOptions() {
  return {
      {"output", "FILE", "rows go here, one per point (required)", "-o"},
      {"plan", "FILE", "sweep plan (JSON; keys mirror these flags, configs/sweeps/, docs/sweeps.md)"},
      {"config", "FILE", "search preset for every point (configs/*.json, e.g. fast.json)"},
      {"capacity", "LIST", "fast memory capacities: 20000,40000 or 20000:320000:x2 or a:b:+s"},
      {"bandwidth", "LIST", "slow memory bandwidths (same syntax)"},
      {"native", "LIST", "native tile edges, each sets native w = h (same syntax)"},
      {"matmul-throughput", "LIST", "MatMul MACs per time unit (same syntax; needs --hardware)"},
      {"vector-throughput", "LIST", "Pointwise elements per time unit (same syntax; needs --hardware)"},
      {"rules", "LIST", "contest,algebra (default contest)"},
      {"matmul-reduction", "LIST", "full_k,native_k (default full_k)"},
      {"k-limit", "LIST", "native,reduction (default native)"},
      {"seeds", "LIST", "search seeds (default 1; same syntax)"},
      {"strategy", "S", "greedy | beam | lns | anneal | portfolio | exact | cover (default portfolio)"},
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

Result<SweepSettings> SettingsFromArgs(const Args& args) {
  SweepSettings settings;
  if (args.Has("plan")) {
    if (Status s = sweep::LoadSweepPlanFile(args.Get("plan"), &settings); !s.ok()) return s;
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
      {"config", &settings.search_config},
  };
  for (const auto& [flag, setting] : flags) {
    if (args.Has(flag)) *setting = {args.Get(flag), std::string("--") + flag};
  }
  return settings;
}

// --dry-run: the shard's points as CSV on stdout, nothing run.
int DryRun(const sweep::SweepPlan& plan, const sweep::Shard& shard) {
  auto csv = sweep::DryRunCsv(plan, shard);
  if (!csv.ok()) return Fail(kCommand, csv.status().message(), kExitUsage);
  std::cout << *csv;
  std::cerr << "sweep: " << sweep::ShardPoints(plan.grid.size(), shard).size() << " of "
            << Counted(static_cast<int64_t>(plan.grid.size()), "point") << " in shard " << shard.index << "/" << shard.count << "\n";
  return kExitOk;
}

// The last line of a run (stopped: how to finish it), and the exit status of the convention.
int ReportOutcome(const sweep::SweepOutcome& outcome, const std::string& output) {
  const std::string points = Counted(static_cast<int64_t>(outcome.points), "point");
  if (outcome.stopped()) {
    std::cerr << "sweep: stopped; " << outcome.written << " of " << points << " written to "
              << output << "; finish with the same command and --resume\n";
    return ExitForSignal(StopSignalNumber() ? StopSignalNumber() : SIGTERM);
  }
  auto by_status = outcome.by_status;
  std::cerr << "sweep: " << points << " (" << by_status["ok"] << " ok, " << by_status["infeasible"]
            << " infeasible, " << by_status["error"] << " error) in "
            << FormatNumber(outcome.seconds, 1) << "s; written to " << output << "\n";
  return kExitOk;
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
            "--plan file; PROBLEM arguments replace its problems.\n"
            "Each finished row is appended to FILE at once (one complete line), so a killed sweep\n"
            "keeps its rows and --resume runs only the missing points; a completed sweep rewrites\n"
            "FILE sorted by point. A point where some op fits in fast memory at no tile size is a\n"
            "row with status infeasible. SIGTERM / SIGINT stop the sweep: running points are\n"
            "abandoned without a row (--resume reruns them); exit 128 + the signal, and a second\n"
            "signal ends at once. See docs/sweeps.md for sharding and merge.",
            SweepOptions(), 0, 1 << 20);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  if (!args.Has("dry-run")) {
    if (!args.Has("output")) return Fail(kCommand, "-o FILE is required (where the rows go)", kExitUsage);
    if (Status s = CheckOutputOptions(args, {"output"}); !s.ok()) return Fail(kCommand, s.message(), kExitUsage);
  }
  auto settings = SettingsFromArgs(args);
  if (!settings.ok()) return Fail(kCommand, settings.status().message(), kExitUsage);
  auto plan = sweep::AssembleSweepPlan(*settings, args.Get("hardware"));
  if (!plan.ok()) return Fail(kCommand, plan.status().message(), kExitUsage);
  auto jobs = args.GetInt("jobs", 0);
  if (!jobs.ok()) return Fail(kCommand, jobs.status().message(), kExitUsage);
  sweep::Shard shard;
  if (args.Has("shard")) {
    auto parsed = sweep::ParseShard(args.Get("shard"));
    if (!parsed.ok()) return Fail(kCommand, parsed.status().message(), kExitUsage);
    shard = *parsed;
  }
  if (args.Has("dry-run")) return DryRun(*plan, shard);

  sweep::SweepRequest request;
  request.plan = std::move(plan).value();
  request.shard = shard;
  request.jobs = *jobs;
  request.output = args.Get("output");
  request.resume = args.Has("resume");
  request.messages = &std::cerr;
  request.progress = !args.Has("quiet");
  request.terminal = isatty(STDERR_FILENO) == 1;
  request.stop = &StopFlag();
  InstallStopSignals(SecondSignal::kSecondEnds);
  auto outcome = sweep::RunSweepPlan(request);
  if (!outcome.ok()) return Fail(kCommand, outcome.status().message(), kExitUsage);
  return ReportOutcome(*outcome, request.output);
}

}  // namespace tilesched::cli
