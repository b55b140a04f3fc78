// Whole-schedule evaluation: validity rules in stages, then the cost model.
#include "tilesched/evaluate.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "tilesched/demand.h"
#include "tilesched/grid.h"

namespace tilesched {

std::string IdList(const std::vector<int>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(ids[i]);
  }
  return out + "]";
}

namespace {

std::string FormatLatency(double value) {
  std::ostringstream out;
  out.precision(12);
  out << value;
  return out.str();
}

// Stage 1: ids in range and every op covered (rules 3.9 and 3.1).
Status CheckIdsAndCoverage(const Problem& problem, const Schedule& schedule) {
  std::vector<bool> covered(problem.num_ops(), false);
  for (size_t s = 0; s < schedule.subgraphs.size(); ++s) {
    const Subgraph& sg = schedule.subgraphs[s];
    const std::string where = "subgraph " + std::to_string(s) + ": ";
    for (int o : sg.ops) {
      if (o < 0 || o >= problem.num_ops()) {
        return Status::Error(where + "op id " + std::to_string(o) + " is out of range [0, " +
                             std::to_string(problem.num_ops()) + ") (rule 3.9)");
      }
      covered[o] = true;
    }
    for (int t : sg.retained) {
      if (t < 0 || t >= problem.num_tensors()) {
        return Status::Error(where + "retained tensor id " + std::to_string(t) +
                             " is out of range [0, " + std::to_string(problem.num_tensors()) +
                             ") (rule 3.9)");
      }
    }
  }
  for (int o = 0; o < problem.num_ops(); ++o) {
    if (!covered[o]) return Status::Error("op " + std::to_string(o) + " is in no subgraph (rule 3.1)");
  }
  return Status::Ok();
}

}  // namespace

Result<Evaluation> Evaluate(const Problem& problem, const Schedule& schedule,
                            const CostModes& modes) {
  if (schedule.subgraphs.empty()) return Status::Error("the schedule has no subgraphs (rule 3.1)");
  if (Status s = CheckIdsAndCoverage(problem, schedule); !s.ok()) return s;

  const CostModel model(problem, modes);
  Evaluation evaluation;
  std::vector<bool> in_slow_memory(problem.num_tensors(), false);
  for (int t = 0; t < problem.num_tensors(); ++t) in_slow_memory[t] = problem.is_graph_input(t);
  std::vector<int> resident;  // retained by the previous subgraph, sorted
  for (int o = 0; o < problem.num_ops(); ++o) {
    evaluation.op_work.push_back({o, problem.tensor(problem.op(o).output).size(), 0, 0});
  }

  for (size_t s = 0; s < schedule.subgraphs.size(); ++s) {
    const Subgraph& sg = schedule.subgraphs[s];
    const std::string where = "subgraph " + std::to_string(s) + ": ";
    auto plan = SubgraphPlan::Create(problem, sg.ops);
    if (!plan.ok()) return plan.status().WithContext(where);
    if (Status st = model.CheckGranularity(*plan, sg.granularity); !st.ok()) {
      return st.WithContext(where);
    }
    const Grid grid(plan->width(), plan->height(), sg.granularity.w, sg.granularity.h);
    if (Status st = ValidateTraversal(sg.traversal, grid.num_tiles()); !st.ok()) {
      return Status::Error(where + st.message() + " (rule 3.7)");
    }
    std::vector<int> retained = sg.retained;
    std::sort(retained.begin(), retained.end());
    retained.erase(std::unique(retained.begin(), retained.end()), retained.end());
    for (int t : retained) {
      if (!std::binary_search(plan->produced().begin(), plan->produced().end(), t)) {
        return Status::Error(where + "tensor " + std::to_string(t) +
                             " is retained but no op of this subgraph produces it (rule 3.6)");
      }
    }
    for (int t : plan->external_inputs()) {
      if (in_slow_memory[t] || std::binary_search(resident.begin(), resident.end(), t)) continue;
      int reader = -1;
      for (int o : plan->ops()) {
        const auto& in = problem.op(o).inputs;
        if (std::find(in.begin(), in.end(), t) != in.end()) {
          reader = o;
          break;
        }
      }
      const int producer = problem.producer(t);
      std::string why = producer < 0
                            ? "it is neither produced nor a graph input"
                            : "op " + std::to_string(producer) +
                                  " produces it, but no earlier subgraph wrote it to slow memory "
                                  "and the previous subgraph did not retain it";
      return Status::Error(where + "op " + std::to_string(reader) + " reads tensor " +
                           std::to_string(t) + ", which is not available: " + why +
                           " (rule 3.5)");
    }
    auto cost = model.Cost(*plan, sg.granularity, sg.traversal, retained, resident);
    if (!cost.ok()) return cost.status().WithContext(where);

    SubgraphReport report;
    report.cost = *cost;
    report.sinks = plan->sinks();
    report.split_roots = plan->split_roots();
    for (int t : plan->sinks()) {
      const bool kept = std::binary_search(retained.begin(), retained.end(), t);
      if (!kept || problem.is_graph_output(t)) {
        report.written.push_back(t);
        in_slow_memory[t] = true;
      }
    }
    if (!sg.reported_latency) {
      evaluation.warnings.push_back(where + "no reported latency; computed " +
                                    FormatLatency(cost->latency));
    } else if (std::abs(*sg.reported_latency - cost->latency) >
               kLatencyTolerance * std::max(1.0, std::abs(cost->latency))) {
      evaluation.warnings.push_back(where + "reported latency " +
                                    FormatLatency(*sg.reported_latency) +
                                    " differs from computed " + FormatLatency(cost->latency));
    }
    evaluation.total += cost->latency;
    for (const OpWork& w : cost->op_work) {
      evaluation.op_work[w.op].elements += w.elements;
      evaluation.op_work[w.op].compute_time += w.compute_time;
    }
    evaluation.subgraphs.push_back(std::move(report));
    resident = std::move(retained);
  }
  return evaluation;
}

}  // namespace tilesched
