// The graph facts several lower-bound parts share (src/bound/bound_graph.h).
#include "bound_graph.h"

#include "tilesched/graph.h"

namespace tilesched::bound {

ReadLists ReadsOf(const Problem& problem) {
  ReadLists reads(static_cast<size_t>(problem.num_tensors()));
  for (int o = 0; o < problem.num_ops(); ++o) {
    const auto& ins = problem.op(o).inputs;
    for (size_t i = 0; i < ins.size(); ++i) reads[static_cast<size_t>(ins[i])].push_back({o, static_cast<int>(i)});
  }
  return reads;
}

bool ReductionReadAllowed(const Problem& problem, Rules rules, int o, int slot) {
  return ProportionalRegionFits(problem, rules, o, /*along_rows=*/slot == 1);
}

TileBoundOps::TileBoundOps(const Problem& problem, Rules rules, const ReadLists& reads)
    : problem_(problem), reads_(reads), tile_only_(static_cast<size_t>(problem.num_ops()), false) {
  // Consumers first: a reader's verdict is known before its producer's.
  const auto& order = problem.graph().topo_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int o = *it;
    if (problem.op(o).type != OpType::kPointwise) continue;
    bool only = true;
    for (const Read& r : reads[static_cast<size_t>(problem.op(o).output)]) {
      if (problem.op(r.op).type == OpType::kPointwise) {
        only = only && tile_only_[static_cast<size_t>(r.op)];
      } else {
        only = only && !ReductionReadAllowed(problem, rules, o, r.slot);
      }
    }
    tile_only_[static_cast<size_t>(o)] = only;
  }
}

bool TileBoundOps::TileBound(int o) const {
  if (problem_.op(o).type == OpType::kPointwise) return TileOnly(o);
  for (const Read& r : reads_[static_cast<size_t>(problem_.op(o).output)]) {
    if (problem_.op(r.op).type != OpType::kPointwise || !TileOnly(r.op)) return false;
  }
  return true;
}

std::vector<Bitset> SeparatedOps(const Problem& problem, const std::function<bool(int, int)>& fusable,
                                 std::vector<Bitset>* reach) {
  const int n = problem.num_ops();
  std::vector<Bitset> below(static_cast<size_t>(n), Bitset(n)), separated(static_cast<size_t>(n), Bitset(n));
  const Graph& g = problem.graph();
  const auto& order = g.topo_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int c = *it;
    const size_t ci = static_cast<size_t>(c);
    below[ci].Set(c);
    for (int e : g.successors(c)) {
      const size_t ei = static_cast<size_t>(e);
      below[ci].Or(below[ei]);
      separated[ci].Or(fusable(c, e) ? separated[ei] : below[ei]);
    }
  }
  if (reach != nullptr) *reach = std::move(below);
  return separated;
}

Components::Components(int n) : parent_(static_cast<size_t>(n)) {
  for (int i = 0; i < n; ++i) parent_[static_cast<size_t>(i)] = i;
}

int Components::Find(int x) {
  while (parent_[static_cast<size_t>(x)] != x) {
    parent_[static_cast<size_t>(x)] = parent_[static_cast<size_t>(parent_[static_cast<size_t>(x)])];
    x = parent_[static_cast<size_t>(x)];
  }
  return x;
}

}  // namespace tilesched::bound
