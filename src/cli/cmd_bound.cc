// `tilesched bound`: the lower bound on any valid schedule's latency (docs/bounds.md); with --split
// --schedule, a judged schedule's latency split by link component against the bound.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "bound_text.h"
#include "commands.h"
#include "judged_input.h"
#include "stop_signal.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/search.h"
#include "tilesched/summary_json.h"
#include "tilesched/table.h"

namespace tilesched::cli {

namespace {

// One line per link component of the split: what it counts, from which lemma, and what tier 2
// said about it (docs/bounds.md, "Tier 2 by components"); with a schedule, also its share (the
// latencies of the subgraphs in the component) against that value, and where the gap is.
std::string SplitComponentsText(const std::vector<search::SplitTier2Component>& parts,
                                const std::vector<double>& shares) {
  std::string out = "  link components (each counts the largest of tier 2, its floor W3 and its mixed roofline W4):\n";
  for (size_t i = 0; i < parts.size(); ++i) {
    const search::SplitTier2Component& c = parts[i];
    const char* by = c.value == c.tier2 && c.tier2 > 0 ? "tier 2" : c.value == c.tier1 ? "mixed roofline" : "floor";
    out += "    " + std::to_string(i) + ": " + std::to_string(c.ops) + " ops from op " + std::to_string(c.first_op) +
           ", " + std::to_string(c.tensors) + " tensors: " + FormatNumber(c.value) + " (" + by + "; floor " +
           FormatNumber(c.floor) + ", mixed " + FormatNumber(c.tier1) + "; tier 2: " + c.tier2_summary + ")";
    if (!shares.empty()) {
      out += "; schedule " + FormatNumber(shares[i]) +
             (c.value > 0 ? " (" + FormatNumber(shares[i] / c.value, 3) + " x)" : std::string());
    }
    out += "\n";
  }
  if (shares.empty()) return out;
  // A component is at its value when its share is within the values' relative 1e-9 (and
  // rounding); the others are listed by how much of the difference they hold.
  auto above = [&](size_t i) { return shares[i] - parts[i].value * (1 + 1e-6); };
  double latency = 0, value = 0;
  for (size_t i = 0; i < parts.size(); ++i) latency += shares[i], value += parts[i].value;
  std::vector<size_t> order;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (above(i) > 0) order.push_back(i);
  }
  if (order.empty()) return out + "  schedule: every component at its value\n";
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return shares[a] - parts[a].value > shares[b] - parts[b].value;
  });
  out += "  schedule: latency " + FormatNumber(latency) + " against the split's " + FormatNumber(value) +
         "; of the difference " + FormatNumber(latency - value) + ":";
  for (size_t n = 0; n < order.size() && n < 3; ++n) {
    const size_t i = order[n];
    out += std::string(n ? "," : "") + " component " + std::to_string(i) + " " +
           FormatNumber(shares[i] - parts[i].value) + " (" +
           FormatNumber(100 * (shares[i] - parts[i].value) / (latency - value), 1) + "%)";
  }
  return out + "\n";
}

}  // namespace

int RunBound(int argc, char** argv, int first) {
  std::vector<Option> options = ModeOptions();
  options.push_back({"json", "",
                     "print JSON: lower_bound, every part (compute, io, traffic, mixed, phase, capacity, coupled, "
                     "shared, squeeze, held; tier2 and split when run), set_by (the part that sets it), modes, time_s; "
                     "with --split also split_components (per link component: first_op, ops, tensors, value, tier2, "
                     "floor, mixed, tier2_summary; with --schedule also schedule_share) and schedule_latency; "
                     "with --cores also cores"});
  options.push_back({"tier2", "",
                     "also run tier 2, the covering LP over every subgraph context (seconds to "
                     "minutes; problems of at most 64 ops, 128 tensors and 1,000,000 connected op sets that "
                     "may be subgraphs, about 30-40 ops, counted up to interchangeable branches "
                     "such as experts or heads where there are more)"});
  options.push_back({"split", "",
                     "also run tier 2 by link components: the covering LP on each part of the graph "
                     "that no subgraph can leave, summed (any size; parts above 64 ops or 128 tensors "
                     "count at a floor or at tier 1's mixed roofline restricted to them)"});
  options.push_back({"cores", "all|design",
                     "also run tier 2 on cores (one lambda at a time): the covering LP over the op sets "
                     "inside the cores of a cut set, crossing subgraphs paid piece by piece (at most 64 ops)"});
  options.push_back({"schedule", "SOLUTION.json",
                     "with --split: judge this schedule (Evaluate) and print each link component's share of "
                     "its latency against the component's bound, and which components hold the gap"});
  options.push_back({"time-limit", "SEC", "budget of --tier2, --split and --cores in seconds, each (default 120; "
                     "0: until it converges); a run stopped by it or by SIGINT/SIGTERM still reports a "
                     "valid bound"});
  options.push_back({"threads", "N", "worker threads of --tier2, --split and --cores (default: all cores); "
                     "the bound does not depend on it"});
  Args args("bound", "PROBLEM.json [--json] [--tier2] [--split [--schedule SOL.json]] [--cores C]",
            "Prints a lower bound on the total latency of every valid schedule of PROBLEM.json\n"
            "under the chosen modes: the largest of its parts, each printed below: compute (every\n"
            "op once, padded tiles), io (graph inputs and outputs once), traffic (every load a\n"
            "schedule cannot avoid), mixed (per subgraph, the larger of compute and traffic),\n"
            "phase (last-step compute and earlier re-streamed loads), capacity (charges over the\n"
            "tiles that fit), coupled (compute and traffic of one tile choice), shared (a shared\n"
            "input's loads split by what each reader holds), squeeze (what is held shrinks the\n"
            "tile), held (what a resident operand leaves for a producer computed inside). The lemmas\n"
            "are in docs/bounds.md. A schedule whose latency equals it is optimal.\n"
            "--tier2 adds the covering LP (docs/bounds.md \"Tier 2\"): every subgraph context\n"
            "is priced, so its certified value is a bound too; the larger one is printed.\n"
            "--split adds the same LP on each link component of the graph (docs/bounds.md \"Tier 2\n"
            "by components\"): the ops that can share a subgraph, priced apart and summed.\n"
            "--schedule with --split splits a schedule's latency the same way, so the gap can be\n"
            "placed: a component whose share is far above its value holds the gap there (search or\n"
            "bound), one at its value is done.\n"
            "--cores all|design runs the LP on cores (docs/bounds.md \"Cores\", Lemma V6; rules=contest\n"
            "cuts, none under algebra): an experiment, so far never above --split (docs/design_cores.md).",
            options, 1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  auto modes = ModesFromArgs(args);
  if (!modes.ok()) return Fail("bound", modes.status().message(), kExitUsage);
  if (args.Has("time-limit") && !args.Has("tier2") && !args.Has("split") && !args.Has("cores")) {
    return Fail("bound", "--time-limit is the budget of --tier2, --split and --cores (tier 1 takes milliseconds)",
                kExitUsage);
  }
  std::optional<search::CoreCuts> core_cuts;
  if (args.Has("cores")) {
    const std::string cuts = args.Get("cores");
    if (cuts == "all") core_cuts = search::CoreCuts::kAll;
    else if (cuts == "design") core_cuts = search::CoreCuts::kDesign;
    else return Fail("bound", "--cores: '" + cuts + "' is not all or design", kExitUsage);
  }
  if (args.Has("schedule") && !args.Has("split")) {
    return Fail("bound", "--schedule needs --split (it splits the schedule's latency by link component)", kExitUsage);
  }
  auto limit = args.GetDouble("time-limit", 120);
  if (!limit.ok()) return Fail("bound", limit.status().message(), kExitUsage);
  if (*limit < 0) return Fail("bound", "--time-limit must not be negative", kExitUsage);
  if (args.Has("threads") && !args.Has("tier2") && !args.Has("split") && !args.Has("cores")) {
    return Fail("bound", "--threads is for --tier2, --split and --cores (tier 1 runs on one thread)", kExitUsage);
  }
  auto threads = args.GetInt("threads", 0);
  if (!threads.ok()) return Fail("bound", threads.status().message(), kExitUsage);
  if (*threads < 0 || *threads > 1024) return Fail("bound", "--threads must be in [0, 1024]", kExitUsage);
  std::vector<std::string> warnings;
  auto problem = LoadProblem(args.positional()[0], &warnings);
  if (!problem.ok()) return Fail("bound", problem.status().message(), kExitUsage);
  PrintWarnings("bound", warnings);
  std::optional<JudgedInput> judged;  // --schedule: the schedule and Evaluate()'s verdict
  if (args.Has("schedule")) {
    int code = kExitOk;
    judged = LoadJudged("bound", args.positional()[0], args.Get("schedule"), *modes, &code);
    if (!judged) return code;
  }
  const auto start = std::chrono::steady_clock::now();
  const LowerBounds bounds = ComputeLowerBounds(*problem, *modes);
  search::Tier2Options tier2_options;
  tier2_options.modes = *modes;
  tier2_options.time_limit = *limit;
  tier2_options.threads = static_cast<int>(*threads);
  tier2_options.stop = &StopFlag();
  tier2_options.keep_until_exit = true;  // freeing a large run's contexts would outlast the limit
  if (args.Has("tier2") || args.Has("split") || core_cuts) InstallStopSignals(SecondSignal::kKeepStopping);
  const std::string budget_text = *limit > 0 ? "up to " + FormatNumber(*limit, 1) + " s" : "no time limit";
  double tier2 = -1, split = -1, cores = -1;  // < 0: not run
  search::SplitTier2Result split_run;
  std::vector<search::SplitTier2Component> parts;  // the split's link components
  std::vector<CertifiedBound> certified;
  if (args.Has("tier2")) {
    std::cerr << "tier 2: pricing every subgraph context (" << budget_text
              << "; Ctrl-C stops with the bound so far)...\n";
    const search::Tier2Result run = search::Tier2Bound(*problem, tier2_options);
    tier2 = run.value;
    certified.push_back({"tier 2", "covering LP", run.value, search::Tier2Summary(run)});
  }
  if (args.Has("split")) {
    std::cerr << "split tier 2: pricing each link component (" << budget_text
              << "; Ctrl-C stops with the bound so far)...\n";
    split_run = search::SplitTier2Bound(*problem, tier2_options);
    split = split_run.value;
    parts = split_run.parts;
    certified.push_back({"split", "tier 2 by link components", split_run.value,
                         search::SplitTier2Summary(split_run) + "; " + FormatNumber(split_run.seconds, 2) + " s"});
  }
  if (core_cuts) {
    std::cerr << "tier 2 on cores: pricing whole and piece contexts (" << budget_text
              << "; Ctrl-C stops with the bound so far)...\n";
    const search::CoreTier2Result run = search::CoreTier2Bound(*problem, tier2_options, *core_cuts);
    cores = run.value;
    certified.push_back({"cores", "tier 2 on cores, one lambda at a time", run.value,
                         run.summary + "; " + FormatNumber(run.seconds, 2) + " s"});
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> shares;  // --schedule: per link component, its subgraphs' latencies
  if (judged) {
    std::vector<double> latencies;
    for (const SubgraphReport& s : judged->evaluation.subgraphs) latencies.push_back(s.cost.latency);
    auto split_shares = search::SplitTier2Shares(*problem, *modes, judged->schedule, latencies, split_run);
    if (!split_shares.ok()) return Fail("bound", "internal error: " + split_shares.status().message(), kExitInternal);
    shares = std::move(split_shares).value();
  }
  if (args.Has("json")) {
    std::vector<SplitComponentJson> components;
    for (size_t i = 0; i < parts.size(); ++i) {
      const search::SplitTier2Component& c = parts[i];
      components.push_back({c.first_op, c.ops, c.tensors, c.value, c.tier2, c.floor, c.tier1, c.tier2_summary,
                            shares.empty() ? -1.0 : shares[i]});
    }
    std::cout << LowerBoundsToJson(bounds, *modes, seconds, tier2, split, components,
                                   judged ? judged->evaluation.total : -1.0, cores);
    return kExitOk;
  }
  std::cout << BoundText(bounds, *modes, certified);
  if (split >= 0) std::cout << SplitComponentsText(parts, shares);
  std::cout << "computed in " << FormatNumber(seconds * 1000, 2) << " ms\n";
  return kExitOk;
}

}  // namespace tilesched::cli
