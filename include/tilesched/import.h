// ONNX import: a model plus a hardware description becomes a tilesched Problem.
//
// Entry points: ImportOnnx(bytes, hardware, options) and ImportOnnxFile(path, ...) map every
// node by the table of docs/import.md (MatMul/Gemm, elementwise chains, row-wise ops and row
// statistics, views, embeddings, patch embeddings, constant folding, per-head unrolling) and
// fail with one line naming the node (name and op type) on anything outside it. Any opset from
// 7 to 21 (the importer's own shape rules); initializer data is never needed, so a model with
// external data imports from its .onnx file alone. The problem carries the model's names
// (Problem::names()); ImportedProblemToJson writes them (`op_names`, `tensor_names`) and the
// ONNX op types of each op (`op_sources`). FormatImportSummary is what `import` prints: per
// ONNX op type, how its nodes were mapped, and the ops per layer.
#ifndef TILESCHED_IMPORT_H_
#define TILESCHED_IMPORT_H_

#include <map>
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

// How the nodes of a model were mapped (the summary `tilesched import` prints).
struct ImportSummary {
  struct OpTypeCounts {
    int nodes = 0;
    int matmul = 0;     // mapped to MatMul ops (MatMul, Gemm, a patch-embedding Conv)
    int pointwise = 0;  // mapped to (or folded into) Pointwise ops, row statistics included
    int constant = 0;   // folded: computed from constants and static shapes
    int view = 0;       // aliases and views: no op (Reshape, Transpose, Slice, Split, Concat, ...)
    int input = 0;      // embedding lookups, which become graph inputs
    int index = 0;      // integer plumbing on integer model inputs (ids, positions): not scheduled
  };
  std::map<std::string, OpTypeCounts> by_op_type;
};

struct ImportedModel {
  Problem problem;  // with the model's names (Problem::names())
  std::vector<std::string> op_names;      // per op: the ONNX node(s) it comes from
  std::vector<std::string> op_sources;    // per op: their ONNX op types ("MatMul", "Div+Erf+Add")
  std::vector<std::string> tensor_names;  // per tensor: ONNX value name plus slice / transpose
  ImportSummary summary;
};

Result<ImportedModel> ImportOnnx(const std::string& model_bytes, const HardwareDescription& hw,
                                 const ImportOptions& options = {});
Result<ImportedModel> ImportOnnxFile(const std::string& path, const HardwareDescription& hw,
                                     const ImportOptions& options = {});

std::string ImportedProblemToJson(const ImportedModel& model);

// Text: one row per ONNX op type (nodes; mapped to MatMul, Pointwise; folded constants, views,
// embedding inputs, index plumbing), then the problem's ops per layer (the first part of each
// op's model name ending in a layer number: "m.h.0", "/encoder/layer.1").
std::string FormatImportSummary(const ImportedModel& model);
// The layer an op name belongs to ("m.h.0" of "m.h.0.attn/matmul[2]"), or "" outside layers.
std::string LayerOf(const std::string& op_name);

}  // namespace tilesched

#endif  // TILESCHED_IMPORT_H_
