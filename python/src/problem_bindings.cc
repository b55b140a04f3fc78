// Bindings of the inputs and outputs: Problem (io.h's readers and writers, Problem's accessors,
// Retarget), its ops, tensors and hardware values, Hardware (a hardware description,
// hardware.h), Schedule (io.h's solution reader and writer) and import_onnx (import.h).
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>

#include "bindings.h"
#include "tilesched/file_util.h"
#include "tilesched/graph.h"
#include "tilesched/hardware.h"
#include "tilesched/import.h"
#include "tilesched/io.h"
#include "tilesched/schedule.h"

namespace tilesched::python {

namespace {

py::object JsonLoads(const std::string& text) { return py::module_::import("json").attr("loads")(text); }
std::string JsonDumps(const py::object& value) {
  return py::module_::import("json").attr("dumps")(value).cast<std::string>();
}

// The latencies a schedule reports (the search's are the evaluator's), up to the first missing one.
std::vector<double> ReportedLatencies(const Schedule& schedule) {
  std::vector<double> latencies;
  for (const Subgraph& sg : schedule.subgraphs) {
    if (!sg.reported_latency) break;
    latencies.push_back(*sg.reported_latency);
  }
  return latencies;
}

// An op or tensor as Python sees it: with its id and its model name ("" without names).
struct OpView {
  int id = 0;
  Op op;
  std::string name;
};
struct TensorView {
  int id = 0;
  Tensor tensor;
  std::string name;
};

std::vector<OpView> Ops(const Problem& problem) {
  std::vector<OpView> ops;
  for (int o = 0; o < problem.num_ops(); ++o) ops.push_back({o, problem.op(o), problem.op_name(o)});
  return ops;
}

std::vector<TensorView> Tensors(const Problem& problem) {
  std::vector<TensorView> tensors;
  for (int t = 0; t < problem.num_tensors(); ++t) {
    tensors.push_back({t, problem.tensor(t), problem.tensor_name(t)});
  }
  return tensors;
}

PyProblem ParsedProblem(const std::string& text, const std::string& source) {
  std::vector<std::string> warnings;
  Problem problem = Unwrap(ParseProblem(text, &warnings));
  Warn(warnings);
  return {std::make_shared<const Problem>(std::move(problem)), source};
}

Schedule ParsedSchedule(const std::string& text) {
  std::vector<std::string> warnings;
  Schedule schedule = Unwrap(ParseSolution(text, &warnings));
  Warn(warnings);
  return schedule;
}

}  // namespace

void BindProblem(py::module_& m) {
  py::class_<TensorView>(m, "Tensor", "A matrix of `height` rows and `width` columns (SPEC section 1).")
      .def_readonly("id", &TensorView::id)
      .def_property_readonly("width", [](const TensorView& t) { return t.tensor.width; })
      .def_property_readonly("height", [](const TensorView& t) { return t.tensor.height; })
      .def_property_readonly("size", [](const TensorView& t) { return t.tensor.size(); },
                             "width x height elements")
      .def_readonly("name", &TensorView::name, "the model's name ('' when the problem has none)")
      .def("__repr__", [](const TensorView& t) {
        return "Tensor(id=" + std::to_string(t.id) + ", height=" + std::to_string(t.tensor.height) +
               ", width=" + std::to_string(t.tensor.width) + (t.name.empty() ? "" : ", name='" + t.name + "'") + ")";
      });

  py::class_<OpView>(m, "Op", "One op of a problem: a MatMul (inputs LHS, RHS) or a Pointwise op.")
      .def_readonly("id", &OpView::id)
      .def_property_readonly("type", [](const OpView& o) { return std::string(OpTypeName(o.op.type)); },
                             "'MatMul' or 'Pointwise'")
      .def_property_readonly("inputs", [](const OpView& o) { return o.op.inputs; }, "input tensor ids")
      .def_property_readonly("output", [](const OpView& o) { return o.op.output; }, "output tensor id")
      .def_property_readonly("base_cost", [](const OpView& o) { return o.op.base_cost; },
                             "compute cost on one native spatial tile")
      .def_readonly("name", &OpView::name, "the model's name ('' when the problem has none)")
      .def("__repr__", [](const OpView& o) {
        return "Op(id=" + std::to_string(o.id) + ", type='" + OpTypeName(o.op.type) + "', inputs=" +
               IdList(o.op.inputs) + ", output=" + std::to_string(o.op.output) +
               (o.name.empty() ? "" : ", name='" + o.name + "'") + ")";
      });

  py::class_<Hardware>(m, "ProblemHardware",
                       "The memory and native tile a problem is scheduled for (SPEC section 1).")
      .def_readonly("fast_memory_capacity", &Hardware::fast_memory_capacity, "elements")
      .def_readonly("slow_memory_bandwidth", &Hardware::slow_memory_bandwidth,
                    "elements per time unit")
      .def_readonly("native_w", &Hardware::native_w)
      .def_readonly("native_h", &Hardware::native_h)
      .def("__repr__", [](const Hardware& h) {
        return "ProblemHardware(fast_memory_capacity=" + std::to_string(h.fast_memory_capacity) +
               ", slow_memory_bandwidth=" + py::repr(py::float_(h.slow_memory_bandwidth)).cast<std::string>() +
               ", native_w=" + std::to_string(h.native_w) + ", native_h=" + std::to_string(h.native_h) + ")";
      });

  py::class_<HardwareDescription>(
      m, "Hardware",
      "A chip in physical units (configs/hardware/*.json, docs/import.md): import_onnx() and\n"
      "Problem.retarget() turn it into a problem's capacity, bandwidth, native tile and costs.")
      .def_static("load", [](const std::filesystem::path& path) { return Unwrap(LoadHardwareDescription(path.string())); },
                  py::arg("path"), "Reads a hardware description; ValueError names a bad or unknown key.")
      .def_static("from_json", [](const std::string& text) { return Unwrap(ParseHardwareDescription(text)); },
                  py::arg("text"), "Reads a hardware description from JSON text.")
      .def_readonly("name", &HardwareDescription::name)
      .def_readonly("source", &HardwareDescription::source)
      .def_readonly("native_w", &HardwareDescription::native_w)
      .def_readonly("native_h", &HardwareDescription::native_h)
      .def_readonly("fast_memory_bytes", &HardwareDescription::fast_memory_bytes)
      .def_readonly("slow_memory_bytes_per_time", &HardwareDescription::slow_memory_bytes_per_time)
      .def_readonly("element_bytes", &HardwareDescription::element_bytes)
      .def_readonly("matmul_macs_per_time", &HardwareDescription::matmul_macs_per_time)
      .def_readonly("vector_elements_per_time", &HardwareDescription::vector_elements_per_time)
      .def_readonly("operator_costs", &HardwareDescription::operator_costs)
      .def_property_readonly("problem_hardware", &DeriveHardware,
                             "capacity and bandwidth in elements, native tile (DeriveHardware)")
      .def("__repr__", [](const HardwareDescription& h) { return "Hardware('" + h.name + "')"; });

  py::class_<PyProblem>(
      m, "Problem",
      "A scheduling problem (SPEC section 1): tensors, ops and hardware, validated once and never\n"
      "changed. Problem.load(path) reads a problem file, Problem.from_dict(d) its JSON object;\n"
      "import_onnx() makes one from a model.")
      .def_static(
          "load",
          [](const std::filesystem::path& path) {
            std::vector<std::string> warnings;
            Problem problem = Unwrap(LoadProblem(path.string(), &warnings));
            Warn(warnings);
            return PyProblem{std::make_shared<const Problem>(std::move(problem)), path.string()};
          },
          py::arg("path"),
          "Reads a problem file (the contest's format). Bad input raises ValueError naming the\n"
          "field, op or tensor; an unknown key is read past with a UserWarning naming it.")
      .def_static("from_json", &ParsedProblem, py::arg("text"), py::arg("source") = "",
                  "A problem from the text of a problem file.")
      .def_static(
          "from_dict",
          [](const py::object& d, const std::string& source) { return ParsedProblem(JsonDumps(d), source); },
          py::arg("d"), py::arg("source") = "",
          "A problem from its JSON object (the dict json.load gives for a problem file).")
      .def("to_json", [](const PyProblem& p) { return ProblemToJson(*p.problem); },
           "The problem file's text.")
      .def("to_dict", [](const PyProblem& p) { return JsonLoads(ProblemToJson(*p.problem)); },
           "The problem file's JSON object (with op_names and tensor_names when the problem has\n"
           "the model's names): Problem.from_dict(p.to_dict()) is the same problem.")
      .def(
          "save",
          [](const PyProblem& p, const std::filesystem::path& path) {
            Check(WriteFileAtomic(path.string(), ProblemToJson(*p.problem)));
          },
          py::arg("path"), "Writes the problem file (atomically).")
      .def(
          "retarget",
          [](const PyProblem& p, const HardwareDescription& hw) {
            return PyProblem{std::make_shared<const Problem>(Unwrap(Retarget(*p.problem, hw))), p.source};
          },
          py::arg("hardware"),
          "The same graph on another chip (a Hardware): capacity, bandwidth and native tile from\n"
          "it; base costs rescaled when the description says what they were computed for\n"
          "(docs/import.md, `--hardware` of the commands).")
      .def(
          "cut",
          [](const PyProblem& p, const std::vector<int>& ops) {
            return PyProblem{std::make_shared<const Problem>(Unwrap(CutOut(*p.problem, ops))), ""};
          },
          py::arg("ops"),
          "Some ops as a problem of their own (as `tilesched cut --ops`, CutOut): tensors produced\n"
          "outside become graph inputs, tensors no kept op reads graph outputs; names kept ('op N',\n"
          "'tensor N' with the original ids when the problem has none). Its optimum and bounds\n"
          "describe the part alone, not its share of the whole (docs/bounds.md \"Cut-outs\").\n"
          "ValueError names an id out of range or listed twice.")
      .def_property_readonly("ops", [](const PyProblem& p) { return Ops(*p.problem); },
                             "the ops, as a list of Op (index = op id; with the model's names)")
      .def_property_readonly("tensors", [](const PyProblem& p) { return Tensors(*p.problem); },
                             "the tensors, as a list of Tensor (index = tensor id; with the model's names)")
      .def_property_readonly("hardware", [](const PyProblem& p) { return p.problem->hardware(); },
                             "capacity, bandwidth and native tile (ProblemHardware)")
      .def_property_readonly("num_ops", [](const PyProblem& p) { return p.problem->num_ops(); })
      .def_property_readonly("num_tensors", [](const PyProblem& p) { return p.problem->num_tensors(); })
      .def_property_readonly("graph_inputs", [](const PyProblem& p) { return p.problem->graph().graph_inputs(); },
                             "tensor ids no op produces")
      .def_property_readonly("graph_outputs", [](const PyProblem& p) { return p.problem->graph().graph_outputs(); },
                             "tensor ids no op reads")
      .def_readonly("source", &PyProblem::source, "the file it was read from ('' when made in memory)")
      .def("__repr__", [](const PyProblem& p) {
        return "<tilesched.Problem" + (p.source.empty() ? std::string() : " '" + p.source + "'") + ": " +
               std::to_string(p.problem->num_ops()) + " ops, " + std::to_string(p.problem->num_tensors()) +
               " tensors>";
      });

  py::class_<Schedule>(
      m, "Schedule",
      "A solution (SPEC section 2): subgraphs in execution order, each with its ops, tile\n"
      "[w, h, k], retained tensors and traversal order. Schedule.load(path) reads a solution\n"
      "file; evaluate() judges one.")
      .def_static(
          "load",
          [](const std::filesystem::path& path) {
            std::vector<std::string> warnings;
            Schedule schedule = Unwrap(LoadSolution(path.string(), &warnings));
            Warn(warnings);
            return schedule;
          },
          py::arg("path"), "Reads a solution file; ValueError names a malformed field.")
      .def_static("from_json", &ParsedSchedule, py::arg("text"), "A schedule from a solution file's text.")
      .def_static(
          "from_dict", [](const py::object& d) { return ParsedSchedule(JsonDumps(d)); }, py::arg("d"),
          "A schedule from a solution file's JSON object.")
      .def("to_json", [](const Schedule& s) { return SolutionToJson(s, ReportedLatencies(s)); },
           "The solution file's text (the contest's format, with the subgraph latencies it reports).")
      .def("to_dict", [](const Schedule& s) { return JsonLoads(SolutionToJson(s, ReportedLatencies(s))); },
           "The solution file's JSON object: subgraphs, granularities, tensors_to_retain,\n"
           "traversal_orders, subgraph_latencies.")
      .def(
          "save",
          [](const Schedule& s, const std::filesystem::path& path) {
            Check(WriteFileAtomic(path.string(), SolutionToJson(s, ReportedLatencies(s))));
          },
          py::arg("path"), "Writes the solution file (atomically), as `tilesched schedule -o` does.")
      .def("__len__", [](const Schedule& s) { return s.subgraphs.size(); }, "the number of subgraphs")
      .def("__repr__", [](const Schedule& s) {
        return "<tilesched.Schedule: " + std::to_string(s.subgraphs.size()) + " subgraphs>";
      });

  m.def(
      "import_onnx",
      [](const std::string& path, const HardwareDescription& hardware, bool fold) {
        ImportOptions options;
        options.fold_pointwise = fold;
        ImportedModel model = Unwrap(ImportOnnxFile(path, hardware, options));
        return PyProblem{std::make_shared<const Problem>(std::move(model.problem)), path};
      },
      py::arg("path"), py::arg("hardware"), py::arg("fold") = true);
}

}  // namespace tilesched::python
