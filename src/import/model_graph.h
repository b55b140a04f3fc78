// ModelGraph: the importer's intermediate form, between ONNX nodes and a tilesched Problem.
//
// Entry points: ModelGraph::AddInput / AddMatMul / AddPointwise build lazy 2-D "virtual
// tensors"; View addresses a block of one of them, possibly transposed; ModelGraph::Build
// realizes the views the graph outputs need (and only those) as tensors and ops, slicing
// and transposing through MatMuls and Pointwise ops as docs/import.md describes, and folds
// Pointwise chains. Private to src/import/.
#ifndef TILESCHED_IMPORT_MODEL_GRAPH_H_
#define TILESCHED_IMPORT_MODEL_GRAPH_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tilesched/hardware.h"
#include "tilesched/import.h"
#include "tilesched/status.h"

namespace tilesched::import_internal {

// Rows [r0, r1) and columns [c0, c1) of virtual tensor `vt`, transposed when `t`.
struct View {
  int vt = -1;
  int64_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;
  bool t = false;
  int64_t rows() const { return t ? c1 - c0 : r1 - r0; }
  int64_t cols() const { return t ? r1 - r0 : c1 - c0; }
  auto key() const { return std::make_tuple(vt, r0, r1, c0, c1, t); }
};

// Rows [rr0, rr1) and columns [cc0, cc1) of `v`, in v's own orientation.
View SubView(const View& v, int64_t rr0, int64_t rr1, int64_t cc0, int64_t cc1);
View TransposedView(View v);
// Names of folded nodes joined by '+', the module path written once per run of nodes of one
// module and a shared head suffix once: "m.h.0.mlp.act/mul_1+pow_1+tanh".
std::string JoinNames(const std::vector<std::string>& parts);

struct VTensor {
  enum class Kind { kInput, kMatMul, kPointwise };
  Kind kind = Kind::kInput;
  int64_t rows = 0, cols = 0;
  std::string name;     // ONNX value it stands for
  std::string node;     // "node 'name' (OpType)" for messages; empty for inputs
  std::string op_name;  // the node's model name (onnx_reader.h) plus a head or part index
  std::string op_type;  // ONNX op type
  View lhs, rhs;                // kMatMul
  std::vector<View> inputs;     // kPointwise
  double work = 0;              // kPointwise: work per element (docs/import.md)
  bool rowwise = false;         // kPointwise: needs whole rows (Softmax, LayerNormalization)
};

class ModelGraph {
 public:
  int AddInput(std::string name, int64_t rows, int64_t cols);
  int AddMatMul(const View& lhs, const View& rhs, std::string name, std::string op_name, std::string op_type);
  int AddPointwise(std::vector<View> inputs, double work, bool rowwise, std::string name,
                   std::string op_name, std::string op_type);
  View Full(int vt) const { return {vt, 0, vtensors_[vt].rows, 0, vtensors_[vt].cols, false}; }
  const VTensor& vtensor(int vt) const { return vtensors_[vt]; }

  // Realizes `outputs` (in order) and everything they need as a Problem on `hw`.
  Result<ImportedModel> Build(const std::vector<View>& outputs, const HardwareDescription& hw,
                              bool fold_pointwise);

 private:
  Result<int> Realize(const View& v);
  // Adds to `ids` the tensors a Pointwise op computing `v` reads, inlining the Pointwise
  // producers all of whose readers it folds (InlineSet); accumulates their work and names.
  struct Fold {
    std::set<int> inlined;  // the producers folded into the op (InlineSet)
    std::set<std::tuple<int, int64_t, int64_t, int64_t, int64_t, bool>> done;  // views already folded
  };
  Status Collect(const View& v, bool inline_here, Fold* fold, std::vector<int>* ids, double* work,
                 std::vector<std::string>* names, std::string* types);
  int NewTensor(int64_t rows, int64_t cols, std::string name);
  std::set<int> InlineSet(int top) const;

  std::vector<VTensor> vtensors_;
  // Build state.
  const HardwareDescription* hw_ = nullptr;
  bool fold_ = true;
  std::vector<int> refs_;
  std::map<std::tuple<int, int64_t, int64_t, int64_t, int64_t, bool>, int> realized_;
  std::vector<Tensor> tensors_;
  std::vector<Op> ops_;
  std::vector<std::string> op_names_, op_sources_, tensor_names_;
};

}  // namespace tilesched::import_internal

#endif  // TILESCHED_IMPORT_MODEL_GRAPH_H_
