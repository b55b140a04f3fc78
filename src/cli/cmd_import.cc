// `tilesched import`: an ONNX model and a hardware description become a problem file.
#include <iostream>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "tilesched/file_util.h"
#include "tilesched/import.h"

namespace tilesched::cli {

int RunImport(int argc, char** argv, int first) {
  Args args("import", "MODEL.onnx --hardware HW.json -o PROBLEM.json [options]",
            "Maps an ONNX model onto a tilesched problem (MatMul and Pointwise ops over 2-D\n"
            "tensors) with base costs, capacity and bandwidth from a hardware description\n"
            "(configs/hardware/*.json). The mapping table and cost formulas: docs/import.md.\n"
            "Model names go under the keys op_names, op_sources and tensor_names. Prints how\n"
            "the nodes of each ONNX op type were mapped and the ops per layer.",
            {{"hardware", "HW.json", "hardware description (required)"},
             {"output", "PROBLEM.json", "output problem file (required; written atomically)", "-o"},
             {"no-fold", "", "keep every elementwise op separate (default: fold chains into one)"}},
            1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  if (!args.Has("hardware")) return Fail("import", "--hardware HW.json is required", kExitUsage);
  if (!args.Has("output")) return Fail("import", "-o PROBLEM.json is required", kExitUsage);
  if (Status s = CheckOutputOptions(args, {"output"}); !s.ok()) return Fail("import", s.message(), kExitUsage);
  auto hw = LoadHardwareDescription(args.Get("hardware"));
  if (!hw.ok()) return Fail("import", hw.status().message(), kExitUsage);
  ImportOptions options;
  options.fold_pointwise = !args.Has("no-fold");
  auto model = ImportOnnxFile(args.positional()[0], *hw, options);
  if (!model.ok()) return Fail("import", model.status().message(), kExitUsage);
  if (Status s = WriteFileAtomic(args.Get("output"), ImportedProblemToJson(*model)); !s.ok()) {
    return Fail("import", s.message(), kExitUsage);
  }
  std::cout << FormatImportSummary(*model);
  std::cerr << "tilesched import: " << model->problem.num_ops() << " ops, " << model->problem.num_tensors()
            << " tensors -> " << args.Get("output") << "\n";
  return kExitOk;
}

}  // namespace tilesched::cli
