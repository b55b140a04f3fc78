// Generated workloads (src/experiment/stack.h, random_dag.h, model_family.h) and `tilesched
// generate`: the model families have the ops their formula says and the importer's costs;
// the random layered DAG has the ops asked for, its degree bounds hold, a seed reproduces it,
// bad options are named; greedy fusion schedules it validly (the evaluator agrees with the
// search's total) and the same at any thread count.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model_family.h"
#include "random_dag.h"
#include "test_files.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

using testing::RunTool;
using testing::ScratchDir;

TEST(RandomDag, HasTheOpsAskedForAndBoundedDegree) {
  for (int ops : {1, 15, 500}) {
    experiment::RandomDagOptions options;
    options.ops = ops;
    auto problem = experiment::MakeRandomLayeredDag(options);
    ASSERT_TRUE(problem.ok()) << problem.status().message();
    EXPECT_EQ(problem->num_ops(), ops);
    std::vector<int> readers(static_cast<size_t>(problem->num_tensors()), 0);
    int matmuls = 0;
    for (const Op& op : problem->ops()) {
      EXPECT_LE(op.inputs.size(), 2u);
      for (int t : op.inputs) ++readers[static_cast<size_t>(t)];
      matmuls += op.type == OpType::kMatMul;
    }
    for (int r : readers) EXPECT_LE(r, options.max_readers);
    if (ops == 500) {
      // Half MatMul by a fair coin: 500 draws land within 200-300 but for a 1e-5 tail.
      EXPECT_GT(matmuls, 200);
      EXPECT_LT(matmuls, 300);
    }
  }
}

TEST(RandomDag, ASeedReproducesTheProblemAndAnotherChangesIt) {
  experiment::RandomDagOptions options;
  options.ops = 200;
  auto a = experiment::MakeRandomLayeredDag(options);
  auto b = experiment::MakeRandomLayeredDag(options);
  options.seed = 2;
  auto c = experiment::MakeRandomLayeredDag(options);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(ProblemToJson(*a), ProblemToJson(*b));
  EXPECT_NE(ProblemToJson(*a), ProblemToJson(*c));
}

TEST(RandomDag, RejectsOptionsOutOfRangeByName) {
  struct Case {
    experiment::RandomDagOptions options;
    std::string name;
  };
  std::vector<Case> cases(4);
  cases[0].options.ops = 0;
  cases[0].name = "ops";
  cases[1].options.layer_width = 0;
  cases[1].name = "layer_width";
  cases[2].options.max_readers = 0;
  cases[2].name = "max_readers";
  cases[3].options.size = 0;
  cases[3].name = "size";
  for (const Case& c : cases) {
    auto problem = experiment::MakeRandomLayeredDag(c.options);
    ASSERT_FALSE(problem.ok()) << c.name;
    EXPECT_EQ(problem.status().message().rfind(c.name + ": expected", 0), 0u)
        << problem.status().message();
  }
}

TEST(RandomDag, GreedyFusionSchedulesItAsTheEvaluatorCostsIt) {
  experiment::RandomDagOptions options;
  options.ops = 300;
  options.seed = 7;
  auto problem = experiment::MakeRandomLayeredDag(options);
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  search::SearchOptions search;
  search.strategy = "greedy";
  search.threads = 2;
  auto result = search::RunSearch(*problem, search);
  ASSERT_TRUE(result.ok()) << result.status().message();
  auto evaluation = Evaluate(*problem, result->schedule, search.modes);
  ASSERT_TRUE(evaluation.ok()) << evaluation.status().message();
  EXPECT_DOUBLE_EQ(evaluation->total, result->total);
  // Fusion happened: fewer subgraphs than ops.
  EXPECT_LT(result->schedule.subgraphs.size(), 300u);
  EXPECT_GE(result->total, result->lower_bound);
}

TEST(RandomDag, GreedyFusionIsTheSameAtOneAndTwoThreads) {
  experiment::RandomDagOptions options;
  options.ops = 400;
  options.seed = 11;
  auto problem = experiment::MakeRandomLayeredDag(options);
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  std::vector<std::string> written;
  for (int threads : {1, 2}) {
    search::SearchOptions search;
    search.strategy = "greedy";
    search.threads = threads;
    auto result = search::RunSearch(*problem, search);
    ASSERT_TRUE(result.ok()) << result.status().message();
    written.push_back(SolutionToJson(result->schedule, {}));
  }
  EXPECT_EQ(written[0], written[1]);
}

TEST(Generate, RandomWritesTheOpsAskedForAndNamesBadOptions) {
  const ScratchDir dir("generate_random");
  const std::string path = dir.File("random.json");
  const testing::ToolRun ok = RunTool(
      {TILESCHED_BINARY, "generate", "random", "--ops", "40", "--seed", "3", "-o", path}, dir.path());
  ASSERT_EQ(ok.code, 0) << ok.err;
  auto problem = LoadProblem(path);
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  EXPECT_EQ(problem->num_ops(), 40);
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{TILESCHED_BINARY, "generate", "random", "--ops", "0"},
        std::vector<std::string>{TILESCHED_BINARY, "generate", "random", "--ops", "10",
                                 "--layer-width", "0"},
        std::vector<std::string>{TILESCHED_BINARY, "generate", "random"}}) {
    const testing::ToolRun bad = RunTool(argv, dir.path());
    EXPECT_EQ(bad.code, 2) << bad.err;
    EXPECT_NE(bad.err.find("--"), std::string::npos) << bad.err;
  }
  const testing::ToolRun unknown = RunTool({TILESCHED_BINARY, "generate", "ring"}, dir.path());
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("'ring'"), std::string::npos) << unknown.err;
}

// A transformer layer has 7 ops per head and 7 (plain) or 8 (gated) more; an MoE block
// 3 + 4 per expert; the deep MLP 2 per layer and a residual where widths agree.
TEST(ModelFamily, OpCountsFollowTheLayerFormula) {
  experiment::TransformerFamilyOptions o;
  o.layers = 3;
  o.heads = 4;
  o.hardware = {300000, 20, 128, 128};
  o.mlp = experiment::MlpKind::kPlain;
  auto plain = experiment::MakeTransformerFamily(o);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain->num_ops(), 3 * (/*heads=*/7 * 4 + /*norms, residuals, mlp=*/7));
  o.mlp = experiment::MlpKind::kGated;
  EXPECT_EQ(experiment::MakeTransformerFamily(o)->num_ops(), 3 * (7 * 4 + 8));
  o.moe_every = 3;
  o.experts = 2;
  // Layer 3 is MoE: router, gates, 2 experts x 4, the experts' sum, then residual2; plus
  // norm1, the heads, residual1 and norm2 as every layer.
  EXPECT_EQ(experiment::MakeTransformerFamily(o)->num_ops(), 2 * (7 * 4 + 8) + (7 * 4 + 3) + 3 + 8 + 1);
  experiment::DeepMlpOptions m;
  m.layers = 5;
  m.widths = {256};
  m.hardware = o.hardware;
  EXPECT_EQ(experiment::MakeDeepMlp(m)->num_ops(), 5 * 3);
}

// Base costs per native tile as the importer's (docs/import.md) on contest_like's throughputs:
// a MatMul 128 x 128 x K / 2048, a Pointwise op 128 x 128 x work / 64.
TEST(ModelFamily, CostsAreTheImportersFormulas) {
  experiment::TransformerFamilyOptions o;
  o.layers = 1;
  o.heads = 2;
  o.width = 256;
  o.seq = 512;
  o.hardware = {300000, 20, 128, 128};
  o.mlp = experiment::MlpKind::kGated;
  auto p = experiment::MakeTransformerFamily(o);
  ASSERT_TRUE(p.ok());
  // Op 0: the first LayerNorm (work 9); op 1: head 0's q = n1 @ Wq (K = 256); op 4: its scores
  // q @ k^T (K = 128, the head width); op 5: its softmax (work 9).
  EXPECT_DOUBLE_EQ(p->op(0).base_cost, /*128*128*9/64=*/2304);
  EXPECT_DOUBLE_EQ(p->op(1).base_cost, /*128*128*256/2048=*/2048);
  EXPECT_DOUBLE_EQ(p->op(4).base_cost, /*128*128*128/2048=*/1024);
  EXPECT_DOUBLE_EQ(p->op(5).base_cost, 2304);
  EXPECT_EQ(p->op_name(4), "layer0.head0.scores");
}

TEST(ModelFamily, ASeedReproducesAndBadOptionsAreNamed) {
  experiment::TransformerFamilyOptions o;
  o.hardware = {300000, 20, 128, 128};
  o.layers = 6;
  auto a = experiment::MakeTransformerFamily(o), b = experiment::MakeTransformerFamily(o);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(ProblemToJson(*a), ProblemToJson(*b));
  o.heads = 3;  // does not divide 256
  auto bad = experiment::MakeTransformerFamily(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("heads"), std::string::npos);
  const ScratchDir dir("generate_family");
  const auto run = RunTool({TILESCHED_BINARY, "generate", "transformer", "--mlp", "wide"}, dir.path());
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("--mlp: expected plain, gated or mixed, got 'wide'"), std::string::npos) << run.err;
}

// The suite of docs/results_large.md is what scripts/make_large_suite.sh writes.
TEST(ModelFamily, TheLargeSuiteIsReproduced) {
  const ScratchDir dir("generate_suite");
  const std::string source = TILESCHED_SOURCE_DIR;
  const auto run = RunTool({TILESCHED_BINARY, "generate", "transformer", "--layers", "12", "--heads",
                            "10", "--seq", "512", "--width", "640", "--mlp", "mixed", "--seed", "10",
                            "--capacity", "272000", "--bandwidth", "80", "-o", dir.File("p.json")},
                           dir.path());
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(testing::Slurp(dir.File("p.json")), testing::Slurp(source + "/data/large/tf-12x10-w640.json"));
}

}  // namespace
}  // namespace tilesched
