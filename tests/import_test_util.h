// Shared by the importer's tests (import_test.cc, import_rules_test.cc, import_exports_test.cc):
// the test hardware description and op-by-op expectations (types, shapes, base costs).
#ifndef TILESCHED_TESTS_IMPORT_TEST_UTIL_H_
#define TILESCHED_TESTS_IMPORT_TEST_UTIL_H_

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilesched/hardware.h"
#include "tilesched/import.h"

namespace tilesched {

// Native 8x8, MatMul 64 MACs and vector 16 elements per time unit: a MatMul's base cost is
// 8*8*K/64 = K and a Pointwise op's is 8*8*work/16 = 4*work.
inline HardwareDescription TestHardware() {
  HardwareDescription hw;
  hw.name = "test";
  hw.source = "illustrative";
  hw.native_w = hw.native_h = 8;
  hw.fast_memory_bytes = 8192;
  hw.slow_memory_bytes_per_time = 20;
  hw.element_bytes = 2;
  hw.matmul_macs_per_time = 64;
  hw.vector_elements_per_time = 16;
  hw.operator_costs = {{"Exp", 4}, {"Erf", 8}, {"Div", 2}};
  return hw;
}

// "rows x cols" of tensor t.
inline std::string Shape(const Problem& p, int t) {
  return std::to_string(p.tensor(t).height) + "x" + std::to_string(p.tensor(t).width);
}

struct Expected {
  OpType type;
  std::vector<std::string> inputs;  // shapes
  std::string output;
  double cost;
};

inline void ExpectOps(const ImportedModel& m, const std::vector<Expected>& expected) {
  const Problem& p = m.problem;
  ASSERT_EQ(p.num_ops(), static_cast<int>(expected.size()));
  for (int o = 0; o < p.num_ops(); ++o) {
    SCOPED_TRACE("op " + std::to_string(o) + " " + m.op_names[o]);
    EXPECT_EQ(p.op(o).type, expected[o].type);
    std::vector<std::string> shapes;
    for (int t : p.op(o).inputs) shapes.push_back(Shape(p, t));
    EXPECT_EQ(shapes, expected[o].inputs);
    EXPECT_EQ(Shape(p, p.op(o).output), expected[o].output);
    EXPECT_DOUBLE_EQ(p.op(o).base_cost, expected[o].cost);
  }
}

constexpr OpType kMM = OpType::kMatMul;
constexpr OpType kPW = OpType::kPointwise;

}  // namespace tilesched

#endif  // TILESCHED_TESTS_IMPORT_TEST_UTIL_H_
