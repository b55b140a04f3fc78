// What the binding files of the Python module `tilesched._core` share: the problem object Python
// holds, the error channels (a failed Status becomes ValueError with its one-line message, an
// invalid schedule tilesched.InvalidSchedule, the readers' warnings Python warnings), and one
// Bind function per file. The bindings only call the libraries' entry points; the Python package
// (python/tilesched/) turns their JSON into dicts, rows and results.
//
// Entry points: PyProblem, Unwrap(result), Check(status), Warn(warnings), RaiseInvalid(message),
// ParseModes(rules, matmul_reduction, k_limit), and BindProblem / BindSearch / BindWorkflows,
// called by module.cc.
#ifndef TILESCHED_PYTHON_BINDINGS_H_
#define TILESCHED_PYTHON_BINDINGS_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"
#include "tilesched/status.h"

namespace tilesched::python {

namespace py = pybind11;

// A problem as Python holds it: immutable and shared, with where it came from (a path, or "" for
// a problem made from a dict), which reports show.
struct PyProblem {
  std::shared_ptr<const Problem> problem;
  std::string source;
};

// The value of `result`, or ValueError with its message.
template <typename T>
T Unwrap(Result<T> result) {
  if (!result.ok()) throw py::value_error(result.status().message());
  return std::move(result).value();
}

// ValueError with the message of a failed `status`.
void Check(const Status& status);

// Each warning as a Python UserWarning (an error when the warnings filter says so).
void Warn(const std::vector<std::string>& warnings);

// Raises tilesched.InvalidSchedule (python/tilesched/_errors.py) carrying the rule, subgraph, op
// and tensor the evaluator's message names (DescribeFailure).
[[noreturn]] void RaiseInvalid(const std::string& message);

// One reading of SPEC section 7 from its three names (ParseRules, ...).
CostModes ParseModes(const std::string& rules, const std::string& matmul_reduction,
                     const std::string& k_limit);

void BindProblem(py::module_& m);    // problem_bindings.cc: Problem, Hardware, Schedule, import
void BindSearch(py::module_& m);     // search_bindings.cc: schedule()
void BindWorkflows(py::module_& m);  // workflow_bindings.cc: evaluate, bound, sweep, compare, report

}  // namespace tilesched::python

#endif  // TILESCHED_PYTHON_BINDINGS_H_
