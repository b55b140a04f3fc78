// Real exports: the seven PyTorch / Hugging Face models of data/models/exports/ (exported by
// torch.onnx at opsets 17 and 18; their weights are external data whose file is absent). Each
// imports on contest_like.json; the test checks its op counts, that every ONNX MatMul and Gemm
// node maps to MatMul ops, one hand-computed base cost per pattern it holds (RMSNorm, rotary
// embedding, tanh GELU, masked softmax, embedding sum), its model names, and that a short search
// gives a schedule the evaluator accepts. contest_like: MatMul cost = 128*128*K/2048 = 8 K,
// Pointwise cost = 128*128*work/64 = 256 work; Exp 4, Erf 8, Tanh 4, Sigmoid 4, Sqrt 4, Div 2,
// Pow 4, Reciprocal 2, every other operator 1 (docs/import.md).
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_files.h"
#include "tilesched/evaluate.h"
#include "tilesched/hardware.h"
#include "tilesched/import.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

std::string ExportPath(const std::string& name) {
  return TILESCHED_SOURCE_DIR "/data/models/exports/" + name + ".onnx";
}

ImportedModel ImportExport(const std::string& name) {
  auto hw = LoadHardwareDescription(TILESCHED_SOURCE_DIR "/configs/hardware/contest_like.json");
  EXPECT_TRUE(hw.ok());
  auto m = ImportOnnxFile(ExportPath(name), *hw);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) std::abort();
  return std::move(m).value();
}

// The op with this model name, or -1.
int OpNamed(const Problem& p, const std::string& name) {
  for (int o = 0; o < p.num_ops(); ++o) {
    if (p.op_name(o) == name) return o;
  }
  return -1;
}

struct Counts {
  const char* model;
  int ops, matmuls, tensors;
};

TEST(ImportExportsTest, OpCountsAndEveryMatMulNodeMapped) {
  const Counts counts[] = {
      {"torch_mlp", 4, 2, 7},        {"torch_encoder_layer", 53, 26, 73}, {"hf_gpt2", 144, 78, 202},
      {"hf_bert", 137, 78, 197},     {"hf_bert_legacy17", 137, 78, 197},  {"hf_llama", 199, 99, 264},
      {"gpt2_small_real", 2924, 1702, 4078},
  };
  for (const Counts& c : counts) {
    SCOPED_TRACE(c.model);
    const ImportedModel m = ImportExport(c.model);
    int matmuls = 0;
    for (const Op& op : m.problem.ops()) matmuls += op.type == OpType::kMatMul;
    EXPECT_EQ(m.problem.num_ops(), c.ops);
    EXPECT_EQ(matmuls, c.matmuls);
    EXPECT_EQ(m.problem.num_tensors(), c.tensors);
    for (const char* type : {"MatMul", "Gemm"}) {
      auto it = m.summary.by_op_type.find(type);
      if (it != m.summary.by_op_type.end()) {
        EXPECT_EQ(it->second.matmul, it->second.nodes) << type;
      }
    }
    EXPECT_EQ(m.problem.names().ops.size(), static_cast<size_t>(c.ops));
  }
}

// The exports' weights are ONNX external data, and the data files are not there.
TEST(ImportExportsTest, ImportWithExternalDataAbsent) {
  for (const char* name : {"hf_llama", "gpt2_small_real"}) {
    SCOPED_TRACE(name);
    std::ifstream in(ExportPath(name), std::ios::binary);
    onnx::ModelProto model;
    ASSERT_TRUE(model.ParseFromIstream(&in));
    int external = 0;
    for (const auto& init : model.graph().initializer()) {
      if (init.data_location() != onnx::TensorProto::EXTERNAL) continue;
      ++external;
      for (const auto& entry : init.external_data()) {
        if (entry.key() == "location") {
          EXPECT_FALSE(std::filesystem::exists(TILESCHED_SOURCE_DIR "/data/models/exports/" + entry.value()));
        }
      }
    }
    EXPECT_GT(external, 10);
    EXPECT_GT(ImportExport(name).problem.num_ops(), 100);
  }
}

TEST(ImportExportsTest, LlamaRmsNormAndRotary) {
  const ImportedModel m = ImportExport("hf_llama");
  const Problem& p = m.problem;
  // Pow 4 + ReduceMean 1 + Add 1 + Sqrt 4 + Reciprocal 2 + Mul 1 + Mul 1 = 14 units: 256 * 14.
  const int norm = OpNamed(p, "m.layers.0.input_layernorm/pow_1+mean+add_3+rsqrt+mul_2+mul_3");
  ASSERT_GE(norm, 0);
  EXPECT_DOUBLE_EQ(p.op(norm).base_cost, 3584);
  EXPECT_EQ(p.tensor_name(p.op(norm).inputs[0]), "m.embed_tokens.weight[ids]");
  // rotate_half of head 0: Neg 1 + Mul 1 + Add 1 = 3 units: 256 * 3.
  const int rotary = OpNamed(p, "m.layers.0.self_attn/neg+mul_5+add_4[0]");
  ASSERT_GE(rotary, 0);
  EXPECT_DOUBLE_EQ(p.op(rotary).base_cost, 768);
  EXPECT_EQ(m.summary.by_op_type.at("ReduceMean").pointwise, 5);
  EXPECT_EQ(m.summary.by_op_type.at("Expand").view, 4);
}

TEST(ImportExportsTest, Gpt2GeluSoftmaxAndEmbeddings) {
  for (const char* name : {"hf_gpt2", "gpt2_small_real"}) {
    SCOPED_TRACE(name);
    const ImportedModel m = ImportExport(name);
    const Problem& p = m.problem;
    // Bias Add 1 + Mul 1 + Pow 4 + Mul 1 + Add 1 + Mul 1 + Tanh 4 + Add 1 + Mul 1 = 15 units.
    const int gelu = OpNamed(p, "m.h.0.mlp.c_fc/addmm_2+m.h.0.mlp.act/mul_1+pow_1+mul_2+add_6+mul_3+tanh+add_7+mul_4");
    ASSERT_GE(gelu, 0);
    EXPECT_DOUBLE_EQ(p.op(gelu).base_cost, 256 * 15);
    // Scale 1 + mask Add 1 + Softmax (ReduceMax 1, Sub 1, Exp 4, ReduceSum 1, Div 2) = 11 units.
    const int softmax = OpNamed(p, "m.h.0.attn/mul+add_4+softmax[0]");
    ASSERT_GE(softmax, 0);
    EXPECT_DOUBLE_EQ(p.op(softmax).base_cost, 256 * 11);
    // Token plus position embedding: one Add over two graph inputs.
    const int embed = OpNamed(p, "m/add_1");
    ASSERT_GE(embed, 0);
    EXPECT_DOUBLE_EQ(p.op(embed).base_cost, 256);
    EXPECT_EQ(p.tensor_name(p.op(embed).inputs[0]), "m.wte.weight[view]");
    EXPECT_EQ(p.tensor_name(p.op(embed).inputs[1]), "m.wpe.weight[unsqueeze]");
  }
}

TEST(ImportExportsTest, BertEmbeddingSumBothExporters) {
  // word + token type + position embeddings and the LayerNorm: Add 1 + Add 1 + LN 13 = 15.
  const ImportedModel dynamo = ImportExport("hf_bert");
  const int a = OpNamed(dynamo.problem, "m.embeddings/add+add_1+m.embeddings.LayerNorm/layer_norm");
  ASSERT_GE(a, 0);
  EXPECT_DOUBLE_EQ(dynamo.problem.op(a).base_cost, 256 * 15);
  EXPECT_EQ(dynamo.problem.op(a).inputs.size(), 3u);
  const ImportedModel legacy = ImportExport("hf_bert_legacy17");
  const int b = OpNamed(legacy.problem, "/m/embeddings/Add+Add_1+/m/embeddings/LayerNorm/LayerNormalization");
  ASSERT_GE(b, 0);
  EXPECT_DOUBLE_EQ(legacy.problem.op(b).base_cost, 256 * 15);
  EXPECT_EQ(legacy.summary.by_op_type.at("ConstantOfShape").constant, 3);
  EXPECT_EQ(legacy.summary.by_op_type.at("GatherElements").constant, 1);
}

TEST(ImportExportsTest, ErfGeluOfAPlainMlp) {
  const ImportedModel m = ImportExport("torch_mlp");
  // Bias Add 1 + Div 2 + Erf 8 + Add 1 + Mul 1 + Mul 1 = 14 units.
  const int gelu = OpNamed(m.problem, "a/linear+gelu");
  ASSERT_GE(gelu, 0);
  EXPECT_DOUBLE_EQ(m.problem.op(gelu).base_cost, 256 * 14);
}

// A short search on each small export gives a schedule the evaluator accepts, at or above the
// lower bound; the problem file reads back with its names.
TEST(ImportExportsTest, SmallExportsScheduleAndEvaluate) {
  for (const char* name : {"torch_mlp", "torch_encoder_layer", "hf_gpt2", "hf_bert", "hf_bert_legacy17", "hf_llama"}) {
    SCOPED_TRACE(name);
    const ImportedModel m = ImportExport(name);
    auto reread = ParseProblem(ImportedProblemToJson(m));
    ASSERT_TRUE(reread.ok()) << reread.status().message();
    EXPECT_EQ(reread->names().ops, m.problem.names().ops);
    EXPECT_EQ(reread->names().tensors, m.problem.names().tensors);
    search::SearchOptions options;
    options.iterations = 5;
    auto result = search::RunSearch(m.problem, options);
    ASSERT_TRUE(result.ok()) << result.status().message();
    auto evaluation = Evaluate(m.problem, result->schedule, options.modes);
    ASSERT_TRUE(evaluation.ok()) << evaluation.status().message();
    EXPECT_GE(evaluation->total, ComputeLowerBounds(m.problem, options.modes).best() * (1 - 1e-9));
  }
}

// `info`, `evaluate` (text and JSON) and `report` show the model's names of ops and subgraphs.
TEST(ImportExportsTest, CommandsShowModelNames) {
  testing::ScratchDir dir("import_names");
  const std::string bin = TILESCHED_BINARY;
  const std::string problem = dir.File("gpt2.json"), solution = dir.File("gpt2.sol.json");
  auto run = [&](const std::vector<std::string>& argv) { return testing::RunTool(argv, dir.path()); };
  ASSERT_EQ(run({bin, "import", ExportPath("hf_gpt2"), "--hardware",
                 TILESCHED_SOURCE_DIR "/configs/hardware/contest_like.json", "-o", problem})
                .code,
            0);
  auto info = run({bin, "info", problem});
  ASSERT_EQ(info.code, 0) << info.err;
  EXPECT_NE(info.out.find("model name"), std::string::npos);
  EXPECT_NE(info.out.find("m.h.0.attn/mul+add_4+softmax[0]"), std::string::npos);
  EXPECT_NE(info.out.find("m.wte.weight[view]"), std::string::npos);
  auto info_json = run({bin, "info", problem, "--json"});
  EXPECT_NE(info_json.out.find("\"name\": \"m.h.0.attn/mul+add_4+softmax[0]\""), std::string::npos);
  ASSERT_EQ(run({bin, "schedule", problem, "-o", solution, "--iterations", "10"}).code, 0);
  auto evaluate = run({bin, "evaluate", problem, solution});
  ASSERT_EQ(evaluate.code, 0) << evaluate.err;
  EXPECT_NE(evaluate.out.find("model names"), std::string::npos);
  EXPECT_NE(evaluate.out.find("m.h.1"), std::string::npos);
  auto evaluate_json = run({bin, "evaluate", problem, solution, "--json"});
  EXPECT_NE(evaluate_json.out.find("\"label\""), std::string::npos);
  EXPECT_NE(evaluate_json.out.find("\"op_names\""), std::string::npos);
  auto report = run({bin, "report", problem, solution, "-o", dir.File("r.html")});
  ASSERT_EQ(report.code, 0) << report.err;
  const std::string html = testing::Slurp(dir.File("r.html"));
  EXPECT_NE(html.find("<th>model names</th>"), std::string::npos);
  EXPECT_NE(html.find("m.h.0.mlp"), std::string::npos);
}

// The four exports of the model-sized suite (data/large, scripts/make_large_suite.sh) are the
// import of today's importer, byte for byte.
TEST(ImportExportsTest, TheLargeSuiteHoldsTodaysImports) {
  testing::ScratchDir dir("import_suite");
  for (const std::string model : {"hf_gpt2", "hf_bert", "hf_llama", "torch_encoder_layer"}) {
    const std::string problem = dir.File(model + ".json");
    const auto run = testing::RunTool({TILESCHED_BINARY, "import", ExportPath(model), "--hardware",
                                       TILESCHED_SOURCE_DIR "/configs/hardware/contest_like.json",
                                       "-o", problem},
                                      dir.path());
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_EQ(testing::Slurp(problem),
              testing::Slurp(TILESCHED_SOURCE_DIR "/data/large/" + model + ".json"))
        << model;
  }
}

}  // namespace
}  // namespace tilesched
