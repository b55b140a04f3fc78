// RunSearch: budget, incumbent, strategy dispatch, the portfolio, and tier 2 of the bound before
// the search (SearchOptions::tier2_first, through Tier2Bound in search/tier2.cc).
#include "context.h"

#include <cassert>
#include <cmath>
#include <limits>
#include <memory>

#include <tbb/global_control.h>

#include "tilesched/evaluate.h"
#include "tier2.h"
#include "tilesched/lower_bound.h"

namespace tilesched::search {

bool Incumbent::Offer(const Draft& draft, const std::string& by) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (best_ && !Improves(draft.total, best_->total)) return false;
  Draft confirmed = draft;
  if (verify_) {
    // The evaluator is the judge: a draft is kept only with its confirmed latency.
    auto evaluation = Evaluate(problem_, ToSchedule(draft), modes_);
    if (!evaluation.ok()) return false;
    for (size_t s = 0; s < confirmed.stages.size(); ++s) {
      confirmed.stages[s].choice.latency = evaluation->subgraphs[s].cost.latency;
    }
    confirmed.total = evaluation->total;
  }
  if (best_ && confirmed.total >= best_->total) return false;
  // A valid schedule below the lower bound would mean the bound is wrong (docs/bounds.md).
  assert(!verify_ || confirmed.total >= bound_ * (1 - 1e-9));
  best_ = std::move(confirmed);
  best_by_ = by;
  if (reached_ && best_->total <= target_) reached_->store(true);
  if (observer_) observer_->Improved(ToSchedule(*best_), best_->total, by);
  return true;
}

std::optional<Draft> Incumbent::Best() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return best_;
}

double Incumbent::BestTotal() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return best_ ? best_->total : std::numeric_limits<double>::infinity();
}

std::string Incumbent::BestBy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return best_by_;
}

Budget::Budget(double seconds, const std::atomic<bool>* stop, const std::atomic<bool>* done)
    : start_(std::chrono::steady_clock::now()), has_deadline_(seconds > 0), stop_(stop), done_(done) {
  // steady_clock counts nanoseconds in 64 bits (about 292 years): a limit of 1e10 s would wrap
  // around into the past and end the run at once, so longer limits are held at kLongestLimit.
  deadline_ = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(
                               has_deadline_ ? std::min(seconds, kLongestLimitSeconds) : 0));
}

bool Budget::Expired() const {
  if (stop_ && stop_->load(std::memory_order_relaxed)) return true;
  if (done_ && done_->load(std::memory_order_relaxed)) return true;
  return has_deadline_ && std::chrono::steady_clock::now() >= deadline_;
}

double Budget::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double Budget::Remaining() const {
  if (!has_deadline_) return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
}

namespace {

// Stopped runs' caches, never freed: the process is exiting. Held by a static root so that
// they stay reachable (LeakSanitizer would otherwise report them and change the exit status).
void KeepUntilExit(std::shared_ptr<void> cache) {
  static std::mutex* mutex = new std::mutex;
  static auto* kept = new std::vector<std::shared_ptr<void>>;
  std::lock_guard<std::mutex> lock(*mutex);
  kept->push_back(std::move(cache));
}

// Hands `holder` to KeepUntilExit instead of freeing it when the run was stopped or the
// process exits after it (SearchHooks::exiting).
template <typename T>
struct LeakOnStop {
  std::unique_ptr<T>& holder;
  const SearchHooks& hooks;
  ~LeakOnStop() {
    if (hooks.exiting || (hooks.stop && hooks.stop->load())) {
      KeepUntilExit(std::shared_ptr<T>(std::move(holder)));
    }
  }
};

// The narrow beams: a width-4 beam, then one of width 16 (both at most SearchOptions::beam_width),
// over a pool of at most 40 candidates per op, each allowed a share of the remaining time
// (more than the wide beams' 40%: on a short limit they are the only phases that improve on
// greedy in time). On benchmark 8 a width-16 beam over the full pool (1,271 sets, up to 400 per
// op) costs about 0.4 s of CPU; over 40 per op (231 sets) about 0.1 s, with the same 76,230
// (greedy: 83,967). Widths 8 and 12 (over 40 or 60 per op) ended at 76,457.3 there, above the
// contest winner's 76,457; the width-4 beam comes first because it is done sooner (0.08 s on
// benchmark 8 at load 8, against 0.13 s for width 16 alone). docs/scaling.md, "Short limits".
constexpr int kFirstBeamWidth = 4;
constexpr int kNarrowBeamWidth = 16;
constexpr int kNarrowCandidatesPerOp = 40;
constexpr double kNarrowBeamShare = 0.8;
// Share of the remaining time the small pool's enumeration may take. On large graphs (a 960-op
// stack: about 5,500 sets in 0.2 s at load 9) it would otherwise run up to the deadline, and
// freeing its sets came after it; a pool cut short is not searched (no beam would finish).
constexpr double kNarrowPoolShare = 0.3;
// SearchOptions::split_tier2: the whole problem's tier 2 is tried up to this many tensors; above,
// only its link components (docs/bounds.md "Where it is used").
constexpr int kWholeFirstTensors = 64;

// Under a time limit, the first schedules beyond greedy's (issue 12 item 3): narrow beams over
// a small pool, before the full pool is enumerated.
void RunNarrowBeam(SearchContext& ctx) {
  if (!ctx.budget.has_deadline() || ctx.budget.Expired() ||
      ctx.options.max_candidates_per_op <= kNarrowCandidatesPerOp) {
    return;
  }
  SearchOptions narrow = ctx.options;
  narrow.max_candidates_per_op = kNarrowCandidatesPerOp;
  ctx.Phase("narrow candidates");
  const double pool_until = ctx.budget.Elapsed() + kNarrowPoolShare * ctx.budget.Remaining();
  bool cut = false;
  const CandidatePool pool = BuildCandidates(ctx.problem, ctx.plans, narrow, [&] {
    cut = cut || ctx.budget.Expired() || ctx.budget.Elapsed() >= pool_until;
    return cut;
  });
  SearchContext narrow_ctx{ctx.problem, ctx.options, ctx.plans,    ctx.coster, ctx.incumbent,
                           ctx.budget,  pool,        ctx.observer, ctx.journal, /*proven=*/nullptr,
                           ctx.progress};
  narrow_ctx.Note("narrow candidates: " + std::to_string(pool.candidates.size()) + " subgraphs" +
                  (cut ? " (cut short: no narrow beam)" : ""));
  if (cut) return;
  int previous = 0;
  for (int width : {kFirstBeamWidth, kNarrowBeamWidth}) {
    width = std::min(width, ctx.options.beam_width);
    if (width == previous || ctx.budget.Expired()) continue;
    previous = width;
    RunBeam(narrow_ctx, width, kNarrowBeamShare * ctx.budget.Remaining());
  }
}

// Portfolio: greedy and (under a time limit) the narrow beam, both run by RunSearch before the
// candidates are enumerated, beams of growing width, greedy restarts, then LNS and annealing
// (which start from the best schedule so far) with what is left.
void RunPortfolio(SearchContext& ctx) {
  const int64_t budget = ctx.options.iterations;
  if (budget > 0) {
    // Deterministic work: one beam, the greedy restarts, then windows, then annealing.
    RunBeam(ctx, ctx.options.beam_width);
    RunGreedyRestarts(ctx);
    RunLns(ctx, std::max<int64_t>(1, budget / 100));
    RunAnneal(ctx, budget);
    return;
  }
  double previous = std::numeric_limits<double>::infinity();
  for (int width = ctx.options.beam_width; width <= ctx.options.beam_max_width; width *= 4) {
    if (ctx.budget.Expired()) return;
    const double before = ctx.budget.Elapsed();
    // A beam that cannot finish in 40% of what is left gives way to LNS and annealing.
    if (!RunBeam(ctx, width, ctx.budget.has_deadline() ? 0.4 * ctx.budget.Remaining()
                                                       : std::numeric_limits<double>::infinity())) {
      break;
    }
    const double took = ctx.budget.Elapsed() - before;
    // A wider beam that found nothing better is unlikely to help further.
    const double found = ctx.incumbent.BestTotal();
    if (found >= previous) break;
    previous = found;
    // Leave at least half of the remaining time for annealing; a 4x wider beam costs ~4x.
    if (took * 4 > ctx.budget.Remaining() * 0.5) break;
  }
  // Greedy from other fusion orders: LNS and annealing start from the best schedule so far.
  RunGreedyRestarts(ctx);
  // Windows for half of what is left, then annealing.
  RunLns(ctx, 0, ctx.budget.Elapsed() + ctx.budget.Remaining() / 2);
  RunAnneal(ctx, 0);
}

// The strategies by name: the one list RunSearch dispatches on and StrategyNames() reports.
struct Strategy {
  const char* name;
  void (*run)(SearchContext& ctx);
  bool ends_by_itself;  // finishes without a time limit or work budget
  // Starts with RunGreedy, which RunSearch runs before enumerating the candidates (greedy
  // fusion needs none), so the first fused schedule does not wait for them; `run` (null: nothing
  // more) goes on from there.
  bool greedy_first;
  // Then, under a time limit, RunNarrowBeam, also before the full pool is built.
  bool narrow_first;
};

const Strategy kStrategies[] = {
    {"greedy", nullptr, /*ends_by_itself=*/true, /*greedy_first=*/true, /*narrow_first=*/false},
    {"beam", [](SearchContext& ctx) { RunBeam(ctx, ctx.options.beam_width); }, true, false, false},
    {"lns", [](SearchContext& ctx) { RunLns(ctx, ctx.options.iterations); }, false, false, false},
    {"anneal", [](SearchContext& ctx) { RunAnneal(ctx, ctx.options.iterations); }, false, false,
     false},
    {"portfolio", RunPortfolio, false, true, true},
    {"exact", RunExact, /*ends_by_itself=*/true, /*greedy_first=*/true, /*narrow_first=*/false},
    // Tier2Bound on the run's budget, after greedy (an alias of `bound --tier2` with a schedule).
    {"cover", RunCover, /*ends_by_itself=*/true, /*greedy_first=*/true, /*narrow_first=*/false},
};

const Strategy* FindStrategy(const std::string& name) {
  for (const Strategy& s : kStrategies) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

}  // namespace

const std::vector<std::string>& StrategyNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const Strategy& s : kStrategies) list.emplace_back(s.name);
    return list;
  }();
  return names;
}

std::string StrategyList() {
  std::string list;
  for (const std::string& name : StrategyNames()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

Result<SearchResult> RunSearch(const Problem& problem, const SearchOptions& options,
                               const SearchHooks& hooks) {
  SearchObserver* observer = hooks.observer;
  const Strategy* strategy = FindStrategy(options.strategy);
  if (!strategy) return Status::Error("unknown strategy '" + options.strategy + "'");
  if (options.time_limit <= 0 && options.iterations <= 0 && !strategy->ends_by_itself) {
    return Status::Error("set a time limit or an iteration budget");
  }
  std::optional<tbb::global_control> threads;
  if (options.threads > 0) {
    threads.emplace(tbb::global_control::max_allowed_parallelism,
                    static_cast<size_t>(options.threads));
  }
  // Early stop (SearchOptions::gap): the run ends once the incumbent is within the gap.
  std::atomic<bool> reached{false};
  // The budget counts from here, so that it includes the lower bound (a pass over the graph).
  const Budget budget(options.time_limit, hooks.stop, &reached);
  const LowerBounds tier1 = ComputeLowerBounds(problem, options.modes);
  double bound = tier1.best();
  std::string bound_source = std::string("tier 1, its ") + BestPart(tier1).name + " part";
  double tolerance = kBoundTolerance;  // SearchResult::bound_tolerance
  // The caches live on the heap so that a run stopped by a signal can skip freeing them: the
  // process is about to exit, and returning millions of small blocks to malloc would delay
  // the final write by tens of milliseconds.
  struct Caches {
    Caches(const Problem& p, const SearchOptions& o, SearchProgress* progress)
        : model(p, o.modes), plans(p), coster(model, o.configure, progress) {}
    CostModel model;
    PlanCache plans;
    ModelCoster coster;
  };
  // The run's counters: the caller's, or the run's own.
  SearchProgress own_progress;
  SearchProgress* progress = hooks.progress ? hooks.progress : &own_progress;
  auto caches = std::make_unique<Caches>(problem, options, progress);
  const LeakOnStop<Caches> keep_caches{caches, hooks};
  PlanCache& plans = caches->plans;
  ModelCoster& coster = caches->coster;
  Incumbent incumbent(problem, options.modes, observer);
  // The tolerance absorbs rounding of totals that equal the bound.
  auto set_target = [&] {
    incumbent.SetTarget(bound, options.gap < 0 ? -1 : bound * (1 + options.gap) * (1 + tolerance),
                        &reached);
  };
  set_target();
  // The first answer: one op per subgraph (fails only when some op fits nowhere).
  auto first = SingletonDraft(problem, plans, coster);
  if (!first.ok()) return first.status();
  incumbent.Offer(*first, "singletons");
  // SearchOptions::start: as given, then re-tiled by the configurator.
  if (options.start) {
    auto judged = Evaluate(problem, *options.start, options.modes);
    if (!judged.ok()) return Status::Error("the start schedule is invalid: " + judged.status().message());
    std::vector<double> latencies;
    for (const auto& sg : judged->subgraphs) latencies.push_back(sg.cost.latency);
    auto start = DraftOf(plans, *options.start, latencies);
    if (!start.ok()) return Status::Error("the start schedule is invalid: " + start.status().message());
    incumbent.Offer(*start, "start");
    Draft retiled = *start;
    if (RecostDraft(problem, coster, &retiled)) incumbent.Offer(retiled, "start (re-tiled)");
  }
  Journal journal;
  auto pool_holder = std::make_unique<CandidatePool>();
  const LeakOnStop<CandidatePool> keep_pool{pool_holder, hooks};
  ProvenBound proven;
  SearchContext ctx{problem, options, plans, coster, incumbent, budget, *pool_holder, observer,
                    &journal, &proven, progress};
  // SearchOptions::tier2_first: tier 2 of the bound before the search, on a budget of its own
  // (at most half the time left), so that the search can stop as soon as it meets it.
  if (options.tier2_first > 0 && options.strategy != "cover" && !budget.Expired()) {
    ctx.Phase("tier 2");
    Tier2Options tier2_options;
    tier2_options.modes = options.modes;
    tier2_options.time_limit = budget.has_deadline() ? std::min(options.tier2_first, 0.5 * budget.Remaining())
                                                     : options.tier2_first;
    tier2_options.stop = hooks.stop;
    tier2_options.max_tile_configs = options.exact_max_tile_configs;
    const Tier2Result tier2 = Tier2Bound(problem, tier2_options);
    ctx.Note("tier 2: " + Tier2Summary(tier2));
    if (tier2.value > bound) {
      bound = tier2.value;
      bound_source = "tier 2";
      tolerance = kTier2BoundTolerance;
      set_target();
      // The singletons may already meet it.
      const double target = bound * (1 + options.gap) * (1 + tolerance);
      if (options.gap >= 0 && incumbent.BestTotal() <= target) reached = true;
    }
  }
  if (strategy->greedy_first) RunGreedy(ctx);
  // SearchOptions::split_tier2: tier 2 on a share of the time left, after greedy, when greedy has
  // not already met the bound (and --tier2-first did not run it): of the whole problem when it
  // is within tier 2's reach (64 ops, 128 tensors), else by link components when one of them is
  // within reach (search/split_tier2.cc). The whole problem's LP has
  // every column of the components' and none of their relaxations, so where both converge it
  // is at least as high (docs/bounds.md "Where it is used"). The whole only up to
  // kWholeFirstTensors tensors: on the problems of 65-128 tensors measured, its listing failed
  // (contest 13, 15, torch_encoder_layer) or proved what the split proves, later (14, 16).
  if (options.split_tier2 > 0 && options.tier2_first <= 0 && budget.has_deadline() &&
      !budget.Expired() && !reached.load()) {
    Tier2Options share_options;
    share_options.modes = options.modes;
    share_options.stop = hooks.stop;
    share_options.max_tile_configs = options.exact_max_tile_configs;
    share_options.time_limit = options.split_tier2 * budget.Remaining();
    Tier2Result tier2;  // kTooManyOps, 0, when the whole is not tried
    if (problem.num_tensors() <= kWholeFirstTensors) tier2 = Tier2Bound(problem, share_options);
    const bool whole_reached = tier2.status != Tier2Status::kTooManyOps &&
                               tier2.status != Tier2Status::kTooManyOpSets &&
                               tier2.status != Tier2Status::kTooManyContexts;
    if (whole_reached) ctx.Note("tier 2: " + Tier2Summary(tier2));
    double found = tier2.value;
    std::string found_by = "tier 2";
    if (!whole_reached && !budget.Expired() && SplitTier2Pays(problem, options.modes)) {
      share_options.time_limit = options.split_tier2 * budget.Remaining();
      const SplitTier2Result split = SplitTier2Bound(problem, share_options);
      ctx.Note("split tier 2: " + SplitTier2Summary(split) + "; bound " + std::to_string(split.value));
      if (split.value > found) {
        found = split.value;
        found_by = "tier 2 by link components";
      }
    }
    if (found > bound) {
      bound = found;
      bound_source = found_by;
      tolerance = kTier2BoundTolerance;
      set_target();
      const double target = bound * (1 + options.gap) * (1 + tolerance);
      if (options.gap >= 0 && incumbent.BestTotal() <= target) reached = true;
    }
  }
  if (strategy->narrow_first) RunNarrowBeam(ctx);
  if (strategy->run != nullptr) {
    ctx.Phase("candidates");
    *pool_holder =
        BuildCandidates(problem, plans, options, [&budget] { return budget.Expired(); });
    ctx.Note("candidates: " + std::to_string(pool_holder->candidates.size()) +
             " subgraphs; singletons " + std::to_string(first->total));
    strategy->run(ctx);
  }
  const ConfigureStats& stats = coster.configurator().stats();
  ctx.Note("configurator: " + std::to_string(stats.calls.load()) + " subgraphs configured; " +
           std::to_string(stats.rejected_bounds.load()) + " without a tile within rules 3.4/7b, " +
           std::to_string(stats.rejected_memory.load()) + " tiles over the working-set capacity, " +
           std::to_string(stats.costed.load()) + " configurations costed, " +
           std::to_string(stats.infeasible.load()) + " subgraphs with no fitting configuration");
  auto best = incumbent.Best();
  SearchResult result;
  result.schedule = ToSchedule(*best);
  result.total = best->total;
  result.found_by = incumbent.BestBy();
  result.evaluations = coster.evaluations();
  result.seconds = budget.Elapsed();
  result.report = journal.Lines();
  // A strategy's proof (the exact search) may raise the bound; never below tier 1.
  result.lower_bound = proven.set ? std::max(bound, proven.value) : bound;
  result.strategy_bound = proven.set ? proven.value : 0;
  result.bound_source = proven.set && proven.value > bound ? "proved by " + options.strategy : bound_source;
  result.gap = Gap(result.total, result.lower_bound);
  result.bound_tolerance = tolerance;
  result.optimal = result.total <= result.lower_bound * (1 + tolerance);
  result.reached_gap = reached.load();
  if (result.reached_gap) {
    result.report.push_back("stopped at " + std::to_string(result.seconds) +
                            " s: within the gap of the lower bound " + std::to_string(bound));
  }
  return result;
}

}  // namespace tilesched::search
