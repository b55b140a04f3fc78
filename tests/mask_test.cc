// search::Mask, the 128-bit sets of ops and tensors of tier 2 and the exact mode (search/mask.h):
// every operator against the compiler's 128-bit integer, and problems of 65-80 tensors (their
// ids spread over both words; W2's masks of a link component above bit 63) against the
// brute-force enumerator, which holds its sets in that integer and shares no code with search/.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <random>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "bound_problems.h"
#include "brute_force.h"
#include "build_kind.h"
#include "context_pricer.h"
#include "mask.h"
#include "random_problem.h"
#include "test_util.h"
#include "tilesched/graph.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

using search::Mask;
__extension__ typedef unsigned __int128 Reference;

Reference Of(Mask m) { return (static_cast<Reference>(m.high()) << 64) | m.low(); }
Mask From(Reference r) { return Mask(static_cast<uint64_t>(r >> 64), static_cast<uint64_t>(r)); }

TEST(Mask, ActsAsAnUnsigned128BitInteger) {
  std::mt19937_64 rng(2026);
  auto draw = [&] {
    // Sparse, dense and one-word values, so that borrows, carries and empty words occur, and
    // the empty mask.
    const uint64_t kind = rng() % 5;
    if (kind == 4) return Mask{};
    const uint64_t hi = kind == 0 ? 0 : kind == 1 ? rng() & rng() : rng();
    const uint64_t lo = kind == 2 ? 0 : kind == 3 ? ~uint64_t{0} : rng();
    return Mask(hi, lo);
  };
  int64_t checked = 0;
  for (int i = 0; i < 4000; ++i) {
    const Mask a = draw(), b = draw();
    const Reference ra = Of(a), rb = Of(b);
    ASSERT_EQ(Of(a | b), ra | rb);
    ASSERT_EQ(Of(a & b), ra & rb);
    ASSERT_EQ(Of(a ^ b), ra ^ rb);
    ASSERT_EQ(Of(~a), ~ra);
    ASSERT_EQ(Of(a - b), ra - rb);
    ASSERT_EQ(Of(a - 1), ra - 1);
    ASSERT_EQ(a == b, ra == rb);
    ASSERT_EQ(a < b, ra < rb);
    ASSERT_EQ(a > b, ra > rb);
    ASSERT_EQ(static_cast<bool>(a), ra != 0);
    ASSERT_EQ(!a, ra == 0);
    int ones = 0, lowest = 128;
    for (int s = 0; s < 128; ++s) {
      ASSERT_EQ(Of(a << s), ra << s) << s;
      ASSERT_EQ(Of(a >> s), ra >> s) << s;
      const bool bit = ((ra >> s) & 1) != 0;
      ASSERT_EQ(a.test(s), bit) << s;
      ones += bit;
      if (bit && lowest == 128) lowest = s;
    }
    ASSERT_EQ(Popcount(a), ones);
    ASSERT_EQ(CountrZero(a), lowest);
    Mask c = a;
    c |= Mask{1} << static_cast<int>(rng() % 128);
    c &= ~(Mask{1} << static_cast<int>(rng() % 128));
    c ^= b;
    ASSERT_EQ(From(Of(c)), c);
    checked += 4 * 128 + 10;
  }
  // The walk the code uses: lowest bit, then clear it.
  const Mask m = (Mask{1} << 3) | (Mask{1} << 63) | (Mask{1} << 64) | (Mask{1} << 127);
  std::vector<int> ids;
  for (Mask x = m; x; x &= x - 1) ids.push_back(CountrZero(x));
  EXPECT_EQ(ids, (std::vector<int>{3, 63, 64, 127}));
  EXPECT_EQ(search::Ids(m), ids);
  EXPECT_EQ(search::MaskOf(ids), m);
  std::ostringstream text;
  text << m << " " << Mask{} << " " << (Mask{1} << 64);
  EXPECT_EQ(text.str(), "0x80000000000000018000000000000008 0x0 0x10000000000000000");
  std::printf("[ mask ] %lld operations against unsigned __int128\n", static_cast<long long>(checked));
}

// Problem `p` with capacity at least `capacity` and, when `pad` > 0, a Pointwise op of 1 x 1
// tensors reading `pad` - 1 new graph inputs; tensor ids permuted by `order` (new id of tensor
// t: order[t]) when it is not empty.
Problem Widened(const Problem& p, int64_t capacity, int pad, const std::vector<int>& order) {
  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  for (int t = 0; t < p.num_tensors(); ++t) tensors.push_back(p.tensor(t));
  for (int o = 0; o < p.num_ops(); ++o) ops.push_back(p.op(o));
  if (pad > 0) {
    Op extra{OpType::kPointwise, {}, -1, 50};
    for (int i = 0; i < pad; ++i) {
      tensors.push_back({1, 1});
      if (i + 1 < pad) extra.inputs.push_back(static_cast<int>(tensors.size()) - 1);
    }
    extra.output = static_cast<int>(tensors.size()) - 1;
    ops.push_back(extra);
  }
  if (!order.empty()) {
    std::vector<Tensor> moved(tensors.size());
    for (size_t t = 0; t < tensors.size(); ++t) moved[static_cast<size_t>(order[t])] = tensors[t];
    tensors = moved;
    for (Op& op : ops) {
      for (int& t : op.inputs) t = order[static_cast<size_t>(t)];
      op.output = order[static_cast<size_t>(op.output)];
    }
  }
  Hardware hw = p.hardware();
  hw.fast_memory_capacity = std::max(hw.fast_memory_capacity, capacity);
  auto made = Problem::Create(tensors, ops, hw);
  EXPECT_TRUE(made.ok()) << made.status().message();
  return std::move(made).value();
}

search::Tier2Result Tier2(const Problem& problem, const CostModes& modes) {
  search::Tier2Options options;
  options.modes = modes;
  options.threads = 1;
  return search::Tier2Bound(problem, options);
}

// The brute-force optimum of `problem` in every mode of `modes`; false if one has none.
bool Optima(const Problem& problem, const std::vector<CostModes>& modes, uint64_t seed,
            std::vector<testing::BruteForceResult>* optima) {
  bool found_all = true;
  for (const CostModes& m : modes) {
    optima->push_back(testing::BruteForceOptimum(problem, m, testing::AdmissibilityLimits()));
    EXPECT_TRUE(optima->back().error.empty()) << "seed " << seed << ": " << optima->back().error;
    found_all = found_all && optima->back().found && optima->back().error.empty();
  }
  return found_all;
}

// A random small problem (the bound tests' kind) next to a Pointwise op of 1 x 1 tensors with
// so many inputs that the problem has 65-80 tensors, the ids shuffled over both words of the
// masks or the small problem's on the highest ids. Tier 2 is at most the enumerated
// optimum, and equals the sum of tier 2 on the two parts apart (nothing links them, so the LP
// splits in two: the same LP as with 64-bit masks where both parts fit in them). The exact
// mode's schedule is never worse than the enumerator's (equal where it is exhaustive) and its
// bound is never above it.
TEST(Mask, WideProblemsAgainstBruteForce) {
  const int wanted = testing::kInstrumentedBuild ? 4 : 24;
  const std::vector<CostModes> all_modes = testing::AllModes();
  int problems = 0, runs = 0, high_word = 0, exhaustive = 0, at_optimum = 0, exact_runs = 0;
  for (uint64_t seed = 71001; problems < wanted; ++seed) {
    ASSERT_LT(seed, 71001u + 10u * static_cast<uint64_t>(wanted)) << "too few problems with an optimum";
    const Problem small = testing::RandomProblem(seed, testing::BoundProblemOptions(seed));
    const int total = 65 + static_cast<int>(seed % 16);
    const int pad = total - small.num_tensors();
    const int64_t capacity = pad + 8;  // the extra op's 1 x 1 inputs fit at once
    // New ids: shuffled over all (odd seeds), or the small problem's on the highest ids.
    std::vector<int> order(static_cast<size_t>(total));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);
    if (seed % 2 == 0) {
      std::sort(order.begin(), order.end(), std::greater<>());
      std::shuffle(order.begin(), order.begin() + small.num_tensors(), rng);
    }
    const Problem wide = Widened(small, capacity, pad, order);
    const Problem left = Widened(small, capacity, 0, {});
    ASSERT_EQ(wide.num_tensors(), total);
    ASSERT_FALSE(wide.num_tensors() <= 64);
    ASSERT_TRUE(search::ContextPricer::Fits(wide));
    // The extra op alone, on the same hardware.
    testing::ProblemBuilder b(wide.hardware().fast_memory_capacity, wide.hardware().slow_memory_bandwidth,
                              wide.hardware().native_w);
    std::vector<int> ins;
    for (int i = 0; i + 1 < pad; ++i) ins.push_back(b.Tensor(1, 1));
    b.Pointwise(ins, b.Tensor(1, 1), 50);
    const Problem extra = b.Build();
    std::vector<testing::BruteForceResult> optima;
    if (!Optima(wide, all_modes, seed, &optima)) continue;
    ++problems;
    for (int t = 0; t < small.num_tensors(); ++t) high_word += order[static_cast<size_t>(t)] >= 64;
    for (size_t mi = 0; mi < all_modes.size(); ++mi) {
      const CostModes& modes = all_modes[mi];
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + ModesString(modes) + ": " + ProblemToJson(wide));
      const testing::BruteForceResult& optimum = optima[mi];
      const search::Tier2Result whole = Tier2(wide, modes);
      const search::Tier2Result a = Tier2(left, modes), c = Tier2(extra, modes);
      ++runs;
      ASSERT_EQ(whole.status, search::Tier2Status::kConverged) << search::Tier2Summary(whole);
      ASSERT_EQ(a.status, search::Tier2Status::kConverged) << search::Tier2Summary(a);
      ASSERT_EQ(c.status, search::Tier2Status::kConverged) << search::Tier2Summary(c);
      ASSERT_LE(whole.value, optimum.total * (1 + 1e-9)) << "tier 2 above the optimum";
      EXPECT_NEAR(whole.value, a.value + c.value, 1e-6 * optimum.total);
      at_optimum += whole.value >= optimum.total * (1 - 1e-6);
      if (mi % 4 != 0) continue;  // the exact mode in two of the modes
      search::SearchOptions options;
      options.strategy = "exact";
      options.threads = 1;
      options.modes = modes;
      auto result = search::RunSearch(wide, options);
      if (!result.ok() && result.status().message().find("fits in fast memory at no tile size") != std::string::npos) {
        continue;  // RunSearch needs every op to fit alone (exact_test.cc)
      }
      ASSERT_TRUE(result.ok()) << result.status().message();
      ++exact_runs;
      const double tolerance = 1e-9 * std::max(1.0, optimum.total);
      EXPECT_LE(result->total, optimum.total + tolerance);
      EXPECT_LE(result->lower_bound, optimum.total + tolerance);
      if (optimum.exhaustive) {
        ++exhaustive;
        EXPECT_NEAR(result->total, optimum.total, tolerance);
      }
    }
  }
  std::printf("[ mask ] %d problems of 65-80 tensors (%d of their first tensors with ids of 64 or more): "
              "%d tier-2 runs, all converged, never above the optimum, equal to the parts' sum, at the "
              "optimum in %d; exact mode %d runs, %d against an exhaustive enumeration\n",
              problems, high_word, runs, at_optimum, exact_runs, exhaustive);
  EXPECT_GE(problems, wanted);
  EXPECT_GT(high_word, problems);  // the ids do reach the high word
  EXPECT_GT(at_optimum, 0);
  EXPECT_GT(exhaustive, 0);
}

// Lemma W2's masks on ids above 63: a random problem whose op 0 is a Pointwise op, with 64 new
// graph inputs (of op 0's output shape, before its own inputs) and room for them in fast
// memory. Op 0 is the first op of its link component, so in that component's own problem the
// 64 come first and every other tensor has an id of 64 or more, among them the tensors that
// cross to other components (the `free_resident` and `rebate` bits). Tier 2 by link components
// and tier 2 of the whole are at most the enumerated optimum, in all 8 modes.
TEST(Mask, SplitWithMasksAboveBit63AgainstBruteForce) {
  const int wanted = testing::kInstrumentedBuild ? 1 : 16;
  const std::vector<CostModes> all_modes = testing::AllModes();
  int problems = 0, runs = 0, split_runs = 0, crossing_runs = 0;
  for (uint64_t seed = 72001; problems < wanted; ++seed) {
    ASSERT_LT(seed, 72001u + 40u * static_cast<uint64_t>(wanted)) << "too few problems";
    const Problem small = testing::RandomProblem(seed, testing::BoundProblemOptions(seed));
    if (small.op(0).type != OpType::kPointwise || small.num_ops() < 2) continue;
    std::vector<Tensor> tensors;
    std::vector<Op> ops;
    for (int t = 0; t < small.num_tensors(); ++t) tensors.push_back(small.tensor(t));
    for (int o = 0; o < small.num_ops(); ++o) ops.push_back(small.op(o));
    const Tensor shape = small.tensor(small.op(0).output);
    std::vector<int> inputs;
    for (int i = 0; i < 64; ++i) {
      tensors.push_back(shape);
      inputs.push_back(static_cast<int>(tensors.size()) - 1);
    }
    inputs.insert(inputs.end(), ops[0].inputs.begin(), ops[0].inputs.end());
    ops[0].inputs = inputs;
    Hardware hw = small.hardware();
    hw.fast_memory_capacity += 64 * shape.size();
    auto made = Problem::Create(tensors, ops, hw);
    ASSERT_TRUE(made.ok()) << made.status().message();
    const Problem& wide = *made;
    // Runs where the problem splits and op 0's component has a tensor crossing to another.
    std::vector<bool> crossing(all_modes.size(), false);
    bool any = false;
    for (size_t mi = 0; mi < all_modes.size(); ++mi) {
      const std::vector<int> of = LinkComponents(wide, all_modes[mi]);
      for (int o = 0; o < wide.num_ops(); ++o) {
        if (of[static_cast<size_t>(o)] != of[0]) continue;
        const Op& op = wide.op(o);
        for (int t : op.inputs) {
          const int p = wide.producer(t);
          if (p >= 0 && of[static_cast<size_t>(p)] != of[0]) crossing[mi] = true;
        }
        for (int r : wide.graph().successors(o)) {
          if (of[static_cast<size_t>(r)] != of[0]) crossing[mi] = true;
        }
      }
      any = any || crossing[mi];
    }
    if (!any) continue;
    std::vector<testing::BruteForceResult> optima;
    if (!Optima(wide, all_modes, seed, &optima)) continue;
    ++problems;
    for (size_t mi = 0; mi < all_modes.size(); ++mi) {
      const CostModes& modes = all_modes[mi];
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + ModesString(modes) + ": " + ProblemToJson(wide));
      search::Tier2Options options;
      options.modes = modes;
      options.threads = 1;
      const search::SplitTier2Result split = search::SplitTier2Bound(wide, options);
      const search::Tier2Result whole = Tier2(wide, modes);
      ++runs;
      split_runs += split.components >= 2;
      crossing_runs += crossing[mi];
      EXPECT_EQ(split.status, search::Tier2Status::kConverged) << search::SplitTier2Summary(split);
      EXPECT_EQ(whole.status, search::Tier2Status::kConverged) << search::Tier2Summary(whole);
      ASSERT_LE(split.value, optima[mi].total * (1 + 1e-9)) << "split tier 2 above the optimum";
      ASSERT_LE(whole.value, optima[mi].total * (1 + 1e-9)) << "tier 2 above the optimum";
    }
  }
  std::printf("[ mask ] %d problems of 64 inputs more on op 0: %d runs, %d that split, %d with a tensor "
              "crossing out of or into op 0's component (ids of 64 or more there); never above the "
              "optimum\n",
              problems, runs, split_runs, crossing_runs);
  EXPECT_GE(problems, wanted);
  EXPECT_GE(crossing_runs, problems);
}

}  // namespace
}  // namespace tilesched
