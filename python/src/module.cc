// The Python module `tilesched._core`: the error helpers of bindings.h and the module
// definition, which hands the module to each binding file. Users import the package
// `tilesched` (python/tilesched/__init__.py), which wraps these functions.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "tilesched/mode_compare.h"

namespace tilesched::python {

void Check(const Status& status) {
  if (!status.ok()) throw py::value_error(status.message());
}

void Warn(const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    if (PyErr_WarnEx(PyExc_UserWarning, warning.c_str(), /*stack_level=*/2) != 0) {
      throw py::error_already_set();
    }
  }
}

void RaiseInvalid(const std::string& message) {
  const FailureSite site = DescribeFailure(message);
  auto optional_int = [](const std::optional<int>& value) -> py::object {
    return value ? py::object(py::int_(*value)) : py::object(py::none());
  };
  const py::object type = py::module_::import("tilesched._errors").attr("InvalidSchedule");
  const py::object error =
      type(message, py::arg("rule") = site.rule.empty() ? py::object(py::none()) : py::str(site.rule),
           py::arg("subgraph") = optional_int(site.subgraph), py::arg("op") = optional_int(site.op),
           py::arg("tensor") = optional_int(site.tensor),
           py::arg("object") = site.object.empty() ? py::object(py::none()) : py::str(site.object));
  PyErr_SetObject(type.ptr(), error.ptr());
  throw py::error_already_set();
}

CostModes ParseModes(const std::string& rules, const std::string& matmul_reduction,
                     const std::string& k_limit) {
  return {Unwrap(ParseRules(rules)), Unwrap(ParseMatmulReduction(matmul_reduction)),
          Unwrap(ParseKLimit(k_limit))};
}

}  // namespace tilesched::python

PYBIND11_MODULE(_core, m) {
  m.doc() = "tilesched's C++ libraries (use the package `tilesched`, which wraps this module)";
  tilesched::python::BindProblem(m);
  tilesched::python::BindSearch(m);
  tilesched::python::BindWorkflows(m);
}
