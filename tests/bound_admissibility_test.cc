// Admissibility of the lower bound (issue 8): ComputeLowerBounds(problem, modes).best() never
// exceeds the latency of a valid schedule, in every mode combination of SPEC.md section 7.
//
//   (a) on >= 1,000 random problems of 1-6 ops (120 under the sanitizers) the bound is at most
//       the optimum of the brute-force enumerator (tests/brute_force.h), in all 8 modes; a
//       summary line gives how many runs were exhaustive and the optimum / bound ratios;
//   (b) the bound is at most the total of every valid random schedule of the differential test
//       generator (RandomSchedule + RandomizeTraversals, the seeds of cost_model_test.cc); the
//       property test checks the search's results against the bound itself;
//   (c) the enumerator itself: its optimum is at most every SPEC.md section 8 total of a valid
//       schedule and every random schedule of its own space, a tile beyond the sink costs as
//       the sink (a claim its space rests on), it finds hand-computed optima of tiny problems,
//       and it refuses problems beyond its space (more than 16 ops or 128 tensors).
// None of this reuses src/bound/: the enumerator costs with the evaluator's pieces and
// every optimum it returns is re-scored by Evaluate().
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "bound_problems.h"
#include "brute_force.h"
#include "build_kind.h"
#include "random_problem.h"
#include "spec_problems.h"
#include "test_util.h"
#include "tilesched/cost_model.h"
#include "tilesched/demand.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"

namespace tilesched {
namespace {

using testing::BruteForceOptimum;
using testing::BruteForceResult;
using testing::ProblemBuilder;
using testing::RandomProblemOptions;
using testing::Sched;
using testing::Sg;

constexpr double kTolerance = 1e-9;

using testing::AllModes;

using testing::AdmissibilityLimits;
using testing::BoundProblemOptions;

std::string Reproduce(const Problem& problem, const CostModes& modes, const Schedule& schedule) {
  return "\nmodes: " + ModesString(modes) + "\nproblem: " + ProblemToJson(problem) +
         "\noptimum: " + SolutionToJson(schedule, {});
}

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(q * static_cast<double>(values.size() - 1))];
}

// (a) The bound is at most the enumerated optimum on >= 1,000 problems in every mode.
TEST(BoundAdmissibility, BelowBruteForceOptimumOnRandomProblems) {
  const int wanted = testing::kInstrumentedBuild ? 64 : 1000;
  const std::vector<CostModes> modes = AllModes();
  int problems = 0, infeasible = 0, cut_problems = 0;
  int64_t runs = 0, exhaustive = 0, reduced = 0, cut = 0, states = 0, cost_calls = 0;
  int64_t memory_bound = 0, compute_bound = 0, mixed = 0;  // subgraphs of the optima
  std::vector<double> ratios;
  int ops_seen[7] = {};
  // Seeds are solved in batches by two workers writing index-addressed slots; the checks run
  // in seed order, so the outcome does not depend on the threads.
  struct Run {
    BruteForceResult optimum;
    double bound = 0;
  };
  constexpr uint64_t kBatch = 64;
  const uint64_t last_seed = static_cast<uint64_t>(3 * wanted);
  for (uint64_t first = 1; problems < wanted && first <= last_seed; first += kBatch) {
    std::vector<std::vector<Run>> batch(kBatch);
    auto solve = [&](uint64_t worker) {
      for (uint64_t i = worker; i < kBatch; i += 2) {
        const uint64_t seed = first + i;
        const Problem problem = testing::RandomProblem(seed, BoundProblemOptions(seed));
        for (const CostModes& m : modes) {
          batch[i].push_back({BruteForceOptimum(problem, m, AdmissibilityLimits()),
                              ComputeLowerBounds(problem, m).best()});
        }
      }
    };
    std::thread helper(solve, 1);
    solve(0);
    helper.join();
    for (uint64_t i = 0; i < kBatch && problems < wanted; ++i) {
      const uint64_t seed = first + i;
      const Problem problem = testing::RandomProblem(seed, BoundProblemOptions(seed));
      bool all_found = true, cut_problem = false;
      for (size_t mi = 0; mi < modes.size(); ++mi) {
        const CostModes& m = modes[mi];
        const BruteForceResult& optimum = batch[i][mi].optimum;
        const double bound = batch[i][mi].bound;
        SCOPED_TRACE("seed " + std::to_string(seed) + ", " + ModesString(m));
        ++runs;
        states += optimum.states;
        cost_calls += optimum.cost_calls;
        exhaustive += optimum.exhaustive;
        reduced += optimum.reduced;
        cut += optimum.cut;
        ASSERT_TRUE(optimum.error.empty())
            << optimum.error << Reproduce(problem, m, optimum.schedule);
        ASSERT_EQ(optimum.lb_violations, 0) << Reproduce(problem, m, optimum.schedule);
        if (!optimum.found) {
          all_found = false;
          cut_problem = cut_problem || optimum.cut;
          continue;
        }
        ASSERT_LE(bound, optimum.total * (1 + kTolerance))
            << "the lower bound " << bound << " exceeds the optimum " << optimum.total
            << Reproduce(problem, m, optimum.schedule);
        if (bound > 0) ratios.push_back(optimum.total / bound);
        auto evaluation = Evaluate(problem, optimum.schedule, m);
        ASSERT_TRUE(evaluation.ok()) << evaluation.status().message();
        for (const SubgraphReport& sg : evaluation->subgraphs) {
          if (sg.cost.memory_bound_steps == 0) {
            ++compute_bound;
          } else if (sg.cost.compute_bound_steps == 0) {
            ++memory_bound;
          } else {
            ++mixed;
          }
        }
      }
      if (all_found) {
        ++problems;
        ++ops_seen[problem.num_ops()];
      } else if (cut_problem) {
        ++cut_problems;
      } else {
        ++infeasible;
      }
    }
  }
  char summary[640];
  std::snprintf(summary, sizeof summary,
                "bound admissibility: %d problems x %zu modes (skipped: %d with an infeasible mode, "
                "%d with a cut run), "
                "%lld runs, %lld exhaustive (%.1f%%), %lld in the reduced space, %lld cut; ops 1-6: %d %d %d %d %d %d; "
                "optimum/bound min %.4f median %.4f p90 %.4f max %.4f; optimal subgraphs "
                "memory-bound %lld, compute-bound %lld, mixed %lld; %lld states, %lld cost calls",
                problems, modes.size(), infeasible, cut_problems, static_cast<long long>(runs),
                static_cast<long long>(exhaustive), 100.0 * static_cast<double>(exhaustive) /
                static_cast<double>(std::max<int64_t>(1, runs)),
                static_cast<long long>(reduced), static_cast<long long>(cut), ops_seen[1], ops_seen[2], ops_seen[3], ops_seen[4],
                ops_seen[5], ops_seen[6], Quantile(ratios, 0), Quantile(ratios, 0.5),
                Quantile(ratios, 0.9), Quantile(ratios, 1), static_cast<long long>(memory_bound),
                static_cast<long long>(compute_bound), static_cast<long long>(mixed),
                static_cast<long long>(states), static_cast<long long>(cost_calls));
  std::printf("%s\n", summary);
  ::testing::Test::RecordProperty("summary", summary);
  EXPECT_GE(problems, wanted);
  // The space is meant to be searched in full; a cut or shrunken run is counted, not hidden.
  EXPECT_LE(cut, runs / 100);
  EXPECT_GE(exhaustive, runs * 9 / 10);
  // Every kind of subgraph occurs among the optima.
  EXPECT_GT(memory_bound, 0);
  EXPECT_GT(compute_bound, 0);
  EXPECT_GT(mixed, 0);
}

// (b) The bound is at most every valid schedule of the differential test's generator, in every
// mode, on the differential test's problems and on the enumerator's small ones.
TEST(BoundAdmissibility, BelowEveryRandomSchedule) {
  const std::vector<CostModes> modes = AllModes();
  int valid = 0;
  for (uint64_t seed = 0; seed < 600; ++seed) {
    for (int family = 0; family < 2; ++family) {
      const Problem problem = family == 0
                                  ? testing::RandomProblem(seed)
                                  : testing::RandomProblem(seed, BoundProblemOptions(seed));
      // The same schedule as CostModelDifferential.MatchesNaiveReferenceOnRandomSchedules.
      std::mt19937_64 rng(seed * 7919 + 1);
      Schedule schedule = testing::RandomSchedule(problem, seed);
      testing::RandomizeTraversals(problem, &schedule, rng);
      for (const CostModes& m : modes) {
        auto evaluation = Evaluate(problem, schedule, m);
        if (!evaluation.ok()) continue;
        ++valid;
        const double bound = ComputeLowerBounds(problem, m).best();
        ASSERT_LE(bound, evaluation->total * (1 + kTolerance))
            << "seed " << seed << " family " << family << Reproduce(problem, m, schedule);
      }
    }
  }
  EXPECT_GT(valid, 800);
}

// (c) The enumerator's optimum is at most the total of every valid SPEC.md section 8 schedule
// (and, with the same problem, at most what any other listed schedule of it achieves).
TEST(BruteForce, NoWorseThanSpecVectors) {
  using namespace testing::spec;
  struct Vector {
    const char* name;
    Problem problem;
    Schedule schedule;
    CostModes modes;
    double total;  // SPEC.md section 8
  };
  const Granularity g128{128, 128, 1};
  const CostModes algebra{Rules::kAlgebra, MatmulReduction::kFullK, KLimit::kNative};
  const CostModes native_k{Rules::kContest, MatmulReduction::kNativeK, KLimit::kNative};
  const CostModes reduction{Rules::kContest, MatmulReduction::kFullK, KLimit::kReduction};
  const std::vector<Vector> vectors = {
      {"1A", Chain2(35000), Sched({Sg({0}, g128), Sg({1}, g128)}), {}, 6553.6},
      {"1B", Chain2(35000), Sched({Sg({0, 1}, g128)}), {}, 3276.8},
      {"1C", Chain2(35000), Sched({Sg({0, 1}, {64, 64, 1})}), {}, 4400},
      {"2B", Chain2(35000, 256), Sched({Sg({0, 1}, g128)}), {}, 13107.2},
      {"3C", Diamond(), Sched({Sg({0}, g128, {1}), Sg({1, 2}, g128)}), {}, 4638.4},
      {"4B", SingleMatMul(), Sched({Sg({0}, {64, 64, 128}, {}, {0, 1, 3, 2})}), {}, 6548},
      {"5B", MatMulChain(), Sched({Sg({0, 1}, {128, 128, 32})}), {}, 6915.2},
      {"E2", E1(), Sched({Sg({0}, {128, 128, 128}, {2}), Sg({1}, g128)}), {}, 9830.4},
      {"E4 algebra", E4(), Sched({Sg({0, 1}, {128, 128, 64})}), algebra, 8192},
      {"E6 native_k", E6(), Sched({Sg({0}, {128, 128, 128})}), native_k, 80000},
      {"E7 reduction", E6(), Sched({Sg({0}, {128, 128, 256})}), reduction, 40000},
      {"E8", E8(), Sched({Sg({0, 1}, {128, 128, 32})}), {}, 11372.8},
      {"E10", E10(), Sched({Sg({0, 1}, {128, 64, 128})}), {}, 13107.2},
      {"E12", Chain2(30000), Sched({Sg({0}, {64, 64, 1}, {1}), Sg({1}, {64, 64, 1})}), {}, 5638.4},
      {"E13", E13(), Sched({Sg({0, 1, 2}, {128, 128, 32})}), {}, 7065.2},
  };
  for (size_t i = 0; i < vectors.size(); ++i) {
    const Vector& v = vectors[i];
    // About 12 s in Release; the sanitizer builds check every third vector.
    if (testing::kInstrumentedBuild && i % 3 != 0) continue;
    SCOPED_TRACE(v.name);
    auto evaluation = Evaluate(v.problem, v.schedule, v.modes);
    ASSERT_TRUE(evaluation.ok()) << evaluation.status().message();
    ASSERT_NEAR(evaluation->total, v.total, kTolerance * v.total);
    // Native 128: the full candidate sets would be 128^3, so the representative ones are used.
    const BruteForceResult optimum = BruteForceOptimum(v.problem, v.modes);
    ASSERT_TRUE(optimum.error.empty()) << optimum.error;
    ASSERT_TRUE(optimum.found);
    EXPECT_FALSE(optimum.cut);
    EXPECT_LE(optimum.total, v.total * (1 + kTolerance))
        << "enumerated " << SolutionToJson(optimum.schedule, {});
    EXPECT_GE(optimum.total, ComputeLowerBounds(v.problem, v.modes).best() * (1 - kTolerance));
  }
}

// The enumerator is never beaten by a schedule of its own space: random schedules of the
// differential generator in raster order (their tiles, k and retention are all in the space;
// a tile wider than the sink is the same grid as w = W) cost at least the exhaustive optimum.
TEST(BruteForce, NoWorseThanRandomSchedulesOfItsSpace) {
  const CostModes algebra{Rules::kAlgebra, MatmulReduction::kNativeK, KLimit::kReduction};
  int compared = 0;
  const uint64_t seeds = testing::kInstrumentedBuild ? 60 : 300;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    const Problem problem = testing::RandomProblem(seed, BoundProblemOptions(seed));
    const Schedule schedule = testing::RandomSchedule(problem, seed);
    for (const CostModes& m : {CostModes{}, algebra}) {
      auto evaluation = Evaluate(problem, schedule, m);
      if (!evaluation.ok()) continue;
      const BruteForceResult optimum = BruteForceOptimum(problem, m, AdmissibilityLimits());
      ASSERT_TRUE(optimum.found && optimum.error.empty()) << optimum.error;
      if (!optimum.exhaustive) continue;
      ++compared;
      EXPECT_LE(optimum.total, evaluation->total * (1 + kTolerance))
          << "seed " << seed << Reproduce(problem, m, schedule);
    }
  }
  EXPECT_GT(compared, static_cast<int>(seeds) / 4);
}

// The space's claim that a tile wider (or taller) than the sink is the same as w = W (h = H):
// edge tiles are clipped, so the grid, every slice and the working set are the same.
TEST(BruteForce, TilesBeyondTheSinkEqualTheSink) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const Problem problem = testing::RandomProblem(seed, BoundProblemOptions(seed));
    const CostModel model(problem, {Rules::kAlgebra, MatmulReduction::kFullK, KLimit::kReduction});
    const int64_t native = problem.hardware().native_w;
    for (int o = 0; o < problem.num_ops(); ++o) {
      auto plan = SubgraphPlan::Create(problem, {o});
      ASSERT_TRUE(plan.ok());
      if (plan->width() >= native && plan->height() >= native) continue;
      const Granularity sink{std::min(native, plan->width()), std::min(native, plan->height()), 1};
      const Granularity wide{native, native, 1};
      auto a = model.Cost(*plan, sink, {}, {}, {});
      auto b = model.Cost(*plan, wide, {}, {}, {});
      ASSERT_EQ(a.ok(), b.ok()) << "seed " << seed << " op " << o;
      if (!a.ok()) continue;
      ++compared;
      EXPECT_EQ(a->latency, b->latency) << "seed " << seed << " op " << o;
      EXPECT_EQ(a->peak_working_set, b->peak_working_set) << "seed " << seed << " op " << o;
    }
  }
  EXPECT_GT(compared, 100);
}

// PW0(T0 5x5)->T1, cost 10, native 4, bandwidth 1. Tiles are at most 4x4, so the 5-long sides
// split as (4,1), (3,2), (2,2,1) or ones, and some tile has area <= 4. A tile of area a costs
// max(10, 2a) (compute 10 x 1 x 1; a loaded, a stored), so the total is 2*25 plus the tiles'
// shortfall 10 - 2a; the least is one area-4 tile: 3x3 tiles, areas 9,6,6,4:
// 18 + 12 + 12 + 10 = 52. (4x4 tiles: 32+10+10+10 = 62.) A second subgraph only adds.
TEST(BruteForce, HandOptimumClippedPointwise) {
  ProblemBuilder b(/*capacity=*/1000, /*bandwidth=*/1, /*native=*/4);
  const int t0 = b.Tensor(5, 5), t1 = b.Tensor(5, 5);
  b.Pointwise({t0}, t1, 10);
  const Problem problem = b.Build();
  for (const CostModes& m : AllModes()) {
    const BruteForceResult optimum = BruteForceOptimum(problem, m);
    ASSERT_TRUE(optimum.found && optimum.error.empty()) << optimum.error;
    EXPECT_TRUE(optimum.exhaustive);
    EXPECT_NEAR(optimum.total, /*18+12+12+10=*/52, 1e-9);
    ASSERT_EQ(optimum.schedule.subgraphs.size(), 1u);
  }
}

// PW0(T0 5x5)->T1 cost 2, PW1(T1)->T2 cost 8, native 4, bandwidth 1, capacity 1000.
//   fused [0,1]: a tile costs max(2+8, a + a), so as above 52 with 3x3 tiles;
//   [0] retaining T1, then [1]: [0] costs max(2, a) = a per tile (25 in all); [1] loads nothing
//     and stores a tile: max(8, a); its best grid is 3x3 tiles, 9+8+8+8 = 33 (4x4: 16+8+8+8,
//     3x4: 12+8+8+8 = 36); total 58;
//   [0] then [1] through slow memory: T1 stored and loaded again, at least 4 x 25 = 100.
// The optimum is the fused 52.
TEST(BruteForce, HandOptimumFusionBeatsRetention) {
  ProblemBuilder b(/*capacity=*/1000, /*bandwidth=*/1, /*native=*/4);
  const int t0 = b.Tensor(5, 5), t1 = b.Tensor(5, 5), t2 = b.Tensor(5, 5);
  b.Pointwise({t0}, t1, 2);
  b.Pointwise({t1}, t2, 8);
  const Problem problem = b.Build();
  const BruteForceResult optimum = BruteForceOptimum(problem, {});
  ASSERT_TRUE(optimum.found && optimum.error.empty()) << optimum.error;
  EXPECT_TRUE(optimum.exhaustive);
  EXPECT_NEAR(optimum.total, /*fused 3x3 tiles=*/52, 1e-9);
  ASSERT_EQ(optimum.schedule.subgraphs.size(), 1u);
  EXPECT_EQ(optimum.schedule.subgraphs[0].ops.size(), 2u);
}

// Beyond its space (17 ops, or 129 tensors) the enumerator says so in `error` and finds nothing,
// rather than listing 2^17 op sets or overflowing its 128-bit tensor sets; at 128 tensors it runs.
TEST(BruteForce, RefusesProblemsBeyondItsSpace) {
  auto chain = [](int ops, int extra_inputs) {
    ProblemBuilder b(/*capacity=*/100000, /*bandwidth=*/1, /*native=*/4);
    int t = b.Tensor(1, 1);
    std::vector<int> first = {t};
    for (int i = 0; i < extra_inputs; ++i) first.push_back(b.Tensor(1, 1));
    for (int o = 0; o < ops; ++o) {
      const int out = b.Tensor(1, 1);
      b.Pointwise(o == 0 ? first : std::vector<int>{t}, out, 1);
      t = out;
    }
    return b.Build();
  };
  const BruteForceResult too_many_ops = BruteForceOptimum(chain(17, 0), {});
  EXPECT_FALSE(too_many_ops.found);
  EXPECT_NE(too_many_ops.error.find("17 ops"), std::string::npos) << too_many_ops.error;
  const BruteForceResult too_many_tensors = BruteForceOptimum(chain(1, 127), {});  // 1 + 127 + 1
  EXPECT_FALSE(too_many_tensors.found);
  EXPECT_NE(too_many_tensors.error.find("129 tensors"), std::string::npos) << too_many_tensors.error;
  const BruteForceResult at_limit = BruteForceOptimum(chain(1, 126), {});  // 128 tensors
  EXPECT_TRUE(at_limit.found && at_limit.error.empty()) << at_limit.error;
}

// MM0(A 4x8, B 8x4)->C 4x4, cost 16, native 4, bandwidth 1. Default modes: k <= 4 < K = 8, so
// at least two k-steps. One 4x4 tile with k = 4: each step computes 16 x 4/8 = 8 and loads a
// 4x4 slice of A and of B (32 elements); the last also stores C (16): max(8, 32) +
// max(8, 48) = 80. Every schedule loads A and B (64) and stores C (16) at least once, so 80 is
// optimal. Under k_limit=reduction k = 8 is allowed too, with the same 80.
TEST(BruteForce, HandOptimumSplitMatMul) {
  ProblemBuilder b(/*capacity=*/1000, /*bandwidth=*/1, /*native=*/4);
  const int a = b.Tensor(/*rows=*/4, /*cols=*/8), bt = b.Tensor(8, 4), c = b.Tensor(4, 4);
  b.MatMul(a, bt, c, 16);
  const Problem problem = b.Build();
  for (const CostModes& m : AllModes()) {
    const BruteForceResult optimum = BruteForceOptimum(problem, m);
    ASSERT_TRUE(optimum.found && optimum.error.empty()) << optimum.error;
    EXPECT_TRUE(optimum.exhaustive);
    EXPECT_NEAR(optimum.total, /*64+16=*/80, 1e-9) << ModesString(m);
  }
}

}  // namespace
}  // namespace tilesched
