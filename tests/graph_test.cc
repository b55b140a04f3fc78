// Graph: topological order (smallest ready op first), ranks, producers, consumers,
// successors/predecessors, graph inputs/outputs, cycle messages and the DOT export; the Bitset
// of ids the graph passes and the search use, against std::vector<bool>.
#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "random_problem.h"
#include "test_files.h"
#include "spec_problems.h"
#include "test_util.h"
#include "tilesched/bitset.h"
#include "tilesched/graph.h"
#include "tilesched/problem.h"

namespace tilesched {
namespace {

using testing::ProblemBuilder;

std::vector<int> ToVector(std::span<const int> span) { return {span.begin(), span.end()}; }

// Every op after all its predecessors, each op exactly once, topo_rank its inverse.
void ExpectValidTopoOrder(const Problem& p) {
  const Graph& g = p.graph();
  const std::vector<int>& order = g.topo_order();
  ASSERT_EQ(static_cast<int>(order.size()), p.num_ops());
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int o = 0; o < p.num_ops(); ++o) ASSERT_EQ(sorted[o], o);
  for (int i = 0; i < p.num_ops(); ++i) EXPECT_EQ(g.topo_rank(order[i]), i);
  for (int o = 0; o < p.num_ops(); ++o) {
    for (int t : p.op(o).inputs) {
      const int producer = g.producer(t);
      if (producer >= 0) {
        EXPECT_LT(g.topo_rank(producer), g.topo_rank(o)) << "op " << producer << " -> op " << o;
      }
    }
  }
}

// Op ids listed against dependency order, all 128x128:
//   op 0 PW(T3)->T4, op 1 PW(T0)->T1, op 2 PW(T1)->T3, op 3 PW(T0)->T2
Problem OutOfOrder() {
  ProblemBuilder b(60000, 10);
  for (int t = 0; t < 5; ++t) b.Tensor(128, 128);
  b.Pointwise({3}, 4, 1);
  b.Pointwise({0}, 1, 1);
  b.Pointwise({1}, 3, 1);
  b.Pointwise({0}, 2, 1);
  return b.Build();
}

TEST(GraphTopo, SmallestReadyOpFirst) {
  const Problem p = OutOfOrder();
  // Ready {1, 3} -> 1; ready {2, 3} -> 2; ready {0, 3} -> 0; then 3. A DFS order or a plain
  // id order would differ.
  EXPECT_EQ(p.graph().topo_order(), (std::vector<int>{1, 2, 0, 3}));
  EXPECT_EQ(p.graph().topo_rank(0), 2);
  EXPECT_EQ(p.graph().topo_rank(1), 0);
  EXPECT_EQ(p.graph().topo_rank(2), 1);
  EXPECT_EQ(p.graph().topo_rank(3), 3);
  ExpectValidTopoOrder(p);
}

TEST(GraphTopo, IdOrderWhenAlreadySorted) {
  // A chain declared in order keeps its ids as the order.
  ProblemBuilder b(60000, 10);
  for (int t = 0; t < 4; ++t) b.Tensor(128, 128);
  b.Pointwise({0}, 1, 1);
  b.Pointwise({1}, 2, 1);
  b.Pointwise({2}, 3, 1);
  const Problem p = b.Build();
  EXPECT_EQ(p.graph().topo_order(), (std::vector<int>{0, 1, 2}));
}

TEST(GraphTopo, ValidOnRandomProblems) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ExpectValidTopoOrder(testing::RandomProblem(seed));
  }
}

// Diamond with a repeated read and an unused tensor, all 128x128:
//   op 0 PW(T0)->T1, op 1 PW(T1, T1)->T2, op 2 PW(T1, T0)->T3, op 3 PW(T2, T3, T2)->T4; T5 unused.
Problem DiamondWithRepeats() {
  ProblemBuilder b(60000, 10);
  for (int t = 0; t < 6; ++t) b.Tensor(128, 128);
  b.Pointwise({0}, 1, 1);
  b.Pointwise({1, 1}, 2, 1);
  b.Pointwise({1, 0}, 3, 1);
  b.Pointwise({2, 3, 2}, 4, 1);
  return b.Build();
}

TEST(GraphEdges, ProducersAndConsumers) {
  const Problem p = DiamondWithRepeats();
  const Graph& g = p.graph();
  EXPECT_EQ(g.num_ops(), 4);
  EXPECT_EQ(g.num_tensors(), 6);
  const std::vector<int> producers = {-1, 0, 1, 2, 3, -1};
  const std::vector<std::vector<int>> consumers = {
      {0, 2},  // T0
      {1, 2},  // T1: op 1 reads it twice, listed once
      {3},     // T2: op 3 reads it twice (not adjacently), listed once
      {3},     // T3
      {},      // T4
      {},      // T5
  };
  for (int t = 0; t < g.num_tensors(); ++t) {
    EXPECT_EQ(g.producer(t), producers[t]) << "tensor " << t;
    EXPECT_EQ(ToVector(g.consumers(t)), consumers[t]) << "tensor " << t;
  }
}

TEST(GraphEdges, SuccessorsAndPredecessorsAreDistinct) {
  const Problem p = DiamondWithRepeats();
  const Graph& g = p.graph();
  const std::vector<std::vector<int>> successors = {{1, 2}, {3}, {3}, {}};
  const std::vector<std::vector<int>> predecessors = {{}, {0}, {0}, {1, 2}};
  for (int o = 0; o < g.num_ops(); ++o) {
    EXPECT_EQ(ToVector(g.successors(o)), successors[o]) << "op " << o;
    EXPECT_EQ(ToVector(g.predecessors(o)), predecessors[o]) << "op " << o;
  }
}

TEST(GraphEdges, InputsAndOutputs) {
  const Problem p = DiamondWithRepeats();
  const Graph& g = p.graph();
  // T5 is neither produced nor read: in neither list.
  EXPECT_EQ(g.graph_inputs(), (std::vector<int>{0}));
  EXPECT_EQ(g.graph_outputs(), (std::vector<int>{4}));
}

TEST(GraphEdges, SeveralOutputs) {
  // E10 of SPEC.md: two MatMuls share X; both results are graph outputs.
  const Problem p = testing::spec::E10();
  const int x = 0, wq = 1, wk = 2, q = 3, k = 4;  // tensor ids as built
  EXPECT_EQ(p.graph().graph_inputs(), (std::vector<int>{x, wq, wk}));
  EXPECT_EQ(p.graph().graph_outputs(), (std::vector<int>{q, k}));
  EXPECT_EQ(ToVector(p.graph().consumers(x)), (std::vector<int>{0, 1}));
  EXPECT_TRUE(p.graph().successors(0).empty());
  EXPECT_TRUE(p.graph().predecessors(1).empty());
}

using testing::CountOf;

TEST(GraphDot, OneNodePerOpOneEdgePerDependency) {
  const Problem p = DiamondWithRepeats();
  const std::vector<std::string> labels = {"PW0", "PW1", "PW2", "PW3"};
  const std::vector<std::string> attributes = {"fillcolor=red", "", "", ""};
  const std::string dot = p.graph().ToDot(labels, attributes);
  EXPECT_EQ(CountOf(dot, "[label="), p.num_ops()) << dot;
  for (const std::string& label : labels) {
    EXPECT_EQ(CountOf(dot, "\"" + label + "\""), 1) << label << "\n" << dot;
  }
  EXPECT_NE(dot.find("fillcolor=red"), std::string::npos) << dot;
  // Edges 0->1, 0->2, 1->3, 2->3: repeated reads add no parallel edges.
  EXPECT_EQ(CountOf(dot, "->"), 4) << dot;
  EXPECT_NE(dot.find("0->1"), std::string::npos) << dot;
  EXPECT_NE(dot.find("2->3"), std::string::npos) << dot;
}

struct CycleCase {
  std::string name;
  std::vector<Op> ops;
  std::vector<std::string> needles;
};

// gtest prints a failing parameter; the case name says more than its bytes.
void PrintTo(const CycleCase& c, std::ostream* os) { *os << c.name; }

class GraphCycleTest : public ::testing::TestWithParam<CycleCase> {};

TEST_P(GraphCycleTest, NamesAnOpOnTheCycle) {
  const CycleCase& c = GetParam();
  auto graph = Graph::Create(/*num_tensors=*/4, c.ops);
  ASSERT_FALSE(graph.ok()) << c.name;
  const std::string message = graph.status().message();
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  for (const std::string& needle : c.needles) {
    EXPECT_NE(message.find(needle), std::string::npos)
        << c.name << ": message does not say '" << needle << "': " << message;
  }
}

Op Pw(std::vector<int> inputs, int output) {
  return {OpType::kPointwise, std::move(inputs), output, 1};
}

INSTANTIATE_TEST_SUITE_P(
    Graph, GraphCycleTest,
    ::testing::ValuesIn(std::vector<CycleCase>{
        {"SelfLoop", {Pw({0}, 0)}, {"cycle", "op 0 writes tensor 0, which op 0 reads"}},
        // op 0 reads T1 (op 1's), op 1 reads T0 (op 0's).
        {"TwoOps", {Pw({1}, 0), Pw({0}, 1)}, {"cycle"}},
        // 0 -> 1 -> 2 -> 0 via T0, T1, T2: the DFS from op 0 meets the back edge 2 -> 0, and the
        // message must state that edge the right way round.
        {"ThreeOps",
         {Pw({2}, 0), Pw({0}, 1), Pw({1}, 2)},
         {"cycle", "op 2 writes tensor 2, which op 0 reads"}},
        // A cycle not reachable from op 0's DFS root, behind an acyclic prefix.
        {"BehindAcyclicPrefix",
         {Pw({3}, 0), Pw({2}, 1), Pw({1}, 2)},
         {"cycle", "op 2 writes tensor 2, which op 1 reads"}},
        {"ProducedTwice", {Pw({0}, 1), Pw({0}, 1)}, {"tensor 1", "produced twice", "ops 0 and 1"}},
    }),
    [](const ::testing::TestParamInfo<CycleCase>& param_info) { return param_info.param.name; });

// Sets of up to 1,024 ids live inside the object, larger ones on the heap: every operation on
// sizes at both sides of that line, and copies between them, against std::vector<bool>.
TEST(Bitset, AgreesWithVectorOfBoolOnBothSidesOfTheInlineSize) {
  std::mt19937_64 rng(2026);
  auto random_set = [&](int n, std::vector<bool>* ref) {
    Bitset set(n);
    ref->assign(static_cast<size_t>(n), false);
    std::uniform_int_distribution<int> id(0, n - 1);
    for (int i = 0; i < n / 3 + 1; ++i) {
      const int x = id(rng);
      if (rng() % 4 == 0) {
        set.Reset(x);
        (*ref)[static_cast<size_t>(x)] = false;
      } else {
        set.Set(x);
        (*ref)[static_cast<size_t>(x)] = true;
      }
    }
    return set;
  };
  auto expect_equal = [](const Bitset& set, const std::vector<bool>& ref, int n) {
    int count = 0;
    for (int x = 0; x < n; ++x) {
      ASSERT_EQ(set.Test(x), ref[static_cast<size_t>(x)]) << "n " << n << " id " << x;
      count += ref[static_cast<size_t>(x)];
    }
    EXPECT_EQ(set.Count(), count) << "n " << n;
    std::vector<int> listed;
    set.ForEach([&](int x) { listed.push_back(x); });
    EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end()));
    EXPECT_EQ(static_cast<int>(listed.size()), count) << "n " << n;
    EXPECT_EQ(set.words().size(), (static_cast<size_t>(n) + 63) / 64) << "n " << n;
  };
  for (int n : {1, 63, 64, 65, 1000, 1023, 1024, 1025, 1088, 3000}) {
    for (int round = 0; round < 4; ++round) {
      std::vector<bool> ra, rb;
      Bitset a = random_set(n, &ra), b = random_set(n, &rb);
      expect_equal(a, ra, n);
      bool intersects = false;
      for (int x = 0; x < n; ++x) intersects |= ra[static_cast<size_t>(x)] && rb[static_cast<size_t>(x)];
      EXPECT_EQ(a.Intersects(b), intersects) << "n " << n;
      Bitset both = a;
      both.And(b);
      Bitset either = a;
      either.Or(b);
      std::vector<bool> r_both(ra.size()), r_either(ra.size());
      for (size_t x = 0; x < ra.size(); ++x) {
        r_both[x] = ra[x] && rb[x];
        r_either[x] = ra[x] || rb[x];
      }
      expect_equal(both, r_both, n);
      expect_equal(either, r_either, n);
      // A copy is a set of its own: changing it leaves the original as it was.
      Bitset copy = a;
      EXPECT_TRUE(copy == a);
      copy.Set(n - 1);
      copy.Reset(0);
      expect_equal(a, ra, n);
      std::vector<bool> r_copy = ra;
      r_copy[static_cast<size_t>(n - 1)] = true;
      r_copy[0] = false;  // after the Set, as on the copy
      expect_equal(copy, r_copy, n);
      EXPECT_EQ(copy == a, r_copy == ra) << "n " << n;
      if (::testing::Test::HasFailure()) return;
    }
  }
  // Assignment across the inline size, both ways, and sets of different sizes never equal.
  std::vector<bool> r_small, r_large;
  Bitset small = random_set(100, &r_small), large = random_set(2000, &r_large);
  EXPECT_FALSE(small == large);
  Bitset target = small;
  target = large;
  expect_equal(target, r_large, 2000);
  target = small;
  expect_equal(target, r_small, 100);
  // A move takes the words along and leaves the empty set behind, on both sides of the inline
  // size; the empty set can be assigned to again.
  Bitset moved = std::move(large);
  expect_equal(moved, r_large, 2000);
  EXPECT_TRUE(large == Bitset());
  EXPECT_EQ(large.Count(), 0);
  Bitset moved_small = std::move(small);
  expect_equal(moved_small, r_small, 100);
  EXPECT_TRUE(small == Bitset());
  large = std::move(moved);
  expect_equal(large, r_large, 2000);
  EXPECT_EQ(moved.words().size(), 0U);
  Bitset& alias = large;
  large = std::move(alias);
  expect_equal(large, r_large, 2000);
  EXPECT_TRUE(Bitset() == Bitset());
  EXPECT_EQ(Bitset().Count(), 0);
}

}  // namespace
}  // namespace tilesched
