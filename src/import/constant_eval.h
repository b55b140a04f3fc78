// Constant folding: the values of ONNX nodes whose inputs are all constants (initializers,
// Constant nodes, shapes of static tensors and what is computed from them).
//
// Entry points: TensorValues(tensor) decodes an initializer's data (when the file holds it);
// EvalConstantNode(node, inputs, out_dims, opset) computes a node's output values. Values are
// computed only for small results (kMaxFoldedElements): the importer needs actual values only
// where a shape depends on them (Reshape targets, Slice bounds, Split sizes, axes); a larger
// constant (a causal mask, a rotary table) is tracked by its shape alone and folded into the
// cost of the op that reads it. Private to src/import/.
#ifndef TILESCHED_IMPORT_CONSTANT_EVAL_H_
#define TILESCHED_IMPORT_CONSTANT_EVAL_H_

#include <onnx/onnx_pb.h>

#include <memory>
#include <optional>
#include <vector>

#include "shape_rules.h"
#include "tilesched/status.h"

namespace tilesched::import_internal {

constexpr int64_t kMaxFoldedElements = int64_t{1} << 16;

using ValuesPtr = std::shared_ptr<const std::vector<double>>;

struct ConstInput {
  const Dims* dims = nullptr;  // null: an omitted optional input
  ValuesPtr values;            // null: not known
  int dtype = onnx::TensorProto::FLOAT;
};

// Element type of each output of a node whose inputs are constants.
int ConstantOutputType(const onnx::NodeProto& node, const std::vector<ConstInput>& in, size_t output);

// The initializer's values, or null when its data is not in the file or it is too large.
ValuesPtr TensorValues(const onnx::TensorProto& tensor);

// Values of every output of `node` (null entries where not computed: too large, an input's
// values unknown, or an operator folded by shape only).
std::vector<ValuesPtr> EvalConstantNode(const onnx::NodeProto& node, const std::vector<ConstInput>& in,
                                        const std::vector<Dims>& out_dims, int opset);

}  // namespace tilesched::import_internal

#endif  // TILESCHED_IMPORT_CONSTANT_EVAL_H_
