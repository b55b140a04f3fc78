// ONNX import: a model plus a hardware description becomes a tilesched Problem.
//
// Entry points: ImportOnnx(bytes, hardware, options) and ImportOnnxFile(path, ...) map every
// node by the table of docs/import.md (MatMul/Gemm, elementwise chains, Softmax and
// LayerNormalization as row-wise Pointwise ops, aliases, transposes, per-head unrolling) and
// fail with one line naming the node (name and op type) on anything outside it.
// ImportedProblemToJson writes the contest format plus `op_names` / `tensor_names` keys that
// the problem reader ignores, so reports can label ops with their model names.
#ifndef TILESCHED_IMPORT_H_
#define TILESCHED_IMPORT_H_

#include <string>
#include <vector>

#include "tilesched/hardware.h"
#include "tilesched/problem.h"
#include "tilesched/status.h"

namespace tilesched {

struct ImportOptions {
  // Fold a chain of elementwise ops (each result read by the next one only) into one
  // Pointwise op whose cost is the sum of theirs.
  bool fold_pointwise = true;
};

struct ImportedModel {
  Problem problem;
  std::vector<std::string> op_names;      // per op: the ONNX node(s) it comes from
  std::vector<std::string> op_sources;    // per op: their ONNX op types ("MatMul", "Div+Erf+Add")
  std::vector<std::string> tensor_names;  // per tensor: ONNX value name plus slice / transpose
};

Result<ImportedModel> ImportOnnx(const std::string& model_bytes, const HardwareDescription& hw,
                                 const ImportOptions& options = {});
Result<ImportedModel> ImportOnnxFile(const std::string& path, const HardwareDescription& hw,
                                     const ImportOptions& options = {});

std::string ImportedProblemToJson(const ImportedModel& model);

}  // namespace tilesched

#endif  // TILESCHED_IMPORT_H_
