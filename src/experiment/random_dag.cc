// The random layered DAG of random_dag.h.
#include "random_dag.h"

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tilesched::experiment {

namespace {

// Base costs per native tile, as in the contest benchmarks (data/benchmarks: MatMul 2000,
// Pointwise 500), and the stack's hardware (stack.cc).
constexpr double kMatMulCost = 2000;
constexpr double kPointwiseCost = 500;

Status CheckRange(const char* name, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return Status::Ok();
  return Status::Error(std::string(name) + ": expected " + std::to_string(lo) + " to " +
                       std::to_string(hi) + ", got " + std::to_string(value));
}

}  // namespace

Result<Problem> MakeRandomLayeredDag(const RandomDagOptions& o) {
  for (Status s : {CheckRange("ops", o.ops, 1, 1000000),
                   CheckRange("layer_width", o.layer_width, 1, 100000),
                   CheckRange("reach", o.reach, 1, 1000), CheckRange("max_inputs", o.max_inputs, 1, 8),
                   CheckRange("max_readers", o.max_readers, 1, 64),
                   CheckRange("size", o.size, 1, 1 << 20)}) {
    if (!s.ok()) return s;
  }
  // Explicit arithmetic on the engine's output (not std::uniform_int_distribution, whose
  // results differ between standard libraries), so a seed gives the same problem everywhere.
  std::mt19937_64 rng(o.seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL);
  auto below = [&rng](size_t n) { return static_cast<size_t>(rng() % n); };

  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  std::vector<int> readers;  // per tensor
  auto add_tensor = [&] {
    tensors.push_back(Tensor{o.size, o.size});
    readers.push_back(0);
    return static_cast<int>(tensors.size()) - 1;
  };
  // layers[i]: the activations layer i produced (layer 0: the graph's activation inputs).
  std::vector<std::vector<int>> layers(1);
  for (int i = 0; i < o.layer_width; ++i) layers[0].push_back(add_tensor());

  // Picks an activation of the last `reach` layers with a free reader slot, not in `taken`;
  // -1 when there is none. Tries random picks first, then scans (newest layer first), so the
  // work per op is bounded by reach x layer_width.
  auto pick = [&](const std::vector<int>& taken) {
    const size_t first = layers.size() > static_cast<size_t>(o.reach) ? layers.size() - o.reach : 0;
    std::vector<int> pool;
    for (size_t l = layers.size(); l-- > first;) {
      for (int t : layers[l]) {
        if (readers[t] < o.max_readers && std::find(taken.begin(), taken.end(), t) == taken.end()) {
          pool.push_back(t);
        }
      }
    }
    if (pool.empty()) return -1;
    // The newest layer is first in the pool; half of the picks come from it, so the graph is
    // deep rather than a fan of short chains.
    const size_t newest = std::min(pool.size(), static_cast<size_t>(o.layer_width));
    return pool[rng() % 2 == 0 ? below(newest) : below(pool.size())];
  };

  while (static_cast<int>(ops.size()) < o.ops) {
    std::vector<int> layer;
    for (int i = 0; i < o.layer_width && static_cast<int>(ops.size()) < o.ops; ++i) {
      std::vector<int> inputs;
      const bool matmul = rng() % 2 == 0;
      const int first = pick(inputs);
      if (first < 0) break;  // every activation in reach has its readers: end the layer
      inputs.push_back(first);
      if (matmul) {
        const int second = rng() % 2 == 0 ? pick(inputs) : -1;
        inputs.push_back(second >= 0 ? second : add_tensor());  // else a fresh weight
      } else {
        const size_t more = below(static_cast<size_t>(o.max_inputs));
        for (size_t k = 0; k < more; ++k) {
          const int t = pick(inputs);
          if (t >= 0) inputs.push_back(t);
        }
      }
      for (int t : inputs) ++readers[t];
      const int out = add_tensor();
      ops.push_back({matmul ? OpType::kMatMul : OpType::kPointwise, std::move(inputs), out,
                     matmul ? kMatMulCost : kPointwiseCost});
      layer.push_back(out);
    }
    if (layer.empty()) {
      // Nothing in reach can be read any more: a fresh activation input restarts the layers.
      layer.push_back(add_tensor());
    }
    layers.push_back(std::move(layer));
  }
  Hardware hw;
  hw.fast_memory_capacity = 300000;
  hw.slow_memory_bandwidth = 20;
  hw.native_w = hw.native_h = 128;
  return Problem::Create(std::move(tensors), std::move(ops), hw);
}

}  // namespace tilesched::experiment
