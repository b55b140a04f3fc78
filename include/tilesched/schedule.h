// Subgraph and Schedule: values describing one solution (SPEC.md section 2).
//
// A Schedule is a list of Subgraphs executed in order. Each Subgraph names its ops, its
// Granularity {w, h, k}, the tensors it retains in fast memory for the next subgraph, and its
// traversal order (empty = raster). reported_latency is what a solution file claimed, if any.
#ifndef TILESCHED_SCHEDULE_H_
#define TILESCHED_SCHEDULE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilesched {

struct Granularity {
  int64_t w = 1;
  int64_t h = 1;
  int64_t k = 1;
  bool operator==(const Granularity&) const = default;
};

struct Subgraph {
  std::vector<int> ops;
  Granularity granularity;
  std::vector<int> retained;       // tensors_to_retain
  std::vector<int64_t> traversal;  // permutation of tile ids; empty = raster order
  std::optional<double> reported_latency;
};

struct Schedule {
  std::vector<Subgraph> subgraphs;
};

// "[0, 3, 4]" for messages and tables.
std::string IdList(const std::vector<int>& ids);

}  // namespace tilesched

#endif  // TILESCHED_SCHEDULE_H_
