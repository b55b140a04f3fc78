// FakeCoster: a stand-in cost model for strategy tests (docs/style.md rule 7), fast and exact.
//
// A subgraph's latency is the sum of its ops' base costs plus its traffic / bandwidth, where
// traffic counts every external input not resident and every sink written (not retained, or a
// graph output). It is infeasible above `max_ops` ops or when resident + retained tensors
// exceed the capacity. Fusing saves the traffic of intermediates; retaining saves the write and
// the re-read; recomputing costs the op again.
#ifndef TILESCHED_TESTS_FAKE_COSTER_H_
#define TILESCHED_TESTS_FAKE_COSTER_H_

#include <algorithm>
#include <atomic>

#include "coster.h"

namespace tilesched::testing {

class FakeCoster : public search::SubgraphCoster {
 public:
  FakeCoster(const Problem& problem, int max_ops) : problem_(problem), max_ops_(max_ops) {}

  std::optional<search::TileChoice> Configure(const SubgraphPlan& plan, std::span<const int> retained,
                                              std::span<const int> resident) override {
    calls_.fetch_add(1);
    if (static_cast<int>(plan.ops().size()) > max_ops_) return std::nullopt;
    int64_t held = 0;
    for (int t : retained) held += problem_.tensor(t).size();
    for (int t : resident) held += problem_.tensor(t).size();
    if (held > problem_.hardware().fast_memory_capacity) return std::nullopt;
    double latency = 0;
    for (int o : plan.ops()) latency += problem_.op(o).base_cost;
    int64_t traffic = 0;
    for (int t : plan.external_inputs()) {
      if (!std::binary_search(resident.begin(), resident.end(), t)) traffic += problem_.tensor(t).size();
    }
    for (int t : plan.sinks()) {
      const bool kept = std::binary_search(retained.begin(), retained.end(), t);
      if (!kept || problem_.is_graph_output(t)) traffic += problem_.tensor(t).size();
    }
    latency += static_cast<double>(traffic) / problem_.hardware().slow_memory_bandwidth;
    search::TileChoice choice;
    choice.granularity = {problem_.hardware().native_w, problem_.hardware().native_h, 1};
    choice.latency = latency;
    return choice;
  }
  int64_t evaluations() const override { return calls_.load(); }

 private:
  const Problem& problem_;
  int max_ops_;
  std::atomic<int64_t> calls_{0};
};

}  // namespace tilesched::testing

#endif  // TILESCHED_TESTS_FAKE_COSTER_H_
