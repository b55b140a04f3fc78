// Random problems and schedules for differential and property tests.
//
// RandomProblem(seed, options) grows a DAG of MatMul and Pointwise ops with consistent shapes,
// often reusing tensors (shared inputs, residual adds, square MatMuls) so that tricky demand
// patterns occur. RandomSchedule(problem, seed) cuts a topological order into connected
// subgraphs with random tiles, k, traversal orders, retention and recomputation.
#ifndef TILESCHED_TESTS_RANDOM_PROBLEM_H_
#define TILESCHED_TESTS_RANDOM_PROBLEM_H_

#include <cstdint>
#include <random>
#include <vector>

#include "tilesched/problem.h"
#include "tilesched/schedule.h"

namespace tilesched::testing {

struct RandomProblemOptions {
  int min_ops = 2;
  int max_ops = 8;
  std::vector<int64_t> dims = {32, 48, 64, 96, 128};
  int64_t native = 64;
  int64_t min_capacity = 4000;
  int64_t max_capacity = 120000;
  // Extensions for the lower-bound tests; the defaults keep every earlier seed's problem.
  double matmul_share = 0.5;                 // chance that a new op is a MatMul
  std::vector<int64_t> natives;              // non-empty: native w = h drawn from these
  std::vector<double> bandwidths;            // non-empty: bandwidth drawn from these
  std::vector<int> cost_units;               // non-empty: base cost = 50 x one of these
  // > 0: capacity = total tensor elements x a fraction drawn log-uniformly from
  // [min_capacity_fraction, max_capacity_fraction], at least min_capacity.
  double min_capacity_fraction = 0;
  double max_capacity_fraction = 0;
};

Problem RandomProblem(uint64_t seed, const RandomProblemOptions& options = {});

Schedule RandomSchedule(const Problem& problem, uint64_t seed);

// Gives some subgraphs of `schedule` a random permutation or a row-snake traversal order.
void RandomizeTraversals(const Problem& problem, Schedule* schedule, std::mt19937_64& rng);

}  // namespace tilesched::testing

#endif  // TILESCHED_TESTS_RANDOM_PROBLEM_H_
