// Problem::Create (SPEC.md section 1): derived facts (producers, graph inputs and outputs,
// reduction extents), WithHardware, and one-line errors naming the op or tensor at fault.
#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.h"
#include "tilesched/graph.h"
#include "tilesched/problem.h"

namespace tilesched {
namespace {

using testing::ProblemBuilder;

Hardware Native128(int64_t capacity = 60000, double bandwidth = 10) {
  return {capacity, bandwidth, /*native_w=*/128, /*native_h=*/128};
}

// MM0(T0 128x256, T1 256x64)->T2 128x64, PW1(T2, T3)->T4; T5 is used by no op.
Problem WithUnusedTensor() {
  ProblemBuilder b(60000, 10);
  const int t0 = b.Tensor(128, 256), t1 = b.Tensor(256, 64), t2 = b.Tensor(128, 64),
            t3 = b.Tensor(128, 64), t4 = b.Tensor(128, 64);
  b.Tensor(32, 32);
  b.MatMul(t0, t1, t2, 1000);
  b.Pointwise({t2, t3}, t4, 200);
  return b.Build();
}

TEST(ProblemCreate, ClassifiesEveryTensor) {
  const Problem p = WithUnusedTensor();
  ASSERT_EQ(p.num_tensors(), 6);
  ASSERT_EQ(p.num_ops(), 2);
  struct Expected {
    int producer;
    bool input;
    bool output;
  };
  const std::vector<Expected> expected = {
      {-1, true, false},   // T0: read by MM0
      {-1, true, false},   // T1: read by MM0
      {0, false, false},   // T2: intermediate
      {-1, true, false},   // T3: read by PW1
      {1, false, true},    // T4: nobody reads it
      {-1, false, false},  // T5: neither produced nor read, ignored (SPEC.md section 1)
  };
  for (int t = 0; t < p.num_tensors(); ++t) {
    EXPECT_EQ(p.producer(t), expected[t].producer) << "tensor " << t;
    EXPECT_EQ(p.is_graph_input(t), expected[t].input) << "tensor " << t;
    EXPECT_EQ(p.is_graph_output(t), expected[t].output) << "tensor " << t;
  }
  EXPECT_EQ(p.graph().graph_inputs(), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(p.graph().graph_outputs(), (std::vector<int>{4}));
}

// CutOut: the kept ops keep their tensors' shapes; a tensor produced outside becomes a graph
// input, one read only outside a graph output; the unused tensor is dropped; names record the
// original ids; bad lists are refused naming the entry.
TEST(ProblemCutOut, InputsOutputsNamesAndErrors) {
  const Problem p = WithUnusedTensor();
  auto pw = CutOut(p, {1});
  ASSERT_TRUE(pw.ok()) << pw.status().message();
  ASSERT_EQ(pw->num_ops(), 1);
  ASSERT_EQ(pw->num_tensors(), 3);  // T2, T3, T4
  EXPECT_EQ(pw->op(0).type, OpType::kPointwise);
  EXPECT_EQ(pw->op(0).inputs, (std::vector<int>{0, 1}));
  EXPECT_EQ(pw->op(0).output, 2);
  EXPECT_TRUE(pw->is_graph_input(0));  // T2, produced by MM0 outside
  EXPECT_TRUE(pw->is_graph_output(2));
  EXPECT_EQ(pw->tensor(0), p.tensor(2));
  EXPECT_EQ(pw->op_name(0), "op 1");
  EXPECT_EQ(pw->tensor_name(0), "tensor 2");
  auto mm = CutOut(p, {0});
  ASSERT_TRUE(mm.ok()) << mm.status().message();
  EXPECT_TRUE(mm->is_graph_output(2));  // T2, read only by PW1 outside
  auto both = CutOut(p, {1, 0});
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_EQ(both->num_tensors(), 5);  // all but the unused T5
  EXPECT_FALSE(both->is_graph_output(2));
  EXPECT_EQ(both->op_name(0), "op 0");
  EXPECT_EQ(CutOut(p, {}).status().message(), "ops: the list is empty");
  EXPECT_EQ(CutOut(p, {0, 2}).status().message(), "ops[1]: op 2 is out of range (the problem has 2 ops)");
  EXPECT_EQ(CutOut(p, {1, 1}).status().message(), "ops[1]: op 1 is listed twice");
}

TEST(ProblemCreate, ReductionExtentIsLhsColumns) {
  const Problem p = WithUnusedTensor();
  // LHS T0 is 128x256: K = 256 columns, not its 128 rows nor the output's 64 columns.
  EXPECT_EQ(p.reduction_extent(0), 256);
}

TEST(ProblemCreate, KeepsTensorsOpsAndHardware) {
  const Problem p = WithUnusedTensor();
  EXPECT_EQ(p.tensor(0), (Tensor{/*width=*/256, /*height=*/128}));
  EXPECT_EQ(p.tensor(0).size(), /*128*256=*/32768);
  EXPECT_EQ(p.op(1).type, OpType::kPointwise);
  EXPECT_EQ(p.op(1).inputs, (std::vector<int>{2, 3}));
  EXPECT_EQ(p.op(1).output, 4);
  EXPECT_EQ(p.op(1).base_cost, 200);
  EXPECT_EQ(p.hardware().fast_memory_capacity, 60000);
  EXPECT_EQ(p.hardware().native_k(), p.hardware().native_w);
  EXPECT_EQ(p.graph().num_ops(), 2);
  EXPECT_EQ(p.graph().num_tensors(), 6);
}

TEST(ProblemCreate, NamesAndShapes) {
  EXPECT_STREQ(OpTypeName(OpType::kMatMul), "MatMul");
  EXPECT_STREQ(OpTypeName(OpType::kPointwise), "Pointwise");
  EXPECT_EQ(ShapeString(Tensor{/*width=*/256, /*height=*/128}), "128x256 (rows x cols)");
}

TEST(ProblemWithHardware, ReplacesOnlyTheHardware) {
  const Problem p = WithUnusedTensor();
  auto q = p.WithHardware({/*capacity=*/1000, /*bandwidth=*/2.5, /*native_w=*/64,
                           /*native_h=*/32});
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->hardware().fast_memory_capacity, 1000);
  EXPECT_EQ(q->hardware().slow_memory_bandwidth, 2.5);
  EXPECT_EQ(q->hardware().native_w, 64);
  EXPECT_EQ(q->hardware().native_h, 32);
  EXPECT_EQ(q->tensors(), p.tensors());
  EXPECT_EQ(q->num_ops(), p.num_ops());
  EXPECT_EQ(q->graph().topo_order(), p.graph().topo_order());
  // The original is a value and does not change.
  EXPECT_EQ(p.hardware().fast_memory_capacity, 60000);
  EXPECT_EQ(p.hardware().native_w, 128);
}

struct HardwareCase {
  std::string name;
  Hardware hardware;
  std::string needle;  // the field the message must name
};

// gtest prints a failing parameter; the case name says more than its bytes.
void PrintTo(const HardwareCase& c, std::ostream* os) { *os << c.name; }

class ProblemHardwareTest : public ::testing::TestWithParam<HardwareCase> {};

TEST_P(ProblemHardwareTest, RejectsOutOfRange) {
  const HardwareCase& c = GetParam();
  const Problem p = WithUnusedTensor();
  for (const Status& status : {p.WithHardware(c.hardware).status(), ValidateHardware(c.hardware),
                               Problem::Create(p.tensors(), p.ops(), c.hardware).status()}) {
    ASSERT_FALSE(status.ok()) << c.name;
    EXPECT_NE(status.message().find(c.needle), std::string::npos)
        << c.name << ": " << status.message();
    EXPECT_EQ(status.message().find('\n'), std::string::npos) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Problem, ProblemHardwareTest,
    ::testing::ValuesIn(std::vector<HardwareCase>{
        {"ZeroCapacity", {0, 10, 128, 128}, "fast_memory_capacity"},
        {"NegativeCapacity", {-5, 10, 128, 128}, "fast_memory_capacity"},
        {"ZeroBandwidth", {60000, 0, 128, 128}, "slow_memory_bandwidth"},
        {"NegativeBandwidth", {60000, -10, 128, 128}, "slow_memory_bandwidth"},
        {"NanBandwidth", {60000, std::nan(""), 128, 128}, "slow_memory_bandwidth"},
        {"InfiniteBandwidth",
         {60000, std::numeric_limits<double>::infinity(), 128, 128},
         "slow_memory_bandwidth"},
        {"ZeroNativeW", {60000, 10, 0, 128}, "native_granularity"},
        {"NegativeNativeH", {60000, 10, 128, -1}, "native_granularity"},
    }),
    [](const ::testing::TestParamInfo<HardwareCase>& param_info) { return param_info.param.name; });

TEST(ProblemWithHardware, AcceptsValidHardware) {
  EXPECT_TRUE(ValidateHardware(Native128()).ok());
  EXPECT_TRUE(ValidateHardware({1, 1e-9, 1, 1}).ok());
}

struct CreateCase {
  std::string name;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  std::vector<std::string> needles;
};

// gtest prints a failing parameter; the case name says more than its bytes.
void PrintTo(const CreateCase& c, std::ostream* os) { *os << c.name; }

// Tensors as {width, height}; all 128x128 unless the case says otherwise.
std::vector<Tensor> Square(int n) { return std::vector<Tensor>(n, Tensor{128, 128}); }

std::vector<CreateCase> CreateCases() {
  const OpType mm = OpType::kMatMul, pw = OpType::kPointwise;
  return {
      {"NoOps", Square(2), {}, {"no ops"}},
      {"ZeroWidth", {{128, 128}, {0, 128}}, {{pw, {0}, 1, 1}}, {"tensor 1", "positive"}},
      {"NegativeHeight", {{128, -4}, {128, 128}}, {{pw, {0}, 1, 1}}, {"tensor 0", "positive"}},
      {"OutputOutOfRange", Square(2), {{pw, {0}, 2, 1}}, {"op 0", "output tensor id 2"}},
      {"OutputNegative", Square(2), {{pw, {0}, -1, 1}}, {"op 0", "output tensor id -1"}},
      {"InputOutOfRange", Square(3), {{pw, {0}, 1, 1}, {pw, {1, 3}, 2, 1}},
       {"op 1", "input tensor id 3"}},
      {"NegativeCost", Square(2), {{pw, {0}, 1, -0.5}}, {"op 0", "base_cost"}},
      {"NanCost", Square(2), {{pw, {0}, 1, std::nan("")}}, {"op 0", "base_cost"}},
      {"MatMulOneInput", Square(2), {{mm, {0}, 1, 1}}, {"op 0", "MatMul", "got 1"}},
      {"MatMulThreeInputs", Square(4), {{mm, {0, 1, 2}, 3, 1}}, {"op 0", "MatMul", "got 3"}},
      // LHS 128x256 needs a 256-row RHS.
      {"MatMulInnerDimension", {{256, 128}, {128, 128}, {128, 128}}, {{mm, {0, 1}, 2, 1}},
       {"op 0", "LHS tensor 0", "RHS tensor 1"}},
      // 128x128 times 128x128 is 128x128, not 128x64.
      {"MatMulOutputShape", {{128, 128}, {128, 128}, {64, 128}}, {{mm, {0, 1}, 2, 1}},
       {"op 0", "output tensor 2"}},
      {"PointwiseShape", {{128, 128}, {128, 64}, {128, 128}}, {{pw, {0, 1}, 2, 1}},
       {"op 0", "input tensor 1", "output tensor 2"}},
      {"PointwiseNoInputs", Square(1), {{pw, {}, 0, 1}}, {"op 0", "at least 1 input"}},
      {"ProducedTwice", Square(3), {{pw, {0}, 1, 1}, {pw, {0}, 2, 1}, {pw, {2}, 1, 1}},
       {"tensor 1", "produced twice", "ops 0 and 2"}},
      {"SelfLoop", Square(2), {{pw, {0, 1}, 1, 1}}, {"cycle", "op 0"}},
      {"TwoOpCycle", Square(3), {{pw, {0, 2}, 1, 1}, {pw, {1}, 2, 1}}, {"cycle"}},
  };
}

class ProblemCreateErrorTest : public ::testing::TestWithParam<CreateCase> {};

TEST_P(ProblemCreateErrorTest, FailsNamingTheCulprit) {
  const CreateCase& c = GetParam();
  auto p = Problem::Create(c.tensors, c.ops, Native128());
  ASSERT_FALSE(p.ok()) << c.name;
  const std::string message = p.status().message();
  EXPECT_EQ(message.find('\n'), std::string::npos) << c.name << ": " << message;
  for (const std::string& needle : c.needles) {
    EXPECT_NE(message.find(needle), std::string::npos)
        << c.name << ": message does not name '" << needle << "': " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Problem, ProblemCreateErrorTest, ::testing::ValuesIn(CreateCases()),
                         [](const ::testing::TestParamInfo<CreateCase>& param_info) {
                           return param_info.param.name;
                         });

TEST(ProblemCreate, AcceptsZeroCostAndRepeatedInput) {
  // A zero base cost and an op reading the same tensor twice (x*x) are both legal.
  auto p = Problem::Create(Square(2), {{OpType::kPointwise, {0, 0}, 1, 0}}, Native128());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->is_graph_input(0));
  EXPECT_TRUE(p->is_graph_output(1));
}

TEST(ProblemCreate, MatMulMaySquareItsInput) {
  // T1 = T0 x T0 is valid for a square T0; T0 is read twice but is one graph input.
  auto p = Problem::Create(Square(2), {{OpType::kMatMul, {0, 0}, 1, 10}}, Native128());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->graph().graph_inputs(), (std::vector<int>{0}));
  EXPECT_EQ(p->reduction_extent(0), 128);
}

}  // namespace
}  // namespace tilesched
