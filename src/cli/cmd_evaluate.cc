// `tilesched evaluate`: judge a solution file and print the breakdown, or judge it under several
// readings of SPEC.md section 7 side by side.
#include <cstdio>
#include <iostream>

#include "args.h"
#include "commands.h"
#include "tilesched/table.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/model_names.h"
#include "tilesched/mode_compare.h"
#include "tilesched/report_json.h"

namespace tilesched::cli {

namespace {

std::string Ops(const std::vector<int>& ops) {
  std::string out;
  for (size_t i = 0; i < ops.size(); ++i) out += (i ? "," : "") + std::to_string(ops[i]);
  return out;
}

// The ops whose output is computed more than once in all (docs/cost_model.md), one row each:
// how much in all, in which subgraphs, and the compute time beyond once. One row per such op
// (not per op of the problem), so the table stays narrow on large models.
void PrintRecomputation(const Evaluation& ev) {
  constexpr double kOnce = 1 + 1e-9;  // computed fractions are sums of exact tile shares
  constexpr size_t kMostSubgraphsListed = 6;
  TextTable table({"op", "computed", "in subgraphs (computed there)", "recompute time"});
  int once = 0;
  for (const OpWork& all : ev.op_work) {
    if (ComputedRelativeToOnce(all) <= kOnce) {
      ++once;
      continue;
    }
    std::string where;
    size_t listed = 0, more = 0;
    for (size_t s = 0; s < ev.subgraphs.size(); ++s) {
      for (const OpWork& w : ev.subgraphs[s].cost.op_work) {
        if (w.op != all.op) continue;
        if (listed++ >= kMostSubgraphsListed) {
          ++more;
          continue;
        }
        char ratio[32];
        std::snprintf(ratio, sizeof(ratio), "%.2fx", ComputedRelativeToOnce(w));
        where += (where.empty() ? "" : ", ") + std::to_string(s) + ": " + ratio;
      }
    }
    if (more > 0) where += ", +" + std::to_string(more) + " more";
    char ratio[32];
    std::snprintf(ratio, sizeof(ratio), "%.2fx", ComputedRelativeToOnce(all));
    table.AddRow({std::to_string(all.op), ratio, where, FormatNumber(RecomputationTime(all))});
  }
  const int ops = static_cast<int>(ev.op_work.size());
  std::cout << "\nrecomputation: " << ops - once << " of " << ops
            << " ops computed more than once, compute time beyond once "
            << FormatNumber(RecomputationTime(ev.op_work)) << "\n";
  if (once < ops) table.Print(std::cout, {false, false, true, false});
}

// One column per mode combination; differences are to the first valid column.
void PrintComparison(const std::vector<ModeResult>& results) {
  std::vector<std::string> header = {""};
  for (size_t i = 0; i < results.size(); ++i) header.push_back("[" + std::to_string(i + 1) + "]");
  TextTable table(header);
  const Evaluation* first = FirstValid(results);
  std::vector<std::vector<std::string>> rows(10);
  rows[0] = {"rules"};
  rows[1] = {"matmul_reduction"};
  rows[2] = {"k_limit"};
  rows[3] = {"verdict"};
  rows[4] = {"failing rule"};
  rows[5] = {"subgraph"};
  rows[6] = {"op/tensor/tile"};
  rows[7] = {"total latency"};
  rows[8] = {"difference"};
  rows[9] = {"recompute time"};
  for (const ModeResult& r : results) {
    rows[0].push_back(RulesName(r.modes.rules));
    rows[1].push_back(MatmulReductionName(r.modes.matmul_reduction));
    rows[2].push_back(KLimitName(r.modes.k_limit));
    if (r.evaluation.ok()) {
      const Evaluation& ev = *r.evaluation;
      rows[3].push_back("valid");
      for (size_t i = 4; i <= 6; ++i) rows[i].push_back("-");
      rows[7].push_back(FormatNumber(ev.total));
      const double diff = ev.total - first->total;
      rows[8].push_back(&ev == first ? "reference"
                                     : (diff >= 0 ? "+" : "") + FormatNumber(diff) + " (x" +
                                           FormatNumber(ev.total / first->total, 4) + ")");
      rows[9].push_back(FormatNumber(RecomputationTime(ev.op_work)));
    } else {
      const FailureSite site = DescribeFailure(r.evaluation.status().message());
      rows[3].push_back("INVALID");
      rows[4].push_back(site.rule.empty() ? "-" : site.rule);
      rows[5].push_back(site.subgraph ? std::to_string(*site.subgraph) : "-");
      rows[6].push_back(site.object.empty() ? "-" : site.object);
      for (size_t i = 7; i <= 9; ++i) rows[i].push_back("-");
    }
  }
  for (auto& row : rows) table.AddRow(std::move(row));
  table.Print(std::cout, {true});
  int valid = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].evaluation.ok()) {
      ++valid;
    } else {
      std::cout << "\n[" << i + 1 << "] " << ModesString(results[i].modes) << ": "
                << results[i].evaluation.status().message();
    }
  }
  std::cout << (valid == static_cast<int>(results.size()) ? "" : "\n") << "\nvalid under " << valid
            << " of " << results.size() << " readings";
  if (first) std::cout << "; differences are to the first valid column";
  std::cout << "\n";
}

void PrintHuman(const Problem& problem, const Schedule& schedule, const Evaluation& ev,
                const CostModes& modes, const LowerBounds& bounds) {
  std::cout << "modes: " << ModesString(modes) << "\n\n";
  const bool named = !problem.names().ops.empty();
  std::vector<std::string> header = {"sg", "ops", "tile w,h,k", "retain", "tiles x k", "compute-bound", "mem-bound",
                                     "compute", "memory", "peak WS (tile, k-step)", "latency"};
  if (named) header.push_back("model names");
  TextTable table(header);
  for (size_t s = 0; s < ev.subgraphs.size(); ++s) {
    const Subgraph& sg = schedule.subgraphs[s];
    const SubgraphCost& c = ev.subgraphs[s].cost;
    const Granularity& g = sg.granularity;
    std::vector<std::string> row = {
        std::to_string(s), Ops(sg.ops),
        std::to_string(g.w) + "," + std::to_string(g.h) + "," + std::to_string(g.k),
        Ops(sg.retained), FormatCount(c.tiles) + " x " + FormatCount(c.k_steps),
        FormatCount(c.compute_bound_steps), FormatCount(c.memory_bound_steps),
        FormatNumber(c.compute_time), FormatNumber(c.memory_time),
        FormatCount(c.peak_working_set) + " (" + std::to_string(c.peak_tile) + ", " +
            std::to_string(c.peak_k_step + 1) + ")",
        FormatNumber(c.latency)};
    if (named) row.push_back(SubgraphLabel(problem, sg.ops));
    table.AddRow(std::move(row));
  }
  std::vector<bool> left = {false, true, true, true};
  if (named) left.resize(header.size(), false), left.back() = true;
  table.Print(std::cout, left);
  PrintRecomputation(ev);
  std::cout << "\ntotal latency: " << FormatNumber(ev.total) << "\n"
            << "lower bound:   " << FormatNumber(bounds.best()) << " (tier 1, set by its "
            << BestPart(bounds).name << " part; every part: tilesched bound); ratio "
            << FormatNumber(ev.total / bounds.best(), 3)
            << (ev.total <= bounds.best() * (1 + 1e-9) ? " (optimal)" : "") << "\n";
  for (const std::string& w : ev.warnings) std::cout << "warning: " << w << "\n";
}

}  // namespace

int RunEvaluate(int argc, char** argv, int first) {
  std::vector<Option> options = {
      {"rules", "contest|algebra[,...]", "validity reading(s) of SPEC 7 (default contest)"},
      {"matmul-reduction", "full_k|native_k[,...]", "what base_cost covers (default full_k)"},
      {"k-limit", "native|reduction[,...]", "upper bound of k (default native)"},
      {"json", "", "print machine-readable JSON instead of a table"},
  };
  Args args("evaluate", "PROBLEM.json SOLUTION.json [options]",
            "Checks a solution against every validity rule of the spec and prints its latency:\n"
            "total, per subgraph, and a breakdown (steps, compute and memory time, how many\n"
            "steps are compute- or memory-bound, peak working set and where, and per op how\n"
            "much of its output is computed relative to once and the compute time beyond once).\n"
            "A mode flag given a comma-separated list (--rules contest,algebra) judges the\n"
            "schedule under every combination of the listed modes and prints one column per\n"
            "combination: verdict, failing rule, subgraph, op or tensor, total latency, and the\n"
            "difference to the first valid column (--json: an object whose \"modes\" array has\n"
            "one entry per combination). Exit status 1 when the schedule is invalid under at least\n"
            "one listed reading.",
            options, 2, 2);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  for (const char* flag : {"rules", "matmul-reduction", "k-limit"}) {
    if (args.Has(flag) && args.Get(flag).empty()) {
      return Fail("evaluate", std::string("--") + flag + ": empty list", kExitUsage);
    }
  }
  auto combinations = ModeCombinations(args.Get("rules"), args.Get("matmul-reduction"),
                                       args.Get("k-limit"));
  if (!combinations.ok()) return Fail("evaluate", combinations.status().message(), kExitUsage);
  std::vector<std::string> warnings;
  auto problem = LoadProblem(args.positional()[0], &warnings);
  if (!problem.ok()) return Fail("evaluate", problem.status().message(), kExitUsage);
  auto schedule = LoadSolution(args.positional()[1], &warnings);
  if (!schedule.ok()) return Fail("evaluate", schedule.status().message(), kExitUsage);
  PrintWarnings("evaluate", warnings);
  const bool json = args.Has("json");
  if (combinations->size() > 1) {
    const std::vector<ModeResult> results = EvaluateModes(*problem, *schedule, *combinations);
    if (json) {
      std::cout << ModeComparisonToJson(results);
    } else {
      PrintComparison(results);
    }
    return AllValid(results) ? kExitOk : kExitInvalid;
  }
  const CostModes* modes = &combinations->front();
  auto evaluation = Evaluate(*problem, *schedule, *modes);
  if (!evaluation.ok()) {
    if (json) std::cout << InvalidEvaluationToJson(evaluation.status().message(), *modes);
    return Fail("evaluate", "invalid schedule: " + evaluation.status().message(), kExitInvalid);
  }
  const LowerBounds bounds = ComputeLowerBounds(*problem, *modes);
  if (json) {
    std::cout << EvaluationToJson(*problem, *schedule, *evaluation, *modes, bounds);
  } else {
    PrintHuman(*problem, *schedule, *evaluation, *modes, bounds);
  }
  return kExitOk;
}

}  // namespace tilesched::cli
