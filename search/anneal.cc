// Simulated annealing on whole schedules: several chains in parallel, each with its own RNG
// stream seeded from (seed, chain), starting from the incumbent. A move is accepted when it
// lowers the latency, or with probability exp(-delta / T) where T falls geometrically from
// anneal_start_temp to anneal_end_temp (relative to the start latency) over the chain's budget.
#include <cmath>

#include <tbb/parallel_for.h>

#include "moves.h"
#include "context.h"
#include "retention.h"

namespace tilesched::search {

namespace {

struct MoveStats {
  int64_t tried = 0, applied = 0, valid = 0, accepted = 0, improved = 0;
};

struct ChainResult {
  Draft best;
  bool improved = false;
  int64_t moves = 0;
  std::vector<MoveStats> stats;
};

ChainResult RunChain(SearchContext& ctx, const Draft& start, uint64_t chain, int64_t moves,
                     bool offer_live) {
  Rng rng(ctx.options.seed * 0x9e3779b97f4a7c15ULL + chain * 0xbf58476d1ce4e5b9ULL + 1);
  const auto& all = AllMoves();
  Draft current = start;
  ChainResult result{start, false, 0, std::vector<MoveStats>(all.size())};
  const double scale = std::max(1e-9, start.total);
  const double t0 = ctx.options.anneal_start_temp * scale;
  const double t1 = std::max(1e-12, ctx.options.anneal_end_temp * scale);
  // Without a move budget, temperature follows the deadline.
  const double horizon = ctx.budget.Remaining();
  const double start_time = ctx.budget.Elapsed();
  int64_t last_best = 0;
  // The draft each move writes into: kept across moves, so that copying `current` into it reuses
  // its buffers (on a large graph, allocating a fresh copy per move cost more than the move).
  Draft next;
  for (int64_t i = 0; moves == 0 || i < moves; ++i) {
    // Every move: on a large graph one move re-costs a long draft.
    if (ctx.budget.Expired()) break;
    if (i - last_best > ctx.options.anneal_restart) {
      current = result.best;
      last_best = i;
    }
    double progress;
    if (moves > 0) {
      progress = static_cast<double>(i) / static_cast<double>(moves);
    } else {
      progress = std::isfinite(horizon) && horizon > 0
                     ? std::min(1.0, (ctx.budget.Elapsed() - start_time) / horizon)
                     : 0.5;
    }
    const double temp = t0 * std::pow(t1 / t0, progress);
    const size_t which = std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng);
    const Move& move = *all[which];
    MoveStats& stats = result.stats[which];
    ++stats.tried;
    ++result.moves;
    if (!move.ApplyInto(current, ctx.problem, ctx.plans, rng, &next)) continue;
    ++stats.applied;
    ctx.CountMoves(1);
    if (!RecostChanged(ctx.problem, ctx.coster, current, &next)) continue;
    ++stats.valid;
    // A move leaves its neighbours' retention as it was: choose it again around the change.
    OptimizeChangedRetention(ctx.problem, ctx.coster, current, &next);
    const double delta = next.total - current.total;
    if (delta <= 0 || std::uniform_real_distribution<double>(0, 1)(rng) < std::exp(-delta / temp)) {
      ++stats.accepted;
      std::swap(current, next);
      if (Improves(current.total, result.best.total)) {
        ++stats.improved;
        last_best = i;
        result.best = current;
        result.improved = true;
        if (offer_live) ctx.incumbent.Offer(current, std::string("anneal:") + move.name());
      }
    }
  }
  return result;
}

}  // namespace

void RunAnneal(SearchContext& ctx, int64_t moves) {
  ctx.Phase("anneal");
  auto start = ctx.incumbent.Best();
  if (!start) return;
  Draft draft = *start;
  if (!RecostDraft(ctx.problem, ctx.coster, &draft)) return;
  const int chains = std::max(1, ctx.options.anneal_chains);
  std::vector<ChainResult> results(static_cast<size_t>(chains));
  // With a move budget the outcome must not depend on thread timing: offer afterwards, in
  // chain order.
  const bool offer_live = moves == 0;
  tbb::parallel_for(0, chains, [&](int c) {
    results[static_cast<size_t>(c)] = RunChain(ctx, draft, static_cast<uint64_t>(c), moves, offer_live);
  });
  for (const ChainResult& r : results) {
    if (r.improved) ctx.incumbent.Offer(r.best, "anneal");
  }
  std::vector<MoveStats> total(AllMoves().size());
  int64_t moves_done = 0;
  for (const ChainResult& r : results) {
    moves_done += r.moves;
    for (size_t i = 0; i < total.size(); ++i) {
      total[i].tried += r.stats[i].tried;
      total[i].applied += r.stats[i].applied;
      total[i].valid += r.stats[i].valid;
      total[i].accepted += r.stats[i].accepted;
      total[i].improved += r.stats[i].improved;
    }
  }
  std::string line = "anneal: " + std::to_string(chains) + " chains, " +
                     std::to_string(moves_done) + " moves; per move tried/applied/valid/accepted/improved:";
  for (size_t i = 0; i < total.size(); ++i) {
    line += std::string(" ") + AllMoves()[i]->name() + " " + std::to_string(total[i].tried) + "/" +
            std::to_string(total[i].applied) + "/" + std::to_string(total[i].valid) + "/" +
            std::to_string(total[i].accepted) + "/" + std::to_string(total[i].improved);
  }
  ctx.Note(line + "; best " + std::to_string(ctx.incumbent.BestTotal()));
}

}  // namespace tilesched::search
