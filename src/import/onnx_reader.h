// Reading an ONNX file for its graph only: initializer payloads are not kept.
//
// Entry points: ReadOnnxModel(path) maps the file and parses every field of the ModelProto
// except the data of large initializers (raw_data and the typed data fields above
// kKeptPayloadBytes), which the importer never needs: it maps shapes, and computes values only
// of small constants (shape arithmetic). A GPT-2 small export (500 MB) parses in well under a
// second and holds only its graph. Initializers stored as ONNX external data import from the
// .onnx file alone: their side files are never opened. ParseOnnxModel does the same on bytes
// in memory. ModelNodeName(node) is the node's name in the model's terms (its module path and
// operation from the exporter's metadata, else the ONNX node name). Private to src/import/.
#ifndef TILESCHED_IMPORT_ONNX_READER_H_
#define TILESCHED_IMPORT_ONNX_READER_H_

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <string>

#include "tilesched/status.h"

namespace tilesched::import_internal {

// Initializer payloads up to this size are kept (shape constants, position ids, small tables).
constexpr size_t kKeptPayloadBytes = size_t{1} << 16;

Result<onnx::ModelProto> ParseOnnxModel(const char* data, size_t size);
Result<onnx::ModelProto> ReadOnnxModel(const std::string& path);

// True when the tensor carries no element data in the file (dropped by the reader as too large,
// or stored as external data).
bool TensorDataAbsent(const onnx::TensorProto& tensor);

// "m.h.0.attn/matmul" from torch.onnx's `pkg.torch.onnx.name_scopes` metadata (the module path
// and the FX node name; NodeProto field 9, unknown to ONNX 1.12 and kept by protobuf as an
// unknown field); otherwise the node's name (the TorchScript exporter already writes
// "/encoder/layer.0/attention/self/MatMul"); otherwise "#index".
std::string ModelNodeName(const onnx::NodeProto& node, int index);

}  // namespace tilesched::import_internal

#endif  // TILESCHED_IMPORT_ONNX_READER_H_
