// Retention: the validity rule and the dynamic program over a chain of stages.
#include "retention.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "tilesched/graph.h"

namespace tilesched::search {

namespace {

// Up to this many optional tensors at one boundary every subset is an option (8 subsets).
constexpr size_t kMaxSubsetTensors = 3;

// The retention options of stage `s` of `draft` (followed by stage s + 1), sorted lists,
// without duplicates; the current choice is always one of them.
std::vector<std::vector<int>> Options(const Problem& problem, const Draft& draft, size_t s) {
  const Stage& cur = draft.stages[s];
  if (s + 1 == draft.stages.size()) return {cur.retained};
  const Stage& next = draft.stages[s + 1];
  std::vector<int> readable;  // produced here, read by the next stage
  std::set_intersection(cur.plan->produced().begin(), cur.plan->produced().end(),
                        next.plan->external_inputs().begin(), next.plan->external_inputs().end(),
                        std::back_inserter(readable));
  // Kept now and never written (consumed inside this stage): the next stage may have no other
  // way to get them, so every option keeps them.
  std::vector<int> required, optional;
  for (int t : readable) {
    const bool sink = std::binary_search(cur.plan->sinks().begin(), cur.plan->sinks().end(), t);
    const bool kept = std::binary_search(cur.retained.begin(), cur.retained.end(), t);
    if (!sink && kept) {
      required.push_back(t);
    } else if (RetentionStaysValid(problem, cur, next, {t})) {
      optional.push_back(t);
    }
  }
  std::vector<std::vector<int>> subsets;
  if (optional.size() <= kMaxSubsetTensors) {
    for (uint32_t mask = 0; mask < (1u << optional.size()); ++mask) {
      std::vector<int> subset;
      for (size_t i = 0; i < optional.size(); ++i) {
        if (mask >> i & 1) subset.push_back(optional[i]);
      }
      subsets.push_back(std::move(subset));
    }
  } else {
    subsets.push_back({});
    subsets.push_back(optional);
    for (int t : optional) subsets.push_back({t});
  }
  std::vector<std::vector<int>> options = {cur.retained};
  for (const std::vector<int>& subset : subsets) {
    std::vector<int> keep;
    std::set_union(required.begin(), required.end(), subset.begin(), subset.end(),
                   std::back_inserter(keep));
    if (std::find(options.begin(), options.end(), keep) == options.end()) {
      options.push_back(std::move(keep));
    }
  }
  return options;
}

}  // namespace

bool RetentionStaysValid(const Problem& problem, const Stage& cur, const Stage& next,
                         const std::vector<int>& keep) {
  for (int t : keep) {
    if (problem.is_graph_output(t) ||
        !std::binary_search(cur.plan->sinks().begin(), cur.plan->sinks().end(), t)) {
      continue;
    }
    for (int c : problem.graph().consumers(t)) {
      if (!next.plan->Contains(c)) return false;
    }
  }
  return true;
}

namespace {

// The dynamic program of OptimizeRetention, without its validity guard: its options see only
// the next stage (RetentionStaysValid), so after a recomputation its choice can leave the draft
// invalid, and the callers check.
bool ChooseRetention(const Problem& problem, SubgraphCoster& coster, Draft* draft, size_t first, size_t last) {
  std::vector<Stage>& stages = draft->stages;
  if (first >= last || last > stages.size()) return false;
  static const std::vector<int> kNone;
  const std::vector<int>& resident_in = first > 0 ? stages[first - 1].retained : kNone;
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  // Per boundary s in [first, last): its options, and per option the cheapest cost of stages
  // first..s with it, the choice of stage s, and the option of boundary s - 1 it came from.
  struct Cell {
    double cost = kInfinity;
    TileChoice choice;
    int from = -1;
  };
  std::vector<std::vector<std::vector<int>>> options;
  std::vector<std::vector<Cell>> cells;
  for (size_t s = first; s < last; ++s) {
    options.push_back(Options(problem, *draft, s));
    std::vector<Cell> row(options.back().size());
    const size_t previous = s == first ? 1 : options[options.size() - 2].size();
    for (size_t j = 0; j < row.size(); ++j) {
      for (size_t i = 0; i < previous; ++i) {
        const double before = s == first ? 0 : cells.back()[i].cost;
        if (before == kInfinity) continue;
        const std::vector<int>& resident = s == first ? resident_in : options[options.size() - 2][i];
        auto choice = coster.Configure(*stages[s].plan, options.back()[j], resident);
        if (!choice || before + choice->latency >= row[j].cost) continue;
        row[j] = {before + choice->latency, *choice, static_cast<int>(i)};
      }
    }
    cells.push_back(std::move(row));
  }
  // Stage `last` keeps its retention and starts with the chosen resident set.
  size_t best = 0;
  double best_total = kInfinity;
  std::optional<TileChoice> last_choice;
  for (size_t j = 0; j < cells.back().size(); ++j) {
    double total = cells.back()[j].cost;
    std::optional<TileChoice> choice;
    if (total < kInfinity && last < stages.size()) {
      choice = coster.Configure(*stages[last].plan, stages[last].retained, options.back()[j]);
      total = choice ? total + choice->latency : kInfinity;
    }
    if (total < best_total) {
      best_total = total;
      best = j;
      last_choice = choice;
    }
  }
  if (best_total == kInfinity) return false;
  double before = 0;
  for (size_t s = first; s <= last && s < stages.size(); ++s) before += stages[s].choice.latency;
  if (!Improves(best_total, before)) return false;
  // Walk the chosen options back from the last boundary.
  for (size_t k = cells.size(); k-- > 0;) {
    const Cell& cell = cells[k][best];
    stages[first + k].retained = options[k][best];
    stages[first + k].choice = cell.choice;
    best = static_cast<size_t>(std::max(cell.from, 0));
  }
  if (last < stages.size()) stages[last].choice = *last_choice;
  draft->total = 0;
  for (const Stage& stage : stages) draft->total += stage.choice.latency;
  return true;
}

// ChooseRetention, kept only when `valid(*draft)` holds afterwards (its options see only the
// next stage); otherwise stages [first, last] and the total are restored and it returns false.
template <typename Valid>
bool ChooseValidRetention(const Problem& problem, SubgraphCoster& coster, Draft* draft, size_t first, size_t last,
                          Valid valid) {
  if (first >= last || last > draft->stages.size()) return false;
  // What the program may change: the retention and choices of stages first..last, and the total.
  const size_t end = std::min(last + 1, draft->stages.size());
  thread_local std::vector<Stage> kept;  // per thread: this runs for every annealing move
  kept.assign(draft->stages.begin() + static_cast<long>(first), draft->stages.begin() + static_cast<long>(end));
  const double kept_total = draft->total;
  if (!ChooseRetention(problem, coster, draft, first, last)) return false;
  if (valid(*draft)) return true;
  std::copy(kept.begin(), kept.end(), draft->stages.begin() + static_cast<long>(first));
  draft->total = kept_total;
  return false;
}

}  // namespace

bool OptimizeRetention(const Problem& problem, SubgraphCoster& coster, Draft* draft, size_t first,
                       size_t last) {
  return ChooseValidRetention(problem, coster, draft, first, last,
                              [&](const Draft& chosen) { return DraftIsConsistent(problem, chosen); });
}

StageRange ChangedStages(const Draft& before, const Draft& after) {
  const size_t na = after.stages.size();
  const auto [front, back] = MatchEnds(before, after);
  if (front == na && na == before.stages.size()) return {};
  return {front > 0 ? front - 1 : 0, std::min(na, na - back + 1)};
}

bool OptimizeChangedRetention(const Problem& problem, SubgraphCoster& coster, const Draft& before,
                              Draft* after) {
  const StageRange range = ChangedStages(before, *after);
  // `before` is valid, so only the changed stages need the check.
  return ChooseValidRetention(problem, coster, after, range.first, range.last, [&](const Draft& chosen) {
    return ChangeIsConsistent(problem, before, chosen, MatchEnds(before, chosen));
  });
}

}  // namespace tilesched::search
