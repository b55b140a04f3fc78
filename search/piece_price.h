// The price of one piece of a subgraph that crosses cores (docs/bounds.md "Cores", Lemma V3;
// docs/design_cores.md V5's g_pi(lambda)): a lower bound, over every granularity of the piece
// that can fit and every traversal order, on lambda x compute + (1 - lambda) x memory time of
// the piece planned alone with V3's three flags (imports neither loaded nor held, exports neither
// stored nor counted as tile buffers, external-shared tensors not charged). The building block
// of the LP over pieces (design V4-V5), which is not built yet.
//
// Entry points: PieceOf(problem, split, ops, piece, retained, resident) (a piece's context in a
// subgraph), PieceFitFloor (the relaxed fit), PiecePrice(problem, modes, split, context, lambda,
// max_tile_configs). Work: one order-free bound per granularity when the piece has at most
// max_tile_configs of them (Lemma X1's whole tile space), else per class of tile counts, the
// cheapest first (Lemma X7).
#ifndef TILESCHED_SEARCH_PIECE_PRICE_H_
#define TILESCHED_SEARCH_PIECE_PRICE_H_

#include <cstdint>
#include <vector>

#include "context.h"
#include "tile_classes.h"
#include "tilesched/cost_model.h"
#include "tilesched/lower_bound.h"
#include "tilesched/problem.h"

namespace tilesched::search {

// A piece P of a subgraph S under a core split, and what S gives it (all sorted tensor ids).
struct PieceContext {
  std::vector<int> ops;       // P
  std::vector<int> imports;   // glue tensors P reads that another piece of S produces
  std::vector<int> exports;   // glue tensors P produces that another piece of S reads
  std::vector<int> retained;  // tensors P produces that S retains
  std::vector<int> resident;  // tensors resident when S starts that P reads
};

// The context of `piece` (one of Pieces(problem, split, ops)) in the subgraph `ops` that retains
// `retained` and starts with `resident` resident (lists in any order).
PieceContext PieceOf(const Problem& problem, const CoreSplit& split, const std::vector<int>& ops,
                     const std::vector<int>& piece, const std::vector<int>& retained,
                     const std::vector<int>& resident);

// Lemma X10 with V3's flags: a lower bound on the working set of some step of tile (0, 0)
// (min(w, W) x min(h, H)) of any subgraph the piece lies in, at tile w x h, so a subgraph that
// fits the capacity at w x h has every piece's At(w, h) within it. Counted: the retained and
// resident tensors whole, the tile buffers of the sinks neither retained nor exported and
// (contest 7a) of the split roots neither sinks nor retained, and the piece's first-step slices
// without imports and resident tensors. Under rules=algebra no buffer is counted. Nondecreasing
// in w and in h.
class PieceFitFloor {
 public:
  PieceFitFloor(const Problem& problem, const CostModes& modes, const SubgraphPlan& plan, const PieceContext& piece);
  int64_t At(int64_t w, int64_t h) const;

 private:
  int64_t plan_w_, plan_h_;
  std::vector<FirstSlice> first_;
  CostModel::HeldSpace held_;
  std::vector<int> skipped_;  // sorted
};

struct PiecePriceResult {
  // At most lambda A_P + (1 - lambda) C_P at every granularity the piece fits at and every order
  // (infinity when no granularity fits).
  double value = 0;
  bool enumerated = false;  // every granularity was bounded
  bool by_classes = false;  // above max_tile_configs: by Lemma X7's classes
};

// Per granularity (rules 3.4 and 7b) whose Lemma X10 floor, with the flags, fits the capacity:
// the larger of lambda x max(Lemma C1, Lemma X8 on the grid) + (1 - lambda) x Lemma X3 (with the
// flags), and the weighted order-free bound (Lemma X7, CostModel::OrderFreeBound with lambda; a
// mixed plan's grids with a coincidence: AnyPlanOrderFreeBound up to 4,096 tiles); the least of
// these. Above max_tile_configs granularities, by Lemma X7's classes of tile counts instead: per
// k and class pair whose smallest tiles fit, the larger of the cheap part at its tile count and
// (where no member has a coincidence) ClassLowerBound with lambda.
// `lambda` in [0, 1] (else 0 is returned). With a `budget`, a run it stops (polled every
// granularity or class) returns 0, nothing claimed.
PiecePriceResult PiecePrice(const Problem& problem, const CostModes& modes, const CoreSplit& split,
                            const PieceContext& piece, double lambda, int64_t max_tile_configs,
                            const Budget* budget = nullptr);

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_PIECE_PRICE_H_
