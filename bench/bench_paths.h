// The contest benchmarks the bench programs run: data/benchmarks/mlsys-2026-N.json in the
// source tree (TILESCHED_SOURCE_DIR, set by bench/CMakeLists.txt).
#ifndef TILESCHED_BENCH_BENCH_PATHS_H_
#define TILESCHED_BENCH_BENCH_PATHS_H_

#include <string>

namespace tilesched {

inline std::string BenchmarkPath(int n) {
  return std::string(TILESCHED_SOURCE_DIR) + "/data/benchmarks/mlsys-2026-" + std::to_string(n) +
         ".json";
}

}  // namespace tilesched

#endif  // TILESCHED_BENCH_BENCH_PATHS_H_
