// Bindings of the judged and workflow entry points, each answering with the JSON its command
// prints or writes, which the package turns into Python objects: evaluate (Evaluate() and
// EvaluationToJson, or EvaluateModes and ModeComparisonToJson for several readings), bound
// (ComputeLowerBounds, Tier2Bound, LowerBoundsToJson), sweep (LoadSweepPlanFile, ApplySweepDefinition,
// AssembleSweepPlan, RunSweepPlan, or ShardPoints and RunSweepPlanPoint one point at a time;
// rows as JSON Lines), compare (ParseStrategyList, ParseSeedList,
// SetComparisonBudget, RunComparison, RenderComparison "jsonl") and the report page (HtmlReport,
// WriteHtmlReport). The long ones run interruptibly (interrupt.h).
#include <pybind11/stl.h>

#include <chrono>
#include <optional>
#include <sstream>
#include <tuple>

#include "bindings.h"
#include "comparison.h"
#include "interrupt.h"
#include "report.h"
#include "sweep.h"
#include "tilesched/evaluate.h"
#include "tilesched/file_util.h"
#include "tilesched/lower_bound.h"
#include "tilesched/mode_compare.h"
#include "tilesched/report_json.h"
#include "tilesched/search.h"
#include "tilesched/summary_json.h"

namespace tilesched::python {

namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

// Raises the exception a signal handler raised during an interruptible call, if any.
void RaiseIfInterrupted(std::optional<py::error_already_set>& raised) {
  if (raised) throw std::move(*raised);
}

// (single reading?, JSON): `evaluate --json` for one reading (an invalid schedule raises
// InvalidSchedule), or the side-by-side JSON of every combination of the listed readings.
std::pair<bool, std::string> EvaluateJson(const PyProblem& p, const Schedule& schedule,
                                          const std::string& rules, const std::string& matmul_reduction,
                                          const std::string& k_limit) {
  const std::vector<CostModes> readings = Unwrap(ModeCombinations(rules, matmul_reduction, k_limit));
  if (readings.size() > 1) {
    return {false, ModeComparisonToJson(EvaluateModes(*p.problem, schedule, readings))};
  }
  auto evaluation = Evaluate(*p.problem, schedule, readings.front());
  if (!evaluation.ok()) RaiseInvalid(evaluation.status().message());
  const LowerBounds bounds = ComputeLowerBounds(*p.problem, readings.front());
  return {true, EvaluationToJson(*p.problem, schedule, *evaluation, readings.front(), bounds)};
}

// (`bound --json`, what tier 2 did, what tier 2 by components did): tier 1, tier 2 (the
// covering LP, Tier2Bound) and tier 2 by link components (SplitTier2Bound, with
// split_components) for up to `time_limit` seconds each when asked ("" without them); with a
// schedule (split only, as `bound --split --schedule`), each component's share of its latency.
std::tuple<std::string, std::string, std::string> BoundJson(const PyProblem& p, const std::string& rules,
                                                            const std::string& matmul_reduction,
                                                            const std::string& k_limit, bool tier2, bool split,
                                                            double time_limit, const Schedule* schedule) {
  const CostModes modes = ParseModes(rules, matmul_reduction, k_limit);
  // As `bound --tier2 --split --time-limit`: 0 runs until the LP converges (or Ctrl-C).
  if ((tier2 || split) && time_limit < 0) throw py::value_error("time_limit must not be negative");
  if (schedule && !split) throw py::value_error("schedule needs split=True (it splits the latency by link component)");
  std::optional<Evaluation> judged;
  if (schedule) {
    auto evaluation = Evaluate(*p.problem, *schedule, modes);
    if (!evaluation.ok()) RaiseInvalid(evaluation.status().message());
    judged = std::move(evaluation).value();
  }
  const auto start = std::chrono::steady_clock::now();
  std::atomic<bool> stop{false};
  std::optional<LowerBounds> bounds;
  std::optional<search::Tier2Result> run;
  std::optional<search::SplitTier2Result> split_run;
  auto raised = RunInterruptible(
      [&] {
        bounds = ComputeLowerBounds(*p.problem, modes);
        search::Tier2Options options;
        options.modes = modes;
        options.time_limit = time_limit;
        options.stop = &stop;
        if (tier2) run = search::Tier2Bound(*p.problem, options);
        if (split) split_run = search::SplitTier2Bound(*p.problem, options);
      },
      stop);
  RaiseIfInterrupted(raised);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> shares;
  if (judged) {
    std::vector<double> latencies;
    for (const SubgraphReport& s : judged->subgraphs) latencies.push_back(s.cost.latency);
    shares = Unwrap(search::SplitTier2Shares(*p.problem, modes, *schedule, latencies, *split_run));
  }
  std::vector<SplitComponentJson> components;
  if (split_run) {
    for (size_t i = 0; i < split_run->parts.size(); ++i) {
      const search::SplitTier2Component& c = split_run->parts[i];
      components.push_back({c.first_op, c.ops, c.tensors, c.value, c.tier2, c.floor, c.tier1, c.tier2_summary,
                            shares.empty() ? -1.0 : shares[i]});
    }
  }
  return {LowerBoundsToJson(*bounds, modes, seconds, run ? run->value : -1, split_run ? split_run->value : -1,
                            components, judged ? judged->total : -1.0),
          run ? search::Tier2Summary(*run) : "", split_run ? search::SplitTier2Summary(*split_run) : ""};
}

// The plan of `tilesched sweep --plan PLAN ...`: the plan file (may be ""), then the keyword
// settings (a sweep definition's JSON), then the hardware description (may be "").
sweep::SweepPlan Plan(const std::string& plan_path, const std::string& definition,
                      const std::string& hardware) {
  sweep::SweepSettings settings;
  if (!plan_path.empty()) Check(sweep::LoadSweepPlanFile(plan_path, &settings));
  Check(sweep::ApplySweepDefinition(definition, "sweep()", &settings));
  return Unwrap(sweep::AssembleSweepPlan(settings, hardware));
}

sweep::Shard ShardOf(const std::string& shard) {
  return shard.empty() ? sweep::Shard{} : Unwrap(sweep::ParseShard(shard));
}

// The rows of a sweep as JSON Lines, with the notes the sweep wrote (warnings, failed points).
py::dict Sweep(const std::string& plan_path, const std::string& definition,
               const std::string& hardware, int64_t jobs, const std::string& shard,
               const std::string& output, bool resume) {
  sweep::SweepRequest request;
  request.plan = Plan(plan_path, definition, hardware);
  request.shard = ShardOf(shard);
  if (!output.empty()) Check(CheckOutputPath(output, "output"));
  request.jobs = jobs;
  request.output = output;
  request.resume = resume;
  std::ostringstream notes;
  request.messages = &notes;
  request.progress = false;
  std::atomic<bool> stop{false};
  request.stop = &stop;
  std::optional<Result<sweep::SweepOutcome>> outcome;
  auto raised = RunInterruptible([&] { outcome.emplace(sweep::RunSweepPlan(request)); }, stop);
  if (raised && !raised->matches(PyExc_KeyboardInterrupt)) throw std::move(*raised);
  const sweep::SweepOutcome done = Unwrap(std::move(*outcome));
  std::vector<std::string> rows;
  for (const sweep::SweepRow& row : done.rows) rows.push_back(FormatSweepRow(row, sweep::SweepFormat::kJsonl));
  py::dict out;
  out["rows"] = rows;
  out["notes"] = notes.str();
  out["points"] = done.points;
  out["interrupted"] = raised.has_value();
  return out;
}

// The point indices of a sweep's shard, for a caller that runs them one by one (SweepPoint).
std::vector<int64_t> SweepPoints(const std::string& plan_path, const std::string& definition,
                                 const std::string& hardware, const std::string& shard) {
  const sweep::SweepPlan plan = Plan(plan_path, definition, hardware);
  return sweep::ShardPoints(plan.grid.size(), ShardOf(shard));
}

// One point's row as JSON Lines (RunSweepPlanPoint), run without the GIL: the work of a worker
// of the executor a sweep(executor=...) spreads its points over.
std::string SweepPoint(const std::string& plan_path, const std::string& definition,
                       const std::string& hardware, int64_t point) {
  const sweep::SweepPlan plan = Plan(plan_path, definition, hardware);
  std::optional<Result<std::optional<sweep::SweepRow>>> row;
  {
    py::gil_scoped_release release;
    row.emplace(sweep::RunSweepPlanPoint(plan, point));
  }
  const std::optional<sweep::SweepRow> done = Unwrap(std::move(*row));
  return FormatSweepRow(*done, sweep::SweepFormat::kJsonl);  // without a stop flag it has a row
}

// (rows as JSON Lines, caption) of a strategy comparison.
std::pair<std::string, std::string> Compare(const std::vector<std::string>& problems,
                                            const std::optional<std::string>& strategies,
                                            const std::optional<std::string>& seeds,
                                            const Entries& entries, bool time_limit_given,
                                            bool iterations_given) {
  experiment::ComparisonRequest request;
  request.problem_paths = problems;
  if (strategies) request.strategies = Unwrap(experiment::ParseStrategyList(*strategies));
  if (seeds) request.seeds = Unwrap(experiment::ParseSeedList(*seeds));
  for (const auto& [key, value] : entries) Check(search::ApplyConfigEntry(key, value, &request.base));
  Check(experiment::SetComparisonBudget(time_limit_given, iterations_given, &request.base));
  std::atomic<bool> stop{false};
  request.stop = &stop;
  std::optional<Result<experiment::ComparisonTable>> table;
  auto raised = RunInterruptible([&] { table.emplace(experiment::RunComparison(request)); }, stop);
  RaiseIfInterrupted(raised);
  const experiment::ComparisonTable done = Unwrap(std::move(*table));
  return {experiment::RenderComparison(done, "jsonl"), done.caption};
}

// The report request of a judged schedule (an invalid one raises InvalidSchedule).
struct Judged {
  Schedule schedule;
  Evaluation evaluation;
  report::HtmlReportRequest request;
};
std::unique_ptr<Judged> Judge(const PyProblem& p, const Schedule& schedule, const std::string& rules,
                              const std::string& matmul_reduction, const std::string& k_limit,
                              const std::string& solution_label) {
  auto judged = std::make_unique<Judged>();
  judged->schedule = schedule;
  const CostModes modes = ParseModes(rules, matmul_reduction, k_limit);
  auto evaluation = Evaluate(*p.problem, schedule, modes);
  if (!evaluation.ok()) RaiseInvalid(evaluation.status().message());
  judged->evaluation = std::move(evaluation).value();
  report::HtmlReportRequest& request = judged->request;
  request.problem_path = p.source;
  request.solution_path = solution_label;
  request.problem = p.problem.get();
  request.judged = {&judged->schedule, &judged->evaluation};
  request.modes = modes;
  return judged;
}

}  // namespace

void BindWorkflows(py::module_& m) {
  m.def("evaluate", &EvaluateJson, py::arg("problem"), py::arg("schedule"), py::arg("rules"),
        py::arg("matmul_reduction"), py::arg("k_limit"));
  m.def("bound", &BoundJson, py::arg("problem"), py::arg("rules"), py::arg("matmul_reduction"),
        py::arg("k_limit"), py::arg("tier2"), py::arg("split"), py::arg("time_limit"),
        py::arg("schedule") = nullptr);
  m.def("sweep", &Sweep, py::arg("plan"), py::arg("definition"), py::arg("hardware"), py::arg("jobs"),
        py::arg("shard"), py::arg("output"), py::arg("resume"));
  m.def("sweep_points", &SweepPoints, py::arg("plan"), py::arg("definition"), py::arg("hardware"),
        py::arg("shard"));
  m.def("sweep_point", &SweepPoint, py::arg("plan"), py::arg("definition"), py::arg("hardware"),
        py::arg("point"));
  m.def("compare", &Compare, py::arg("problems"), py::arg("strategies"), py::arg("seeds"),
        py::arg("entries"), py::arg("time_limit_given"), py::arg("iterations_given"));
  m.def(
      "report_html",
      [](const PyProblem& p, const Schedule& schedule, const std::string& rules,
         const std::string& matmul_reduction, const std::string& k_limit, const std::string& label) {
        const std::unique_ptr<Judged> judged = Judge(p, schedule, rules, matmul_reduction, k_limit, label);
        const report::HtmlReportPage page = report::HtmlReport(judged->request);
        return std::make_pair(page.html, page.warning);
      },
      py::arg("problem"), py::arg("schedule"), py::arg("rules"), py::arg("matmul_reduction"),
      py::arg("k_limit"), py::arg("label"));
  m.def(
      "write_report",
      [](const PyProblem& p, const Schedule& schedule, const std::string& path, const std::string& rules,
         const std::string& matmul_reduction, const std::string& k_limit, const std::string& label) {
        Check(CheckOutputPath(path, "path"));
        std::unique_ptr<Judged> judged = Judge(p, schedule, rules, matmul_reduction, k_limit, label);
        judged->request.output = path;
        return Unwrap(report::WriteHtmlReport(judged->request));
      },
      py::arg("problem"), py::arg("schedule"), py::arg("path"), py::arg("rules"),
      py::arg("matmul_reduction"), py::arg("k_limit"), py::arg("label"));
}

}  // namespace tilesched::python
