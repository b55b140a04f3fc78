// The random problems and enumerator limits that lower bounds are checked with
// (tests/bound_admissibility_test.cc for tier 1, tests/tier2_test.cc for tier 2,
// tests/split_tier2_test.cc for tier 2 by components), the batch loop of the last two, and an
// attention head's tail (tests/bound_retained_test.cc, tests/tier2_test.cc).
#ifndef TILESCHED_TESTS_BOUND_PROBLEMS_H_
#define TILESCHED_TESTS_BOUND_PROBLEMS_H_

#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "brute_force.h"
#include "random_problem.h"
#include "test_util.h"
#include "tilesched/cost_model.h"

namespace tilesched::testing {

// An attention head's last three ops, as `tilesched generate transformer --layers 1 --heads 1
// --seq 512 --width 512 --capacity 303000 --bandwidth 10` writes them (ops 5-7, the scores S and
// the weights V, Wo as inputs): softmax(S) -> P, P @ V -> A, A @ Wo -> Y, every tensor 512 x 512
// (262,144 elements; one fits in fast memory, two never do). softmax -> P @ V is never fusable
// (rule 7b, K = 512), so P is stored or retained, and A is retained only by a subgraph that holds
// it beside what it has resident: P resident and A retained do not fit together. The optimum,
// which the exact mode proves, stores P and retains A: 393,216.
// `capacity` 600,000 lets P and A fit together.
inline Problem AttentionTail(int64_t capacity = 303000) {
  ProblemBuilder b(capacity, /*bandwidth=*/10);
  const int s = b.Tensor(512, 512), probs = b.Tensor(512, 512), v = b.Tensor(512, 512);
  const int a = b.Tensor(512, 512), wo = b.Tensor(512, 512), y = b.Tensor(512, 512);
  b.Pointwise({s}, probs, 2304);
  b.MatMul(probs, v, a, 4096);
  b.MatMul(a, wo, y, 4096);
  return b.Build();
}

// The shape of the random heads of tests/bound_families_test.cc (Heads) and
// tests/bound_retained_test.cc, drawn in this order: native 2-3, r x r intermediates (r from
// native to 2 native), a reduction K above native, capacity between one intermediate and two,
// bandwidth 0.05-1.
struct TinyHead {
  int64_t native, r, k, size, capacity;
  double bandwidth;
};

inline TinyHead PickTinyHead(std::mt19937_64& rng) {
  auto pick = [&](std::vector<int64_t> values) { return values[rng() % values.size()]; };
  TinyHead h;
  h.native = pick({2, 3});
  h.r = pick({h.native, h.native + 1, 2 * h.native});
  h.k = pick({h.native + 1, 2 * h.native});
  h.size = h.r * h.r;
  h.capacity = h.size + pick({1, 2, h.r, 2 * h.r, h.size / 2, h.size - 1});
  h.bandwidth = std::vector<double>{0.05, 0.25, 1}[rng() % 3];
  return h;
}

// Small problems for the enumerator, by seed: native 2 (3 in 5), 3 and 4 (1 in 5 each), with dims around
// and between multiples of native (so tiles are clipped, K exceeds native k and split k
// matters); MatMul shares of 0.3-0.7; capacities from 2% of all tensor elements (tiles, split k
// and spills matter) to 150% (everything fits); bandwidths and base costs spread so that
// memory-bound, compute-bound and mixed steps all occur. The natives are tiny so that the
// enumerator's full candidate sets (every w, h and k) stay small: 8, 27 or 64 triples.
inline RandomProblemOptions BoundProblemOptions(uint64_t seed) {
  RandomProblemOptions options;
  options.min_ops = 1;
  options.max_ops = 6;
  options.min_capacity = 4;
  options.min_capacity_fraction = 0.02;
  options.max_capacity_fraction = 1.5;
  options.cost_units = {1, 2, 4, 8, 16};
  options.bandwidths = {0.01, 0.02, 0.05, 0.1, 0.25, 1};
  options.matmul_share = std::vector<double>{0.3, 0.5, 0.7}[seed % 3];
  switch (seed % 5) {
    case 0:
    case 1:
    case 2:
      options.natives = {2};
      options.dims = {1, 2, 3, 4, 5};
      break;
    case 3:
      options.natives = {3};
      options.dims = {2, 3, 4, 5, 7};
      break;
    default:
      options.natives = {4};
      options.dims = {2, 3, 5, 6, 7};
      break;
  }
  return options;
}

// The enumerator's limits in (a): beyond 10,000 cost calls a run searches the reduced space,
// beyond 400,000 it is cut; both are counted in the summary, and a problem with a cut run does
// not count towards the 1,000.
inline BruteForceLimits AdmissibilityLimits() {
  BruteForceLimits limits;
  limits.full_cost_calls = 10000;
  limits.max_cost_calls = 400000;
  return limits;
}

// Random problems (BoundProblemOptions) from seed `first` on, each in every mode of `modes`:
// `compute(problem, mode)` returns a Run (with a BruteForceResult `optimum`), on two threads in
// batches of 32; then, in seed order, `check(problem, mode index, run)` for every run whose
// optimum the enumerator found (a problem counts only when it found one in every mode). Stops
// after `wanted` problems counted, at a fatal failure, or after 4 x wanted seeds; returns how
// many counted.
template <typename Run, typename Compute, typename Check>
int CheckRandomBoundProblems(uint64_t first, int wanted, const std::vector<CostModes>& modes,
                             Compute compute, Check check) {
  constexpr uint64_t kBatch = 32;
  int problems = 0;
  for (uint64_t start = first; problems < wanted && start < first + 4 * wanted; start += kBatch) {
    std::vector<std::vector<Run>> batch(kBatch);
    auto solve = [&](uint64_t worker) {
      for (uint64_t i = worker; i < kBatch; i += 2) {
        const uint64_t seed = start + i;
        const Problem problem = RandomProblem(seed, BoundProblemOptions(seed));
        for (const CostModes& m : modes) batch[i].push_back(compute(problem, m));
      }
    };
    std::thread helper(solve, 1);
    solve(0);
    helper.join();
    for (uint64_t i = 0; i < kBatch && problems < wanted; ++i) {
      const uint64_t seed = start + i;
      const Problem problem = RandomProblem(seed, BoundProblemOptions(seed));
      bool all_found = true;
      for (size_t mi = 0; mi < modes.size(); ++mi) {
        SCOPED_TRACE("seed " + std::to_string(seed) + ", " + ModesString(modes[mi]));
        const Run& run = batch[i][mi];
        EXPECT_TRUE(run.optimum.error.empty()) << run.optimum.error;
        if (!run.optimum.found) {
          all_found = false;
          continue;
        }
        check(problem, mi, run);
        if (::testing::Test::HasFatalFailure()) return problems;
      }
      if (all_found) ++problems;
    }
  }
  return problems;
}

}  // namespace tilesched::testing

#endif  // TILESCHED_TESTS_BOUND_PROBLEMS_H_
