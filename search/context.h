// SearchContext: what the strategies of one run share (incumbent, budget, journal, caches),
// and the strategies' entry points. Private to search/; callers use tilesched/search.h.
//
// Entry points: RunGreedy, RunBeam, RunLns (ReoptimizeWindow), RunAnneal, RunExact, each improving the
// Incumbent within the Budget, and RunCover (tier 2 of the lower bound as the strategy `cover`:
// no schedule of its own, a proven bound); search.cc holds the table that maps strategy names to
// them. Budget is also the clock of Tier2Bound (search/tier2.cc).
#ifndef TILESCHED_SEARCH_CONTEXT_H_
#define TILESCHED_SEARCH_CONTEXT_H_

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "candidates.h"
#include "coster.h"
#include "draft.h"
#include "plan_cache.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"
#include "tilesched/search.h"
#include "tilesched/status.h"

namespace tilesched::search {

// The best draft so far, shared by all strategies and threads.
class Incumbent {
 public:
  // With `verify` (always, outside strategy tests with a fake coster) a draft is kept only
  // when Evaluate() accepts it, and with the evaluator's latencies.
  Incumbent(const Problem& problem, const CostModes& modes, SearchObserver* observer,
            bool verify = true)
      : problem_(problem), modes_(modes), observer_(observer), verify_(verify) {}
  // Keeps `draft` when it beats the incumbent; true if kept.
  bool Offer(const Draft& draft, const std::string& by);
  // Sets `*reached` once a kept draft's total is at most `target` (the early stop of
  // SearchOptions::gap); `bound` is the lower bound debug builds check every draft against.
  void SetTarget(double bound, double target, std::atomic<bool>* reached) {
    std::lock_guard<std::mutex> lock(mutex_);
    bound_ = bound;
    target_ = target;
    reached_ = reached;
  }
  std::optional<Draft> Best() const;
  double BestTotal() const;
  std::string BestBy() const;

 private:
  const Problem& problem_;
  CostModes modes_;
  SearchObserver* observer_;
  bool verify_;
  mutable std::mutex mutex_;
  std::optional<Draft> best_;
  std::string best_by_;
  double bound_ = 0;
  double target_ = -1;
  std::atomic<bool>* reached_ = nullptr;
};

// The longest deadline a Budget keeps: about 31.7 years. A longer time limit (users pass 1e10
// to mean "until proven optimal or stopped") is the same run.
inline constexpr double kLongestLimitSeconds = 1e9;

// When to stop: a deadline, an external stop request, or a work budget (checked by strategies).
class Budget {
 public:
  // `stop` (an external request) and `done` (the gap was reached) may be null.
  Budget(double seconds, const std::atomic<bool>* stop, const std::atomic<bool>* done = nullptr);
  bool Expired() const;
  double Elapsed() const;
  double Remaining() const;  // seconds; infinity without a deadline
  bool has_deadline() const { return has_deadline_; }

 private:
  std::chrono::steady_clock::time_point start_, deadline_;
  bool has_deadline_;
  const std::atomic<bool>* stop_;
  const std::atomic<bool>* done_;
};

// Lines of a run's report (what each strategy did), collected from any thread.
class Journal {
 public:
  void Note(std::string line) {
    std::lock_guard<std::mutex> lock(mutex_);
    lines_.push_back(std::move(line));
  }
  std::vector<std::string> Lines() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

// A lower bound on every schedule's latency that a strategy proved (the exact search's
// smallest open f, search/exact.cc; tier 2's certificate, search/tier2.cc); RunSearch reports
// the larger of it and the tier-1 bound.
struct ProvenBound {
  bool set = false;
  double value = 0;
};

struct SearchContext {
  const Problem& problem;
  const SearchOptions& options;
  PlanCache& plans;
  SubgraphCoster& coster;
  Incumbent& incumbent;
  const Budget& budget;
  const CandidatePool& pool;
  SearchObserver* observer;
  Journal* journal = nullptr;  // may be null
  ProvenBound* proven = nullptr;  // may be null
  SearchProgress* progress = nullptr;  // may be null

  // Adds a report line, stamped with the run's elapsed time.
  void Note(const std::string& line) const {
    if (!journal) return;
    char stamp[32];
    std::snprintf(stamp, sizeof(stamp), "[%7.2fs] ", budget.Elapsed());
    journal->Note(stamp + line);
  }
  // Tells the observer that a phase of the run begins (SearchObserver::PhaseStarted).
  void Phase(const std::string& name) const {
    if (observer) observer->PhaseStarted(name);
  }
  // Counts `n` neighbours evaluated (SearchProgress::moves).
  void CountMoves(int64_t n) const {
    if (progress) progress->moves.fetch_add(n, std::memory_order_relaxed);
  }
};

// Strategies (each improves the incumbent within the budget).
void RunGreedy(SearchContext& ctx);
// SearchOptions::greedy_restarts runs of greedy with every fusion benefit scaled by a random
// factor (SearchOptions::greedy_noise), each from the singletons with its own RNG stream and
// with the retention pass, in parallel; each result is offered, in restart order. The
// portfolio runs them after its beams, before LNS and annealing.
void RunGreedyRestarts(SearchContext& ctx);
// Beam search of width `width`; returns false when it found no complete schedule (also when
// `max_seconds` ran out first).
bool RunBeam(SearchContext& ctx, int width,
             double max_seconds = std::numeric_limits<double>::infinity());
// Re-optimizes stages [first, last) of `draft` with a beam of `width` over the window's ops
// (large-neighbourhood search); returns the whole re-costed draft, or nullopt.
std::optional<Draft> ReoptimizeWindow(SearchContext& ctx, const Draft& draft, size_t first,
                                      size_t last, int width);
// Large-neighbourhood search from the incumbent: `windows` random windows (0 = until the
// deadline, or until `stop_at` seconds into the run), each re-optimized by a beam.
void RunLns(SearchContext& ctx, int64_t windows,
            double stop_at = std::numeric_limits<double>::infinity());
// Annealing from the incumbent with `moves` moves per chain (0 = until the deadline).
void RunAnneal(SearchContext& ctx, int64_t moves);
// Best-first search over schedule prefixes (search/exact.cc): improves the incumbent and sets
// `ctx.proven` to the bound it proved when it stops.
void RunExact(SearchContext& ctx);
// Tier 2 of the bound on the run's budget (search/tier2.cc, docs/bounds.md "Tier 2: the covering
// LP"): sets `ctx.proven` to the certified value of the covering LP over every subgraph context
// (Tier2Bound), and notes what it did.
void RunCover(SearchContext& ctx);

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_CONTEXT_H_
