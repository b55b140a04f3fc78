// The cost model (SPEC.md sections 4-7): modes, the small pure pieces of a step's cost, and
// CostModel, which costs one configured subgraph given what is resident when it starts.
//
// Entry points: CostModes (the three switches of SPEC.md section 7), the pure functions
// SpatialFactor / ProportionalFactor / ReductionFactor / StepLatency / TileBuffers,
// OpComputeOnce (an op computed once in full), the tile rules ProportionalLeastTile /
// ProportionalRegionFits (rule 7b, shared by the evaluator, the configurator and the lower
// bounds), CostModel::CheckGranularity (rules 3.4 and 7b) and CostModel::Cost (rule 3.8 and the full
// latency with its breakdown, including per op what it computes: OpWork, with
// ComputedRelativeToOnce / RecomputationTime). Whole schedules are judged by Evaluate() in
// evaluate.h.
//
// Cost() does not walk every step: steps that are identical up to position are costed once
// and multiplied (SPEC.md section 9). Tiles fall into a few classes (clipped or not in each
// dimension; same row / column as the tile before), and inside a tile the k-steps fall into
// runs between the points where a split root finishes or a slice is clipped.
#ifndef TILESCHED_COST_MODEL_H_
#define TILESCHED_COST_MODEL_H_

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "tilesched/demand.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

// SPEC.md section 7; the defaults reproduce the contest's published results.
enum class Rules { kContest, kAlgebra };
enum class MatmulReduction { kFullK, kNativeK };
enum class KLimit { kNative, kReduction };

struct CostModes {
  Rules rules = Rules::kContest;
  MatmulReduction matmul_reduction = MatmulReduction::kFullK;
  KLimit k_limit = KLimit::kNative;
  bool operator==(const CostModes&) const = default;
};

const char* RulesName(Rules rules);
const char* MatmulReductionName(MatmulReduction mode);
const char* KLimitName(KLimit mode);
// "rules=contest matmul_reduction=full_k k_limit=native"
std::string ModesString(const CostModes& modes);
Result<Rules> ParseRules(const std::string& text);
Result<MatmulReduction> ParseMatmulReduction(const std::string& text);
Result<KLimit> ParseKLimit(const std::string& text);

// --- Pure pieces of one step's cost (SPEC.md section 5) -------------------------------------

// A spatial dimension pays whole native tiles: ceil(d / native).
inline double SpatialFactor(int64_t d, int64_t native) {
  return static_cast<double>((d + native - 1) / native);
}
// A proportional dimension (k-slice or full reduction) pays exactly d / native.
inline double ProportionalFactor(int64_t d, int64_t native) {
  return static_cast<double>(d) / static_cast<double>(native);
}
// Reduction factor of a MatMul computing `length` of its reduction K.
//   full_k: base_cost covers all of K, so a slice pays length / K (an inner MatMul: 1).
//   native_k: base_cost covers one native k-slice, so it pays length / native_k.
inline double ReductionFactor(MatmulReduction mode, int64_t length, int64_t k_extent,
                              int64_t native_k) {
  return mode == MatmulReduction::kFullK
             ? static_cast<double>(length) / static_cast<double>(k_extent)
             : static_cast<double>(length) / static_cast<double>(native_k);
}
// Slow-memory time of a step's traffic.
inline double MemoryTime(int64_t load, int64_t store, double bandwidth) {
  return static_cast<double>(load + store) / bandwidth;
}
// Roofline: a step takes the longer of its compute and its slow-memory traffic.
inline double StepLatency(double compute, int64_t load, int64_t store, double bandwidth) {
  const double memory = MemoryTime(load, store, bandwidth);
  return compute > memory ? compute : memory;
}
// Tile-sized buffers a step holds (SPEC.md sections 6 and 7a).
inline int64_t TileBuffers(Rules rules, int64_t sinks_not_retained,
                           int64_t roots_not_retained, int64_t nonsink_roots_not_retained) {
  if (rules == Rules::kContest) return sinks_not_retained + nonsink_roots_not_retained;
  return sinks_not_retained > roots_not_retained ? sinks_not_retained : roots_not_retained;
}

// Compute cost of op o computed once in full: each output dimension pays exactly d / native,
// a MatMul its whole reduction (SPEC.md section 5; docs/bounds.md Lemma C1).
double OpComputeOnce(const Problem& problem, int o, MatmulReduction mode);

// --- Tile rules -------------------------------------------------------------------------------

// Contest rule 7b (rules=contest): a Pointwise op whose region is proportional along an axis
// (a MatMul reads it along its reduction: the LHS's columns, the RHS's rows) computes that axis
// of its output whole, in one tile. The least tile extent op `op`'s proportional region needs
// along the rows (`along_rows`) or the columns: its output's extent there for a Pointwise op
// under contest rules, 1 otherwise.
int64_t ProportionalLeastTile(const Problem& problem, Rules rules, int op, bool along_rows);
// Rule 7b with rule 3.4 (a tile is at most the native tile): whether op `op`'s region can be
// proportional along that axis in any valid subgraph. The lower bounds drop the roles where it
// cannot (src/bound/).
bool ProportionalRegionFits(const Problem& problem, Rules rules, int op, bool along_rows);

// --- Breakdown of one subgraph ---------------------------------------------------------------

// What one op computes, summed over the steps of a subgraph (or of a whole schedule): its output
// elements, counting a split root's k-slice over a region as slice/K of that region (so a split
// root that accumulates all its slices over a tile computes the tile once), and the compute time
// the cost model charged for them. docs/cost_model.md "Recomputation" defines it precisely.
struct OpWork {
  int op = -1;
  int64_t output_size = 0;  // elements of the op's output tensor
  double elements = 0;
  double compute_time = 0;
};
// Output computed relative to computing it once: elements / output size (2 = twice).
inline double ComputedRelativeToOnce(const OpWork& work) {
  return work.elements / static_cast<double>(work.output_size);
}
// Compute time spent beyond computing the output once, at the op's average time per element.
inline double RecomputationTime(const OpWork& work) {
  const double size = static_cast<double>(work.output_size);
  if (work.elements <= size) return 0;
  return work.compute_time * (work.elements - size) / work.elements;
}
// RecomputationTime summed over a list of ops (a subgraph's, or a whole schedule's).
double RecomputationTime(const std::vector<OpWork>& work);
// "op 0: 2.00x, op 1: 1.00x" (ComputedRelativeToOnce of each).
std::string ComputedSummary(const std::vector<OpWork>& work);

struct SubgraphCost {
  double latency = 0;       // sum of step latencies
  double compute_time = 0;  // sum of step compute
  double memory_time = 0;   // sum of step (load + store) / bandwidth
  int64_t steps = 0;
  int64_t compute_bound_steps = 0;  // compute >= memory time
  int64_t memory_bound_steps = 0;
  double compute_bound_time = 0;  // latency of the compute-bound steps
  double memory_bound_time = 0;   // latency of the memory-bound steps
  int64_t loaded = 0;  // elements read from slow memory
  int64_t stored = 0;  // elements written to slow memory
  int64_t tiles = 0;
  int64_t k_steps = 0;  // steps per tile
  int64_t peak_working_set = 0;
  int64_t peak_tile = 0;    // tile id of the first step reaching the peak
  int64_t peak_k_step = 0;  // 0-based k-step of that step
  std::vector<OpWork> op_work;  // one per op of the plan, in its (sorted) op order
};

// The bounds rule 3.4 and, under rules=contest, rule 7b (ProportionalLeastTile) put on a
// granularity of one subgraph (CostModel::Bounds): the one place both the evaluator's check and
// the configurator's enumeration take them from.
struct GranularityBounds {
  int64_t min_w = 1, max_w = 1;  // 7b: a Pointwise op read along a reduction axis needs the
  int64_t min_h = 1, max_h = 1;  // whole axis (min_w / min_h); 3.4: at most the native tile
  // k of the split roots (1 without split roots): at most every root's K (3.4), and at most
  // native k under k_limit=native.
  int64_t max_k = 1;
  int64_t min_root_extent = 0;  // smallest K of the split roots (0 without split roots)
};

class CostModel {
 public:
  CostModel(const Problem& problem, CostModes modes) : problem_(&problem), modes_(modes) {}

  const Problem& problem() const { return *problem_; }
  const CostModes& modes() const { return modes_; }

  // Rule 3.4 (tile and k bounds) and, under rules=contest, 7b (a Pointwise op read along a
  // reduction axis covers that axis in one tile).
  GranularityBounds Bounds(const SubgraphPlan& plan) const;
  // `g` within Bounds(plan); the message names the rule and the op or root that limits it.
  Status CheckGranularity(const SubgraphPlan& plan, const Granularity& g) const;

  // Number of k-steps per tile: max over split roots of ceil(K / k), 1 without split roots.
  int64_t KSteps(const SubgraphPlan& plan, const Granularity& g) const;

  // Largest working set over all steps of `plan` at granularity `g` (the traversal order does
  // not change it): the cheap feasibility check that precedes Cost().
  int64_t PeakWorkingSet(const SubgraphPlan& plan, const Granularity& g,
                         std::span<const int> retained, std::span<const int> resident) const;

  // The working set of the first step of the first tile: at most PeakWorkingSet, and cheaper
  // (one step), so a granularity where it exceeds the capacity is rejected early.
  int64_t FirstStepWorkingSet(const SubgraphPlan& plan, const Granularity& g,
                              std::span<const int> retained, std::span<const int> resident) const;

  // What every step of `plan` holds besides its slices (SPEC 6): the resident and retained
  // tensors (`held`) and `buffers` tile-sized buffers. A step of tile area A holds at least
  // held + buffers x A, so a granularity whose first tile (min(w, W) x min(h, H)) makes that
  // exceed the capacity never fits.
  struct HeldSpace {
    int64_t held = 0, buffers = 0;
  };
  HeldSpace Held(const SubgraphPlan& plan, std::span<const int> retained,
                 std::span<const int> resident) const;

  // A lower bound on the latency of `plan` at k = g.k over every traversal order, on the grid
  // that cuts a grid_width x grid_height sink into g.w x g.h tiles (the plan's own sink shape,
  // or a smaller one standing for the smallest tiles of a class: docs/bounds.md Lemma X7).
  // Ignores capacity. 0 (a trivial bound) for a mixed plan, unless `allow_mixed`: then a bound
  // only on grids where no tile interval equals a k-slice (docs/bounds.md Lemma X7, mixed plans).
  // With `lambda` in [0, 1], a bound on the sum over the steps of lambda x compute +
  // (1 - lambda) x memory time instead of the latency (docs/bounds.md "Cores", Lemma V3: the
  // common linearization of pieces); < 0 (the default): the latency.
  double OrderFreeBound(const SubgraphPlan& plan, const Granularity& g, int64_t grid_width,
                        int64_t grid_height, std::span<const int> retained,
                        std::span<const int> resident, bool allow_mixed = false,
                        double lambda = -1) const;

  // A lower bound over every traversal order on the latency of `plan` at `g`, for any plan
  // (mixed included; docs/bounds.md Lemmas X7 and X11): costs every tile, so meant for small
  // grids.
  // Stops once the tiles summed so far reach `cutoff` and returns that partial sum (every tile's
  // term is at least 0, so it is still a lower bound, and at least the cutoff).
  // `lambda` as for OrderFreeBound.
  double AnyPlanOrderFreeBound(const SubgraphPlan& plan, const Granularity& g,
                               std::span<const int> retained, std::span<const int> resident,
                               double cutoff = std::numeric_limits<double>::infinity(),
                               double lambda = -1) const;

  // A lower bound on the latency of one tile_w x tile_h tile at k, wherever an order puts it,
  // in a grid of more than one column and row (one_col / one_row: a grid of one column / row,
  // whose tile is the whole width / height): docs/bounds.md Lemma X7. 0 for a mixed plan,
  // unless `allow_mixed` (as for OrderFreeBound). `lambda` as for OrderFreeBound.
  double TileBound(const SubgraphPlan& plan, int64_t k, int64_t tile_w, int64_t tile_h,
                   bool one_col, bool one_row, std::span<const int> retained,
                   std::span<const int> resident, bool allow_mixed = false,
                   double lambda = -1) const;

  // Latency and breakdown of `plan` at granularity `g` (already checked), visiting tiles in
  // `traversal` (empty = raster; already validated), retaining `retained` (sorted tensor ids
  // produced inside) while `resident` (sorted tensor ids retained by the previous subgraph) is
  // in fast memory. Fails when the working set exceeds capacity, naming the first step.
  Result<SubgraphCost> Cost(const SubgraphPlan& plan, const Granularity& g,
                            const std::vector<int64_t>& traversal, std::span<const int> retained,
                            std::span<const int> resident) const;

 private:
  const Problem* problem_;
  CostModes modes_;
};

}  // namespace tilesched

#endif  // TILESCHED_COST_MODEL_H_
