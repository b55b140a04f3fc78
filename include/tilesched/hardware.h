// HardwareDescription: a chip in physical units (bytes, MACs and elements per time unit), and
// the formulas that turn it into a problem's Hardware and base costs (docs/import.md).
//
// Entry points: ParseHardwareDescription / LoadHardwareDescription read the strict-keys JSON
// of configs/hardware/*.json; DeriveHardware gives capacity and bandwidth in elements;
// MatMulBaseCost / PointwiseBaseCost are the base-cost formulas; OperatorWork is the relative
// work per element of one ONNX operator; Retarget moves a problem onto another description.
#ifndef TILESCHED_HARDWARE_H_
#define TILESCHED_HARDWARE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "tilesched/problem.h"
#include "tilesched/status.h"

namespace tilesched {

// Throughputs a problem's base costs were computed for (the `rescale_from` key): Retarget
// scales base costs by old / new throughput and by the native-tile area ratio.
struct ThroughputReference {
  double matmul_macs_per_time = 0;
  double vector_elements_per_time = 0;
};

struct HardwareDescription {
  std::string name;    // "name": short label
  std::string source;  // "source": where the numbers come from, or "illustrative"
  int64_t native_w = 0;  // "native_tile": [w, h]
  int64_t native_h = 0;
  double fast_memory_bytes = 0;           // "fast_memory_bytes"
  double slow_memory_bytes_per_time = 0;  // "slow_memory_bytes_per_time"
  double element_bytes = 0;               // "element_bytes"
  double matmul_macs_per_time = 0;        // "matmul_macs_per_time"
  double vector_elements_per_time = 0;    // "vector_elements_per_time"
  // "operator_costs": ONNX op type -> work per element relative to one Add (default 1).
  std::map<std::string, double> operator_costs;
  std::optional<ThroughputReference> rescale_from;  // "rescale_from"
};

Result<HardwareDescription> ParseHardwareDescription(const std::string& text);
Result<HardwareDescription> LoadHardwareDescription(const std::string& path);

// fast_memory_capacity = floor(fast_memory_bytes / element_bytes),
// slow_memory_bandwidth = slow_memory_bytes_per_time / element_bytes, native tile as given.
Hardware DeriveHardware(const HardwareDescription& hw);

// One native tile over a reduction of `k`: native_w * native_h * k / matmul_macs_per_time.
double MatMulBaseCost(const HardwareDescription& hw, int64_t k);
// One native tile of `work` units per element: native_w * native_h * work / vector_elements_per_time.
double PointwiseBaseCost(const HardwareDescription& hw, double work);

// Work per element of one ONNX operator, relative to Add: operator_costs[op_type] when given;
// otherwise Softmax and LayerNormalization are the sum of the steps they decompose into
// (docs/import.md) and every other operator costs 1.
double OperatorWork(const HardwareDescription& hw, const std::string& op_type);

// The same graph on `hw`: capacity, bandwidth and native tile from DeriveHardware; base costs
// scaled when `hw.rescale_from` says what they were computed for (MatMul by
// rescale_from.matmul / matmul, Pointwise by rescale_from.vector / vector, both by the
// native-tile area ratio), otherwise kept.
Result<Problem> Retarget(const Problem& problem, const HardwareDescription& hw);

// The same problem with every MatMul base cost times `matmul_factor` and every Pointwise base
// cost times `pointwise_factor` (a throughput change: factor = old / new throughput).
Result<Problem> ScaleBaseCosts(const Problem& problem, double matmul_factor, double pointwise_factor);

// `path` loaded, then retargeted to the description at `hardware_path` when it is not empty
// (the `--hardware` option of schedule, sweep and info).
Result<Problem> LoadProblemOnHardware(const std::string& path, const std::string& hardware_path,
                                      std::vector<std::string>* warnings = nullptr);

}  // namespace tilesched

#endif  // TILESCHED_HARDWARE_H_
