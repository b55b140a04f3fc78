// Candidate enumeration: bounded breadth-first growth of connected convex op sets.
#include "candidates.h"

#include <algorithm>
#include <unordered_set>

#include "hashing.h"
#include "tilesched/graph.h"

namespace tilesched::search {

const char* CandidateKindName(CandidateKind kind) {
  switch (kind) {
    case CandidateKind::kSingleton:
      return "singleton";
    case CandidateKind::kPointwise:
      return "pointwise";
    case CandidateKind::kEpilogue:
      return "epilogue";
    case CandidateKind::kPrologue:
      return "prologue";
    case CandidateKind::kMatMulChain:
      return "matmul-chain";
    case CandidateKind::kSiblings:
      return "siblings";
    case CandidateKind::kMixed:
      return "mixed";
  }
  return "?";
}

bool IsConvex(const Problem& problem, const std::vector<int>& ops) {
  const Graph& graph = problem.graph();
  // Per-thread marks stamped with a fresh generation per call: the walk below touches only the
  // ops between the set and its last op, so no array of the graph's size is cleared per call
  // (the pool holds O(ops) candidates; clearing made enumeration quadratic).
  thread_local std::vector<uint64_t> mark;
  thread_local uint64_t generation = 0;
  if (mark.size() < static_cast<size_t>(problem.num_ops())) mark.assign(problem.num_ops(), 0);
  generation += 2;
  const uint64_t in_set = generation, seen = generation + 1;
  for (int o : ops) mark[o] = in_set;
  std::vector<int> stack;
  for (int o : ops) {
    for (int next : graph.successors(o)) {
      if (mark[next] < in_set) {
        mark[next] = seen;
        stack.push_back(next);
      }
    }
  }
  // Only ops ranked below the set's last op can lead back into it.
  int last_rank = 0;
  for (int o : ops) last_rank = std::max(last_rank, graph.topo_rank(o));
  while (!stack.empty()) {
    const int o = stack.back();
    stack.pop_back();
    if (graph.topo_rank(o) > last_rank) continue;
    for (int next : graph.successors(o)) {
      if (mark[next] == in_set) return false;
      if (mark[next] < in_set) {
        mark[next] = seen;
        stack.push_back(next);
      }
    }
  }
  return true;
}

CandidateKind Classify(const Problem& problem, const std::vector<int>& ops) {
  if (ops.size() == 1) return CandidateKind::kSingleton;
  std::vector<int> matmuls;
  for (int o : ops) {
    if (problem.op(o).type == OpType::kMatMul) matmuls.push_back(o);
  }
  auto inside = [&](int o) { return std::binary_search(ops.begin(), ops.end(), o); };
  bool internal_edge = false;
  for (int o : ops) {
    for (int p : problem.graph().predecessors(o)) internal_edge |= inside(p);
  }
  if (!internal_edge) return CandidateKind::kSiblings;
  if (matmuls.empty()) return CandidateKind::kPointwise;
  for (int m : matmuls) {
    for (int p : problem.graph().predecessors(m)) {
      if (inside(p) && problem.op(p).type == OpType::kMatMul) return CandidateKind::kMatMulChain;
    }
  }
  if (matmuls.size() == 1) {
    const int m = matmuls[0];
    bool before = false, after = false;
    for (int o : ops) {
      if (o == m) continue;
      // Pointwise ops ranked before the MatMul can only feed it (the set is connected).
      (problem.graph().topo_rank(o) < problem.graph().topo_rank(m) ? before : after) = true;
    }
    if (after && !before) return CandidateKind::kEpilogue;
    if (before && !after) return CandidateKind::kPrologue;
  }
  return CandidateKind::kMixed;
}

namespace {

// Ops sharing a tensor with op o (producers, consumers, co-readers).
std::vector<int> Neighbours(const Problem& problem, int o) {
  const Graph& graph = problem.graph();
  std::vector<int> out;
  auto add_readers = [&](int t) {
    for (int c : graph.consumers(t)) {
      if (c != o) out.push_back(c);
    }
  };
  for (int t : problem.op(o).inputs) {
    if (graph.producer(t) >= 0) out.push_back(graph.producer(t));
    add_readers(t);
  }
  add_readers(problem.op(o).output);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

CandidatePool BuildCandidates(const Problem& problem, PlanCache& plans,
                              const SearchOptions& options,
                              const std::function<bool()>& should_stop) {
  int64_t polls = 0;
  // Every 16 sets: each costs a plan analysis and a convexity walk (tens of microseconds).
  auto stopped = [&] { return should_stop && (++polls & 15) == 0 && should_stop(); };
  const int n = problem.num_ops();
  CandidatePool pool;
  pool.by_op.assign(n, {});
  // Past the deadline nothing is enumerated (the singletons alone are a pass over the graph).
  if (should_stop && should_stop()) return pool;
  std::vector<std::vector<int>> neighbours(n);
  for (int o = 0; o < n; ++o) neighbours[o] = Neighbours(problem, o);

  // Large graphs get fewer sets per op so that the whole pool stays bounded.
  const int per_op_cap = std::max(
      4, std::min(options.max_candidates_per_op, options.max_candidates / std::max(1, n)));
  std::unordered_set<std::vector<int>, IdsHash> seen;
  std::vector<int> per_op(n, 0);
  auto add = [&](std::vector<int> ops) {
    if (!seen.insert(ops).second) return false;
    const SubgraphPlan* plan = plans.Get(ops);
    if (plan == nullptr || !IsConvex(problem, ops)) return false;
    const int index = static_cast<int>(pool.candidates.size());
    for (int o : ops) {
      pool.by_op[o].push_back(index);
      ++per_op[o];
    }
    pool.candidates.push_back({ops, plan, Classify(problem, ops)});
    return true;
  };

  // Breadth-first growth: layer s holds the connected sets of size s found so far. Sets that
  // are not valid subgraphs (sinks of two shapes) still grow: adding an op can fix them.
  std::vector<std::vector<int>> layer;
  for (int o = 0; o < n; ++o) {
    if (stopped()) return pool;
    add({o});
    layer.push_back({o});
  }
  std::unordered_set<std::vector<int>, IdsHash> grown;
  for (int size = 2; size <= options.max_subgraph_ops && !layer.empty(); ++size) {
    std::vector<std::vector<int>> next;
    for (const std::vector<int>& set : layer) {
      if (stopped()) return pool;
      std::vector<int> frontier;
      for (int o : set) {
        for (int m : neighbours[o]) {
          if (!std::binary_search(set.begin(), set.end(), m)) frontier.push_back(m);
        }
      }
      std::sort(frontier.begin(), frontier.end());
      frontier.erase(std::unique(frontier.begin(), frontier.end()), frontier.end());
      for (int m : frontier) {
        std::vector<int> bigger = set;
        bigger.insert(std::upper_bound(bigger.begin(), bigger.end(), m), m);
        bool full = false;
        for (int o : bigger) full |= per_op[o] >= per_op_cap;
        if (full || !grown.insert(bigger).second) continue;
        if (stopped()) return pool;
        add(bigger);
        next.push_back(std::move(bigger));
      }
    }
    layer = std::move(next);
  }

  // Structures larger than the growth bound: sibling groups and Pointwise chains.
  const Graph& graph = problem.graph();
  for (int t = 0; t < problem.num_tensors(); ++t) {
    if (stopped()) return pool;
    std::vector<int> readers(graph.consumers(t).begin(), graph.consumers(t).end());
    if (readers.size() > 2) add(readers);
  }
  for (int o = 0; o < n; ++o) {
    if (problem.op(o).type != OpType::kPointwise) continue;
    if (stopped()) return pool;
    std::vector<int> chain = {o};
    int cur = o;
    while (true) {
      const auto readers = graph.consumers(problem.op(cur).output);
      if (readers.size() != 1 || problem.op(readers[0]).type != OpType::kPointwise) break;
      cur = readers[0];
      chain.push_back(cur);
    }
    if (static_cast<int>(chain.size()) > options.max_subgraph_ops) {
      std::sort(chain.begin(), chain.end());
      add(chain);
    }
  }
  return pool;
}

}  // namespace tilesched::search
