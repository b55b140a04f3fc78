// Invariants the fuzz targets check on arbitrary bytes, shared with the regression test.
//
// Entry points: CheckProblemInput (ParseProblem), CheckSolutionInput (ParseSolution) and
// CheckEvaluateInput (a problem and a solution joined by kSeparator, evaluated in kFuzzModes).
// Each returns Ok when the input was handled as the contract says (SPEC.md sections 1-3, 9):
// parsed into a value that survives a JSON round trip and obeys the cost model's invariants,
// or rejected with a non-empty one-line message. Any other outcome is an error naming the
// broken invariant; the fuzz targets abort() on it, the regression test fails. A crash,
// sanitizer report or hang inside the library is caught by libFuzzer itself.
#ifndef TILESCHED_FUZZ_FUZZ_CHECKS_H_
#define TILESCHED_FUZZ_FUZZ_CHECKS_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/cost_model.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched::fuzz {

// Splits a fuzz_evaluate input into its problem and solution. A raw newline cannot occur
// inside a JSON string and "----" is no JSON token, so the first occurrence is always the
// split point of two valid documents.
inline constexpr std::string_view kSeparator = "\n----\n";

// The default reading, plus every non-default switch of SPEC.md section 7 at least once:
// algebra rules alone, and native_k reduction cost together with k_limit=reduction.
inline constexpr std::array<CostModes, 3> kFuzzModes = {
    CostModes{},
    CostModes{Rules::kAlgebra, MatmulReduction::kFullK, KLimit::kNative},
    CostModes{Rules::kContest, MatmulReduction::kNativeK, KLimit::kReduction},
};

// Relative slack for sums of doubles (the evaluator's own tolerance, SPEC.md rule 3.9).
inline bool NearlyEqual(double a, double b) {
  return std::abs(a - b) <= kLatencyTolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

// A rejection must be a message a person can read on one line (SPEC.md section 1: "a tool
// never crashes or guesses on bad input").
inline Status CheckOneLineError(const Status& status, const std::string& what) {
  if (status.message().empty()) return Status::Error(what + " failed with an empty message");
  if (status.message().find('\n') != std::string::npos) {
    return Status::Error(what + " failed with a multi-line message: " + status.message());
  }
  return Status::Ok();
}

inline bool SameProblem(const Problem& a, const Problem& b) {
  if (a.tensors() != b.tensors() || a.num_ops() != b.num_ops()) return false;
  for (int o = 0; o < a.num_ops(); ++o) {
    const Op& x = a.op(o);
    const Op& y = b.op(o);
    if (x.type != y.type || x.inputs != y.inputs || x.output != y.output ||
        x.base_cost != y.base_cost) {
      return false;
    }
  }
  const Hardware& p = a.hardware();
  const Hardware& q = b.hardware();
  return p.fast_memory_capacity == q.fast_memory_capacity &&
         p.slow_memory_bandwidth == q.slow_memory_bandwidth && p.native_w == q.native_w &&
         p.native_h == q.native_h;
}

inline bool SameSchedule(const Schedule& a, const Schedule& b) {
  if (a.subgraphs.size() != b.subgraphs.size()) return false;
  for (size_t s = 0; s < a.subgraphs.size(); ++s) {
    const Subgraph& x = a.subgraphs[s];
    const Subgraph& y = b.subgraphs[s];
    if (x.ops != y.ops || !(x.granularity == y.granularity) || x.retained != y.retained ||
        x.traversal != y.traversal || x.reported_latency != y.reported_latency) {
      return false;
    }
  }
  return true;
}

// Reported latencies as SolutionToJson takes them: all of them, or none (written as null).
inline std::vector<double> ReportedLatencies(const Schedule& schedule) {
  std::vector<double> latencies;
  for (const Subgraph& sg : schedule.subgraphs) {
    if (!sg.reported_latency) return {};
    latencies.push_back(*sg.reported_latency);
  }
  return latencies;
}

// ParseProblem: a one-line error, or a problem that ProblemToJson writes back unchanged and
// whose lower bounds are finite and non-negative.
inline Status CheckProblemInput(std::string_view data) {
  auto problem = ParseProblem(std::string(data));
  if (!problem.ok()) return CheckOneLineError(problem.status(), "ParseProblem");
  auto again = ParseProblem(ProblemToJson(*problem));
  if (!again.ok()) {
    return Status::Error("ProblemToJson output does not parse: " + again.status().message());
  }
  if (!SameProblem(*problem, *again)) return Status::Error("problem changed in a JSON round trip");
  for (const CostModes& modes : kFuzzModes) {
    const LowerBounds bounds = ComputeLowerBounds(*problem, modes);
    if (!std::isfinite(bounds.best()) || bounds.compute < 0 || bounds.io < 0) {
      return Status::Error("lower bound is negative or not finite under " + ModesString(modes));
    }
  }
  return Status::Ok();
}

// ParseSolution: a one-line error, or a schedule that SolutionToJson writes back unchanged.
inline Status CheckSolutionInput(std::string_view data) {
  auto schedule = ParseSolution(std::string(data));
  if (!schedule.ok()) return CheckOneLineError(schedule.status(), "ParseSolution");
  const std::vector<double> latencies = ReportedLatencies(*schedule);
  auto again = ParseSolution(SolutionToJson(*schedule, latencies));
  if (!again.ok()) {
    return Status::Error("SolutionToJson output does not parse: " + again.status().message());
  }
  Schedule expected = *schedule;
  if (latencies.empty()) {
    for (Subgraph& sg : expected.subgraphs) sg.reported_latency.reset();
  }
  if (!SameSchedule(expected, *again)) return Status::Error("schedule changed in a JSON round trip");
  return Status::Ok();
}

// One valid evaluation: latencies non-negative and finite, summing to the total, the total at
// least the lower bound, and the same verdict after writing the schedule with its latencies.
inline Status CheckEvaluation(const Problem& problem, const Schedule& schedule,
                              const CostModes& modes, const Evaluation& evaluation) {
  const std::string where = "under " + ModesString(modes) + ": ";
  if (evaluation.subgraphs.size() != schedule.subgraphs.size()) {
    return Status::Error(where + "evaluation has " + std::to_string(evaluation.subgraphs.size()) +
                         " subgraph reports for " + std::to_string(schedule.subgraphs.size()) +
                         " subgraphs");
  }
  double sum = 0;
  std::vector<double> latencies;
  for (size_t s = 0; s < evaluation.subgraphs.size(); ++s) {
    const double latency = evaluation.subgraphs[s].cost.latency;
    if (!std::isfinite(latency) || latency < 0) {
      return Status::Error(where + "subgraph " + std::to_string(s) + " has latency " +
                           std::to_string(latency));
    }
    sum += latency;
    latencies.push_back(latency);
  }
  if (!NearlyEqual(sum, evaluation.total)) {
    return Status::Error(where + "subgraph latencies sum to " + std::to_string(sum) +
                         " but the total is " + std::to_string(evaluation.total));
  }
  const double bound = ComputeLowerBounds(problem, modes).best();
  if (evaluation.total < bound * (1 - 1e-9)) {
    return Status::Error(where + "total " + std::to_string(evaluation.total) +
                         " is below the lower bound " + std::to_string(bound));
  }
  // What the scheduler writes must be judged the same when read back, without warnings.
  auto written = ParseSolution(SolutionToJson(schedule, latencies));
  if (!written.ok()) return Status::Error(where + "written solution does not parse");
  auto again = Evaluate(problem, *written, modes);
  if (!again.ok()) {
    return Status::Error(where + "written solution is invalid: " + again.status().message());
  }
  if (again->total != evaluation.total || !again->warnings.empty()) {
    return Status::Error(where + "written solution evaluates to " + std::to_string(again->total) +
                         " instead of " + std::to_string(evaluation.total) +
                         (again->warnings.empty() ? "" : " with warning: " + again->warnings[0]));
  }
  return Status::Ok();
}

// A problem and a solution joined by kSeparator: both parsed, then evaluated in every mode of
// kFuzzModes. Inputs without the separator, or with a part that does not parse, only check
// that parsing does not crash.
inline Status CheckEvaluateInput(std::string_view data) {
  const size_t split = data.find(kSeparator);
  if (split == std::string_view::npos) return Status::Ok();
  auto problem = ParseProblem(std::string(data.substr(0, split)));
  if (!problem.ok()) return CheckOneLineError(problem.status(), "ParseProblem");
  auto schedule = ParseSolution(std::string(data.substr(split + kSeparator.size())));
  if (!schedule.ok()) return CheckOneLineError(schedule.status(), "ParseSolution");
  for (const CostModes& modes : kFuzzModes) {
    auto evaluation = Evaluate(*problem, *schedule, modes);
    if (!evaluation.ok()) {
      if (Status s = CheckOneLineError(evaluation.status(), "Evaluate"); !s.ok()) return s;
      continue;
    }
    if (Status s = CheckEvaluation(*problem, *schedule, modes, *evaluation); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace tilesched::fuzz

#endif  // TILESCHED_FUZZ_FUZZ_CHECKS_H_
