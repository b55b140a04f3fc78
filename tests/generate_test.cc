// Generated workloads (src/experiment/stack.h, random_dag.h) and `tilesched generate random`:
// the random layered DAG has the ops asked for, its degree bounds hold, a seed reproduces it,
// bad options are named; greedy fusion schedules it validly (the evaluator agrees with the
// search's total) and the same at any thread count.
#include <string>
#include <vector>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tilesched
