// The importer's mapping rules for real exports, one graph each from data/models/rules/ (written
// by scripts/make_models.py in the shapes torch.onnx writes, opsets 17 and 18), checked op by op
// against the formulas of docs/import.md on the test hardware (MatMul cost = K, Pointwise cost
// = 4 x work; Exp 4, Erf 8, Div 2, every other operator 1); and each refusal through the
// `import` command: one line naming the node and its op type, exit status 2, no output file.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "import_test_util.h"
#include "test_files.h"
#include "tilesched/import.h"

namespace tilesched {
namespace {

ImportedModel ImportRule(const std::string& name) {
  auto m = ImportOnnxFile(TILESCHED_SOURCE_DIR "/data/models/rules/" + name + ".onnx", TestHardware());
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) std::abort();
  return std::move(m).value();
}

std::string InputName(const ImportedModel& m, int op, int input) {
  return m.problem.tensor_name(m.problem.op(op).inputs[static_cast<size_t>(input)]);
}

// Shape arithmetic (Shape, Slice, Concat into Reshape targets) and a mask computed from Range,
// Less, Not, Cast, CumSum, ConstantOfShape, Expand, Equal, Where, Abs and Log are folded: the
// model is one MatMul and the masked Add, the mask folded into the Add's cost.
TEST(ImportRulesTest, ConstantFolding) {
  const ImportedModel m = ImportRule("constant_folding");
  ExpectOps(m, {{kMM, {"16x32", "32x8"}, "16x8", 32}, {kPW, {"16x8"}, "16x8", /*4*Add=*/4}});
  const auto& c = m.summary.by_op_type;
  EXPECT_EQ(c.at("Range").constant, 2);
  EXPECT_EQ(c.at("CumSum").constant, 1);
  EXPECT_EQ(c.at("ConstantOfShape").constant, 1);
  EXPECT_EQ(c.at("Shape").constant, 1);
  EXPECT_EQ(c.at("Reshape").view, 2);
}

// Embedding lookups are graph inputs named after their tables; their sum is a Pointwise op.
TEST(ImportRulesTest, EmbeddingSum) {
  const ImportedModel m = ImportRule("embedding_sum");
  ExpectOps(m, {{kPW, {"16x32", "16x32"}, "16x32", /*4*Add=*/4}, {kMM, {"16x32", "32x8"}, "16x8", 32}});
  EXPECT_EQ(InputName(m, 0, 0), "wte[ids]");
  EXPECT_EQ(InputName(m, 0, 1), "wpe[positions]");
  EXPECT_EQ(m.summary.by_op_type.at("Gather").input, 2);
}

// Split (opset 18, num_outputs) of a fused projection: three column views, each realized as the
// product with its third of the weight.
TEST(ImportRulesTest, SplitIsAView) {
  const ImportedModel m = ImportRule("split_qkv");
  ExpectOps(m, {{kMM, {"16x32", "32x32"}, "16x32", 32},
                {kMM, {"16x32", "32x32"}, "16x32", 32},
                {kMM, {"16x32", "32x32"}, "16x32", 32},
                {kPW, {"16x32", "16x32", "16x32"}, "16x32", /*4*(Mul+Add)=*/8}});
  EXPECT_EQ(InputName(m, 1, 1), "c_attn[0:32,32:64]");
  EXPECT_EQ(m.summary.by_op_type.at("Split").view, 1);
}

// Gather with a constant index out of a stacked projection is a view.
TEST(ImportRulesTest, GatherWithConstantIndexIsAView) {
  const ImportedModel m = ImportRule("gather_stacked");
  ExpectOps(m, {{kMM, {"16x32", "32x32"}, "16x32", 32},
                {kMM, {"16x32", "32x32"}, "16x32", 32},
                {kPW, {"16x32", "16x32"}, "16x32", 4}});
  EXPECT_EQ(InputName(m, 0, 1), "in_proj[0:32,0:32]");
  EXPECT_EQ(InputName(m, 1, 1), "in_proj[0:32,32:64]");
}

// Rotary embedding: Slice halves and Concat are views, so each head's q is computed by halves;
// rotate_half's Neg folds into q*cos + rot*sin: Neg + Mul + Add = 3 units, 12.
TEST(ImportRulesTest, RotaryEmbedding) {
  const ImportedModel m = ImportRule("rotary");
  std::vector<Expected> expected;
  for (int head = 0; head < 2; ++head) {
    expected.push_back({kMM, {"16x32", "32x8"}, "16x8", 32});           // q, first half
    expected.push_back({kPW, {"16x8"}, "16x8", /*4*Mul=*/4});            // q*cos, first half
    expected.push_back({kMM, {"16x32", "32x8"}, "16x8", 32});           // q, second half
    expected.push_back({kPW, {"16x8", "16x8"}, "16x8", /*4*(Neg+Mul+Add)=*/12});
    expected.push_back({kPW, {"16x8"}, "16x8", 4});                     // q*cos, second half
    expected.push_back({kPW, {"16x8", "16x8"}, "16x8", /*4*(Mul+Add)=*/8});
  }
  ExpectOps(m, expected);
  EXPECT_EQ(m.summary.by_op_type.at("Slice").view, 2);
  EXPECT_EQ(m.summary.by_op_type.at("Concat").view, 1);
  EXPECT_EQ(m.problem.op_name(3), "neg+rot_sin+rotary[0]");
}

// Expand that repeats 2 kv heads for 4 query heads reads the same key tensor for both heads of
// a group: 4 q products, 2 k^T products, 4 score products.
TEST(ImportRulesTest, ExpandRepeatsKvHeads) {
  const ImportedModel m = ImportRule("gqa_expand");
  const Problem& p = m.problem;
  int matmuls = 0, k_products = 0;
  for (int o = 0; o < p.num_ops(); ++o) {
    matmuls += p.op(o).type == kMM;
    k_products += m.op_names[static_cast<size_t>(o)].rfind("k_proj", 0) == 0;
  }
  EXPECT_EQ(matmuls, 10);
  EXPECT_EQ(k_products, 2);
  std::vector<int> scores;
  for (int o = 0; o < p.num_ops(); ++o) {
    if (m.op_names[static_cast<size_t>(o)].rfind("scores", 0) == 0) scores.push_back(o);
  }
  ASSERT_EQ(scores.size(), 4u);
  EXPECT_EQ(p.op(scores[0]).inputs[1], p.op(scores[1]).inputs[1]) << "heads 0 and 1 share kv head 0";
  EXPECT_EQ(p.op(scores[2]).inputs[1], p.op(scores[3]).inputs[1]) << "heads 2 and 3 share kv head 1";
  EXPECT_NE(p.op(scores[0]).inputs[1], p.op(scores[2]).inputs[1]);
}

// RMSNorm at opset 18 (ReduceMean's axes an input): one row-wise op reading x, work
// Pow + ReduceMean + Add + Sqrt + Reciprocal + Mul + Mul = 7 units.
TEST(ImportRulesTest, RmsNormIsOneRowwiseOp) {
  const ImportedModel m = ImportRule("rmsnorm");
  ExpectOps(m, {{kPW, {"16x32"}, "16x32", /*4*7=*/28}, {kMM, {"16x32", "32x8"}, "16x8", 32}});
  EXPECT_EQ(InputName(m, 0, 0), "x");
  EXPECT_EQ(m.problem.op_name(0), "pow+mean+add_eps+sqrt+rsqrt+normalize+scale");
}

// A LayerNorm written out: the centred input feeds both the variance and the normalization, and
// is folded too: ReduceMean + Sub + Pow + ReduceMean + Add + Sqrt + Div(2) + Mul + Add = 10.
TEST(ImportRulesTest, DecomposedLayerNormIsOneRowwiseOp) {
  const ImportedModel m = ImportRule("layernorm_decomposed");
  ExpectOps(m, {{kPW, {"16x32"}, "16x32", /*4*10=*/40}});
}

// GPT-2's tanh GELU: Mul, Pow, Mul, Add, Mul, Tanh, Add, Mul = 8 units in one op.
TEST(ImportRulesTest, TanhGelu) {
  const ImportedModel m = ImportRule("gelu_tanh");
  ExpectOps(m, {{kMM, {"16x32", "32x64"}, "16x64", 32},
                {kPW, {"16x64"}, "16x64", /*4*8=*/32},
                {kMM, {"16x64", "64x32"}, "16x32", 64}});
}

// Scale, broadcast causal mask and Softmax per head: Mul + Add + Softmax (1+1+4+1+2) = 11.
TEST(ImportRulesTest, MaskedSoftmax) {
  const ImportedModel m = ImportRule("masked_softmax");
  ExpectOps(m, {{kMM, {"16x8", "8x16"}, "16x16", 8},
                {kPW, {"16x16"}, "16x16", /*4*11=*/44},
                {kMM, {"16x8", "8x16"}, "16x16", 8},
                {kPW, {"16x16"}, "16x16", 44}});
}

// A patch embedding (kernel = stride = 8, 3 channels) is the patch matrix [16, 192] times the
// reshaped kernel [192, 16], its bias an epilogue; the patches then feed the projection.
TEST(ImportRulesTest, PatchEmbeddingConvIsAMatMul) {
  const ImportedModel m = ImportRule("patch_embedding");
  ExpectOps(m, {{kMM, {"16x192", "192x16"}, "16x16", 192},
                {kPW, {"16x16"}, "16x16", 4},
                {kMM, {"16x16", "16x8"}, "16x8", 16}});
  EXPECT_EQ(InputName(m, 0, 0), "pixels[patches]");
  EXPECT_EQ(InputName(m, 0, 1), "patch.weight[im2col]^T");
}

struct Refusal {
  const char* model;
  const char* message;  // the whole line after "tilesched import: PATH: "
};

TEST(ImportRulesTest, RefusalsAreOneLineExitTwoNoOutput) {
  const Refusal refusals[] = {
      {"refuse_conv_overlap",
       "node 'conv3x3' (Conv): only a Conv whose kernel equals its stride, without padding, dilation or groups (a "
       "patch embedding) is supported; this one has kernel [3,3], strides [1,1], pads [1,1,1,1], dilations [1,1], "
       "group 1"},
      {"refuse_dynamic", "graph input: tensor 'x' has a dynamic dimension 1 ('seq')"},
      {"refuse_gather_runtime",
       "node 'pick_rows' (Gather): a Gather of an activation by runtime indices ('rows' is not a constant the "
       "importer can compute); not supported"},
  };
  testing::ScratchDir dir("import_refusals");
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(r.model);
    const std::string model = std::string(TILESCHED_SOURCE_DIR "/data/models/rules/") + r.model + ".onnx";
    const std::string out = dir.File(std::string(r.model) + ".json");
    auto run = testing::RunTool({TILESCHED_BINARY, "import", model, "--hardware",
                                 TILESCHED_SOURCE_DIR "/configs/hardware/contest_like.json", "-o", out},
                                dir.path());
    EXPECT_EQ(run.code, 2);
    EXPECT_EQ(run.err, "tilesched import: " + model + ": " + r.message + "\n");
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

}  // namespace
}  // namespace tilesched
