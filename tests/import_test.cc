// ONNX import and hardware descriptions: every mapping rule of docs/import.md on a graph built
// here, checked op by op (types, shapes, costs by the doc's formulas); the example models of
// data/models/; the malformed and unsupported cases; Retarget; the `import` command.
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilesched/search.h"
#include "import_test_util.h"
#include "test_files.h"
#include "tilesched/evaluate.h"
#include "tilesched/hardware.h"
#include "tilesched/import.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"

namespace tilesched {
namespace {

// Builds an opset-17 ModelProto node by node; values are float, weights zero-filled.
class GraphBuilder {
 public:
  GraphBuilder() {
    model_.set_ir_version(8);
    auto* opset = model_.add_opset_import();
    opset->set_domain("");
    opset->set_version(17);
    model_.mutable_graph()->set_name("test");
  }
  void Input(const std::string& name, const std::vector<int64_t>& dims, const std::string& dynamic = "") {
    auto* in = model_.mutable_graph()->add_input();
    in->set_name(name);
    auto* type = in->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) type->mutable_shape()->add_dim()->set_dim_value(d);
    if (!dynamic.empty()) type->mutable_shape()->add_dim()->set_dim_param(dynamic);
  }
  void Weight(const std::string& name, const std::vector<int64_t>& dims, bool boolean = false) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(boolean ? onnx::TensorProto::BOOL : onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) t->add_dims(d), n *= d;
    t->set_raw_data(std::string(static_cast<size_t>(n) * (boolean ? 1 : 4), '\0'));
  }
  void Ints(const std::string& name, const std::vector<int64_t>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }
  onnx::NodeProto* Node(const std::string& op, const std::vector<std::string>& inputs, const std::string& output,
                        const std::string& name = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? output + "_node" : name);
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(output);
    return n;
  }
  static void IntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void FloatAttr(onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void Perm(onnx::NodeProto* n, const std::vector<int64_t>& perm) {
    auto* a = n->add_attribute();
    a->set_name("perm");
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t p : perm) a->add_ints(p);
  }
  // A value_info entry, as exporters write them.
  void Record(const std::string& name, const std::vector<int64_t>& dims) {
    auto* info = model_.mutable_graph()->add_value_info();
    info->set_name(name);
    auto* type = info->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) type->mutable_shape()->add_dim()->set_dim_value(d);
  }
  void Output(const std::string& name) {
    auto* out = model_.mutable_graph()->add_output();
    out->set_name(name);
    out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }
  std::string Bytes() const { return model_.SerializeAsString(); }

 private:
  onnx::ModelProto model_;
};

ImportedModel Import(const GraphBuilder& g, bool fold = true) {
  ImportOptions options;
  options.fold_pointwise = fold;
  auto model = ImportOnnx(g.Bytes(), TestHardware(), options);
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (!model.ok()) std::abort();
  return std::move(model).value();
}

std::string ImportError(const GraphBuilder& g) {
  auto model = ImportOnnx(g.Bytes(), TestHardware());
  EXPECT_FALSE(model.ok());
  if (model.ok()) return "";
  EXPECT_EQ(model.status().message().find('\n'), std::string::npos) << model.status().message();
  return model.status().message();
}

TEST(HardwareTest, FormulasOfTheDoc) {
  const HardwareDescription hw = TestHardware();
  const Hardware derived = DeriveHardware(hw);
  EXPECT_EQ(derived.fast_memory_capacity, /*8192/2=*/4096);
  EXPECT_DOUBLE_EQ(derived.slow_memory_bandwidth, /*20/2=*/10);
  EXPECT_EQ(derived.native_w, 8);
  EXPECT_DOUBLE_EQ(MatMulBaseCost(hw, 32), /*8*8*32/64=*/32);
  EXPECT_DOUBLE_EQ(PointwiseBaseCost(hw, 3), /*8*8*3/16=*/12);
  EXPECT_DOUBLE_EQ(OperatorWork(hw, "Add"), 1);
  EXPECT_DOUBLE_EQ(OperatorWork(hw, "Erf"), 8);
  // ReduceMax + Sub + Exp + ReduceSum + Div
  EXPECT_DOUBLE_EQ(OperatorWork(hw, "Softmax"), 1 + 1 + 4 + 1 + 2);
  // 2 ReduceMean + Sub + Mul + Add + Sqrt + Div + Mul + Add
  EXPECT_DOUBLE_EQ(OperatorWork(hw, "LayerNormalization"), 2 + 1 + 1 + 1 + 1 + 2 + 1 + 1);
}

TEST(HardwareTest, ParsesEveryShippedDescription) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TILESCHED_SOURCE_DIR "/configs/hardware")) {
    auto hw = LoadHardwareDescription(entry.path().string());
    EXPECT_TRUE(hw.ok()) << hw.status().message();
    if (hw.ok()) {
      EXPECT_FALSE(hw->source.empty());
    }
    ++count;
  }
  EXPECT_GE(count, 3);
}

const char* kValidHardware = R"({"name": "t", "source": "illustrative", "native_tile": [8, 8],
  "fast_memory_bytes": 8192, "slow_memory_bytes_per_time": 20, "element_bytes": 2,
  "matmul_macs_per_time": 64, "vector_elements_per_time": 16, "operator_costs": {"Exp": 4}})";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(HardwareTest, StrictKeysAndPositiveThroughputs) {
  ASSERT_TRUE(ParseHardwareDescription(kValidHardware).ok());
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {Replace(kValidHardware, "\"element_bytes\"", "\"element_byte\""), "unknown key 'element_byte'"},
      {Replace(kValidHardware, "\"matmul_macs_per_time\": 64,", ""), "matmul_macs_per_time: missing key"},
      {Replace(kValidHardware, "\"matmul_macs_per_time\": 64", "\"matmul_macs_per_time\": 0"),
       "matmul_macs_per_time: must be a positive number, got 0"},
      {Replace(kValidHardware, "\"vector_elements_per_time\": 16", "\"vector_elements_per_time\": -3"),
       "vector_elements_per_time: must be a positive number, got -3"},
      {Replace(kValidHardware, "[8, 8]", "[8]"), "native_tile: expected [w, h]"},
      {Replace(kValidHardware, "{\"Exp\": 4}", "{\"Exp\": -1}"), "operator_costs.Exp: must be a non-negative"},
      {Replace(kValidHardware, "\"source\": \"illustrative\",", ""), "source: missing key"},
      {"[1, 2]", "expected a JSON object"},
      {"{\"name\": ", "malformed JSON: parse error at line 1, column 10"},
  };
  for (const Case& c : cases) {
    auto hw = ParseHardwareDescription(c.text);
    ASSERT_FALSE(hw.ok()) << c.text;
    EXPECT_NE(hw.status().message().find(c.message), std::string::npos) << hw.status().message();
    EXPECT_EQ(hw.status().message().find('\n'), std::string::npos);
  }
}

TEST(ImportTest, MatMulWithWeight) {
  GraphBuilder g;
  g.Input("x", {16, 32});
  g.Weight("w", {32, 24});
  g.Node("MatMul", {"x", "w"}, "y");
  g.Output("y");
  const ImportedModel m = Import(g);
  ExpectOps(m, {{kMM, {"16x32", "32x24"}, "16x24", /*8*8*32/64=*/32}});
  EXPECT_EQ(m.tensor_names, (std::vector<std::string>{"x", "w", "y"}));
  EXPECT_EQ(m.problem.hardware().fast_memory_capacity, 4096);
}

TEST(ImportTest, LeadingDimensionsFoldIntoRows) {
  GraphBuilder g;
  g.Input("x", {2, 3, 16, 32});
  g.Weight("w", {32, 8});
  g.Node("MatMul", {"x", "w"}, "y");
  g.Output("y");
  ExpectOps(Import(g), {{kMM, {"96x32", "32x8"}, "96x8", 32}});
}

TEST(ImportTest, GemmTransposesAndBiasEpilogue) {
  GraphBuilder g;
  g.Input("a", {32, 16});  // transA: the product reads a^T, 16x32
  g.Weight("w", {24, 32});  // transB: PyTorch's [out, in] layout
  g.Weight("bias", {24});
  auto* n = g.Node("Gemm", {"a", "w", "bias"}, "y", "fc");
  GraphBuilder::IntAttr(n, "transA", 1);
  GraphBuilder::IntAttr(n, "transB", 1);
  GraphBuilder::FloatAttr(n, "alpha", 2);
  g.Output("y");
  const ImportedModel m = Import(g);
  // Epilogue: Add (bias) + Mul (alpha) = 2 work units: 8*8*2/16 = 8.
  ExpectOps(m, {{kMM, {"16x32", "32x24"}, "16x24", 32}, {kPW, {"16x24"}, "16x24", 8}});
  EXPECT_EQ(m.tensor_names[m.problem.op(0).inputs[0]], "a^T");
  EXPECT_EQ(m.tensor_names[m.problem.op(0).inputs[1]], "w^T");
  EXPECT_EQ(m.op_names, (std::vector<std::string>{"fc", "fc"}));
}

TEST(ImportTest, GemmWithoutBiasIsOneMatMul) {
  GraphBuilder g;
  g.Input("x", {16, 32});
  g.Weight("w", {32, 24});
  g.Node("Gemm", {"x", "w"}, "y");
  g.Output("y");
  ExpectOps(Import(g), {{kMM, {"16x32", "32x24"}, "16x24", 32}});
}

// x -> Relu -> Exp -> Add(scalar): one op of work 1 + 4 + 1, or three.
TEST(ImportTest, ElementwiseChainFoldsOrNot) {
  GraphBuilder g;
  g.Input("x", {16, 24});
  g.Weight("one", {});
  g.Node("Relu", {"x"}, "r");
  g.Node("Exp", {"r"}, "e");
  g.Node("Add", {"e", "one"}, "y");
  g.Output("y");
  ExpectOps(Import(g), {{kPW, {"16x24"}, "16x24", /*4*(1+4+1)=*/24}});
  const ImportedModel separate = Import(g, /*fold=*/false);
  ExpectOps(separate, {{kPW, {"16x24"}, "16x24", 4}, {kPW, {"16x24"}, "16x24", 16}, {kPW, {"16x24"}, "16x24", 4}});
  EXPECT_EQ(separate.op_sources, (std::vector<std::string>{"Relu", "Exp", "Add"}));
}

// Every elementwise type of the issue maps to a Pointwise op of its work.
TEST(ImportTest, ElementwiseOperators) {
  const HardwareDescription hw = TestHardware();
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Relu", "Sigmoid", "Tanh", "Erf", "Exp", "Sqrt",
                         "Neg", "Cast", "Where"}) {
    SCOPED_TRACE(op);
    GraphBuilder g;
    g.Input("x", {16, 24});
    g.Input("z", {16, 24});
    std::vector<std::string> inputs = {"x"};
    const std::string name = op;
    if (name == "Add" || name == "Sub" || name == "Mul" || name == "Div" || name == "Pow") inputs.push_back("z");
    if (name == "Where") {
      g.Weight("mask", {1, 24}, /*boolean=*/true);  // broadcast constant: folded into the cost
      inputs = {"mask", "x", "z"};
    }
    auto* n = g.Node(op, inputs, "y");
    if (name == "Cast") GraphBuilder::IntAttr(n, "to", onnx::TensorProto::FLOAT);
    g.Output("y");
    std::vector<std::string> shapes(inputs.size() - (name == "Where" ? 1 : 0), "16x24");
    ExpectOps(Import(g), {{kPW, shapes, "16x24", 4 * OperatorWork(hw, op)}});
  }
}

// PyTorch's exact GELU: x * 0.5 * (1 + erf(x / sqrt 2)) reads x twice: one op, one input.
TEST(ImportTest, GeluAsExported) {
  GraphBuilder g;
  g.Input("x", {16, 24});
  for (const char* c : {"sqrt2", "one", "half"}) g.Weight(c, {});
  g.Node("Div", {"x", "sqrt2"}, "d");
  g.Node("Erf", {"d"}, "e");
  g.Node("Add", {"e", "one"}, "a");
  g.Node("Mul", {"x", "a"}, "m");
  g.Node("Mul", {"m", "half"}, "y");
  g.Output("y");
  const ImportedModel m = Import(g);
  ExpectOps(m, {{kPW, {"16x24"}, "16x24", /*4*(2+8+1+1+1)=*/52}});
  EXPECT_EQ(m.op_sources[0], "Div+Erf+Add+Mul+Mul");
}

// SwiGLU: down(silu(x Wg) * (x Wu)); SiLU exports as Sigmoid and Mul.
TEST(ImportTest, SwigluAsExported) {
  GraphBuilder g;
  g.Input("x", {16, 32});
  g.Weight("wg", {32, 48});
  g.Weight("wu", {32, 48});
  g.Weight("wd", {48, 32});
  g.Node("MatMul", {"x", "wg"}, "gate");
  g.Node("MatMul", {"x", "wu"}, "up");
  g.Node("Sigmoid", {"gate"}, "s");
  g.Node("Mul", {"gate", "s"}, "silu");
  g.Node("Mul", {"silu", "up"}, "h");
  g.Node("MatMul", {"h", "wd"}, "y");
  g.Output("y");
  ExpectOps(Import(g), {{kMM, {"16x32", "32x48"}, "16x48", 32},
                        {kMM, {"16x32", "32x48"}, "16x48", 32},
                        {kPW, {"16x48", "16x48"}, "16x48", /*4*(1+1+1)=*/12},
                        {kMM, {"16x48", "48x32"}, "16x32", 48}});
}

TEST(ImportTest, BroadcastOperands) {
  GraphBuilder g;
  g.Input("x", {1, 16, 24});
  g.Weight("bias", {24});
  g.Node("Add", {"x", "bias"}, "y");
  g.Output("y");
  ExpectOps(Import(g), {{kPW, {"16x24"}, "16x24", 4}});

  GraphBuilder h;
  h.Input("x", {16, 24});
  h.Input("v", {1, 24});
  h.Node("Add", {"x", "v"}, "y", "add_v");
  h.Output("y");
  EXPECT_EQ(ImportError(h),
            "node 'add_v' (Add): operand 1 of shape [1,24] is broadcast to [16,24]; only constant operands may be "
            "broadcast");
}

TEST(ImportTest, SoftmaxAndLayerNormAreRowwisePointwise) {
  GraphBuilder g;
  g.Input("x", {1, 16, 24});
  g.Weight("scale", {24});
  g.Weight("shift", {24});
  auto* ln = g.Node("LayerNormalization", {"x", "scale", "shift"}, "n");
  GraphBuilder::IntAttr(ln, "axis", -1);
  g.Node("Softmax", {"n"}, "y");
  g.Output("y");
  ExpectOps(Import(g, /*fold=*/false), {{kPW, {"16x24"}, "16x24", /*4*10=*/40}, {kPW, {"16x24"}, "16x24", /*4*9=*/36}});

  GraphBuilder bad;
  bad.Input("x", {16, 24});
  GraphBuilder::IntAttr(bad.Node("Softmax", {"x"}, "y", "sm"), "axis", 0);
  bad.Output("y");
  EXPECT_EQ(ImportError(bad), "node 'sm' (Softmax): axis 0 is not the last axis");
}

TEST(ImportTest, AliasesAddNoOps) {
  GraphBuilder g;
  g.Input("x", {1, 4, 4, 24});
  g.Ints("shape", {16, 24});
  g.Ints("axes", {0});
  g.Weight("w", {24, 8});
  g.Node("Reshape", {"x", "shape"}, "r");
  g.Node("Identity", {"r"}, "i");
  g.Node("Dropout", {"i"}, "d");
  g.Node("Unsqueeze", {"d", "axes"}, "u");
  g.Node("Squeeze", {"u", "axes"}, "s");
  g.Node("Flatten", {"s"}, "f");
  g.Node("MatMul", {"f", "w"}, "y");
  g.Output("y");
  const ImportedModel m = Import(g);
  ExpectOps(m, {{kMM, {"16x24", "24x8"}, "16x8", 24}});
  EXPECT_EQ(m.tensor_names[m.problem.op(0).inputs[0]], "x");
}

TEST(ImportTest, TransposedWeightIsATransposedInput) {
  GraphBuilder g;
  g.Input("x", {16, 32});
  g.Weight("w", {24, 32});
  g.Node("Transpose", {"w"}, "wt");
  g.Node("MatMul", {"x", "wt"}, "y");
  g.Output("y");
  const ImportedModel m = Import(g);
  ExpectOps(m, {{kMM, {"16x32", "32x24"}, "16x24", 32}});
  EXPECT_EQ(m.tensor_names[m.problem.op(0).inputs[1]], "w^T");
}

// (x W1)^T y: the transposed activation is computed by the transposed product W1^T x^T.
TEST(ImportTest, TransposedActivationByTransposedProduct) {
  GraphBuilder g;
  g.Input("x", {16, 32});
  g.Input("z", {16, 8});
  g.Weight("w1", {32, 24});
  g.Node("MatMul", {"x", "w1"}, "h");
  g.Node("Relu", {"h"}, "r");
  g.Node("Transpose", {"r"}, "rt");
  g.Node("MatMul", {"rt", "z"}, "y");
  g.Output("y");
  const ImportedModel m = Import(g);
  ExpectOps(m, {{kMM, {"24x32", "32x16"}, "24x16", 32}, {kPW, {"24x16"}, "24x16", 4}, {kMM, {"24x16", "16x8"}, "24x8", 16}});
  EXPECT_EQ(m.tensor_names[m.problem.op(0).inputs[0]], "w1^T");
  EXPECT_EQ(m.tensor_names[m.problem.op(0).inputs[1]], "x^T");
}

// Multi-head attention, 4 heads of 8: per head q = x Wq[:, h], k^T = Wk[:, h]^T x^T, scores,
// softmax, context, and the output projection by row blocks of Wo, summed.
TEST(ImportTest, AttentionUnrolledPerHead) {
  GraphBuilder g;
  g.Input("x", {1, 16, 32});
  for (const char* w : {"wq", "wk", "wv", "wo"}) g.Weight(w, {32, 32});
  g.Ints("split", {1, 16, 4, 8});
  g.Ints("merge", {1, 16, 32});
  g.Weight("scale", {});
  g.Node("MatMul", {"x", "wq"}, "q");
  g.Node("MatMul", {"x", "wk"}, "k");
  g.Node("MatMul", {"x", "wv"}, "v");
  g.Node("Reshape", {"q", "split"}, "q4");
  g.Node("Reshape", {"k", "split"}, "k4");
  g.Node("Reshape", {"v", "split"}, "v4");
  GraphBuilder::Perm(g.Node("Transpose", {"q4"}, "qh"), {0, 2, 1, 3});
  GraphBuilder::Perm(g.Node("Transpose", {"k4"}, "kt"), {0, 2, 3, 1});
  GraphBuilder::Perm(g.Node("Transpose", {"v4"}, "vh"), {0, 2, 1, 3});
  g.Node("MatMul", {"qh", "kt"}, "s");
  g.Node("Div", {"s", "scale"}, "sd");
  GraphBuilder::IntAttr(g.Node("Softmax", {"sd"}, "p"), "axis", -1);
  g.Node("MatMul", {"p", "vh"}, "c");
  GraphBuilder::Perm(g.Node("Transpose", {"c"}, "ct"), {0, 2, 1, 3});
  g.Node("Reshape", {"ct", "merge"}, "cm");
  g.Node("MatMul", {"cm", "wo"}, "y");
  g.Output("y");
  const ImportedModel m = Import(g);
  const Problem& p = m.problem;
  std::vector<Expected> expected;
  for (int h = 0; h < 4; ++h) {
    expected.push_back({kMM, {"16x32", "32x8"}, "16x8", 32});       // q_h
    expected.push_back({kMM, {"8x32", "32x16"}, "8x16", 32});       // k_h^T = Wk_h^T x^T
    expected.push_back({kMM, {"16x8", "8x16"}, "16x16", 8});        // scores
    expected.push_back({kPW, {"16x16"}, "16x16", /*4*(2+9)=*/44});  // Div + Softmax
    expected.push_back({kMM, {"16x32", "32x8"}, "16x8", 32});       // v_h
    expected.push_back({kMM, {"16x16", "16x8"}, "16x8", 16});       // context
    expected.push_back({kMM, {"16x8", "8x32"}, "16x32", 8});        // context_h Wo[h rows]
  }
  expected.push_back({kPW, {"16x32", "16x32", "16x32", "16x32"}, "16x32", /*4*3=*/12});  // sum of heads
  ExpectOps(m, expected);
  EXPECT_EQ(m.tensor_names[p.op(0).inputs[1]], "wq[0:32,0:8]");
  EXPECT_EQ(m.tensor_names[p.op(7).inputs[1]], "wq[0:32,8:16]");
  EXPECT_EQ(m.tensor_names[p.op(1).inputs[0]], "wk[0:32,0:8]^T");
  EXPECT_EQ(m.tensor_names[p.op(6).inputs[1]], "wo[0:8,0:32]");
  EXPECT_EQ(m.tensor_names[p.op(1).inputs[1]], "x^T");
  EXPECT_EQ(p.op(1).inputs[1], p.op(8).inputs[1]) << "x^T is one graph input shared by the heads";
}

TEST(ImportTest, RowwiseOpSplitAcrossItsAxisIsRefused) {
  GraphBuilder g;
  g.Input("x", {16, 32});
  g.Weight("w", {4, 8, 8});  // one 8x8 weight per head: a batched MatMul
  g.Ints("split", {1, 16, 4, 8});
  GraphBuilder::IntAttr(g.Node("Softmax", {"x"}, "p", "sm"), "axis", -1);
  g.Node("Reshape", {"p", "split"}, "p4");
  GraphBuilder::Perm(g.Node("Transpose", {"p4"}, "ph"), {0, 2, 1, 3});
  g.Node("MatMul", {"ph", "w"}, "y");
  g.Output("y");
  const std::string error = ImportError(g);
  EXPECT_EQ(error.rfind("node 'sm' (Softmax): its output 'p' would be split across the axis it normalizes", 0), 0u)
      << error;
}

TEST(ImportTest, UnknownOpNamesTheNode) {
  GraphBuilder g;
  g.Input("x", {1, 3, 8, 8});
  g.Node("LpNormalization", {"x"}, "y", "lpnorm");
  g.Output("y");
  EXPECT_EQ(ImportError(g), "node 'lpnorm' (LpNormalization): operator not supported by the importer (docs/import.md "
                            "lists the supported ones)");
}

TEST(ImportTest, CustomDomainAndShapeMismatchNameTheNode) {
  GraphBuilder g;
  g.Input("x", {16, 32});
  g.Node("FusedThing", {"x"}, "y", "fused")->set_domain("com.example");
  g.Output("y");
  EXPECT_EQ(ImportError(g), "node 'fused' (FusedThing): operator domain 'com.example' is not supported");

  GraphBuilder m;
  m.Input("x", {16, 32});
  m.Weight("w", {24, 8});
  m.Node("MatMul", {"x", "w"}, "y", "mm");
  m.Output("y");
  // The importer's own shape rules name the mismatch (libonnx's inference is not used).
  EXPECT_EQ(ImportError(m), "node 'mm' (MatMul): operand shapes [16,32] and [24,8] do not multiply");

  GraphBuilder e;
  e.Input("x", {16, 32});
  e.Weight("w", {32, 0});
  e.Node("MatMul", {"x", "w"}, "y", "mm");
  e.Output("y");
  EXPECT_EQ(ImportError(e), "tensor 'w' has an empty or negative dimension");
}

// A reduction of an activation along another axis than the last is refused; a shape the
// exporter recorded that differs from the importer's rules is an error naming the node.
TEST(ImportTest, ReductionAxisAndRecordedShapeChecked) {
  GraphBuilder g;
  g.Input("x", {1, 16, 32});
  auto* reduce = g.Node("ReduceMean", {"x"}, "y", "r");
  auto* axes = reduce->add_attribute();
  axes->set_name("axes");
  axes->set_type(onnx::AttributeProto::INTS);
  axes->add_ints(1);
  g.Node("Relu", {"y"}, "z", "relu");
  g.Output("z");
  EXPECT_EQ(ImportError(g), "node 'r' (ReduceMean): a reduction over axes [1] of an activation of shape [1,16,32]; "
                            "only the last axis (a row statistic) is supported");

  GraphBuilder m;
  m.Input("x", {16, 32});
  m.Input("b", {16, 32});
  m.Node("Add", {"x", "b"}, "y", "n");
  m.Output("y");
  m.Record("y", {16, 16});
  EXPECT_EQ(ImportError(m), "node 'n' (Add): output 'y' has shape [16,32] by the importer's shape rules, but the "
                            "model records [16,16]");
}

TEST(ImportTest, DynamicShapeNamesTheInput) {
  GraphBuilder g;
  g.Input("x", {16}, "batch");
  g.Weight("w", {16, 8});
  g.Node("MatMul", {"x", "w"}, "y");
  g.Output("y");
  EXPECT_EQ(ImportError(g), "graph input: tensor 'x' has a dynamic dimension 1 ('batch')");
}

TEST(ImportTest, TruncatedAndNonOnnxFiles) {
  GraphBuilder g;
  g.Input("x", {16, 32});
  g.Weight("w", {32, 24});
  g.Node("MatMul", {"x", "w"}, "y");
  g.Output("y");
  const std::string bytes = g.Bytes();
  for (const std::string& text : {bytes.substr(0, bytes.size() / 2), std::string("{\"widths\": [1]}\n"),
                                  std::string("hello, world\n"), std::string()}) {
    auto m = ImportOnnx(text, TestHardware());
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().message().rfind("model: ", 0), 0u) << m.status().message();
    EXPECT_EQ(m.status().message().find('\n'), std::string::npos);
  }
}

TEST(ImportTest, ImportIsDeterministic) {
  auto hw = LoadHardwareDescription(TILESCHED_SOURCE_DIR "/configs/hardware/contest_like.json");
  ASSERT_TRUE(hw.ok()) << hw.status().message();
  auto a = ImportOnnxFile(TILESCHED_SOURCE_DIR "/data/models/gpt_block.onnx", *hw);
  auto b = ImportOnnxFile(TILESCHED_SOURCE_DIR "/data/models/gpt_block.onnx", *hw);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(ImportedProblemToJson(*a), ImportedProblemToJson(*b));
}

// The example models import, schedule and evaluate; the problem file reads back the same.
TEST(ImportTest, ExampleModelsScheduleAndEvaluate) {
  auto hw = LoadHardwareDescription(TILESCHED_SOURCE_DIR "/configs/hardware/contest_like.json");
  ASSERT_TRUE(hw.ok()) << hw.status().message();
  for (const char* name : {"mlp", "swiglu_mlp", "gpt_block"}) {
    SCOPED_TRACE(name);
    auto m = ImportOnnxFile(std::string(TILESCHED_SOURCE_DIR "/data/models/") + name + ".onnx", *hw);
    ASSERT_TRUE(m.ok()) << m.status().message();
    auto reread = ParseProblem(ImportedProblemToJson(*m));
    ASSERT_TRUE(reread.ok()) << reread.status().message();
    EXPECT_EQ(ProblemToJson(*reread), ProblemToJson(m->problem));
    EXPECT_EQ(m->op_names.size(), static_cast<size_t>(m->problem.num_ops()));
    search::SearchOptions options;
    options.iterations = 30;
    auto result = search::RunSearch(m->problem, options);
    ASSERT_TRUE(result.ok()) << result.status().message();
    auto evaluation = Evaluate(m->problem, result->schedule, options.modes);
    ASSERT_TRUE(evaluation.ok()) << evaluation.status().message();
    EXPECT_GE(evaluation->total, ComputeLowerBounds(m->problem, options.modes).best() * (1 - 1e-9));
  }
}

TEST(RetargetTest, ReplacesHardwareAndRescalesWhenTold) {
  auto problem = LoadProblem(TILESCHED_SOURCE_DIR "/data/benchmarks/mlsys-2026-1.json");
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  HardwareDescription hw = TestHardware();
  auto kept = Retarget(*problem, hw);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(kept->hardware().fast_memory_capacity, 4096);
  EXPECT_DOUBLE_EQ(kept->hardware().slow_memory_bandwidth, 10);
  EXPECT_EQ(kept->hardware().native_w, 8);
  for (int o = 0; o < problem->num_ops(); ++o) EXPECT_EQ(kept->op(o).base_cost, problem->op(o).base_cost);

  hw.rescale_from = ThroughputReference{/*matmul=*/128, /*vector=*/64};
  auto scaled = Retarget(*problem, hw);
  ASSERT_TRUE(scaled.ok()) << scaled.status().message();
  const double area = 8.0 * 8.0 / static_cast<double>(problem->hardware().native_w * problem->hardware().native_h);
  for (int o = 0; o < problem->num_ops(); ++o) {
    const double factor = problem->op(o).type == OpType::kMatMul ? /*128/64=*/2.0 : /*64/16=*/4.0;
    EXPECT_DOUBLE_EQ(scaled->op(o).base_cost, problem->op(o).base_cost * area * factor);
  }
}

TEST(ImportCommandTest, WritesOrFailsWithoutOutput) {
  testing::ScratchDir dir("import_cmd");
  const std::string bin = TILESCHED_BINARY;
  const std::string hw = TILESCHED_SOURCE_DIR "/configs/hardware/contest_like.json";
  const std::string model = TILESCHED_SOURCE_DIR "/data/models/mlp.onnx";
  const std::string out = dir.File("p.json");
  auto ok = testing::RunTool({bin, "import", model, "--hardware", hw, "-o", out}, dir.path());
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(LoadProblem(out).ok());

  GraphBuilder g;
  g.Input("x", {8, 8});
  g.Node("LpNormalization", {"x"}, "y", "c");
  g.Output("y");
  testing::Spit(dir.File("bad.onnx"), g.Bytes());
  const std::string bad_out = dir.File("bad.json");
  auto bad = testing::RunTool({bin, "import", dir.File("bad.onnx"), "--hardware", hw, "-o", bad_out}, dir.path());
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(testing::CountOf(bad.err, "\n"), 1) << bad.err;
  EXPECT_NE(bad.err.find("node 'c' (LpNormalization)"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(bad_out));

  auto no_hw = testing::RunTool({bin, "import", model, "-o", bad_out}, dir.path());
  EXPECT_EQ(no_hw.code, 2);
  EXPECT_FALSE(std::filesystem::exists(bad_out));

  auto retarget = testing::RunTool({bin, "info", out, "--hardware", TILESCHED_SOURCE_DIR "/configs/hardware/edge_npu.json"},
                                   dir.path());
  EXPECT_EQ(retarget.code, 0) << retarget.err;
  EXPECT_NE(retarget.out.find("native tile 64x64"), std::string::npos) << retarget.out;
}

// Importing with A and retargeting to B (rescale_from = A's throughputs) equals importing with B.
TEST(RetargetTest, RetargetedImportEqualsDirectImport) {
  auto a = LoadHardwareDescription(TILESCHED_SOURCE_DIR "/configs/hardware/contest_like.json");
  auto b = LoadHardwareDescription(TILESCHED_SOURCE_DIR "/configs/hardware/big_accelerator.json");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(b->rescale_from.has_value());
  ASSERT_EQ(b->rescale_from->matmul_macs_per_time, a->matmul_macs_per_time);
  ASSERT_EQ(b->rescale_from->vector_elements_per_time, a->vector_elements_per_time);
  ASSERT_EQ(b->operator_costs, a->operator_costs);
  auto via_a = ImportOnnxFile(TILESCHED_SOURCE_DIR "/data/models/gpt_block.onnx", *a);
  auto direct = ImportOnnxFile(TILESCHED_SOURCE_DIR "/data/models/gpt_block.onnx", *b);
  ASSERT_TRUE(via_a.ok() && direct.ok());
  auto moved = Retarget(via_a->problem, *b);
  ASSERT_TRUE(moved.ok()) << moved.status().message();
  ASSERT_EQ(moved->num_ops(), direct->problem.num_ops());
  for (int o = 0; o < moved->num_ops(); ++o) EXPECT_DOUBLE_EQ(moved->op(o).base_cost, direct->problem.op(o).base_cost);
  EXPECT_EQ(moved->hardware().fast_memory_capacity, direct->problem.hardware().fast_memory_capacity);
}

TEST(RetargetTest, ScaleBaseCostsByOpType) {
  auto problem = LoadProblem(TILESCHED_SOURCE_DIR "/data/benchmarks/mlsys-2026-1.json");
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  auto scaled = ScaleBaseCosts(*problem, /*matmul_factor=*/0.5, /*pointwise_factor=*/3);
  ASSERT_TRUE(scaled.ok()) << scaled.status().message();
  for (int o = 0; o < problem->num_ops(); ++o) {
    const double factor = problem->op(o).type == OpType::kMatMul ? 0.5 : 3;
    EXPECT_DOUBLE_EQ(scaled->op(o).base_cost, problem->op(o).base_cost * factor);
  }
  EXPECT_EQ(scaled->hardware().fast_memory_capacity, problem->hardware().fast_memory_capacity);
}

// A throughput sweep point is the problem with base costs scaled by the description's
// throughput over the point's: its lower bound column says so.
TEST(ImportCommandTest, SweepVariesThroughput) {
  testing::ScratchDir dir("import_sweep");
  const std::string bin = TILESCHED_BINARY;
  const std::string hw_path = TILESCHED_SOURCE_DIR "/configs/hardware/contest_like.json";
  const std::string problem_path = dir.File("mlp.json");
  auto hw = LoadHardwareDescription(hw_path);
  ASSERT_TRUE(hw.ok()) << hw.status().message();
  auto model = ImportOnnxFile(TILESCHED_SOURCE_DIR "/data/models/mlp.onnx", *hw);
  ASSERT_TRUE(model.ok()) << model.status().message();
  testing::Spit(problem_path, ImportedProblemToJson(*model));
  const std::string csv = dir.File("sweep.csv");
  auto run = testing::RunTool({bin, "sweep", problem_path, "--hardware", hw_path, "--matmul-throughput", "1024,4096",
                               "--vector-throughput", "32", "--iterations", "20", "--quiet", "-o", csv},
                              dir.path());
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string text = testing::Slurp(csv);
  for (double matmul : {1024.0, 4096.0}) {
    auto scaled = ScaleBaseCosts(model->problem, hw->matmul_macs_per_time / matmul, hw->vector_elements_per_time / 32);
    ASSERT_TRUE(scaled.ok());
    const double bound = ComputeLowerBounds(*scaled, {}).best();
    char expected[64];
    std::snprintf(expected, sizeof(expected), ",%g,32,", matmul);
    EXPECT_NE(text.find(expected), std::string::npos) << text;
    std::snprintf(expected, sizeof(expected), ",%.10g,", bound);
    EXPECT_NE(text.find(expected), std::string::npos) << "lower bound " << bound << " in\n" << text;
  }
  auto refused = testing::RunTool({bin, "sweep", problem_path, "--matmul-throughput", "1024", "-o", dir.File("x.csv")},
                                  dir.path());
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("need --hardware"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace tilesched
