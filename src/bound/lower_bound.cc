// ComputeLowerBounds and Gap (include/tilesched/lower_bound.h): every part of the tier-1 bound,
// each computed by its own file of src/bound/ (src/bound/README.md maps them to their lemmas).
#include "tilesched/lower_bound.h"

#include <cstdint>
#include <limits>

#include "coupled_bound.h"
#include "mixed_bound.h"
#include "phase_bound.h"
#include "squeeze_bound.h"
#include "tilesched/graph.h"
#include "traffic_bound.h"

namespace tilesched {

double Gap(double latency, double bound) {
  if (bound <= 0) return latency <= 0 ? 0 : std::numeric_limits<double>::infinity();
  // Latencies that equal the bound up to rounding (relative 1e-9, as rule 3.9) have no gap.
  if (latency <= bound * (1 + 1e-9)) return 0;
  return latency / bound - 1;
}

std::vector<BoundPart> Parts(const LowerBounds& b) {
  return {{"compute", b.compute},   {"io", b.io},           {"traffic", b.traffic},
          {"mixed", b.mixed},       {"phase", b.phase},     {"capacity", b.capacity},
          {"coupled", b.coupled},   {"shared", b.shared},   {"squeeze", b.squeeze},
          {"held", b.held}};
}

BoundPart BestPart(const LowerBounds& bounds) {
  const std::vector<BoundPart> parts = Parts(bounds);
  BoundPart best = parts.front();
  for (const BoundPart& p : parts) {
    if (p.value > best.value) best = p;
  }
  return best;
}

double LowerBounds::best() const { return BestPart(*this).value; }

LowerBounds ComputeLowerBounds(const Problem& problem, const CostModes& modes) {
  LowerBounds bounds;
  // Lemma C1: every op computed once over its whole output.
  for (int o = 0; o < problem.num_ops(); ++o) {
    bounds.compute += OpComputeOnce(problem, o, modes.matmul_reduction);
  }
  // Every graph input read once, every graph output written once.
  int64_t traffic = 0;
  for (int t : problem.graph().graph_inputs()) traffic += problem.tensor(t).size();
  for (int t : problem.graph().graph_outputs()) traffic += problem.tensor(t).size();
  const double bandwidth = problem.hardware().slow_memory_bandwidth;
  bounds.io = static_cast<double>(traffic) / bandwidth;
  bounds.traffic = bound::TrafficLowerBound(problem, modes) / bandwidth;
  bounds.mixed = bound::MixedLowerBound(problem, modes);
  bounds.phase = bound::PhaseLowerBound(problem, modes);
  bounds.capacity = bound::CapacityLowerBound(problem, modes);
  bounds.shared = bound::SharedLowerBound(problem, modes);
  bounds.coupled = bound::CoupledLowerBound(problem, modes);
  bounds.squeeze = bound::SqueezeLowerBound(problem, modes);
  bounds.held = bound::HeldLowerBound(problem, modes);
  return bounds;
}

}  // namespace tilesched
