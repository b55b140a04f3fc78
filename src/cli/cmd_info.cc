// `tilesched info`: what a problem contains and its lower bounds.
#include <iostream>

#include "args.h"
#include "bound_text.h"
#include "commands.h"
#include "tilesched/table.h"
#include "tilesched/graph.h"
#include "tilesched/hardware.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/report_json.h"

namespace tilesched::cli {

namespace {

std::string Shape(const Tensor& t) { return std::to_string(t.height) + "x" + std::to_string(t.width); }

void PrintHuman(const Problem& problem, const LowerBounds& bounds, const CostModes& modes) {
  const Hardware& hw = problem.hardware();
  std::cout << problem.num_ops() << " ops, " << problem.num_tensors() << " tensors; fast memory "
            << FormatCount(hw.fast_memory_capacity) << " elements, bandwidth "
            << FormatNumber(hw.slow_memory_bandwidth, 2) << " elements/unit, native tile "
            << hw.native_w << "x" << hw.native_h << " (w x h)\n\n";
  const bool named = !problem.names().ops.empty();
  std::vector<std::string> op_header = {"op", "type", "inputs (rows x cols)", "output", "base cost", "compute once"};
  if (named) op_header.push_back("model name");
  TextTable ops(op_header);
  for (int o = 0; o < problem.num_ops(); ++o) {
    const Op& op = problem.op(o);
    std::string in;
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      in += (i ? ", " : "") + std::string("T") + std::to_string(op.inputs[i]) + " " +
            Shape(problem.tensor(op.inputs[i]));
    }
    std::vector<std::string> row = {std::to_string(o), OpTypeName(op.type), in,
                                    "T" + std::to_string(op.output) + " " + Shape(problem.tensor(op.output)),
                                    FormatNumber(op.base_cost),
                                    FormatNumber(OpComputeOnce(problem, o, modes.matmul_reduction))};
    if (named) row.push_back(problem.op_name(o));
    ops.AddRow(std::move(row));
  }
  ops.Print(std::cout, {false, true, true, true, false, false, true});
  std::cout << "\n";
  const bool tensors_named = !problem.names().tensors.empty();
  std::vector<std::string> tensor_header = {"tensor", "rows x cols", "elements", "role", "producer", "consumers"};
  if (tensors_named) tensor_header.push_back("model name");
  TextTable tensors(tensor_header);
  for (int t = 0; t < problem.num_tensors(); ++t) {
    const std::string role = problem.is_graph_input(t)    ? "graph input"
                             : problem.is_graph_output(t) ? "graph output"
                             : problem.producer(t) >= 0   ? "intermediate"
                                                          : "unused";
    std::string consumers;
    for (int o : problem.graph().consumers(t)) consumers += (consumers.empty() ? "" : ",") + std::to_string(o);
    std::vector<std::string> row = {"T" + std::to_string(t), Shape(problem.tensor(t)),
                                    FormatCount(problem.tensor(t).size()), role,
                                    problem.producer(t) >= 0 ? std::to_string(problem.producer(t)) : "-",
                                    consumers.empty() ? "-" : consumers};
    if (tensors_named) row.push_back(problem.tensor_name(t));
    tensors.AddRow(std::move(row));
  }
  tensors.Print(std::cout, {true, true, true, true, false, false, true});
  std::cout << "\ngraph inputs:  " << IdList(problem.graph().graph_inputs())
            << "\ngraph outputs: " << IdList(problem.graph().graph_outputs()) << "\n\n"
            << BoundText(bounds, modes)
            << "(each part is a lemma of docs/bounds.md; tier 2: tilesched bound --tier2)\n";
}

}  // namespace

int RunInfo(int argc, char** argv, int first) {
  std::vector<Option> options = ModeOptions();
  options.push_back({"json", "", "print machine-readable JSON instead of tables"});
  options.push_back({"hardware", "HW.json", "replace the problem's hardware by a description (configs/hardware/, docs/import.md)"});
  Args args("info", "PROBLEM.json [options]",
            "Lists a problem's ops, tensors (shapes, roles), graph inputs and outputs, and the\n"
            "lower bound on any schedule's latency with its parts (docs/bounds.md).",
            options, 1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  auto modes = ModesFromArgs(args);
  if (!modes.ok()) return Fail("info", modes.status().message(), kExitUsage);
  std::vector<std::string> warnings;
  auto problem = LoadProblemOnHardware(args.positional()[0], args.Get("hardware"), &warnings);
  if (!problem.ok()) return Fail("info", problem.status().message(), kExitUsage);
  PrintWarnings("info", warnings);
  const LowerBounds bounds = ComputeLowerBounds(*problem, *modes);
  if (args.Has("json")) {
    std::cout << ProblemInfoToJson(*problem, bounds, *modes);
  } else {
    PrintHuman(*problem, bounds, *modes);
  }
  return kExitOk;
}

}  // namespace tilesched::cli
