// Lower bounds on any valid schedule's total latency (docs/bounds.md states and proves them):
// the one public header of the bound module (src/bound/, target tilesched_bound; its README maps
// every file to its lemmas).
//
// Entry points: ComputeLowerBounds(problem, modes) computes every part of tier 1, each valid for
// every schedule that the evaluator accepts under `modes`; Gap(latency, bound); LinkComponents
// (problem, modes), the ops that can share a subgraph (Lemma W1), by which tier 2 splits a
// large problem (SplitTier2Bound in tilesched/search.h); AdmissibleCuts, Cores and Pieces (Lemma
// V1), the finer split of the link components at tensors whose demanded region is fixed, where
// the next tier of the bound is to be priced (docs/design_cores.md); ComponentLowerBounds, the mixed
// roofline of each link component (Lemma W4), which that split uses where tier 2 cannot price. Tier 2 (the
// covering LP over every subgraph context, docs/bounds.md "Tier 2") prices the same contexts as
// the exact search, so it is the search library's entry Tier2Bound (tilesched/search.h).
//
// The parts of LowerBounds (docs/bounds.md, "The parts of the bound"):
//   compute: every op computed once over its whole output, each dimension paying exactly
//            d / native (SPEC.md section 5; Lemma C1);
//   io:      every graph input read once, every graph output written once (the old bound);
//   traffic: the memory-traffic bound (Lemmas M1-M8): per op, the elements its first subgraph
//            must load (MatMul operands re-streamed once per tile row or column when the
//            reduction is split; operands of recomputed producers), the stores of tensors that
//            cross subgraphs, and the graph outputs, divided by the bandwidth;
//   mixed:   per subgraph the larger of compute and traffic (padded tiles, loads of first
//            subgraphs), summed over the best grouping the graph allows (Lemmas C2, G1-G3);
//   phase:   last-step compute of the epilogues plus the earlier steps' re-streamed loads
//            (Lemmas P1-P6);
//   capacity: traffic and mixed again with charges minimized over the tiles that fit (K1-K3);
//   coupled: lambda x compute + (1 - lambda) x traffic, minimized together per op (L1-L2);
//   shared:  traffic and mixed again with the loads of a shared graph input split by what each
//            reader holds in fast memory (Lemmas S1-S3);
//   squeeze: per op and case the compute and traffic at the tiles that fit, combined per class
//            of ops that can be first together (R1-R4);
//   held:    traffic with K1's charges, producers computed inside priced with their reader's
//            resident operands held (Lemmas H1-H2, M4').
// Any schedule's total is at least each of them, since a step costs at least its compute and
// at least its traffic; best() is the largest.
#ifndef TILESCHED_LOWER_BOUND_H_
#define TILESCHED_LOWER_BOUND_H_

#include <cstdint>
#include <vector>

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"

namespace tilesched {

struct LowerBounds {
  double compute = 0;   // Lemma C1
  double io = 0;
  double traffic = 0;   // Lemmas M1-M8 (src/bound/traffic_bound.cc)
  double mixed = 0;     // Lemmas G1-G3 (src/bound/mixed_bound.cc)
  double phase = 0;     // Lemmas P1-P6 (src/bound/phase_bound.cc)
  double capacity = 0;  // traffic and mixed with Lemmas K1-K3 (capacity-aware charges)
  double coupled = 0;   // Lemmas L1-L2: capacity-aware charges with each op's compute, per lambda
  double shared = 0;    // traffic and mixed with Lemmas S1-S3 (src/bound/shared_inputs.cc)
  double squeeze = 0;   // Lemmas R1-R4 (src/bound/squeeze_bound.cc)
  double held = 0;      // Lemmas H1-H2, M4' (src/bound/held_tensors.h)
  // The largest part (BestPart's value).
  double best() const;
  // The bound of the first release (compute or graph I/O), kept because the beam search
  // normalizes its scores by it.
  double simple() const { return compute > io ? compute : io; }
};

// One named part of LowerBounds; `name` is how `tilesched bound`, the reports and the JSON
// outputs spell it ("compute", "io", "traffic", ...).
struct BoundPart {
  const char* name;
  double value;
};
// Every part, in the order of LowerBounds' fields: the one list the commands print, so that a
// bound printed anywhere is explained by the parts printed next to it.
std::vector<BoundPart> Parts(const LowerBounds& bounds);
// The part that sets best(): the first of the largest.
BoundPart BestPart(const LowerBounds& bounds);

// Every part of the tier-1 bound of `problem` under `modes`.
LowerBounds ComputeLowerBounds(const Problem& problem, const CostModes& modes);

// The gap of a schedule's latency to a lower bound: latency / bound - 1, and 0 when the
// latency equals the bound up to a relative 1e-9 (or both are 0).
double Gap(double latency, double bound);

// Lemma W1 (docs/bounds.md, "Tier 2 by components"): per op, the index of its link component.
// Two ops are linked when they read one tensor, or when one reads the other's output over an
// edge a subgraph can hold inside (Lemma M5); every subgraph of every valid schedule under
// `modes` lies inside one component. Components are numbered 0, 1, ... in the order of their
// smallest op.
std::vector<int> LinkComponents(const Problem& problem, const CostModes& modes);

// Lemma T6 (docs/bounds.md, "Tier 2"): per op, the ops it never shares a subgraph with under
// `modes` because one reads the other's output over an edge no subgraph can hold inside (Lemma
// M5; the same edges LinkComponents leaves out). Symmetric; empty lists under rules=algebra.
std::vector<std::vector<int>> NeverTogether(const Problem& problem, const CostModes& modes);

// Lemma V1 (docs/bounds.md, "Cores"): how a tensor may be cut out of the links of Lemma W1.
//   kKept: its links stay;
//   kExternalShared (E): two or more readers, and no valid subgraph holds its producer with a
//     reader (a graph input, or every producer-reader edge never fusable, Lemma M5): its
//     reader-reader links are cut, so readers of it in one subgraph may lie in different pieces;
//   kGlue (G): every valid subgraph that holds its producer demands it as the tile, (kTile,
//     kTile) (Lemmas P2-P3, rules=contest): its producer-reader links are cut, its reader-reader
//     links stay.
enum class CutKind : uint8_t { kKept, kExternalShared, kGlue };

// Lemma V1: per tensor, the cut it admits (kKept when none). Under rules=algebra nothing is cut.
// Any subset of these cuts is valid; the more are made, the smaller the cores and the more
// subgraphs cross them.
std::vector<CutKind> AdmissibleCuts(const Problem& problem, const CostModes& modes);

// The cuts docs/design_cores.md measured its core sizes with: every kExternalShared cut, and the
// kGlue cuts at a Pointwise output larger than the native tile in both dimensions (not at MatMul
// outputs, which keeps the heads that write one residual in one core). A subset of
// AdmissibleCuts.
std::vector<CutKind> DesignCuts(const Problem& problem, const CostModes& modes);

// The cores of a problem under a set of cuts (docs/bounds.md, "Cores"): the components of the
// ops under the links of Lemma W1 that the cuts keep. `cut` holds per tensor kKept or its kind in
// AdmissibleCuts (any other kind is taken as kKept); with no cuts the cores are the link
// components. Cores are numbered like LinkComponents (by smallest op).
struct CoreSplit {
  std::vector<CutKind> cut;   // per tensor, as made
  std::vector<int> core_of;   // per op
  int count = 0;              // number of cores
};
CoreSplit Cores(const Problem& problem, const CostModes& modes, const std::vector<CutKind>& cut);

// The pieces of the op set `ops` (Lemma V1): its components under the links `split` keeps,
// each sorted, ordered by smallest op. A valid subgraph with one piece lies in one core; the
// pieces of any valid subgraph share only cut tensors.
std::vector<std::vector<int>> Pieces(const Problem& problem, const CoreSplit& split, const std::vector<int>& ops);

// Lemma W4 (docs/bounds.md, "Tier 2 by components"): per link component of `component_of`
// (LinkComponents' numbering), a bound on the summed latency of the subgraphs of any valid
// schedule that lie in it: the mixed-roofline parts (Lemmas G1-G6 with the charges of mixed,
// capacity and shared) with their flow restricted to the component, the best valid pass of
// each. All 0 above 1,000 ops (the mixed part is not computed there).
std::vector<double> ComponentLowerBounds(const Problem& problem, const CostModes& modes,
                                         const std::vector<int>& component_of);

}  // namespace tilesched

#endif  // TILESCHED_LOWER_BOUND_H_
