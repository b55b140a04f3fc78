// SweepGrid: the points of a hardware sweep, their order, and the shard a process runs.
//
// Entry points: ParseNumberAxis / ParseIntegerAxis read a grid axis written as a comma list
// whose items are numbers or ranges (`20000:320000:x2` geometric, `1:9:+2` arithmetic, both
// inclusive); ParseModeAxis reads a list of cost-model mode names. SweepGrid::At(index) decodes
// a point index (problems x capacity x bandwidth x native x matmul_throughput x
// vector_throughput x rules x matmul_reduction x k_limit x seeds, seeds varying fastest). ParseShard("I/N") and Shard::Contains pick the points
// index % N == I.
#ifndef TILESCHED_SWEEP_GRID_H_
#define TILESCHED_SWEEP_GRID_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilesched/cost_model.h"
#include "tilesched/status.h"

namespace tilesched::sweep {

// Most values one axis may take, and most points one grid may have (a typo such as
// `1:1e9:+1` fails at once instead of exhausting memory).
inline constexpr int64_t kMaxAxisValues = 100000;
// A sweep keeps its shard's rows in memory (about 1 kB each) to write them sorted at the end.
inline constexpr int64_t kMaxGridPoints = 1000000;

// Positive values of `text` ("20000,40000", "20000:320000:x2", "0.5:2:+0.5", or a comma list
// mixing them). `source` names the setting in messages ("--bandwidth"). A value may appear
// only once. Generated values are rounded to 12 significant digits (0.1:0.3:+0.1 gives 0.3,
// not 0.30000000000000004).
Result<std::vector<double>> ParseNumberAxis(const std::string& text, const std::string& source);
// As ParseNumberAxis, for integer parameters at least `min_value`: a listed value must be an
// integer; values a range generates are rounded to the nearest integer.
Result<std::vector<int64_t>> ParseIntegerAxis(const std::string& text, const std::string& source,
                                              int64_t min_value);

// "contest,algebra" etc.: canonical mode names, each once.
Result<std::vector<Rules>> ParseRulesAxis(const std::string& text, const std::string& source);
Result<std::vector<MatmulReduction>> ParseMatmulReductionAxis(const std::string& text,
                                                              const std::string& source);
Result<std::vector<KLimit>> ParseKLimitAxis(const std::string& text, const std::string& source);

// One point of the grid. A hardware value left unset is the problem's own.
struct GridPoint {
  int64_t index = 0;
  int problem = 0;  // index into SweepGrid::problems
  std::optional<int64_t> capacity;
  std::optional<double> bandwidth;
  std::optional<int64_t> native;
  std::optional<double> matmul_throughput;  // MACs per time unit (docs/import.md)
  std::optional<double> vector_throughput;  // elements per time unit
  CostModes modes;
  uint64_t seed = 1;
};

struct SweepGrid {
  std::vector<std::string> problems;  // problem file paths, in argument order
  // An empty hardware axis means "each problem's own value" (one value, not swept).
  std::vector<int64_t> capacity;
  std::vector<double> bandwidth;
  std::vector<int64_t> native;
  std::vector<double> matmul_throughput;
  std::vector<double> vector_throughput;
  // The throughputs the problems' base costs assume (from `--hardware`); a throughput point
  // scales base costs by reference / value. 0: no description given.
  double matmul_reference = 0;
  double vector_reference = 0;
  // `--hardware HW.json`: every problem is retargeted to this description (empty: none).
  std::string hardware;
  std::vector<Rules> rules = {Rules::kContest};
  std::vector<MatmulReduction> matmul_reduction = {MatmulReduction::kFullK};
  std::vector<KLimit> k_limit = {KLimit::kNative};
  std::vector<uint64_t> seeds = {1};

  // Points in the full grid (checked against kMaxGridPoints by CheckSize()).
  int64_t size() const;
  Status CheckSize() const;
  GridPoint At(int64_t index) const;  // 0 <= index < size()
};

// `--shard I/N`: this process runs the points with index % count == index.
struct Shard {
  int64_t index = 0;
  int64_t count = 1;
  bool Contains(int64_t point) const { return point % count == index; }
};
Result<Shard> ParseShard(const std::string& text);

// The points of `grid` in `shard`, in index order.
std::vector<int64_t> ShardPoints(int64_t grid_size, const Shard& shard);

// Shortest text that reads back as the same double ("20", "0.1", "539859.2").
std::string ShortestNumber(double value);

}  // namespace tilesched::sweep

#endif  // TILESCHED_SWEEP_GRID_H_
