// The importer's own shape rules: the output dimensions of every operator it supports, from
// its inputs' dimensions and, where a shape depends on them, the values of constant inputs.
//
// Entry point: InferOutputDims(node, inputs, opset). Used for every model, whatever its opset:
// the packaged libonnx (1.12) knows operator schemas only up to opset 17, and opset 18 moved
// inputs around (ReduceMean's axes, Split's sizes). Shapes an exporter recorded (value_info)
// are checked against these rules by the caller. Private to src/import/.
#ifndef TILESCHED_IMPORT_SHAPE_RULES_H_
#define TILESCHED_IMPORT_SHAPE_RULES_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tilesched/status.h"

namespace tilesched::import_internal {

using Dims = std::vector<int64_t>;

// One input of a node: its dimensions and, for a constant whose values are known, its values
// (row-major; integers are exact up to 2^53, larger ones saturate on conversion).
struct NodeInput {
  const Dims* dims = nullptr;  // null: an omitted optional input
  const std::vector<double>* values = nullptr;
};

const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node, const std::string& name);
int64_t IntAttribute(const onnx::NodeProto& node, const std::string& name, int64_t fallback);
double FloatAttribute(const onnx::NodeProto& node, const std::string& name, double fallback);
std::vector<int64_t> IntsAttribute(const onnx::NodeProto& node, const std::string& name);

int64_t Product(const Dims& dims);
std::string DimsString(const Dims& dims);
// NumPy broadcasting of two shapes; fails when they do not broadcast.
Result<Dims> Broadcast(const Dims& a, const Dims& b);
// Values as int64 (saturating: the INT64_MAX that exporters write as "to the end" stays large).
std::vector<int64_t> ToInts(const std::vector<double>& values);

// The elementwise operators (broadcasting, one output of the broadcast shape; Where, Clip and
// Sum take three or more inputs).
bool IsElementwise(const std::string& op);
bool IsShapeRuleKnown(const std::string& op);

// Axes of a reduction or of Squeeze / Unsqueeze: the `axes` attribute before the opset that
// made it an input (13 for ReduceSum, Squeeze, Unsqueeze; 18 for the other reductions).
Result<std::vector<int64_t>> AxesOf(const onnx::NodeProto& node, const std::vector<NodeInput>& in, int opset);
// Sizes of Split's outputs along its axis (attribute, input, or num_outputs / output count).
Result<std::vector<int64_t>> SplitSizes(const onnx::NodeProto& node, const std::vector<NodeInput>& in, int opset,
                                        int64_t extent);
// Slice's starts, ends, axes and steps, normalized: per dimension [start, end) with step 1 or
// the step given; `dims` the input's.
struct SliceSpec {
  std::vector<int64_t> start, end, step;  // per dimension of the input
};
Result<SliceSpec> SliceOf(const onnx::NodeProto& node, const std::vector<NodeInput>& in, int opset);

// Output dimensions of `node` (one entry per output).
Result<std::vector<Dims>> InferOutputDims(const onnx::NodeProto& node, const std::vector<NodeInput>& in, int opset);

}  // namespace tilesched::import_internal

#endif  // TILESCHED_IMPORT_SHAPE_RULES_H_
