// Lower bounds on any valid schedule's total latency (docs/bounds.md states and proves them).
//
// Entry point: ComputeLowerBounds(problem, modes). Bounds, each valid for every schedule
// that the evaluator accepts under `modes`:
//   compute: every op computed once over its whole output, each dimension paying exactly
//            d / native (SPEC.md section 5);
//   io:      every graph input read once, every graph output written once (the old bound);
//   traffic: the memory-traffic bound of docs/bounds.md: per op, the elements its first
//            subgraph must load (MatMul operands re-streamed once per tile row or column when
//            the reduction is split; operands of recomputed producers), the stores of tensors
//            that cross subgraphs, and the graph outputs, divided by the bandwidth;
//   mixed:   per subgraph the larger of compute and traffic (padded tiles, loads of first
//            subgraphs), summed over the best grouping the graph allows (Lemmas C2, G1);
//   phase:   last-step compute of the epilogues plus the earlier steps' re-streamed loads
//            (Lemmas P1-P6);
//   capacity: traffic and mixed again with charges minimized over the tiles that fit (K1-K3);
//   coupled: lambda x compute + (1 - lambda) x traffic, minimized together per op (L1-L2);
//   shared:  traffic and mixed again with the loads of a shared graph input split by what each
//            reader holds in fast memory (Lemmas S1-S3).
//   squeeze:  per op and case the compute and traffic at the tiles that fit, combined per
//            class of ops that can be first together (R1-R4).
//   held:    traffic with K1's charges, producers computed inside priced with their reader's
//            resident operands held (Lemmas H1-H2, M4'; include/tilesched/lower_bound_held.h).
// Any schedule's total is at least each of them, since a step costs at least its compute and
// at least its traffic; best() is the largest.
#ifndef TILESCHED_LOWER_BOUND_H_
#define TILESCHED_LOWER_BOUND_H_

#include <cstdint>

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"

namespace tilesched {

struct LowerBounds {
  double compute = 0;
  double io = 0;
  double traffic = 0;
  double mixed = 0;
  double phase = 0;     // Lemmas P1-P6 (src/lower_bound_phase.cc)
  double capacity = 0;  // traffic and mixed with Lemmas K1-K3 (capacity-aware charges)
  double coupled = 0;   // Lemmas L1-L2: capacity-aware charges with each op's compute, per lambda
  double shared = 0;    // traffic and mixed with Lemmas S1-S3 (src/lower_bound_shared.cc)
  double squeeze = 0;   // Lemmas R1-R4 (src/lower_bound_squeeze.cc)
  double held = 0;      // Lemmas H1-H2, M4' (include/tilesched/lower_bound_held.h)
  double best() const {
    double m = compute > io ? compute : io;
    m = traffic > m ? traffic : m;
    m = phase > m ? phase : m;
    m = capacity > m ? capacity : m;
    m = shared > m ? shared : m;
    m = coupled > m ? coupled : m;
    m = squeeze > m ? squeeze : m;
    m = held > m ? held : m;
    return mixed > m ? mixed : m;
  }
  // The bound of the first release (compute or graph I/O), kept because the beam search
  // normalizes its scores by it.
  double simple() const { return compute > io ? compute : io; }
};

// Compute cost of op o computed once in full.
double OpComputeOnce(const Problem& problem, int o, MatmulReduction mode);

// Elements every schedule moves between slow and fast memory at least (Lemmas M1-M7 of
// docs/bounds.md); traffic = this / bandwidth.
double TrafficLowerBound(const Problem& problem, const CostModes& modes);

// Lemma G1 of docs/bounds.md: every subgraph costs at least the larger of its compute and its
// traffic, so ops that are compute-heavy and ops that are memory-heavy only hide each other's
// cost when they can be first in one subgraph together. 0 above 1,000 ops (not computed).
double MixedLowerBound(const Problem& problem, const CostModes& modes);

// Lemma K1 of docs/bounds.md: the traffic and mixed bounds with every charge minimized over the
// tiles whose working set fits (not only the native tile); the larger of the two.
double CapacityLowerBound(const Problem& problem, const CostModes& modes);

// Lemmas S1-S3 of docs/bounds.md: the traffic and mixed bounds with the loads of a graph input
// shared by MatMuls split by what each reader holds in fast memory; the larger of the two, or 0
// when no graph input can be split.
double SharedLowerBound(const Problem& problem, const CostModes& modes);
// Lemmas L1-L2 of docs/bounds.md: for each lambda of a fixed grid, lambda x compute + (1 - lambda)
// x traffic with both minimized together per op over its roles, arrivals and fitting tiles (a
// smaller tile pays more padded compute, SPEC 5); the largest over the grid, or with two grid
// classes or more each class at its own best lambda (L2).
double CoupledLowerBound(const Problem& problem, const CostModes& modes);

LowerBounds ComputeLowerBounds(const Problem& problem, const CostModes& modes);

// The gap of a schedule's latency to a lower bound: latency / bound - 1, and 0 when the
// latency equals the bound up to a relative 1e-9 (or both are 0).
double Gap(double latency, double bound);

}  // namespace tilesched

#endif  // TILESCHED_LOWER_BOUND_H_
