// Uniform-cost search over schedule prefixes (see brute_force.h for the space and the proofs).
#include "brute_force.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tilesched/demand.h"
#include "tilesched/evaluate.h"
#include "tilesched/grid.h"

namespace tilesched::testing {

namespace {

// Sets of ops and tensors by id, 0-127: the compiler's 128-bit integer (an extension, here in
// the test alone; search/mask.h is the tool's own), so the enumerator shares no code with it.
__extension__ typedef unsigned __int128 Mask;

std::vector<int> Ids(Mask mask) {
  std::vector<int> ids;
  for (int t = 0; mask != 0; ++t, mask >>= 1) {
    if (mask & 1) ids.push_back(t);
  }
  return ids;
}

Mask MaskOf(const std::vector<int>& ids) {
  Mask mask = 0;
  for (int t : ids) mask |= Mask{1} << t;
  return mask;
}

// A subgraph op set that SubgraphPlan accepts.
struct Candidate {
  SubgraphPlan plan;
  Mask ops = 0;
  Mask produced = 0;
  Mask external = 0;
  Mask sinks = 0;
  Mask output_sinks = 0;  // sinks that are graph outputs: always written
};

struct State {
  Mask covered = 0;
  Mask slow = 0;
  Mask resident = 0;
  auto operator<=>(const State&) const = default;
};

struct StateHash {
  size_t operator()(const State& s) const {
    auto fold = [](Mask m) { return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64) * 31; };
    uint64_t h = fold(s.covered) * 0x9E3779B97F4A7C15ULL;
    h ^= fold(s.slow) + 0x7F4A7C159E3779B9ULL + (h << 6) + (h >> 2);
    h ^= fold(s.resident) + 0x94D049BB133111EBULL + (h << 6) + (h >> 2);
    return static_cast<size_t>(h);
  }
};

// The cheapest configuration of one subgraph context.
struct Config {
  double latency = 0;
  Granularity granularity;
  std::vector<int64_t> traversal;
};

struct Parent {
  State from;
  int candidate = -1;
  Mask retained = 0;
};

// Queue entry: a state reached at `key` (edge_candidate < 0) or a lazy edge out of `state`.
struct Entry {
  double key = 0;
  int64_t seq = 0;
  State state;
  int edge_candidate = -1;
  Mask edge_retained = 0;
  bool keyed_by_compute = false;  // the key includes the op set's compute bound
  bool operator>(const Entry& o) const { return std::tie(key, seq) > std::tie(o.key, o.seq); }
};

// Representative sets: balanced sizes ceil(D/n) for these tile (or slice) counts n.
constexpr int64_t kBalancedCounts = 4;

void AddSize(std::vector<int64_t>* values, int64_t v) {
  if (std::find(values->begin(), values->end(), v) == values->end()) values->push_back(v);
}

// Every size 1..limit (full) or the representative sizes for extent `extent` (see the header).
std::vector<int64_t> Sizes(int64_t limit, const std::vector<int64_t>& extents, bool full) {
  std::vector<int64_t> values;
  if (full) {
    for (int64_t v = 1; v <= limit; ++v) values.push_back(v);
    return values;
  }
  for (int64_t v = 1; v <= limit; v *= 2) AddSize(&values, v);
  AddSize(&values, limit);
  for (int64_t extent : extents) {
    for (int64_t n = 1; n <= kBalancedCounts; ++n) {
      if (CeilDiv(extent, n) <= limit) AddSize(&values, CeilDiv(extent, n));
    }
    for (int64_t d = 1; d <= std::min(extent, limit); ++d) {
      if (extent % d == 0) AddSize(&values, d);
    }
  }
  std::sort(values.begin(), values.end());
  return values;
}

// Traversal orders of the declared space; the empty order is raster.
std::vector<std::vector<int64_t>> Orders(const Grid& grid, bool all_permutations) {
  const int64_t rows = grid.rows(), cols = grid.cols(), n = grid.num_tiles();
  std::vector<std::vector<int64_t>> orders = {{}};
  if (rows == 1 || cols == 1) {
    if (n > 4 || !all_permutations) return orders;  // the four orders are raster here
  }
  if (n <= 4 && all_permutations) {
    std::vector<int64_t> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    while (std::next_permutation(perm.begin(), perm.end())) orders.push_back(perm);
    return orders;
  }
  std::vector<int64_t> column_major, row_snake, column_snake;
  for (int64_t c = 0; c < cols; ++c) {
    for (int64_t r = 0; r < rows; ++r) {
      column_major.push_back(r * cols + c);
      column_snake.push_back((c % 2 ? rows - 1 - r : r) * cols + c);
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) row_snake.push_back(r * cols + (r % 2 ? cols - 1 - c : c));
  }
  orders.push_back(column_major);
  orders.push_back(row_snake);
  orders.push_back(column_snake);
  return orders;
}

// Prune 5: whether the traversal order can change the cost. Only a slice identical to one the
// previous step needed is not loaded again (SPEC.md section 5). When every slice the subgraph
// loads spans tile rows x tile columns, two different tiles never need an identical slice
// (their row or column ranges differ), so every order costs the same as raster.
bool OrderMatters(const SubgraphPlan& plan, Mask resident) {
  auto spans_more = [&](const DemandGroup& group) {
    for (const SliceDemand& d : group.slices) {
      if ((resident >> d.tensor) & 1) continue;
      if (d.rows != DimKind::kTile || d.cols != DimKind::kTile) return true;
    }
    return false;
  };
  if (spans_more(plan.last_group())) return true;
  for (const DemandGroup& group : plan.root_groups()) {
    if (spans_more(group)) return true;
  }
  return false;
}

Problem Roomy(const Problem& problem) {
  Hardware hw = problem.hardware();
  hw.fast_memory_capacity = int64_t{1} << 50;
  auto roomy = problem.WithHardware(hw);
  assert(roomy.ok());
  return std::move(roomy).value();
}

class Enumerator {
 public:
  Enumerator(const Problem& problem, const CostModes& modes, const BruteForceLimits& limits,
             bool reduced)
      : problem_(problem), model_(problem, modes), roomy_(Roomy(problem)),
        roomy_model_(roomy_, modes), modes_(modes), limits_(limits),
        reduced_(reduced), call_limit_(reduced ? limits.max_cost_calls : limits.full_cost_calls) {
    result_.reduced = reduced;
    if (reduced) result_.exhaustive = false;
    const int n = problem.num_ops();
    for (Mask ops = 1; ops < (Mask{1} << n); ++ops) {
      auto plan = SubgraphPlan::Create(problem, Ids(ops));
      if (!plan.ok()) continue;
      Candidate c{*plan};
      c.ops = ops;
      c.produced = MaskOf(plan->produced());
      c.external = MaskOf(plan->external_inputs());
      c.sinks = MaskOf(plan->sinks());
      for (int t : plan->sinks()) {
        if (problem.is_graph_output(t)) c.output_sinks |= Mask{1} << t;
      }
      candidates_.push_back(std::move(c));
    }
    compute_bound_.resize(candidates_.size());
  }

  BruteForceResult Run();

 private:
  // Cheapest configuration of candidate `c` retaining `retained` after `resident`.
  const std::optional<Config>& Best(int c, Mask retained, Mask resident);
  // A fitting granularity of a context, its working set and its cheapest order.
  struct Option {
    int64_t working_set = 0;
    Config config;
  };
  // Options of candidate `c` retaining `retained` with only the `relevant` tensors resident.
  const std::vector<Option>& Options(int c, Mask retained, Mask relevant);
  // Least compute time of candidate `c` over its granularities (prune 3 of the header).
  double ComputeBound(int c);
  // The granularity candidates of a subgraph; `full` says whether they are the full sets.
  std::vector<Granularity> Granularities(const SubgraphPlan& plan, bool* full) const;
  double TrafficBound(const Candidate& c, Mask retained, Mask resident) const;

  const Problem& problem_;
  CostModel model_;
  Problem roomy_;  // the same problem with a fast memory that holds everything
  CostModel roomy_model_;
  CostModes modes_;
  BruteForceLimits limits_;
  bool reduced_;
  int64_t call_limit_;
  std::vector<Candidate> candidates_;
  std::map<std::tuple<int, Mask, Mask>, std::optional<Config>> memo_;
  std::map<std::tuple<int, Mask, Mask>, std::vector<Option>> options_;
  std::vector<std::optional<double>> compute_bound_;
  BruteForceResult result_;
};

double Enumerator::TrafficBound(const Candidate& c, Mask retained, Mask resident) const {
  int64_t elements = 0;
  for (int t : Ids(c.external & ~resident)) elements += problem_.tensor(t).size();
  const Mask written = (c.sinks & ~retained) | c.output_sinks;
  for (int t : Ids(written)) elements += problem_.tensor(t).size();
  return static_cast<double>(elements) / problem_.hardware().slow_memory_bandwidth;
}

std::vector<Granularity> Enumerator::Granularities(const SubgraphPlan& plan, bool* full) const {
  const Hardware& hw = problem_.hardware();
  int64_t k_max = 1;
  if (!plan.split_roots().empty()) {
    k_max = *std::min_element(plan.root_extents().begin(), plan.root_extents().end());
    if (modes_.k_limit == KLimit::kNative) k_max = std::min(k_max, hw.native_k());
  }
  // Rule 7b may ask for w above the sink's width (a Pointwise op read along a reduction wider
  // than the sink), so the cap is the larger of the two.
  const GranularityBounds bounds = model_.Bounds(plan);
  const int64_t w_max = std::min(hw.native_w, std::max(plan.width(), bounds.min_w));
  const int64_t h_max = std::min(hw.native_h, std::max(plan.height(), bounds.min_h));
  *full = !reduced_ && w_max * h_max * k_max <= limits_.max_full_configs;
  const std::vector<int64_t> ws = Sizes(w_max, {plan.width()}, *full);
  const std::vector<int64_t> hs = Sizes(h_max, {plan.height()}, *full);
  std::vector<int64_t> ks = {1};
  if (!plan.split_roots().empty()) ks = Sizes(k_max, plan.root_extents(), *full);
  std::vector<Granularity> out;
  for (int64_t w : ws) {
    for (int64_t h : hs) {
      for (int64_t k : ks) {
        if (model_.CheckGranularity(plan, {w, h, k}).ok()) out.push_back({w, h, k});
      }
    }
  }
  return out;
}

double Enumerator::ComputeBound(int index) {
  if (compute_bound_[index]) return *compute_bound_[index];
  const SubgraphPlan& plan = candidates_[index].plan;
  bool full = false;
  double least = -1;
  // Every granularity counts, whether it fits or not: holding a tensor can shrink the working
  // set (one whole resident tensor instead of several slices of it), so the granularities that
  // fit depend on the context.
  for (const Granularity& g : Granularities(plan, &full)) {
    ++result_.cost_calls;
    auto cost = roomy_model_.Cost(plan, g, {}, {}, {});
    if (cost.ok() && (least < 0 || cost->compute_time < least)) least = cost->compute_time;
  }
  compute_bound_[index] = std::max(0.0, least);
  return *compute_bound_[index];
}

const std::vector<Enumerator::Option>& Enumerator::Options(int index, Mask retained,
                                                          Mask relevant) {
  const auto key = std::make_tuple(index, retained, relevant);
  if (auto it = options_.find(key); it != options_.end()) return it->second;
  ++result_.contexts;
  const SubgraphPlan& plan = candidates_[index].plan;
  const std::vector<int> retained_ids = Ids(retained), relevant_ids = Ids(relevant);
  bool full = false;
  const std::vector<Granularity> granularities = Granularities(plan, &full);
  if (!full) result_.exhaustive = false;

  std::vector<Option> options;
  for (const Granularity& g : granularities) {
    const int64_t ws = model_.PeakWorkingSet(plan, g, retained_ids, relevant_ids);
    if (ws > problem_.hardware().fast_memory_capacity) continue;
    const Grid grid(plan.width(), plan.height(), g.w, g.h);
    const std::vector<std::vector<int64_t>> orders =
        OrderMatters(plan, relevant) ? Orders(grid, !reduced_)
                                     : std::vector<std::vector<int64_t>>{{}};
    std::optional<Option> best;
    for (const std::vector<int64_t>& order : orders) {
      if (result_.cost_calls >= call_limit_) {
        result_.cut = true;
        break;
      }
      ++result_.cost_calls;
      // The latency does not depend on the capacity (only rule 3.8 does), so the roomy model
      // costs it; `ws` decides whether it fits.
      auto cost = roomy_model_.Cost(plan, g, order, retained_ids, relevant_ids);
      if (!cost.ok()) break;
      if (!best || cost->latency < best->config.latency) {
        best = Option{ws, Config{cost->latency, g, order}};
      }
      // Prune 4: no order computes less than this one, and a step costs at least its
      // compute; so when every step is compute-bound, or the compute alone already reaches
      // the best, no other order of this granularity is better.
      if (cost->latency <= cost->compute_time || cost->compute_time >= best->config.latency) {
        break;
      }
    }
    if (best) options.push_back(std::move(*best));
  }
  return options_.emplace(key, std::move(options)).first->second;
}

const std::optional<Config>& Enumerator::Best(int index, Mask retained, Mask resident) {
  const auto key = std::make_tuple(index, retained, resident);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  const Candidate& c = candidates_[index];
  // Prune 6: a resident tensor the subgraph neither reads nor produces only adds its size to
  // every step's working set (SPEC.md sections 5-6).
  const Mask relevant = resident & (c.external | c.produced);
  int64_t extra = 0;
  for (int t : Ids(resident & ~relevant)) extra += problem_.tensor(t).size();
  std::optional<Config> best;
  for (const Option& option : Options(index, retained, relevant)) {
    if (option.working_set + extra > problem_.hardware().fast_memory_capacity) continue;
    if (!best || option.config.latency < best->latency) best = option.config;
  }
  if (best && extra > 0) {
    // Check prune 6 on the choice: the working set with the whole resident set.
    const int64_t ws = model_.PeakWorkingSet(c.plan, best->granularity, Ids(retained),
                                             Ids(resident));
    if (ws > problem_.hardware().fast_memory_capacity) {
      result_.error = "prune 6 does not hold: working set " + std::to_string(ws);
    }
  }
  return memo_.emplace(key, std::move(best)).first->second;
}

BruteForceResult Enumerator::Run() {
  const Mask all_ops = (Mask{1} << problem_.num_ops()) - 1;
  State start;
  for (int t = 0; t < problem_.num_tensors(); ++t) {
    if (problem_.is_graph_input(t)) start.slow |= Mask{1} << t;
  }
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  std::unordered_map<State, double, StateHash> dist;
  std::unordered_map<State, Parent, StateHash> parent;
  std::unordered_map<State, bool, StateHash> settled;
  int64_t seq = 0;
  dist[start] = 0;
  queue.push({0, seq++, start});
  std::optional<State> goal;
  while (!queue.empty() && !goal) {
    const Entry e = queue.top();
    queue.pop();
    if (e.edge_candidate >= 0) {
      const Candidate& c = candidates_[e.edge_candidate];
      if (!e.keyed_by_compute) {
        // First pop of a lazy edge: raise its key by the compute bound, still a lower bound.
        Entry raised = e;
        raised.keyed_by_compute = true;
        raised.key = std::max(e.key, dist[e.state] + ComputeBound(e.edge_candidate));
        raised.seq = seq++;
        queue.push(raised);
        continue;
      }
      // A lazy edge: cost it now and relax its head.
      const std::optional<Config>& config = Best(e.edge_candidate, e.edge_retained, e.state.resident);
      if (result_.cut) break;
      if (!config) continue;
      const double lb = std::max(TrafficBound(c, e.edge_retained, e.state.resident),
                                 ComputeBound(e.edge_candidate));
      if (config->latency < lb * (1 - 1e-12)) ++result_.lb_violations;
      const Mask written = (c.sinks & ~e.edge_retained) | c.output_sinks;
      const State next{e.state.covered | c.ops, e.state.slow | written, e.edge_retained};
      const double d = dist[e.state] + config->latency;
      if (settled.count(next)) continue;
      auto it = dist.find(next);
      if (it != dist.end() && it->second <= d) continue;
      dist[next] = d;
      parent[next] = {e.state, e.edge_candidate, e.edge_retained};
      queue.push({d, seq++, next});
      continue;
    }
    if (settled.count(e.state) || e.key > dist[e.state]) continue;
    settled[e.state] = true;
    if (++result_.states > limits_.max_states) {
      result_.cut = true;
      break;
    }
    if (e.state.covered == all_ops) {
      goal = e.state;
      break;
    }
    const Mask available = e.state.slow | e.state.resident;
    for (int i = 0; i < static_cast<int>(candidates_.size()); ++i) {
      const Candidate& c = candidates_[i];
      if ((c.external & ~available) != 0) continue;
      // Every subset of the produced tensors, the empty one included.
      Mask r = 0;
      do {
        queue.push({e.key + TrafficBound(c, r, e.state.resident), seq++, e.state, i, r});
        r = (r - c.produced) & c.produced;
      } while (r != 0);
    }
  }
  if (result_.cut) result_.exhaustive = false;
  if (!goal) return result_;

  // Rebuild the schedule and let the judge score it.
  std::vector<Subgraph> reversed;
  for (State s = *goal; s != start;) {
    const Parent& p = parent.at(s);
    const Config& config = *memo_.at(std::make_tuple(p.candidate, p.retained, p.from.resident));
    Subgraph sg;
    sg.ops = candidates_[p.candidate].plan.ops();
    sg.granularity = config.granularity;
    sg.retained = Ids(p.retained);
    sg.traversal = config.traversal;
    sg.reported_latency = config.latency;
    reversed.push_back(std::move(sg));
    s = p.from;
  }
  result_.schedule.subgraphs.assign(reversed.rbegin(), reversed.rend());
  auto evaluation = Evaluate(problem_, result_.schedule, modes_);
  if (!evaluation.ok()) {
    result_.error = "the evaluator rejects the enumerated optimum: " + evaluation.status().message();
    return result_;
  }
  const double searched = dist.at(*goal);
  if (std::abs(evaluation->total - searched) > 1e-9 * std::max(1.0, searched) ||
      !evaluation->warnings.empty()) {
    result_.error = "the evaluator's total " + std::to_string(evaluation->total) +
                    " differs from the search's " + std::to_string(searched);
    return result_;
  }
  result_.found = true;
  result_.total = evaluation->total;
  return result_;
}

}  // namespace

BruteForceResult BruteForceOptimum(const Problem& problem, const CostModes& modes,
                                   const BruteForceLimits& limits) {
  if (problem.num_ops() > 16 || problem.num_tensors() > 128) {  // the space's limits (brute_force.h)
    BruteForceResult out;
    out.error = "the enumerator takes at most 16 ops and 128 tensors, not " + std::to_string(problem.num_ops()) +
                " ops and " + std::to_string(problem.num_tensors()) + " tensors";
    return out;
  }
  BruteForceResult full = Enumerator(problem, modes, limits, /*reduced=*/false).Run();
  if (!full.cut || full.states > limits.max_states) return full;
  // The full space needs too many cost calls: search the reduced one, and say so.
  BruteForceResult reduced = Enumerator(problem, modes, limits, /*reduced=*/true).Run();
  reduced.cost_calls += full.cost_calls;
  return reduced;
}

}  // namespace tilesched::testing
