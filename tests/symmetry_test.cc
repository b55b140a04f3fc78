// Lemma T7 (docs/bounds.md, "Tier 2: the covering LP"): interchangeable branches
// (search/symmetry.h) and tier 2 listed up to them (Tier2Options::symmetry), on random problems
// made of two to six copies of a random template of 1-3 ops, some of the template's inputs
// shared by every copy, sometimes a Pointwise op joining one output of each copy (its inputs in
// copy order or reversed) and sometimes one producing a shared input:
//   (a) Symmetry::Find finds the copies as one class, and each op set's representative prices
//       as the op set does (ContextPricer::Evaluate, nothing retained or resident);
//   (b) the listing up to symmetry holds exactly the representatives of every connected op set
//       the plain listing holds, in all 8 modes;
//   (c) tier 2 listed up to symmetry, with the rows summed per orbit, is at most the optimum of
//       the brute-force enumerator (tests/brute_force.h) in all 8 modes, and equal to tier 2 listed
//       in full wherever both converge within 1e-6; so are tier 2 by link components up to
//       symmetry (W2's masks kept) and tier 2 up to symmetry with Lemma T5 on every op set;
//   (a') IsAutomorphism rejects maps that are not automorphisms (operands swapped, a repeated
//       input, a base cost, a kept mask, not a permutation, and a swap that colour refinement
//       cannot tell from one), and a kept mask keeps its copy out of every class;
//   (d) Lemma T7 on a problem that is out of tier 2's reach otherwise: moe-4x4-e8's expert
//       components (tests/split_tier2_test.cc, SplitTier2.SymmetryPricesTheExpertComponents).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "bound_problems.h"
#include "brute_force.h"
#include "build_kind.h"
#include "context_pricer.h"
#include "plan_cache.h"
#include "random_problem.h"
#include "symmetry.h"
#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

constexpr double kTolerance = 1e-9;

struct Copies {
  int copies = 0;
  std::vector<std::vector<int>> ops;  // per copy, its ops
  std::optional<Problem> built;
  const Problem& problem() const { return *built; }
};

// `copies` copies of a random template (BoundProblemOptions, 1-3 ops), at most 6 ops in all.
Copies SymmetricProblem(uint64_t seed) {
  std::mt19937_64 rng(seed);
  testing::RandomProblemOptions options = testing::BoundProblemOptions(seed);
  options.min_ops = 1;
  options.max_ops = 3;
  const Problem t = testing::RandomProblem(seed, options);
  const int n = t.num_ops();
  const int most = std::max(2, 6 / n);
  const int k = 2 + static_cast<int>(rng() % static_cast<uint64_t>(most - 1));
  int extra = 6 - k * n;
  const Hardware& hw = t.hardware();
  testing::ProblemBuilder b(hw.fast_memory_capacity * (1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(k))),
                            hw.slow_memory_bandwidth, hw.native_w);
  std::vector<int> shared(static_cast<size_t>(t.num_tensors()), -1);
  int shared_input = -1;
  for (int x = 0; x < t.num_tensors(); ++x) {
    if (t.is_graph_input(x) && rng() % 2 == 0) {
      shared[static_cast<size_t>(x)] = b.Tensor(t.tensor(x).height, t.tensor(x).width);
      if (shared_input < 0) shared_input = x;
    }
  }
  Copies result;
  result.copies = k;
  std::vector<std::vector<int>> ids(static_cast<size_t>(k));
  for (int c = 0; c < k; ++c) {
    auto& id = ids[static_cast<size_t>(c)];
    for (int x = 0; x < t.num_tensors(); ++x) {
      id.push_back(shared[static_cast<size_t>(x)] >= 0 ? shared[static_cast<size_t>(x)]
                                                         : b.Tensor(t.tensor(x).height, t.tensor(x).width));
    }
    result.ops.emplace_back();
    for (int o = 0; o < n; ++o) {
      const Op& op = t.op(o);
      std::vector<int> in;
      for (int x : op.inputs) in.push_back(id[static_cast<size_t>(x)]);
      const int out = id[static_cast<size_t>(op.output)];
      result.ops.back().push_back(op.type == OpType::kMatMul ? b.MatMul(in[0], in[1], out, op.base_cost)
                                                             : b.Pointwise(in, out, op.base_cost));
    }
  }
  if (extra > 0 && rng() % 2 == 0) {  // a Pointwise op reading one output of each copy
    int y = -1;
    for (int x = 0; x < t.num_tensors() && y < 0; ++x) {
      if (t.is_graph_output(x)) y = x;
    }
    std::vector<int> in;
    for (int c = 0; c < k; ++c) in.push_back(ids[static_cast<size_t>(c)][static_cast<size_t>(y)]);
    if (rng() % 2 == 0) std::reverse(in.begin(), in.end());
    b.Pointwise(in, b.Tensor(t.tensor(y).height, t.tensor(y).width), 50.0 * static_cast<double>(1 + rng() % 8));
    --extra;
  }
  if (extra > 0 && shared_input >= 0 && rng() % 2 == 0) {  // a shared input computed first
    const Tensor& s = t.tensor(shared_input);
    b.Pointwise({b.Tensor(s.height, s.width)}, shared[static_cast<size_t>(shared_input)],
                50.0 * static_cast<double>(1 + rng() % 8));
  }
  result.built.emplace(b.Build());
  return result;
}

constexpr uint64_t kFirstSeed = 41001;

int Problems() { return testing::kInstrumentedBuild ? 30 : 300; }
// The enumerator's runs take most of the time: fewer problems there, the 27th to 38th under the
// sanitizers (the 9th alone takes 10 s of the release run's 79, the 27th-38th 1.3 s in all, and
// they hold link components priced up to symmetry).
int BruteForceProblems() { return testing::kInstrumentedBuild ? 12 : 120; }
int FirstBruteForceProblem() { return testing::kInstrumentedBuild ? 26 : 0; }

// (a) The copies are found (as one class of k branches, or, where a copy's ops are alike, as
// finer branches), and a representative prices as its op set does.
TEST(Symmetry, FindsTheCopiesAndRepresentativesPriceAlike) {
  int found = 0, exact = 0;
  int64_t compared = 0;
  for (int i = 0; i < Problems(); ++i) {
    const Copies p = SymmetricProblem(kFirstSeed + static_cast<uint64_t>(i));
    SCOPED_TRACE(ProblemToJson(p.problem()));
    const search::Symmetry symmetry = search::Symmetry::Find(p.problem(), {});
    found += !symmetry.trivial();
    for (const search::BranchClass& c : symmetry.classes()) {
      std::set<std::vector<int>> got;
      for (auto branch : c.branches) {
        std::sort(branch.begin(), branch.end());
        got.insert(branch);
      }
      exact += got == std::set<std::vector<int>>(p.ops.begin(), p.ops.end());
    }
    const CostModes modes = testing::AllModes()[static_cast<size_t>(i) % 8];
    search::PlanCache plans(p.problem());
    const search::Budget budget(0, nullptr);
    search::ContextPricer pricer(p.problem(), modes, plans, budget, 100000);
    ASSERT_TRUE(pricer.EnumerateOpSets(1000000));
    std::vector<int> index(size_t{1} << p.problem().num_ops(), -1);
    for (size_t s = 0; s < pricer.op_sets().size(); ++s) {
      index[pricer.op_set(static_cast<int>(s)).ops.low()] = static_cast<int>(s);  // op ids below 64
    }
    for (size_t s = 0; s < pricer.op_sets().size(); ++s) {
      const search::Mask ops = pricer.op_set(static_cast<int>(s)).ops;
      const search::Mask rep = symmetry.Canonical(ops);
      ASSERT_EQ(symmetry.Canonical(rep), rep);
      ASSERT_EQ(Popcount(rep), Popcount(ops));
      ASSERT_GE(index[rep.low()], 0) << "representative " << rep << " of " << ops << " not listed";
      const double a = pricer.Evaluate(static_cast<int>(s), 0, 0, search::Pricing::kExact, 0).lb;
      const double r = pricer.Evaluate(index[rep.low()], 0, 0, search::Pricing::kExact, 0).lb;
      if (std::isinf(a)) {
        EXPECT_TRUE(std::isinf(r)) << ops << " -> " << rep;
      } else {
        EXPECT_NEAR(r, a, 1e-12 * a) << ops << " -> " << rep;
      }
      compared += rep != ops;
    }
  }
  std::printf("[ T7 ] %d problems: symmetry found in %d, the copies as one class in %d; %lld op sets priced against "
              "another representative\n",
              Problems(), found, exact, static_cast<long long>(compared));
  EXPECT_GE(found, Problems() * 9 / 10);
  EXPECT_GE(exact, Problems() / 2);
  EXPECT_GT(compared, Problems());
}

// (b) One op set per orbit: the plain listing's representatives, no more and no fewer.
TEST(Symmetry, ListsOneOpSetPerOrbit) {
  int64_t plain = 0, orbits = 0;
  for (int i = 0; i < Problems(); ++i) {
    const Copies p = SymmetricProblem(kFirstSeed + static_cast<uint64_t>(i));
    const search::Symmetry symmetry = search::Symmetry::Find(p.problem(), {});
    for (const CostModes& modes : testing::AllModes()) {
      SCOPED_TRACE(ModesString(modes) + ": " + ProblemToJson(p.problem()));
      search::PlanCache plans(p.problem());
      const search::Budget budget(0, nullptr);
      search::ContextPricer all(p.problem(), modes, plans, budget, 100000), up_to(p.problem(), modes, plans, budget, 100000);
      ASSERT_TRUE(all.EnumerateOpSets(1000000));
      ASSERT_TRUE(up_to.EnumerateOpSets(1000000, nullptr, 0, &symmetry));
      std::set<search::Mask> expected;
      for (const search::OpSet& c : all.op_sets()) expected.insert(symmetry.Canonical(c.ops));
      std::vector<search::Mask> got;
      for (const search::OpSet& c : up_to.op_sets()) got.push_back(c.ops);
      ASSERT_EQ(got, std::vector<search::Mask>(expected.begin(), expected.end()));
      plain += static_cast<int64_t>(all.op_sets().size());
      orbits += static_cast<int64_t>(got.size());
    }
  }
  std::printf("[ T7 ] %d problems x 8 modes: %lld op sets, %lld orbits\n", Problems(), static_cast<long long>(plain),
              static_cast<long long>(orbits));
  EXPECT_LT(orbits * 5, plain * 4);  // the listing does shrink
}

// (c) Below the enumerated optimum, and the LP's value unchanged.
TEST(Symmetry, Tier2UpToSymmetryBelowBruteForceOptimum) {
  const std::vector<CostModes> all_modes = testing::AllModes();
  struct Run {
    testing::BruteForceResult optimum;
    search::Tier2Result full, up_to, relaxed;  // relaxed: up to symmetry with Lemma T5 everywhere
    search::SplitTier2Result split;             // by link components, up to symmetry
  };
  const int n = BruteForceProblems();
  const uint64_t first = kFirstSeed + static_cast<uint64_t>(FirstBruteForceProblem());
  std::vector<std::vector<Run>> runs(static_cast<size_t>(n));
  auto solve = [&](int worker) {
    for (int i = worker; i < n; i += 2) {
      const Copies p = SymmetricProblem(first + static_cast<uint64_t>(i));
      for (const CostModes& modes : all_modes) {
        search::Tier2Options options;
        options.modes = modes;
        options.threads = 1;
        options.symmetry = search::Tier2Symmetry::kOff;
        Run run{testing::BruteForceOptimum(p.problem(), modes, testing::AdmissibilityLimits()),
                search::Tier2Bound(p.problem(), options), {}, {}, {}};
        options.symmetry = search::Tier2Symmetry::kAlways;
        run.up_to = search::Tier2Bound(p.problem(), options);
        run.split = search::SplitTier2Bound(p.problem(), options);
        options.retention_subsets = 1;
        run.relaxed = search::Tier2Bound(p.problem(), options);
        runs[static_cast<size_t>(i)].push_back(std::move(run));
      }
    }
  };
  std::thread helper(solve, 1);
  solve(0);
  helper.join();
  int64_t checked = 0, symmetric = 0, equal = 0, converged = 0, at_optimum = 0, split_parts = 0, relaxed = 0;
  for (int i = 0; i < n; ++i) {
    const Copies p = SymmetricProblem(first + static_cast<uint64_t>(i));
    for (size_t m = 0; m < all_modes.size(); ++m) {
      const Run& run = runs[static_cast<size_t>(i)][m];
      SCOPED_TRACE(ModesString(all_modes[m]) + ": " + ProblemToJson(p.problem()));
      EXPECT_TRUE(run.optimum.error.empty()) << run.optimum.error;
      if (!run.optimum.found) continue;
      ++checked;
      symmetric += run.up_to.symmetry_classes > 0;
      ASSERT_LE(run.up_to.value, run.optimum.total * (1 + kTolerance))
          << "tier 2 up to symmetry " << run.up_to.value << " exceeds the optimum " << run.optimum.total
          << "\noptimum: " << SolutionToJson(run.optimum.schedule, {});
      if (run.up_to.value >= run.optimum.total * (1 - 1e-6)) ++at_optimum;
      ASSERT_LE(run.split.value, run.optimum.total * (1 + kTolerance)) << "split up to symmetry";
      ASSERT_LE(run.relaxed.value, run.optimum.total * (1 + kTolerance)) << "up to symmetry with Lemma T5";
      for (const search::SplitTier2Component& part : run.split.parts) {
        split_parts += part.tier2_summary.find("Lemma T7") != std::string::npos && run.split.parts.size() > 1;
      }
      relaxed += run.relaxed.relaxed_op_sets > 0 && run.relaxed.symmetry_classes > 0;
      if (run.full.status != search::Tier2Status::kConverged || run.up_to.status != search::Tier2Status::kConverged) {
        continue;
      }
      ++converged;
      if (std::abs(run.up_to.value - run.full.value) <= 1e-6 * run.full.value) ++equal;
      EXPECT_NEAR(run.up_to.value, run.full.value, 1e-6 * run.full.value);
    }
  }
  std::printf("[ T7 ] %lld runs with an optimum (%lld listed up to symmetry): converged both ways in %lld, equal "
              "in %lld, at the optimum in %lld; %lld link components of a split priced up to symmetry, %lld runs "
              "up to symmetry with op sets under Lemma T5\n",
              static_cast<long long>(checked), static_cast<long long>(symmetric), static_cast<long long>(converged),
              static_cast<long long>(equal), static_cast<long long>(at_optimum), static_cast<long long>(split_parts),
              static_cast<long long>(relaxed));
  EXPECT_GT(checked, n * 8 * 9 / 10);
  EXPECT_GT(symmetric, checked * 9 / 10);
  EXPECT_EQ(converged, checked);
  EXPECT_GT(split_parts, 0);
  EXPECT_GT(relaxed, checked / 10);
}

// (a') Maps that are not automorphisms, each rejected for its own reason.
TEST(Symmetry, IsAutomorphismRejectsWhatIsNotOne) {
  using search::IsAutomorphism;
  std::vector<int> identity_ops(2), identity_tensors(6);
  std::iota(identity_ops.begin(), identity_ops.end(), 0);
  std::iota(identity_tensors.begin(), identity_tensors.end(), 0);
  {
    // C = A @ B and D = B @ A: swapping the MatMuls needs A <-> B as well (slots matter).
    testing::ProblemBuilder b(1000, 1, 2);
    const int a = b.Tensor(4, 4), bb = b.Tensor(4, 4), c = b.Tensor(4, 4), d = b.Tensor(4, 4);
    b.MatMul(a, bb, c, 100);
    b.MatMul(bb, a, d, 100);
    const Problem problem = b.Build();
    std::vector<int> ops{1, 0}, tensors{0, 1, 3, 2};
    EXPECT_TRUE(IsAutomorphism(problem, {0, 1}, {0, 1, 2, 3}, {}));
    EXPECT_FALSE(IsAutomorphism(problem, ops, tensors, {}));
    tensors = {1, 0, 3, 2};
    EXPECT_TRUE(IsAutomorphism(problem, ops, tensors, {}));
    const search::Mask only_a = 1;
    EXPECT_FALSE(IsAutomorphism(problem, ops, tensors, std::vector<search::Mask>{only_a}));  // A's mask bit
    EXPECT_FALSE(IsAutomorphism(problem, ops, {1, 1, 3, 2}, {}));                            // not a permutation
  }
  {
    // C = PW(A, A) and D = PW(A, B): no map sends one onto the other; nor do different costs.
    testing::ProblemBuilder b(1000, 1, 2);
    const int a = b.Tensor(4, 4), bb = b.Tensor(4, 4), c = b.Tensor(4, 4), d = b.Tensor(4, 4);
    b.Pointwise({a, a}, c, 100);
    b.Pointwise({a, bb}, d, 100);
    const Problem problem = b.Build();
    EXPECT_FALSE(IsAutomorphism(problem, {1, 0}, {0, 1, 3, 2}, {}));
    EXPECT_FALSE(IsAutomorphism(problem, {1, 0}, {1, 0, 3, 2}, {}));
    testing::ProblemBuilder e(1000, 1, 2);
    const int x = e.Tensor(4, 4), y = e.Tensor(4, 4), u = e.Tensor(4, 4), v = e.Tensor(4, 4);
    e.Pointwise({x}, u, 100);
    e.Pointwise({y}, v, 150);
    EXPECT_FALSE(IsAutomorphism(e.Build(), {1, 0}, {1, 0, 3, 2}, {}));
  }
  // A ring of four Pointwise ops over four inputs, P_i(X_i, X_i+1): every op and input has one
  // colour, but the swap of P1 and P3 alone (X1 <-> X3, X2 <-> X4) maps P2 onto P4's inputs, so
  // it is not one; the rotation is. Tier 2 up to whatever Find keeps equals tier 2 in full.
  testing::ProblemBuilder b(40, 1, 2);
  std::vector<int> xs, ys;
  for (int i = 0; i < 4; ++i) xs.push_back(b.Tensor(4, 4));
  for (int i = 0; i < 4; ++i) ys.push_back(b.Tensor(4, 4));
  for (int i = 0; i < 4; ++i) b.Pointwise({xs[static_cast<size_t>(i)], xs[static_cast<size_t>((i + 1) % 4)]}, ys[static_cast<size_t>(i)], 100);
  const Problem ring = b.Build();
  EXPECT_FALSE(IsAutomorphism(ring, {2, 1, 0, 3}, {2, 3, 0, 1, 6, 5, 4, 7}, {}));
  EXPECT_TRUE(IsAutomorphism(ring, {1, 2, 3, 0}, {1, 2, 3, 0, 5, 6, 7, 4}, {}));
  const search::Symmetry symmetry = search::Symmetry::Find(ring, {});
  for (const CostModes& modes : testing::AllModes()) {
    search::Tier2Options options;
    options.modes = modes;
    options.threads = 1;
    options.symmetry = search::Tier2Symmetry::kOff;
    const search::Tier2Result full = search::Tier2Bound(ring, options);
    options.symmetry = search::Tier2Symmetry::kAlways;
    const search::Tier2Result up_to = search::Tier2Bound(ring, options);
    const testing::BruteForceResult optimum = testing::BruteForceOptimum(ring, modes);
    ASSERT_TRUE(optimum.found);
    EXPECT_LE(up_to.value, optimum.total * (1 + kTolerance));
    EXPECT_NEAR(up_to.value, full.value, 1e-6 * full.value);
    EXPECT_EQ(up_to.symmetry_classes, static_cast<int64_t>(symmetry.classes().size()));
  }
}

// (a') A kept mask on one copy's own input: no class then swaps an op reading it with one that
// does not (the other copies may still form a class of their own).
TEST(Symmetry, KeptMaskKeepsItsCopyApart) {
  int applied = 0, kept_apart = 0;
  for (int i = 0; i < Problems(); ++i) {
    const Copies p = SymmetricProblem(kFirstSeed + static_cast<uint64_t>(i));
    const Problem& problem = p.problem();
    // A graph input that copy 0 reads and no other copy does.
    int own = -1;
    for (int o : p.ops[0]) {
      for (int t : problem.op(o).inputs) {
        bool shared = false;
        for (size_t c = 1; c < p.ops.size(); ++c) {
          for (int x : p.ops[c]) {
            const auto& in = problem.op(x).inputs;
            shared = shared || std::find(in.begin(), in.end(), t) != in.end();
          }
        }
        if (own < 0 && problem.is_graph_input(t) && !shared) own = t;
      }
    }
    if (own < 0) continue;
    ++applied;
    const search::Mask mask = search::Mask{1} << own;
    const search::Symmetry symmetry = search::Symmetry::Find(problem, std::vector<search::Mask>{mask});
    // Only `own` has the mask's bit, so a branch reading it swaps only with one that reads it too.
    for (const search::BranchClass& c : symmetry.classes()) {
      int reading = 0;
      for (const auto& branch : c.branches) {
        bool reads = false;
        for (int o : branch) {
          const auto& in = problem.op(o).inputs;
          reads = reads || std::find(in.begin(), in.end(), own) != in.end();
        }
        reading += reads;
      }
      EXPECT_TRUE(reading == 0 || reading == static_cast<int>(c.branches.size())) << ProblemToJson(problem);
      kept_apart += reading == 0 && c.branches.size() + 1 == p.ops.size();
    }
  }
  std::printf("[ T7 ] a kept mask on copy 0's own input in %d of %d problems; %d classes of the other copies "
              "alone\n",
              applied, Problems(), kept_apart);
  EXPECT_GT(applied, Problems() / 4);
  EXPECT_GT(kept_apart, applied / 4);
}

}  // namespace
}  // namespace tilesched
