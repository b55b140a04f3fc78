// Tier 2 on cores, one lambda at a time (docs/bounds.md, "Cores", Lemma V6; docs/design_cores.md,
// "Plan for item 4"): the covering LP of tier 2 whose op sets are only those connected over the
// links a core split keeps, with a subgraph that crosses cores paid piece by piece at
// lambda x compute + (1 - lambda) x memory time (Lemma V3), the pieces of one subgraph tied by
// a glue row per cut glue tensor and a share row per external-shared tensor. Every valid
// schedule is a point of the LP for every lambda in [0, 1]; the bound is a certificate from its
// duals checked against every column (as Lemma T2), the largest over the lambdas run.
//
// Entry points: KeptAdjacency(problem, split) (per op, the ops a kept link joins it to),
// CoreLpBound(problem, modes, split, budget, lambdas, max_tile_configs). Problems of at most 64
// ops and 128 tensors (masks), under any rules (under `algebra` nothing is cut and this is tier 2
// with every column listed). Work: every context (op set, retained, resident) of every op set
// connected over the kept links is a whole column, and every piece context (op set, imports,
// exports, retained, resident) a piece column; all are in the LP from the start at a cheap
// bound, and those the LP's duals make attractive are priced exactly (ContextPricer for whole
// columns, PiecePrice for pieces, in parallel), round by round until none is left.
#ifndef TILESCHED_SEARCH_CORE_LP_H_
#define TILESCHED_SEARCH_CORE_LP_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "context.h"
#include "context_pricer.h"
#include "tilesched/cost_model.h"
#include "tilesched/lower_bound.h"
#include "tilesched/problem.h"
#include "tilesched/search.h"

namespace tilesched::search {

// Per op, the ops joined to it by a link that `split` keeps (Pieces of the pair is one piece).
std::vector<Mask> KeptAdjacency(const Problem& problem, const CoreSplit& split);

struct CoreLpResult {
  // The certified bound on every valid schedule's latency, the largest over the lambdas (0:
  // nothing proven), reported a relative 1e-9 low like tier 2's; `lambda` is the one it came
  // from (-1: none).
  double value = 0, lambda = -1;
  std::vector<double> by_lambda;  // per lambda run, its certificate (0 when not reached)
  Tier2Status status = Tier2Status::kTooManyOps;
  double seconds = 0;
  int cores = 0;
  // Op sets connected over the kept links; whole and piece columns listed; of them priced
  // exactly (pieces once per lambda); LP rounds over all lambdas.
  int64_t op_sets = 0, whole_columns = 0, piece_columns = 0, whole_priced = 0, pieces_priced = 0, lp_rounds = 0;
};

// The LP at each lambda of `lambdas` (each in [0, 1]) in turn, until the budget runs out.
CoreLpResult CoreLpBound(const Problem& problem, const CostModes& modes, const CoreSplit& split, const Budget& budget,
                         std::span<const double> lambdas, int64_t max_tile_configs);

// One line: what a run did and its bound.
std::string CoreLpSummary(const CoreLpResult& result);

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_CORE_LP_H_
