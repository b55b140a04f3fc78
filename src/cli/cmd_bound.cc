// `tilesched bound`: the lower bound on any valid schedule's latency (docs/bounds.md).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "args.h"
#include "bound_text.h"
#include "commands.h"
#include "stop_signal.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/search.h"
#include "tilesched/summary_json.h"
#include "tilesched/table.h"

namespace tilesched::cli {

namespace {

// One line per link component of the split: what it counts, from which lemma, and what tier 2
// said about it (docs/bounds.md, "Tier 2 by components").
std::string SplitComponentsText(const std::vector<search::SplitTier2Component>& parts) {
  std::string out = "  link components (each counts the largest of tier 2, its floor W3 and its mixed roofline W4):\n";
  for (size_t i = 0; i < parts.size(); ++i) {
    const search::SplitTier2Component& c = parts[i];
    const char* by = c.value == c.tier2 && c.tier2 > 0 ? "tier 2" : c.value == c.tier1 ? "mixed roofline" : "floor";
    out += "    " + std::to_string(i) + ": " + std::to_string(c.ops) + " ops from op " + std::to_string(c.first_op) +
           ", " + std::to_string(c.tensors) + " tensors: " + FormatNumber(c.value) + " (" + by + "; floor " +
           FormatNumber(c.floor) + ", mixed " + FormatNumber(c.tier1) + "; tier 2: " + c.tier2_summary + ")\n";
  }
  return out;
}

}  // namespace

int RunBound(int argc, char** argv, int first) {
  std::vector<Option> options = ModeOptions();
  options.push_back({"json", "",
                     "print JSON: lower_bound, every part (compute, io, traffic, mixed, phase, capacity, coupled, "
                     "shared, squeeze, held; tier2 and split when run), set_by (the part that sets it), modes, time_s; "
                     "with --split also split_components (per link component: first_op, ops, tensors, value, tier2, "
                     "floor, mixed, tier2_summary)"});
  options.push_back({"tier2", "",
                     "also run tier 2, the covering LP over every subgraph context (seconds to "
                     "minutes; problems of at most 64 ops and 1,000,000 connected op sets, about "
                     "30-40 ops)"});
  options.push_back({"split", "",
                     "also run tier 2 by link components: the covering LP on each part of the graph "
                     "that no subgraph can leave, summed (any size; parts above 64 ops count at a floor or at "
                     "tier 1's mixed roofline restricted to them)"});
  options.push_back({"time-limit", "SEC", "budget of --tier2 and of --split in seconds, each (default 120; "
                     "0: until it converges); a run stopped by it or by SIGINT/SIGTERM still reports a "
                     "valid bound"});
  Args args("bound", "PROBLEM.json [--json] [--tier2] [--split] [--time-limit SEC] [mode flags]",
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
            "by components\"): the ops that can share a subgraph, priced apart and summed.",
            options, 1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  auto modes = ModesFromArgs(args);
  if (!modes.ok()) return Fail("bound", modes.status().message(), kExitUsage);
  if (args.Has("time-limit") && !args.Has("tier2") && !args.Has("split")) {
    return Fail("bound", "--time-limit is the budget of --tier2 and --split (tier 1 takes milliseconds)",
                kExitUsage);
  }
  auto limit = args.GetDouble("time-limit", 120);
  if (!limit.ok()) return Fail("bound", limit.status().message(), kExitUsage);
  if (*limit < 0) return Fail("bound", "--time-limit must not be negative", kExitUsage);
  std::vector<std::string> warnings;
  auto problem = LoadProblem(args.positional()[0], &warnings);
  if (!problem.ok()) return Fail("bound", problem.status().message(), kExitUsage);
  PrintWarnings("bound", warnings);
  const auto start = std::chrono::steady_clock::now();
  const LowerBounds bounds = ComputeLowerBounds(*problem, *modes);
  search::Tier2Options tier2_options;
  tier2_options.modes = *modes;
  tier2_options.time_limit = *limit;
  tier2_options.stop = &StopFlag();
  tier2_options.keep_until_exit = true;  // freeing a large run's contexts would outlast the limit
  if (args.Has("tier2") || args.Has("split")) InstallStopSignals(SecondSignal::kKeepStopping);
  const std::string budget_text = *limit > 0 ? "up to " + FormatNumber(*limit, 1) + " s" : "no time limit";
  double tier2 = -1, split = -1;  // < 0: not run
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
    const search::SplitTier2Result run = search::SplitTier2Bound(*problem, tier2_options);
    split = run.value;
    parts = run.parts;
    certified.push_back({"split", "tier 2 by link components", run.value,
                         search::SplitTier2Summary(run) + "; " + FormatNumber(run.seconds, 2) + " s"});
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (args.Has("json")) {
    std::vector<SplitComponentJson> components;
    for (const search::SplitTier2Component& c : parts) {
      components.push_back({c.first_op, c.ops, c.tensors, c.value, c.tier2, c.floor, c.tier1, c.tier2_summary});
    }
    std::cout << LowerBoundsToJson(bounds, *modes, seconds, tier2, split, components);
    return kExitOk;
  }
  std::cout << BoundText(bounds, *modes, certified);
  if (split >= 0) std::cout << SplitComponentsText(parts);
  std::cout << "computed in " << FormatNumber(seconds * 1000, 2) << " ms\n";
  return kExitOk;
}

}  // namespace tilesched::cli
