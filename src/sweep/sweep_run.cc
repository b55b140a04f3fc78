// Sweep points: search, re-evaluate, and fill the row.
#include "sweep_run.h"

#include <chrono>
#include <cstdio>
#include <exception>

#include "tilesched/hardware.h"
#include "tilesched/search.h"
#include "tilesched/evaluate.h"
#include "tilesched/lower_bound.h"

namespace tilesched::sweep {

namespace {

std::string Fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

// A latency or bound to 12 significant digits: the evaluator's sums carry rounding noise in
// the last bits (406323.20000000007), which a row should not show; 12 digits keep 0.001 of a
// latency of 1e9.
std::string Latency(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.12g", value);
  return buffer;
}

void Set(SweepRow* row, const char* column, std::string value) {
  row->cells[SweepColumn(column)] = std::move(value);
}

}  // namespace

Hardware PointHardware(const Problem& base, const GridPoint& point) {
  Hardware hw = base.hardware();
  if (point.capacity) hw.fast_memory_capacity = *point.capacity;
  if (point.bandwidth) hw.slow_memory_bandwidth = *point.bandwidth;
  if (point.native) hw.native_w = hw.native_h = *point.native;
  return hw;
}

SweepRow PointRow(const Problem& base, const std::string& name, const SweepGrid& grid,
                  int64_t index, const std::string& strategy) {
  const GridPoint point = grid.At(index);
  const Hardware hw = PointHardware(base, point);
  SweepRow row = NewSweepRow(index, grid.size());
  Set(&row, "problem", name);
  Set(&row, "capacity", std::to_string(hw.fast_memory_capacity));
  Set(&row, "bandwidth", ShortestNumber(hw.slow_memory_bandwidth));
  Set(&row, "native", std::to_string(hw.native_w));
  if (point.matmul_throughput) Set(&row, "matmul_throughput", ShortestNumber(*point.matmul_throughput));
  if (point.vector_throughput) Set(&row, "vector_throughput", ShortestNumber(*point.vector_throughput));
  Set(&row, "rules", RulesName(point.modes.rules));
  Set(&row, "matmul_reduction", MatmulReductionName(point.modes.matmul_reduction));
  Set(&row, "k_limit", KLimitName(point.modes.k_limit));
  Set(&row, "seed", std::to_string(point.seed));
  Set(&row, "strategy", strategy);
  return row;
}

std::optional<SweepRow> RunSweepPoint(const Problem& base, const std::string& name,
                                      const SweepGrid& grid, int64_t index,
                                      const search::SearchOptions& options,
                                      const std::atomic<bool>* stop) {
  const auto start = std::chrono::steady_clock::now();
  const GridPoint point = grid.At(index);
  SweepRow row = PointRow(base, name, grid, index, options.strategy);
  auto finish = [&](const char* status, const std::string& message) {
    Set(&row, "status", status);
    Set(&row, "message", message);
    Set(&row, "wall_s",
        Fixed(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 3));
    return row;
  };
  // A throughput point scales base costs by the --hardware description's throughput over it.
  auto scaled = ScaleBaseCosts(base, point.matmul_throughput ? grid.matmul_reference / *point.matmul_throughput : 1,
                               point.vector_throughput ? grid.vector_reference / *point.vector_throughput : 1);
  if (!scaled.ok()) return finish("error", scaled.status().message());
  auto problem = scaled->WithHardware(PointHardware(base, point));
  if (!problem.ok()) return finish("error", problem.status().message());
  double bound = ComputeLowerBounds(*problem, point.modes).best();
  Set(&row, "lower_bound", Latency(bound));

  search::SearchOptions run = options;
  run.seed = point.seed;
  run.modes = point.modes;
  search::SearchHooks hooks;
  hooks.stop = stop;
  std::optional<Result<search::SearchResult>> result;
  try {
    result.emplace(search::RunSearch(*problem, run, hooks));
  } catch (const std::exception& e) {
    // Out of memory on a huge point must cost that point only, not the whole sweep.
    return finish("error", std::string("search failed: ") + e.what());
  }
  if (stop && stop->load()) return std::nullopt;
  // The search fails only when some op fits in fast memory at no tile size.
  if (!result->ok()) return finish("infeasible", result->status().message());
  const search::SearchResult& found = result->value();
  auto evaluation = Evaluate(*problem, found.schedule, point.modes);
  if (!evaluation.ok()) {
    return finish("error", "internal error: the search produced an invalid schedule: " +
                               evaluation.status().message());
  }
  // The search's own bound may be larger (the exact mode's proof, tier 2 with tier2_first).
  if (found.lower_bound > bound) {
    bound = found.lower_bound;
    Set(&row, "lower_bound", Latency(bound));
  }
  double compute_bound = 0;
  for (const SubgraphReport& r : evaluation->subgraphs) compute_bound += r.cost.compute_bound_time;
  const double latency = evaluation->total;
  Set(&row, "latency", Latency(latency));
  if (bound > 0) Set(&row, "ratio", Fixed(latency / bound, 6));
  if (bound > 0) Set(&row, "gap", Fixed(Gap(latency, bound), 6));
  Set(&row, "subgraphs", std::to_string(evaluation->subgraphs.size()));
  if (latency > 0) Set(&row, "compute_bound_share", Fixed(compute_bound / latency, 6));
  return finish("ok", "");
}

}  // namespace tilesched::sweep
