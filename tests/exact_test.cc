// The exact mode (issue 8 item 3, search/exact.cc with the context pricer and tile classes of
// search/context_pricer.h and search/tile_classes.h): on random problems of at most 8 ops it
// agrees with the independent brute-force enumerator (tests/brute_force.cc, which shares no
// code with it), its schedules are re-scored by Evaluate(), its proven bound is never above
// any valid schedule's latency, and it claims optimal only when it proved it (never when a
// limit cut it); `tilesched schedule --strategy exact` prints `(optimal)` on a tiny problem.
#include <algorithm>
#include <bit>
#include <limits>
#include <atomic>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "brute_force.h"
#include "build_kind.h"
#include "random_problem.h"
#include "test_files.h"
#include "test_util.h"
#include "tile_classes.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/search.h"

namespace tilesched {
namespace {

using search::ClassLowerBound;
using search::DimClass;
using search::DimClasses;
using search::DimCoincides;
using search::FirstSlice;
using search::FirstStepFloor;
using search::FirstStepSlices;
using search::HasCoincidence;
using search::TileComputeFloor;
using testing::RandomProblemOptions;

// Small problems (natives 2 to 4, dims around and between their multiples, so tiles are
// clipped and K exceeds native k) that the enumerator searches exhaustively in most cases:
// at most 4 x 4 x 4 = 64 tile triples per subgraph. Capacities from 2% of all tensor elements
// (spills, small tiles and split k matter) to 150%.
RandomProblemOptions ExactProblemOptions(uint64_t seed) {
  RandomProblemOptions options;
  options.min_ops = 1;
  options.max_ops = 8;
  options.min_capacity = 4;
  options.min_capacity_fraction = 0.02;
  options.max_capacity_fraction = 1.5;
  options.cost_units = {1, 2, 4, 8, 16};
  options.bandwidths = {0.02, 0.1, 0.25, 1};
  options.matmul_share = std::vector<double>{0.3, 0.5, 0.7}[seed % 3];
  switch (seed % 4) {
    case 0:
    case 1:
      options.natives = {2};
      options.dims = {1, 2, 3, 4, 5};
      break;
    case 2:
      options.natives = {3};
      options.dims = {2, 3, 4, 5};
      break;
    default:
      options.natives = {4};
      options.dims = {2, 3, 5, 6};
      break;
  }
  return options;
}

testing::BruteForceLimits ReferenceLimits() {
  testing::BruteForceLimits limits;
  limits.full_cost_calls = 30000;
  limits.max_cost_calls = 100000;
  limits.max_states = 3000;
  return limits;
}

bool SingletonLimitation(const Status& status) {
  return status.message().find("fits in fast memory at no tile size") != std::string::npos;
}

search::SearchOptions ExactOptions() {
  search::SearchOptions options;
  options.strategy = "exact";
  options.threads = 1;
  return options;
}

// Evaluate() accepts the result's schedule with the result's total.
void ExpectRescored(const Problem& problem, const search::SearchResult& result,
                    const CostModes& modes, uint64_t seed) {
  auto evaluation = Evaluate(problem, result.schedule, modes);
  ASSERT_TRUE(evaluation.ok()) << "seed " << seed << ": " << evaluation.status().message();
  EXPECT_NEAR(evaluation->total, result.total, 1e-9 * std::max(1.0, result.total)) << "seed " << seed;
}

TEST(ExactMode, AgreesWithBruteForceOnRandomProblems) {
  // 100 problems in a plain build; instrumented builds (many times slower) check 12.
  const int problems = testing::kInstrumentedBuild ? 12 : 100;
  int compared = 0, exhaustive = 0, proven = 0;
  for (uint64_t seed = 1; compared < problems; ++seed) {
    ASSERT_LT(seed, 1000u) << "too few problems with a schedule";
    const Problem problem = testing::RandomProblem(seed, ExactProblemOptions(seed));
    const CostModes modes;
    const testing::BruteForceResult reference = BruteForceOptimum(problem, modes, ReferenceLimits());
    ASSERT_TRUE(reference.error.empty()) << "seed " << seed << ": " << reference.error;
    if (!reference.found) continue;
    auto result = search::RunSearch(problem, ExactOptions());
    // RunSearch needs every op to fit alone (its first schedule is one op per subgraph): a
    // known limitation of every strategy, not of the exact mode; such problems are skipped.
    if (!result.ok() && SingletonLimitation(result.status())) continue;
    ASSERT_TRUE(result.ok()) << "seed " << seed << ": " << result.status().message();
    ++compared;
    ExpectRescored(problem, *result, modes, seed);
    const double tolerance = 1e-9 * std::max(1.0, reference.total);
    // Never worse than the enumerator's schedule; equal where the enumerator is exhaustive.
    EXPECT_LE(result->total, reference.total + tolerance) << "seed " << seed;
    if (reference.exhaustive) {
      ++exhaustive;
      EXPECT_NEAR(result->total, reference.total, tolerance) << "seed " << seed;
    }
    // The proven bound is below every valid schedule: the enumerator's, and its own.
    EXPECT_LE(result->lower_bound, reference.total + tolerance) << "seed " << seed;
    EXPECT_LE(result->lower_bound, result->total * (1 + 1e-9)) << "seed " << seed;
    EXPECT_GE(result->lower_bound, ComputeLowerBounds(problem, modes).best() * (1 - 1e-12));
    proven += result->optimal;
    // ... and below the schedules the other strategies find.
    for (const char* other : {"greedy", "beam", "anneal"}) {
      search::SearchOptions options;
      options.strategy = other;
      options.iterations = 200;
      options.threads = 1;
      auto found = search::RunSearch(problem, options);
      ASSERT_TRUE(found.ok()) << other << ", seed " << seed;
      EXPECT_LE(result->lower_bound, found->total * (1 + 1e-9)) << other << ", seed " << seed;
    }
  }
  std::printf("[ exact ] %d problems, %d exhaustive in the enumerator, %d proven optimal\n",
              compared, exhaustive, proven);
  // Most of these problems are searched exhaustively by the enumerator (the comparison is not
  // vacuous), and the exact mode proves most of them optimal.
  EXPECT_GE(exhaustive, problems * 8 / 10);
  EXPECT_GE(proven, problems / 2);
}

// A run cut by a limit (no time at all, a state cap, or no tile enumeration) claims optimal only
// where its bound truly proves it: never on problems whose tier-1 bound is below the optimum
// when nothing was searched, and in every case its bound stays below the optimum.
TEST(ExactMode, ClaimsOptimalOnlyWhenProven) {
  const int problems = testing::kInstrumentedBuild ? 10 : 30;
  int compared = 0, cut_claims = 0;
  for (uint64_t seed = 1; compared < problems; ++seed) {
    ASSERT_LT(seed, 1000u);
    const Problem problem = testing::RandomProblem(seed, ExactProblemOptions(seed));
    const CostModes modes;
    // The lighter problems only (three exact runs each): those the enumerator settles
    // exhaustively within 300 states and 5,000 cost calls.
    testing::BruteForceLimits light = ReferenceLimits();
    light.max_states = 300;
    light.full_cost_calls = 5000;
    light.max_cost_calls = 5000;
    const testing::BruteForceResult reference = BruteForceOptimum(problem, modes, light);
    if (!reference.found || !reference.exhaustive) continue;
    search::SearchOptions greedy;
    greedy.strategy = "greedy";
    if (auto plain = search::RunSearch(problem, greedy);
        !plain.ok() && SingletonLimitation(plain.status())) {
      continue;
    }
    ++compared;
    const double tier1 = ComputeLowerBounds(problem, modes).best();
    const double tolerance = 1e-9 * std::max(1.0, reference.total);
    // Stopped before it starts (a signal): the bound is the tier-1 bound or the start's f.
    {
      const std::atomic<bool> stop{true};
      search::SearchHooks hooks;
      hooks.stop = &stop;
      auto result = search::RunSearch(problem, ExactOptions(), hooks);
      ASSERT_TRUE(result.ok()) << "seed " << seed;
      ExpectRescored(problem, *result, modes, seed);
      EXPECT_LE(result->lower_bound, reference.total + tolerance) << "seed " << seed;
      if (tier1 < reference.total * (1 - 1e-6)) {
        EXPECT_FALSE(result->optimal) << "seed " << seed;
      }
      cut_claims += result->optimal;
    }
    // A state cap of 2, and a search without tile enumeration (every subgraph at its cheap
    // bound; capped at 2,000 states): whatever they claim is true.
    for (int variant = 0; variant < 2; ++variant) {
      search::SearchOptions options = ExactOptions();
      if (variant == 0) options.exact_max_states = 2;
      if (variant == 1) {
        options.exact_max_tile_configs = 0;
        options.exact_max_states = 2000;
      }
      auto result = search::RunSearch(problem, options);
      ASSERT_TRUE(result.ok()) << "seed " << seed;
      ExpectRescored(problem, *result, modes, seed);
      EXPECT_LE(result->lower_bound, reference.total + tolerance) << "seed " << seed;
      if (result->optimal) {
        EXPECT_NEAR(result->total, reference.total, tolerance) << "seed " << seed << " variant " << variant;
      }
    }
  }
  std::printf("[ exact ] %d problems; stopped runs proven optimal by the tier-1 bound alone: %d\n",
              compared, cut_claims);
}

// Natives 6 to 12 with tensors of 5 to 26: a dimension has several tile classes (sizes giving
// the same number of tiles) with several sizes each, and edge tiles are clipped.
RandomProblemOptions ClassProblemOptions(uint64_t seed, int max_ops) {
  RandomProblemOptions options;
  options.min_ops = 1;
  options.max_ops = max_ops;
  options.min_capacity = 16;
  options.min_capacity_fraction = 0.05;
  options.max_capacity_fraction = 1.5;
  options.cost_units = {1, 2, 4, 8, 16};
  options.bandwidths = {0.1, 0.5, 1, 4};
  options.matmul_share = std::vector<double>{0.4, 0.6}[seed % 2];
  options.natives = {std::vector<int64_t>{6, 8, 12}[seed % 3]};
  options.dims = {5, 7, 9, 12, 13, 17, 26};
  return options;
}

// Every mode combination in turn (Lemma X7 is used in all of them).
CostModes ClassModes(uint64_t seed) {
  CostModes modes;
  const uint64_t m = (seed / 3) % 8;
  modes.rules = (m & 1) ? Rules::kAlgebra : Rules::kContest;
  modes.matmul_reduction = (m & 2) ? MatmulReduction::kNativeK : MatmulReduction::kFullK;
  modes.k_limit = (m & 4) ? KLimit::kReduction : KLimit::kNative;
  return modes;
}

// Lemma X7 directly: for random subgraphs, k and tile classes, the class bound is at most the
// cost of every member of the class (every w, h of it) in every order tried (raster, column-
// major, both snakes, random permutations; every permutation of grids of at most 4 tiles);
// a class whose smallest tiles overflow has no member that fits; Lemma X8's floor (tiles x
// TileComputeFloor) is at most every member's compute; and the minimum of the class
// bounds over a context's classes is at most the minimum over the whole box. In mixed plans
// (a tensor dimension both tile and k-slice) this holds for the tiles without a coincidence.
// DimCoincides (the O(1) test behind HasCoincidence) against its definition: some tile interval
// of the grid equals the k-slice that starts where it starts, tile by tile, for every extent up
// to 70, tile size and k up to the extent and a little beyond.
TEST(ExactMode, CoincidenceTestMatchesEveryTile) {
  int64_t cases = 0, coincident = 0;
  for (int64_t extent = 1; extent <= 70; ++extent) {
    for (int64_t tile = 1; tile <= extent + 2; ++tile) {
      const Grid grid(extent, 1, tile, 1);
      for (int64_t k = 1; k <= extent + 2; ++k) {
        bool expected = false;
        for (int64_t c = 0; c < grid.cols(); ++c) {
          const Interval t = grid.ColInterval(c);
          expected = expected ||
                     (t.begin % k == 0 && SliceInterval(t.begin / k, k, extent) == t);
        }
        ++cases;
        coincident += expected;
        EXPECT_EQ(DimCoincides(extent, tile, k), expected)
            << "extent " << extent << " tile " << tile << " k " << k;
      }
    }
  }
  EXPECT_GT(coincident, cases / 20);
  EXPECT_LT(coincident, cases);
}

// Lemma X11 (docs/bounds.md): in {x @ W, act, + x} on a 2 x 2 grid with two k-steps, the
// last k-step of tile (r, 0) needs the residual's x[r, 0], which is x's k-slice 0 that both
// tiles of row r need first. X7 lets all four tiles spare it; only the tile visited right after
// (r, 0) can, once per row. Each first step loads 2 x 16,384 elements (3,276.8 at bandwidth
// 10) against a compute of 500, so X7 alone is 2 x 1,638.4 below the best order, and X11
// meets it.
TEST(ExactMode, SparedSlicesCountOncePerPredecessor) {
  const Problem problem = testing::LinearActResidual(256);
  const CostModel model(problem, {});
  const auto plan = SubgraphPlan::Create(problem, {0, 1, 2});
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(plan->mixed_cols());
  const Granularity g{128, 128, 128};
  const std::vector<int> none;
  std::vector<int64_t> order = {0, 1, 2, 3};
  double best = std::numeric_limits<double>::infinity();
  int orders = 0;
  do {
    auto cost = model.Cost(*plan, g, order, none, none);
    ASSERT_TRUE(cost.ok());
    best = std::min(best, cost->latency);
    ++orders;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(orders, 24);
  const double bound = model.AnyPlanOrderFreeBound(*plan, g, none, none);
  EXPECT_LE(bound, best * (1 + 1e-9));
  EXPECT_GE(bound, best * (1 - 1e-9));  // X7 alone: best - 3,276.8
}

TEST(ExactMode, ClassBoundIsBelowEveryMemberOfTheClass) {
  const int problems = testing::kInstrumentedBuild ? 8 : 64;
  int64_t members = 0, classes = 0, contexts = 0, tight = 0, mixed = 0, coincident = 0;
  int64_t floor_positive = 0, floor_tight = 0;
  std::mt19937_64 rng(7);
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(problems); ++seed) {
    const Problem problem = testing::RandomProblem(seed, ClassProblemOptions(seed, 3));
    const CostModes modes = ClassModes(seed);
    const CostModel model(problem, modes);
    const int64_t capacity = problem.hardware().fast_memory_capacity;
    // Each op alone and each op with its consumers.
    std::vector<std::vector<int>> sets;
    for (int o = 0; o < problem.num_ops(); ++o) {
      sets.push_back({o});
      for (int c = 0; c < problem.num_ops(); ++c) {
        const auto& in = problem.op(c).inputs;
        if (std::find(in.begin(), in.end(), problem.op(o).output) != in.end()) {
          sets.push_back({o, c});
        }
      }
    }
    for (const std::vector<int>& ops : sets) {
      auto plan = SubgraphPlan::Create(problem, ops);
      if (!plan.ok()) continue;
      mixed += plan->mixed_rows() || plan->mixed_cols();
      const double tile_floor = TileComputeFloor(problem, modes.matmul_reduction, *plan);
      const GranularityBounds bounds = model.Bounds(*plan);
      const int64_t max_k = plan->split_roots().empty() ? 1 : bounds.max_k;
      const std::vector<int> none;
      for (int64_t k : {int64_t{1}, max_k, std::max<int64_t>(1, max_k / 2)}) {
        ++contexts;
        double class_min = std::numeric_limits<double>::infinity(), box_min = class_min;
        for (const DimClass& cw : DimClasses(plan->width(), bounds.min_w, bounds.max_w)) {
          for (const DimClass& ch : DimClasses(plan->height(), bounds.min_h, bounds.max_h)) {
            ++classes;
            const double lb = ClassLowerBound(model, *plan, cw, ch, k, none, none);
            const bool rep_fits =
                model.PeakWorkingSet(*plan, {cw.lo, ch.lo, k}, none, none) <= capacity;
            if (rep_fits) class_min = std::min(class_min, lb);
            for (int64_t w = cw.lo; w <= cw.hi; ++w) {
              for (int64_t h = ch.lo; h <= ch.hi; ++h) {
                const Granularity g{w, h, k};
                ASSERT_TRUE(model.CheckGranularity(*plan, g).ok());
                const int64_t peak = model.PeakWorkingSet(*plan, g, none, none);
                const bool fits = peak <= capacity;
                // What is held and the first tile's buffers are part of the peak (SPEC 6).
                EXPECT_LE(model.FirstStepWorkingSet(*plan, g, none, none), peak);
                const CostModel::HeldSpace held = model.Held(*plan, none, none);
                EXPECT_LE(held.held + held.buffers * std::min(w, plan->width()) *
                                          std::min(h, plan->height()),
                          peak)
                    << "seed " << seed << " w " << w << " h " << h << " k " << k;
                if (!rep_fits && !HasCoincidence(*plan, w, h, k)) {
                  EXPECT_FALSE(fits) << "seed " << seed << " w " << w << " h " << h;
                }
                const Grid grid(plan->width(), plan->height(), w, h);
                const int64_t rows = grid.rows(), cols = grid.cols(), n = grid.num_tiles();
                std::vector<std::vector<int64_t>> orders = {{}};
                std::vector<int64_t> column_major, snake_rows, snake_cols;
                for (int64_t c = 0; c < cols; ++c) {
                  for (int64_t r = 0; r < rows; ++r) {
                    column_major.push_back(r * cols + c);
                    snake_cols.push_back((c % 2 ? rows - 1 - r : r) * cols + c);
                  }
                }
                for (int64_t r = 0; r < rows; ++r) {
                  for (int64_t c = 0; c < cols; ++c) {
                    snake_rows.push_back(r * cols + (r % 2 ? cols - 1 - c : c));
                  }
                }
                orders.push_back(column_major);
                orders.push_back(snake_rows);
                orders.push_back(snake_cols);
                std::vector<int64_t> perm(static_cast<size_t>(n));
                std::iota(perm.begin(), perm.end(), 0);
                if (n <= 4) {
                  while (std::next_permutation(perm.begin(), perm.end())) orders.push_back(perm);
                } else {
                  for (int i = 0; i < 3; ++i) {
                    std::shuffle(perm.begin(), perm.end(), rng);
                    orders.push_back(perm);
                  }
                }
                // In a mixed plan the class bound covers the tiles where no tile interval
                // equals a k-slice; the exact mode costs the others one by one.
                const bool covered = !HasCoincidence(*plan, w, h, k);
                coincident += !covered;
                // The per-grid order-free bound (any plan, coincidences included).
                const double grid_lb =
                    n <= 64 ? model.AnyPlanOrderFreeBound(*plan, g, none, none) : 0;
                for (const std::vector<int64_t>& order : orders) {
                  auto cost = model.Cost(*plan, g, order, none, none);
                  if (!cost.ok()) continue;
                  ++members;
                  box_min = std::min(box_min, cost->latency);
                  EXPECT_LE(grid_lb, cost->latency * (1 + 1e-9)) << "seed " << seed << " w " << w
                                                                  << " h " << h << " k " << k;
                  // Lemma X8: every tile computes at least the floor (coincidences included).
                  const double floor = static_cast<double>(n) * tile_floor;
                  EXPECT_LE(floor, cost->compute_time * (1 + 1e-9))
                      << "seed " << seed << " w " << w << " h " << h << " k " << k;
                  floor_positive += floor > 0;
                  floor_tight += floor > 0 && floor >= cost->compute_time * (1 - 1e-9);
                  if (!covered) continue;
                  EXPECT_LE(lb, cost->latency * (1 + 1e-9))
                      << "seed " << seed << " ops " << ops.size() << " w " << w << " h " << h
                      << " k " << k << " class " << cw.count << "x" << ch.count;
                }
              }
            }
          }
        }
        if (!plan->mixed_rows() && !plan->mixed_cols()) {
          EXPECT_LE(class_min, box_min * (1 + 1e-9)) << "seed " << seed;
          if (box_min < std::numeric_limits<double>::infinity()) {
            EXPECT_LT(class_min, std::numeric_limits<double>::infinity()) << "seed " << seed;
          }
        }
        tight += class_min >= box_min * (1 - 1e-9);
      }
    }
  }
  std::printf("[ exact ] %lld contexts (%lld of mixed plans), %lld classes, %lld member costs, "
              "%lld tiles with a coincidence; class minimum equal to the box minimum (over the "
              "orders tried) in %lld contexts; X8 floor positive in %lld member costs, equal to "
              "their compute in %lld\n",
              static_cast<long long>(contexts), static_cast<long long>(mixed),
              static_cast<long long>(classes), static_cast<long long>(members),
              static_cast<long long>(coincident), static_cast<long long>(tight),
              static_cast<long long>(floor_positive), static_cast<long long>(floor_tight));
  EXPECT_GT(floor_tight, 0);  // the floor is attained: it is not a weaker stand-in
  // The plain build's 64 problems include mixed plans; the instrumented build's 8 may not.
  if (!testing::kInstrumentedBuild) {
    EXPECT_GT(mixed, 10);
  }
  EXPECT_GT(members, 1000);
}

// Lemma X10 directly: on random problems, for every connected set of at most 3 ops (a MatMul
// feeding a MatMul makes whole-extent slices), random contexts (resident: a subset of its
// external inputs; retained: a subset of what it produces) and every tile size of the plan's
// box at three k, FirstStepFloor is at most the working set of the first step of the first
// tile (CostModel::FirstStepWorkingSet, one of the steps PeakWorkingSet checks).
TEST(ExactMode, FirstStepFloorIsBelowTheFirstStep) {
  const int problems = testing::kInstrumentedBuild ? 16 : 80;
  int64_t checked = 0, equal = 0, with_slices = 0, plans = 0;
  // What the floor must meet at least once for the test to mean anything: a whole-extent
  // dimension, a tensor with several demands (the max), a demanded tensor resident, something
  // retained.
  int64_t whole = 0, several = 0, resident_demanded = 0, retaining = 0;
  std::mt19937_64 rng(11);
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(problems); ++seed) {
    const Problem problem = testing::RandomProblem(seed, ClassProblemOptions(seed, 4));
    CostModes modes;  // every mode combination in turn, in both builds
    modes.rules = (seed & 1) ? Rules::kAlgebra : Rules::kContest;
    modes.matmul_reduction = (seed & 2) ? MatmulReduction::kNativeK : MatmulReduction::kFullK;
    modes.k_limit = (seed & 4) ? KLimit::kReduction : KLimit::kNative;
    const CostModel model(problem, modes);
    const int n = problem.num_ops();
    for (uint32_t subset = 1; subset < (1u << n); ++subset) {
      if (std::popcount(subset) > 3) continue;
      std::vector<int> ops;
      for (int o = 0; o < n; ++o) {
        if ((subset >> o) & 1) ops.push_back(o);
      }
      auto plan = SubgraphPlan::Create(problem, ops);
      if (!plan.ok()) continue;
      ++plans;
      const std::vector<FirstSlice> slices = FirstStepSlices(problem, *plan);
      for (size_t i = 0; i < slices.size(); ++i) {
        whole += slices[i].rows == DimKind::kFull || slices[i].cols == DimKind::kFull;
        several += i > 0 && slices[i].tensor == slices[i - 1].tensor;
      }
      const GranularityBounds bounds = model.Bounds(*plan);
      const int64_t max_k = plan->split_roots().empty() ? 1 : bounds.max_k;
      for (int context = 0; context < 3; ++context) {
        std::vector<int> resident, retained;
        uint64_t resident_mask = 0;
        for (int t : plan->external_inputs()) {
          if (context > 0 && rng() % 5 < 2) {
            resident.push_back(t);
            resident_mask |= uint64_t{1} << t;
          }
        }
        for (int t : plan->produced()) {
          if (context > 0 && rng() % 10 < 3) retained.push_back(t);
        }
        retaining += !retained.empty();
        for (const FirstSlice& d : slices) resident_demanded += (resident_mask >> d.tensor) & 1;
        const CostModel::HeldSpace held = model.Held(*plan, retained, resident);
        for (int64_t w = bounds.min_w; w <= bounds.max_w; ++w) {
          for (int64_t h = bounds.min_h; h <= bounds.max_h; ++h) {
            for (int64_t k : {int64_t{1}, std::max<int64_t>(1, max_k / 2), max_k}) {
              const Granularity g{w, h, k};
              if (!model.CheckGranularity(*plan, g).ok()) continue;
              const int64_t floor = FirstStepFloor(slices, held, resident_mask, plan->width(),
                                                   plan->height(), w, h);
              const int64_t first = model.FirstStepWorkingSet(*plan, g, retained, resident);
              EXPECT_LE(floor, first) << "seed " << seed << " subset " << subset << " w " << w
                                      << " h " << h << " k " << k;
              ++checked;
              equal += floor == first;
              with_slices += floor > held.held + held.buffers * std::min(w, plan->width()) *
                                                     std::min(h, plan->height());
            }
          }
        }
      }
    }
  }
  std::printf("[ exact ] X10: %lld plans, %lld first steps; floor above held + buffers in %lld, "
              "equal to the first step in %lld; demands with a whole extent %lld, repeated "
              "tensors %lld, resident demanded tensors %lld, contexts retaining %lld\n",
              static_cast<long long>(plans), static_cast<long long>(checked),
              static_cast<long long>(with_slices), static_cast<long long>(equal),
              static_cast<long long>(whole), static_cast<long long>(several),
              static_cast<long long>(resident_demanded), static_cast<long long>(retaining));
  EXPECT_GT(checked, 1000);
  EXPECT_GT(with_slices, checked / 2);  // the slices are counted, not only what is held
  EXPECT_GT(equal, 0);                  // and the floor is attained
  EXPECT_GT(whole, 0);
  EXPECT_GT(several, 0);
  EXPECT_GT(resident_demanded, 0);
  EXPECT_GT(retaining, 0);
}

// The class path of the exact mode (enumeration cap forced to 1, so every context is costed by
// tile classes, and in mixed plans the tiles with a coincidence one by one) against the
// brute-force enumerator, which enumerates every tile: never a bound above its optimum, never
// optimal with a schedule worse than it, schedules re-scored.
TEST(ExactMode, ClassPathAgreesWithBruteForce) {
  const int problems = testing::kInstrumentedBuild ? 8 : 48;
  int compared = 0, exhaustive = 0, proven = 0, equal = 0;
  for (uint64_t seed = 1; compared < problems; ++seed) {
    ASSERT_LT(seed, 2000u) << "too few problems with a schedule";
    const Problem problem = testing::RandomProblem(seed, ClassProblemOptions(seed, 4));
    const CostModes modes = ClassModes(seed);
    testing::BruteForceLimits limits = ReferenceLimits();
    limits.max_states = 400;
    const testing::BruteForceResult reference = BruteForceOptimum(problem, modes, limits);
    ASSERT_TRUE(reference.error.empty()) << "seed " << seed << ": " << reference.error;
    if (!reference.found || !reference.exhaustive) continue;
    search::SearchOptions options = ExactOptions();
    options.modes = modes;
    options.exact_max_tile_configs = 1;
    auto result = search::RunSearch(problem, options);
    if (!result.ok() && SingletonLimitation(result.status())) continue;
    ASSERT_TRUE(result.ok()) << "seed " << seed << ": " << result.status().message();
    ++compared;
    ++exhaustive;
    ExpectRescored(problem, *result, modes, seed);
    const double tolerance = 1e-9 * std::max(1.0, reference.total);
    // The enumerator's space has every tile and k but, on grids of more than 4 tiles, only
    // four orders (the exact mode also tries blocked), so its optimum is at least the true one.
    EXPECT_LE(result->lower_bound, reference.total + tolerance) << "seed " << seed;
    if (result->optimal) {
      ++proven;
      EXPECT_LE(result->total, reference.total + tolerance) << "seed " << seed;
    }
    equal += result->total <= reference.total + tolerance;
  }
  std::printf("[ exact ] class path: %d problems (all exhaustive in the enumerator), %d found "
              "the optimum, %d proven optimal\n", compared, equal, proven);
  EXPECT_GE(proven, problems / 3);
}

TEST(ExactMode, ScheduleCommandPrintsOptimal) {
  const testing::ScratchDir dir;
  // SPEC.md 3A scaled down: PW0(T0)->T1, PW1(T1)->T2, PW2(T1,T2)->T3, 4x4 tensors, native 2.
  const std::string problem = dir.File("tiny.json");
  testing::Spit(problem, R"({"widths": [4, 4, 4, 4], "heights": [4, 4, 4, 4],
    "inputs": [[0], [1], [1, 2]], "outputs": [[1], [2], [3]],
    "op_types": ["Pointwise", "Pointwise", "Pointwise"], "base_costs": [30, 30, 30],
    "fast_memory_capacity": 40, "slow_memory_bandwidth": 1, "native_granularity": [2, 2]})");
  const std::string summary = dir.File("summary.json");
  const testing::ToolRun run = testing::RunTool(
      {TILESCHED_BINARY, "schedule", problem, "-o", dir.File("s.json"), "--strategy", "exact",
       "--summary", summary},
      dir.path());
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.err.find("(optimal)"), std::string::npos) << run.err;
  const std::string json = testing::Slurp(summary);
  EXPECT_NE(json.find("\"optimal\": true"), std::string::npos) << json;
  // The written schedule is valid and has the summary's latency.
  auto parsed = ParseProblem(testing::Slurp(problem));
  ASSERT_TRUE(parsed.ok());
  auto schedule = LoadSolution(dir.File("s.json"));
  ASSERT_TRUE(schedule.ok()) << schedule.status().message();
  EXPECT_TRUE(Evaluate(*parsed, *schedule, CostModes{}).ok());
}

}  // namespace
}  // namespace tilesched
