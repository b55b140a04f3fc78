// Problem and solution JSON (SPEC.md sections 1-2): every input error fails with one line that
// names the field, op or tensor at fault; writers and readers round-trip; every shipped
// benchmark loads.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.h"
#include "tilesched/io.h"

namespace tilesched {
namespace {

using testing::ProblemBuilder;
using testing::Sched;
using testing::Sg;

// Marks a key that the test problem or solution leaves out entirely.
const char kOmit[] = "<omit>";

using Fields = std::vector<std::pair<std::string, std::string>>;

// Joins key/raw-JSON pairs into an object, skipping keys whose value is kOmit.
std::string ObjectText(const Fields& fields) {
  std::string out = "{";
  for (const auto& [key, value] : fields) {
    if (value == kOmit) continue;
    if (out.size() > 1) out += ", ";
    out += "\"" + key + "\": " + value;
  }
  return out + "}";
}

// `base` with the values of `edits` substituted by key (kOmit drops the key).
std::string Edited(Fields base, const Fields& edits) {
  for (const auto& [key, value] : edits) {
    auto it = std::find_if(base.begin(), base.end(), [&](const auto& f) { return f.first == key; });
    EXPECT_NE(it, base.end()) << "test edits an unknown key " << key;
    if (it != base.end()) it->second = value;
  }
  return ObjectText(base);
}

// A valid problem with four ops, so that per-op fields have indices 0..3:
//   op 0 MatMul(T0 128x256, T1 256x128) -> T2
//   op 1 Pointwise(T2, T3) -> T4
//   op 2 Pointwise(T4) -> T5
//   op 3 Pointwise(T5, T3) -> T6
// T2..T6 are 128x128.
Fields BaseProblem() {
  return {
      {"widths", "[256, 128, 128, 128, 128, 128, 128]"},
      {"heights", "[128, 256, 128, 128, 128, 128, 128]"},
      {"op_types", R"(["MatMul", "Pointwise", "Pointwise", "Pointwise"])"},
      {"inputs", "[[0, 1], [2, 3], [4], [5, 3]]"},
      {"outputs", "[[2], [4], [5], [6]]"},
      {"base_costs", "[1000, 200, 100, 50]"},
      {"fast_memory_capacity", "60000"},
      {"slow_memory_bandwidth", "10"},
      {"native_granularity", "[128, 128]"},
  };
}

std::string ProblemText(const Fields& edits = {}) { return Edited(BaseProblem(), edits); }

// A valid two-subgraph solution for BaseProblem()'s first three ops.
Fields BaseSolution() {
  return {
      {"subgraphs", "[[0], [1, 2]]"},
      {"granularities", "[[128, 128, 128], [64, 64, 1]]"},
      {"tensors_to_retain", "[[2], []]"},
      {"traversal_orders", "[null, [0, 1, 3, 2]]"},
      {"subgraph_latencies", "[1.5, 2.5]"},
  };
}

std::string SolutionText(const Fields& edits = {}) { return Edited(BaseSolution(), edits); }

// A failed call must say what is wrong on exactly one line, naming every `needle`.
void ExpectOneLineError(const Status& status, const std::vector<std::string>& needles,
                        const std::string& case_name) {
  ASSERT_FALSE(status.ok()) << case_name << " should fail";
  const std::string& message = status.message();
  EXPECT_FALSE(message.empty()) << case_name;
  EXPECT_EQ(message.find('\n'), std::string::npos) << case_name << ": " << message;
  for (const std::string& needle : needles) {
    EXPECT_NE(message.find(needle), std::string::npos)
        << case_name << ": message does not name '" << needle << "': " << message;
  }
}

struct ErrorCase {
  std::string name;
  std::string text;
  std::vector<std::string> needles;  // substrings the message must contain
};

// gtest prints a failing parameter; the case name says more than its bytes.
void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

std::string TestName(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

std::string Repeat(const std::string& piece, int times) {
  std::string out;
  out.reserve(piece.size() * static_cast<size_t>(times));
  for (int i = 0; i < times; ++i) out += piece;
  return out;
}

// Input errors common to both readers: the text is not a JSON object at all.
std::vector<ErrorCase> NotAnObjectCases(const std::string& valid, const std::string& what) {
  return {
      {"empty text", "", {"malformed JSON"}},
      {"truncated", valid.substr(0, valid.size() / 2), {"malformed JSON"}},
      {"trailing garbage", valid + " x", {"malformed JSON"}},
      {"two objects", valid + valid, {"malformed JSON"}},
      // nlohmann quotes the last token read; a raw newline in it must not split the line.
      {"raw newline in a string", "{\"widths\": \"a\nb\"}", {"malformed JSON"}},
      {"top-level array", "[1, 2]", {what, "expected a JSON object", "array"}},
      {"top-level number", "5", {what, "expected a JSON object", "number"}},
      {"top-level string", "\"widths\"", {what, "expected a JSON object", "string"}},
      {"top-level null", "null", {what, "expected a JSON object", "null"}},
      // 100000 levels must be refused before any recursion, not overflow the stack.
      {"100000 open brackets", Repeat("[", 100000), {"nests deeper"}},
      {"100000 balanced brackets", Repeat("[", 100000) + Repeat("]", 100000), {"nests deeper"}},
      {"100000 nested objects", Repeat("{\"a\": ", 100000) + "1" + Repeat("}", 100000),
       {"nests deeper"}},
  };
}

std::vector<ErrorCase> ProblemErrorCases() {
  std::vector<ErrorCase> cases = NotAnObjectCases(ProblemText(), "problem");
  // A number too large for a double is a JSON error, not a crash.
  cases.push_back({"bandwidth overflows a double",
                   ProblemText({{"slow_memory_bandwidth", "1e400"}}), {"1e400"}});
  cases.push_back(
      {"base cost overflows a double", ProblemText({{"base_costs", "[1000, 200, 100, -1e400]"}}),
       {"1e400"}});
  for (const auto& [key, value] : BaseProblem()) {
    cases.push_back({"missing " + key, ProblemText({{key, kOmit}}), {key + ": missing key"}});
  }
  std::vector<ErrorCase> fields = {
      // Wrong types.
      {"capacity is a string", ProblemText({{"fast_memory_capacity", "\"60000\""}}),
       {"fast_memory_capacity", "integer", "string"}},
      {"capacity is not an integer", ProblemText({{"fast_memory_capacity", "60000.5"}}),
       {"fast_memory_capacity", "60000.5"}},
      {"bandwidth is a string", ProblemText({{"slow_memory_bandwidth", "\"10\""}}),
       {"slow_memory_bandwidth", "number", "string"}},
      {"bandwidth is an array", ProblemText({{"slow_memory_bandwidth", "[10]"}}),
       {"slow_memory_bandwidth", "array"}},
      {"widths is a number", ProblemText({{"widths", "5"}}), {"widths", "array", "number"}},
      {"heights is an object", ProblemText({{"heights", "{}"}}), {"heights", "array", "object"}},
      {"inputs is a number", ProblemText({{"inputs", "7"}}), {"inputs", "array", "number"}},
      {"op_types is a string", ProblemText({{"op_types", "\"MatMul\""}}),
       {"op_types", "array", "string"}},
      {"native_granularity is a number", ProblemText({{"native_granularity", "128"}}),
       {"native_granularity", "array"}},
      {"inputs[1] is a number", ProblemText({{"inputs", "[[0, 1], 5, [4], [5, 3]]"}}),
       {"inputs[1]", "number"}},
      {"inputs[1][1] is a string", ProblemText({{"inputs", R"([[0, 1], [2, "3"], [4], [5, 3]])"}}),
       {"inputs[1][1]", "string"}},
      {"inputs[3][1] is fractional", ProblemText({{"inputs", "[[0, 1], [2, 3], [4], [5, 3.5]]"}}),
       {"inputs[3][1]", "3.5"}},
      {"inputs id beyond int", ProblemText({{"inputs", "[[0, 10000000000], [2, 3], [4], [5, 3]]"}}),
       {"inputs[0][1]", "10000000000"}},
      {"outputs[2] is a number", ProblemText({{"outputs", "[[2], [4], 5, [6]]"}}),
       {"outputs[2]", "number"}},
      {"op_types[1] is a number",
       ProblemText({{"op_types", R"(["MatMul", 3, "Pointwise", "Pointwise"])"}}),
       {"op_types[1]", "string", "number"}},
      {"base_costs[0] is a string", ProblemText({{"base_costs", R"(["1000", 200, 100, 50])"}}),
       {"base_costs[0]", "number", "string"}},
      {"base_costs[2] is null", ProblemText({{"base_costs", "[1000, 200, null, 50]"}}),
       {"base_costs[2]", "null"}},
      {"width 12.5", ProblemText({{"widths", "[12.5, 128, 128, 128, 128, 128, 128]"}}),
       {"widths[0]", "12.5"}},
      {"height is a boolean", ProblemText({{"heights", "[128, 256, 128, 128, 128, 128, true]"}}),
       {"heights[6]", "boolean"}},
      {"native w is a string", ProblemText({{"native_granularity", R"([128, "128"])"}}),
       {"native_granularity[1]", "string"}},
      // Dimensions and hardware out of range.
      {"zero width", ProblemText({{"widths", "[256, 0, 128, 128, 128, 128, 128]"}}),
       {"widths[1]", "positive", "0"}},
      {"negative height", ProblemText({{"heights", "[128, 256, 128, 128, -128, 128, 128]"}}),
       {"heights[4]", "positive", "-128"}},
      {"width above the limit", ProblemText({{"widths", "[256, 128, 128, 128, 128, 128, 1e12]"}}),
       {"widths[6]"}},
      {"zero capacity", ProblemText({{"fast_memory_capacity", "0"}}),
       {"fast_memory_capacity", "positive"}},
      {"negative capacity", ProblemText({{"fast_memory_capacity", "-60000"}}),
       {"fast_memory_capacity", "positive", "-60000"}},
      {"zero bandwidth", ProblemText({{"slow_memory_bandwidth", "0"}}),
       {"slow_memory_bandwidth", "positive"}},
      {"negative bandwidth", ProblemText({{"slow_memory_bandwidth", "-10.5"}}),
       {"slow_memory_bandwidth", "positive"}},
      {"zero native w", ProblemText({{"native_granularity", "[0, 128]"}}),
       {"native_granularity[0]", "positive"}},
      {"negative native h", ProblemText({{"native_granularity", "[128, -1]"}}),
       {"native_granularity[1]", "positive"}},
      {"native_granularity of length 1", ProblemText({{"native_granularity", "[128]"}}),
       {"native_granularity", "[w, h]", "1 entries"}},
      {"native_granularity of length 3", ProblemText({{"native_granularity", "[128, 128, 128]"}}),
       {"native_granularity", "[w, h]", "3 entries"}},
      // List lengths disagree.
      {"widths shorter than heights", ProblemText({{"widths", "[256, 128, 128, 128, 128, 128]"}}),
       {"heights", "7 entries", "widths has 6"}},
      {"inputs shorter than op_types", ProblemText({{"inputs", "[[0, 1], [2, 3], [4]]"}}),
       {"inputs", "3 entries", "op_types has 4"}},
      {"outputs longer than op_types", ProblemText({{"outputs", "[[2], [4], [5], [6], [3]]"}}),
       {"outputs", "5 entries", "op_types has 4"}},
      {"base_costs shorter than op_types", ProblemText({{"base_costs", "[1000, 200, 100]"}}),
       {"base_costs", "3 entries", "op_types has 4"}},
      {"op_types shorter than the rest",
       ProblemText({{"op_types", R"(["MatMul", "Pointwise", "Pointwise"])"}}),
       {"inputs", "op_types has 3"}},
      // Tensor ids out of range.
      {"input id too large", ProblemText({{"inputs", "[[0, 1], [2, 3], [4], [5, 9]]"}}),
       {"op 3", "input tensor id 9", "out of range"}},
      {"input id negative", ProblemText({{"inputs", "[[0, 1], [2, 3], [-1], [5, 3]]"}}),
       {"op 2", "input tensor id -1", "out of range"}},
      {"output id too large", ProblemText({{"outputs", "[[2], [7], [5], [6]]"}}),
       {"op 1", "output tensor id 7", "out of range"}},
      {"output id negative", ProblemText({{"outputs", "[[-2], [4], [5], [6]]"}}),
       {"op 0", "output tensor id -2", "out of range"}},
      // Op types and arities.
      {"unknown op type",
       ProblemText({{"op_types", R"(["MatMul", "Pointwise", "Conv", "Pointwise"])"}}),
       {"op_types[2]", "Conv", "MatMul", "Pointwise"}},
      {"op type in the wrong case",
       ProblemText({{"op_types", R"(["matmul", "Pointwise", "Pointwise", "Pointwise"])"}}),
       {"op_types[0]", "matmul"}},
      // The message quotes the bad name; an escaped newline in it must not split the line.
      {"op type with a newline",
       ProblemText({{"op_types", R"(["Mat\nMul", "Pointwise", "Pointwise", "Pointwise"])"}}),
       {"op_types[0]", "unknown op type"}},
      {"MatMul with 1 input", ProblemText({{"inputs", "[[0], [2, 3], [4], [5, 3]]"}}),
       {"op 0", "MatMul", "exactly 2 inputs", "got 1"}},
      {"MatMul with 3 inputs", ProblemText({{"inputs", "[[0, 1, 3], [2, 3], [4], [5, 3]]"}}),
       {"op 0", "MatMul", "exactly 2 inputs", "got 3"}},
      // T0 is 128x256 but T3 has 128 rows.
      {"MatMul inner dimension", ProblemText({{"inputs", "[[0, 3], [2, 3], [4], [5, 3]]"}}),
       {"op 0", "LHS tensor 0", "RHS tensor 3", "LHS columns must equal RHS rows"}},
      // T2 made 128x256; the product is 128x128.
      {"MatMul output shape", ProblemText({{"widths", "[256, 128, 256, 128, 128, 128, 128]"}}),
       {"op 0", "output tensor 2", "128x128"}},
      // T0 is 128x256, op 1's output 128x128.
      {"Pointwise input shape", ProblemText({{"inputs", "[[0, 1], [2, 0], [4], [5, 3]]"}}),
       {"op 1", "input tensor 0", "output tensor 4"}},
      {"Pointwise with 0 inputs", ProblemText({{"inputs", "[[0, 1], [2, 3], [], [5, 3]]"}}),
       {"op 2", "at least 1 input"}},
      {"op with 0 outputs", ProblemText({{"outputs", "[[2], [], [5], [6]]"}}),
       {"outputs[1]", "op 1", "exactly 1 output", "got 0"}},
      {"op with 2 outputs", ProblemText({{"outputs", "[[2], [4], [5], [6, 3]]"}}),
       {"outputs[3]", "op 3", "exactly 1 output", "got 2"}},
      // Graph structure.
      {"tensor produced twice", ProblemText({{"outputs", "[[2], [4], [6], [6]]"}}),
       {"tensor 6", "produced twice", "ops 2 and 3"}},
      // op 1 reads T6, which op 3 writes after ops 1 -> 2 -> 3.
      {"cycle of three ops", ProblemText({{"inputs", "[[0, 1], [2, 6], [4], [5, 3]]"}}),
       {"cycle", "op 1", "op 3 writes tensor 6, which op 1 reads"}},
      {"op reads its own output", ProblemText({{"inputs", "[[0, 1], [2, 3], [5], [5, 3]]"}}),
       {"cycle", "op 2", "op 2 writes tensor 5, which op 2 reads"}},
      {"negative base cost", ProblemText({{"base_costs", "[1000, 200, 100, -1]"}}),
       {"base_costs[3]", "negative"}},
  };
  cases.insert(cases.end(), fields.begin(), fields.end());
  return cases;
}

class IoProblemErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(IoProblemErrorTest, FailsNamingTheField) {
  const ErrorCase& c = GetParam();
  auto problem = ParseProblem(c.text);
  ExpectOneLineError(problem.status(), c.needles, c.name);
}

INSTANTIATE_TEST_SUITE_P(Io, IoProblemErrorTest, ::testing::ValuesIn(ProblemErrorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& param_info) {
                           return TestName(param_info.param.name);
                         });

TEST(IoProblem, BaseProblemParses) {
  auto problem = ParseProblem(ProblemText());
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  EXPECT_EQ(problem->num_tensors(), 7);
  EXPECT_EQ(problem->num_ops(), 4);
  // widths[t] are columns, heights[t] rows (SPEC.md section 1).
  EXPECT_EQ(problem->tensor(0), (Tensor{/*width=*/256, /*height=*/128}));
  EXPECT_EQ(problem->op(0).type, OpType::kMatMul);
  EXPECT_EQ(problem->op(0).inputs, (std::vector<int>{0, 1}));
  EXPECT_EQ(problem->op(3).inputs, (std::vector<int>{5, 3}));
  EXPECT_EQ(problem->op(3).output, 6);
  EXPECT_EQ(problem->op(1).base_cost, 200);
  EXPECT_EQ(problem->hardware().fast_memory_capacity, 60000);
  EXPECT_EQ(problem->hardware().slow_memory_bandwidth, 10);
  EXPECT_EQ(problem->hardware().native_w, 128);
  EXPECT_EQ(problem->hardware().native_h, 128);
}

TEST(IoProblem, AcceptsIntegralFloatsAndFractionalCosts) {
  // 128.0 is an integer written as a float; costs and bandwidth may be fractional.
  auto problem = ParseProblem(ProblemText({{"widths", "[256.0, 128, 128, 128, 128, 128, 128]"},
                                           {"base_costs", "[1000.5, 0, 0.25, 50]"},
                                           {"slow_memory_bandwidth", "12.5"}}));
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  EXPECT_EQ(problem->tensor(0).width, 256);
  EXPECT_EQ(problem->op(0).base_cost, 1000.5);
  EXPECT_EQ(problem->op(1).base_cost, 0);
  EXPECT_EQ(problem->hardware().slow_memory_bandwidth, 12.5);
}

TEST(IoProblem, LoadProblemNamesTheFile) {
  const std::string missing = "/nonexistent/tilesched/problem.json";
  auto problem = LoadProblem(missing);
  ExpectOneLineError(problem.status(), {missing}, "missing file");
}

std::vector<ErrorCase> SolutionErrorCases() {
  std::vector<ErrorCase> cases = NotAnObjectCases(SolutionText(), "solution");
  for (const char* key : {"subgraphs", "granularities", "tensors_to_retain"}) {
    cases.push_back({std::string("missing ") + key, SolutionText({{key, kOmit}}),
                     {std::string(key) + ": missing key"}});
  }
  std::vector<ErrorCase> fields = {
      // List lengths (rule 3.9).
      {"granularities too short", SolutionText({{"granularities", "[[128, 128, 128]]"}}),
       {"granularities", "1 entries", "subgraphs has 2"}},
      {"tensors_to_retain too long", SolutionText({{"tensors_to_retain", "[[2], [], []]"}}),
       {"tensors_to_retain", "3 entries", "subgraphs has 2"}},
      {"traversal_orders too short", SolutionText({{"traversal_orders", "[null]"}}),
       {"traversal_orders", "1 entries", "subgraphs has 2"}},
      {"subgraph_latencies too long", SolutionText({{"subgraph_latencies", "[1, 2, 3]"}}),
       {"subgraph_latencies", "3 entries", "subgraphs has 2"}},
      {"granularities empty", SolutionText({{"granularities", "[]"}}),
       {"granularities", "0 entries", "subgraphs has 2"}},
      // Granularities are [w, h, k] integers.
      {"granularity of 2 ints", SolutionText({{"granularities", "[[128, 128], [64, 64, 1]]"}}),
       {"granularities[0]", "[w, h, k]"}},
      {"granularity of 4 ints",
       SolutionText({{"granularities", "[[128, 128, 128], [64, 64, 1, 1]]"}}),
       {"granularities[1]", "[w, h, k]"}},
      {"granularity is a string", SolutionText({{"granularities", R"(["128", [64, 64, 1]])"}}),
       {"granularities[0]", "[w, h, k]"}},
      {"granularity entry fractional",
       SolutionText({{"granularities", "[[128, 12.5, 128], [64, 64, 1]]"}}),
       {"granularities[0][1]", "12.5"}},
      {"granularity entry a string",
       SolutionText({{"granularities", R"([[128, 128, 128], [64, 64, "1"]])"}}),
       {"granularities[1][2]", "string"}},
      // Wrong types inside the lists.
      {"subgraphs is an object", SolutionText({{"subgraphs", "{}"}}),
       {"subgraphs", "array", "object"}},
      {"subgraph is a string", SolutionText({{"subgraphs", R"([[0], "1"])"}}),
       {"subgraphs[1]", "string"}},
      {"subgraph op is null", SolutionText({{"subgraphs", "[[0], [1, null]]"}}),
       {"subgraphs[1][1]", "null"}},
      {"tensors_to_retain is null", SolutionText({{"tensors_to_retain", "null"}}),
       {"tensors_to_retain", "null"}},
      {"retained list is null", SolutionText({{"tensors_to_retain", "[[2], null]"}}),
       {"tensors_to_retain[1]", "null"}},
      {"retained id is a boolean", SolutionText({{"tensors_to_retain", "[[2], [true]]"}}),
       {"tensors_to_retain[1][0]", "boolean"}},
      {"traversal_orders is a string", SolutionText({{"traversal_orders", "\"raster\""}}),
       {"traversal_orders", "string"}},
      {"traversal order is a number", SolutionText({{"traversal_orders", "[null, 5]"}}),
       {"traversal_orders[1]", "number"}},
      {"traversal entry is a string", SolutionText({{"traversal_orders", R"([null, [0, "1"]])"}}),
       {"traversal_orders[1][1]", "string"}},
      {"subgraph_latencies is a number", SolutionText({{"subgraph_latencies", "7"}}),
       {"subgraph_latencies", "number"}},
      {"latency is a string", SolutionText({{"subgraph_latencies", R"([1.5, "x"])"}}),
       {"subgraph_latencies[1]", "string"}},
      {"latency overflows a double", SolutionText({{"subgraph_latencies", "[1.5, 1e999]"}}),
       {"1e999"}},
  };
  cases.insert(cases.end(), fields.begin(), fields.end());
  return cases;
}

class IoSolutionErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(IoSolutionErrorTest, FailsNamingTheField) {
  const ErrorCase& c = GetParam();
  auto schedule = ParseSolution(c.text);
  ExpectOneLineError(schedule.status(), c.needles, c.name);
}

INSTANTIATE_TEST_SUITE_P(Io, IoSolutionErrorTest, ::testing::ValuesIn(SolutionErrorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& param_info) {
                           return TestName(param_info.param.name);
                         });

TEST(IoSolution, BaseSolutionParses) {
  auto schedule = ParseSolution(SolutionText());
  ASSERT_TRUE(schedule.ok()) << schedule.status().message();
  ASSERT_EQ(schedule->subgraphs.size(), 2u);
  const Subgraph& first = schedule->subgraphs[0];
  const Subgraph& second = schedule->subgraphs[1];
  EXPECT_EQ(first.ops, (std::vector<int>{0}));
  EXPECT_EQ(first.granularity, (Granularity{128, 128, 128}));
  EXPECT_EQ(first.retained, (std::vector<int>{2}));
  EXPECT_TRUE(first.traversal.empty());
  EXPECT_EQ(first.reported_latency, 1.5);
  EXPECT_EQ(second.ops, (std::vector<int>{1, 2}));
  EXPECT_EQ(second.granularity, (Granularity{64, 64, 1}));
  EXPECT_TRUE(second.retained.empty());
  EXPECT_EQ(second.traversal, (std::vector<int64_t>{0, 1, 3, 2}));
  EXPECT_EQ(second.reported_latency, 2.5);
}

// traversal_orders is optional as a whole and per entry; null and [] both mean raster order,
// which the Schedule holds as an empty vector (SPEC.md section 2).
struct TraversalCase {
  std::string name;
  std::string value;  // raw JSON for traversal_orders, or kOmit
  std::vector<int64_t> first;
  std::vector<int64_t> second;
};

// gtest prints a failing parameter; the case name says more than its bytes.
void PrintTo(const TraversalCase& c, std::ostream* os) { *os << c.name; }

class IoTraversalTest : public ::testing::TestWithParam<TraversalCase> {};

TEST_P(IoTraversalTest, Parses) {
  const TraversalCase& c = GetParam();
  auto schedule = ParseSolution(SolutionText({{"traversal_orders", c.value}}));
  ASSERT_TRUE(schedule.ok()) << c.name << ": " << schedule.status().message();
  ASSERT_EQ(schedule->subgraphs.size(), 2u);
  EXPECT_EQ(schedule->subgraphs[0].traversal, c.first) << c.name;
  EXPECT_EQ(schedule->subgraphs[1].traversal, c.second) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Io, IoTraversalTest,
    ::testing::ValuesIn(std::vector<TraversalCase>{
        {"absent", kOmit, {}, {}},
        {"null as a whole", "null", {}, {}},
        {"null per entry", "[null, null]", {}, {}},
        {"empty per entry", "[[], []]", {}, {}},
        {"mixed", "[[], null]", {}, {}},
        {"lists", "[[0], [0, 1, 3, 2]]", {0}, {0, 1, 3, 2}},
        // Parsing checks types only; whether it is a permutation is rule 3.7 (Evaluate).
        {"not a permutation", "[[5, 5], [-1]]", {5, 5}, {-1}},
    }),
    [](const ::testing::TestParamInfo<TraversalCase>& param_info) {
      return TestName(param_info.param.name);
    });

TEST(IoSolution, LatenciesAreOptional) {
  auto absent = ParseSolution(SolutionText({{"subgraph_latencies", kOmit}}));
  ASSERT_TRUE(absent.ok()) << absent.status().message();
  EXPECT_FALSE(absent->subgraphs[0].reported_latency.has_value());
  EXPECT_FALSE(absent->subgraphs[1].reported_latency.has_value());

  auto null_list = ParseSolution(SolutionText({{"subgraph_latencies", "null"}}));
  ASSERT_TRUE(null_list.ok()) << null_list.status().message();
  EXPECT_FALSE(null_list->subgraphs[0].reported_latency.has_value());

  auto partial = ParseSolution(SolutionText({{"subgraph_latencies", "[null, 367001.6]"}}));
  ASSERT_TRUE(partial.ok()) << partial.status().message();
  EXPECT_FALSE(partial->subgraphs[0].reported_latency.has_value());
  EXPECT_EQ(partial->subgraphs[1].reported_latency, 367001.6);
}

TEST(IoSolution, EmptyScheduleParses) {
  auto schedule = ParseSolution(
      R"({"subgraphs": [], "granularities": [], "tensors_to_retain": []})");
  ASSERT_TRUE(schedule.ok()) << schedule.status().message();
  EXPECT_TRUE(schedule->subgraphs.empty());
}

void ExpectSameSchedule(const Schedule& actual, const Schedule& expected,
                        const std::vector<double>& latencies) {
  ASSERT_EQ(actual.subgraphs.size(), expected.subgraphs.size());
  for (size_t s = 0; s < expected.subgraphs.size(); ++s) {
    const Subgraph& a = actual.subgraphs[s];
    const Subgraph& e = expected.subgraphs[s];
    EXPECT_EQ(a.ops, e.ops) << "subgraph " << s;
    EXPECT_EQ(a.granularity, e.granularity) << "subgraph " << s;
    EXPECT_EQ(a.retained, e.retained) << "subgraph " << s;
    EXPECT_EQ(a.traversal, e.traversal) << "subgraph " << s;
    // Latencies must survive bit for bit; a missing one is written as null.
    const std::optional<double> latency =
        s < latencies.size() ? std::optional<double>(latencies[s]) : std::nullopt;
    EXPECT_EQ(a.reported_latency, latency) << "subgraph " << s;
  }
}

TEST(IoSolution, RoundTrips) {
  const Schedule schedule = Sched({
      Sg({0}, {128, 128, 128}, {2}),
      Sg({1, 2}, {64, 32, 1}, {}, {0, 1, 3, 2, 5, 4, 7, 6}),
      Sg({3, 1}, {1, 128, 7}, {4, 6}, {0}),
  });
  // Values whose shortest decimal form differs from a naive printf.
  const std::vector<double> latencies = {367001.6, 0.1 + 0.2, 1e-7};
  const std::string text = SolutionToJson(schedule, latencies);
  auto parsed = ParseSolution(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << text;
  ExpectSameSchedule(*parsed, schedule, latencies);
}

TEST(IoSolution, WriterEmitsAllFiveListsEvenWithoutLatencies) {
  const Schedule schedule = Sched({Sg({0}, {128, 128, 1}), Sg({1}, {64, 64, 1})});
  const std::string text = SolutionToJson(schedule, /*latencies=*/{});
  for (const char* key : {"subgraphs", "granularities", "tensors_to_retain", "traversal_orders",
                          "subgraph_latencies"}) {
    EXPECT_NE(text.find(std::string("\"") + key + "\""), std::string::npos) << key;
  }
  auto parsed = ParseSolution(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ExpectSameSchedule(*parsed, schedule, {});
}

TEST(IoSolution, EmptyScheduleRoundTrips) {
  auto parsed = ParseSolution(SolutionToJson(Schedule{}, {}));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->subgraphs.empty());
}

void ExpectSameProblem(const Problem& actual, const Problem& expected) {
  EXPECT_EQ(actual.tensors(), expected.tensors());
  ASSERT_EQ(actual.num_ops(), expected.num_ops());
  for (int o = 0; o < expected.num_ops(); ++o) {
    EXPECT_EQ(actual.op(o).type, expected.op(o).type) << "op " << o;
    EXPECT_EQ(actual.op(o).inputs, expected.op(o).inputs) << "op " << o;
    EXPECT_EQ(actual.op(o).output, expected.op(o).output) << "op " << o;
    EXPECT_EQ(actual.op(o).base_cost, expected.op(o).base_cost) << "op " << o;
  }
  EXPECT_EQ(actual.hardware().fast_memory_capacity, expected.hardware().fast_memory_capacity);
  EXPECT_EQ(actual.hardware().slow_memory_bandwidth, expected.hardware().slow_memory_bandwidth);
  EXPECT_EQ(actual.hardware().native_w, expected.hardware().native_w);
  EXPECT_EQ(actual.hardware().native_h, expected.hardware().native_h);
}

TEST(IoProblem, RoundTripsThroughProblemToJson) {
  // Non-square native tile, fractional bandwidth and costs, an op reading one tensor twice and
  // an unused tensor: all must survive.
  ProblemBuilder b(/*capacity=*/123457, /*bandwidth=*/12.3, /*native=*/128);
  const int x = b.Tensor(96, 64), w = b.Tensor(64, 32), y = b.Tensor(96, 32);
  const int z = b.Tensor(96, 32);
  b.Tensor(5, 7);  // unused: neither input nor output
  b.MatMul(x, w, y, /*cost=*/0.1);
  b.Pointwise({y, y}, z, /*cost=*/1e-3);
  const Problem original = b.Build();
  auto narrow = original.WithHardware({123457, 12.3, /*native_w=*/64, /*native_h=*/32});
  ASSERT_TRUE(narrow.ok()) << narrow.status().message();

  const std::string text = ProblemToJson(*narrow);
  auto parsed = ParseProblem(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << text;
  ExpectSameProblem(*parsed, *narrow);
}

// Model names (an imported problem's): optional keys, one string per op / tensor; they survive
// a round trip, and a contest problem (no names) is written without them.
TEST(IoProblem, ModelNamesAreOptionalAndRoundTrip) {
  std::string text = ProblemText();
  text.insert(text.rfind('}'), R"(, "op_names": ["fc/MatMul", "act", "norm", "out"],
      "tensor_names": ["x", "w", "h", "b", "a", "n", "y"])");
  auto named = ParseProblem(text);
  ASSERT_TRUE(named.ok()) << named.status().message();
  EXPECT_EQ(named->op_name(0), "fc/MatMul");
  EXPECT_EQ(named->tensor_name(6), "y");
  auto again = ParseProblem(ProblemToJson(*named));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->names().ops, named->names().ops);
  EXPECT_EQ(again->names().tensors, named->names().tensors);

  auto plain = ParseProblem(ProblemText());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->op_name(0), "");
  EXPECT_EQ(ProblemToJson(*plain).find("op_names"), std::string::npos);

  std::string short_list = ProblemText();
  short_list.insert(short_list.rfind('}'), R"(, "op_names": ["a", "b"])");
  ExpectOneLineError(ParseProblem(short_list).status(), {"op_names", "2 entries", "4 ops"}, "short op_names");
  std::string not_string = ProblemText();
  not_string.insert(not_string.rfind('}'), R"(, "tensor_names": ["x", 3, "h", "b", "a", "n", "y"])");
  ExpectOneLineError(ParseProblem(not_string).status(), {"tensor_names[1]", "expected a string"}, "number name");
}

TEST(IoProblem, BaseProblemRoundTrips) {
  auto original = ParseProblem(ProblemText());
  ASSERT_TRUE(original.ok()) << original.status().message();
  auto parsed = ParseProblem(ProblemToJson(*original));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ExpectSameProblem(*parsed, *original);
}

// The 24 contest benchmarks plus the contest's example_problem.json (data/benchmarks/README.md).
std::vector<std::filesystem::path> BenchmarkFiles() {
  const std::filesystem::path dir = std::filesystem::path(TILESCHED_SOURCE_DIR) / "data/benchmarks";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(IoBenchmarks, AllLoadAndRoundTrip) {
  const std::vector<std::filesystem::path> files = BenchmarkFiles();
  ASSERT_EQ(files.size(), 25u);
  for (const auto& file : files) {
    auto problem = LoadProblem(file.string());
    ASSERT_TRUE(problem.ok()) << problem.status().message();
    auto again = ParseProblem(ProblemToJson(*problem));
    ASSERT_TRUE(again.ok()) << file << ": " << again.status().message();
    ExpectSameProblem(*again, *problem);
  }
}

TEST(IoBenchmarks, BenchmarkOneHasItsPublishedShape) {
  auto problem = LoadProblem(
      (std::filesystem::path(TILESCHED_SOURCE_DIR) / "data/benchmarks/mlsys-2026-1.json").string());
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  EXPECT_EQ(problem->num_ops(), 5);
  EXPECT_EQ(problem->num_tensors(), 9);
  EXPECT_EQ(problem->hardware().fast_memory_capacity, 60000);
  EXPECT_EQ(problem->hardware().slow_memory_bandwidth, 20);
  EXPECT_EQ(problem->op(0).type, OpType::kMatMul);
  EXPECT_EQ(problem->op(1).type, OpType::kPointwise);
}

}  // namespace
}  // namespace tilesched
