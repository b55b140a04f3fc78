// Lemma W1 of docs/bounds.md (tilesched/lower_bound.h, LinkComponents): the ops that can share a
// subgraph. A subgraph is connected over links between its ops (rule 3.2): two readers of one
// tensor, or a producer and a reader of its output, and the latter only over an edge that a
// subgraph can hold inside (Lemma M5). So every subgraph lies inside one component of the graph
// of those links. Cost: one RoleGraph (the roles and fusable edges of Lemmas M2-M7), then a
// union-find over the edges and reads. Also Lemma W4 (ComponentLowerBounds): per component, the
// mixed roofline of mixed_bound.h with its flow restricted to the component, which tier 2 by
// components (search/split_tier2.cc) counts where its LP cannot price a component; Lemma T6
// (NeverTogether): the left-out edges, which no op set of tier 2 holds. And Lemma V1
// (Cores, Pieces): the same links with those through cut tensors left out, whose components
// are the cores; cost as for W1 plus Lemmas P2-P3 (TileBoundOps).
#include <algorithm>
#include <vector>

#include "bound_graph.h"
#include "mixed_bound.h"
#include "role_graph.h"
#include "tilesched/graph.h"
#include "tilesched/lower_bound.h"

namespace tilesched {

namespace {

// Per op its component's index, numbered 0, 1, ... in the order of each component's smallest op.
std::vector<int> Numbered(bound::Components& components, int n, int* count) {
  std::vector<int> index(static_cast<size_t>(n), -1), result(static_cast<size_t>(n));
  int next = 0;
  for (int o = 0; o < n; ++o) {
    int& id = index[static_cast<size_t>(components.Find(o))];
    if (id < 0) id = next++;
    result[static_cast<size_t>(o)] = id;
  }
  if (count != nullptr) *count = next;
  return result;
}

// The links of Lemma W1 through tensors that `cut` keeps (all of them when `cut` is empty):
// producer to reader over a fusable edge unless the tensor is kGlue, reader to reader unless it
// is kExternalShared.
bound::Components Linked(const Problem& problem, const bound::RoleGraph& roles, const bound::ReadLists& reads,
                         const std::vector<CutKind>& cut) {
  const int n = problem.num_ops();
  bound::Components components(n);
  auto kind = [&](int t) { return cut.empty() ? CutKind::kKept : cut[static_cast<size_t>(t)]; };
  for (int p = 0; p < n; ++p) {
    if (kind(problem.op(p).output) == CutKind::kGlue) continue;
    for (int e : problem.graph().successors(p)) {
      if (roles.Fusable(p, e)) components.Join(p, e);
    }
  }
  for (size_t t = 0; t < reads.size(); ++t) {
    if (kind(static_cast<int>(t)) == CutKind::kExternalShared) continue;
    for (size_t i = 1; i < reads[t].size(); ++i) components.Join(reads[t][0].op, reads[t][i].op);
  }
  return components;
}

}  // namespace

std::vector<int> LinkComponents(const Problem& problem, const CostModes& modes) {
  const bound::RoleGraph roles(problem, modes);
  const bound::ReadLists reads = bound::ReadsOf(problem);
  bound::Components components = Linked(problem, roles, reads, {});
  return Numbered(components, problem.num_ops(), nullptr);
}

std::vector<std::vector<int>> NeverTogether(const Problem& problem, const CostModes& modes) {
  const bound::RoleGraph roles(problem, modes);
  std::vector<std::vector<int>> never(static_cast<size_t>(problem.num_ops()));
  for (int p = 0; p < problem.num_ops(); ++p) {
    for (int e : problem.graph().successors(p)) {
      if (roles.Fusable(p, e)) continue;
      never[static_cast<size_t>(p)].push_back(e);
      never[static_cast<size_t>(e)].push_back(p);
    }
  }
  for (auto& ops : never) {
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  }
  return never;
}

std::vector<CutKind> AdmissibleCuts(const Problem& problem, const CostModes& modes) {
  std::vector<CutKind> cut(static_cast<size_t>(problem.num_tensors()), CutKind::kKept);
  if (modes.rules != Rules::kContest) return cut;
  const bound::RoleGraph roles(problem, modes);
  const bound::ReadLists reads = bound::ReadsOf(problem);
  const bound::TileBoundOps tile_bound(problem, modes.rules, reads);
  for (int t = 0; t < problem.num_tensors(); ++t) {
    const int p = problem.producer(t);
    // Distinct readers: a Pointwise op may read t twice.
    std::vector<int> ops;
    for (const bound::Read& r : reads[static_cast<size_t>(t)]) ops.push_back(r.op);
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    const bool never_with_producer =
        p < 0 || std::none_of(ops.begin(), ops.end(), [&](int e) { return roles.Fusable(p, e); });
    if (ops.size() >= 2 && never_with_producer) {
      cut[static_cast<size_t>(t)] = CutKind::kExternalShared;
      continue;
    }
    if (never_with_producer) continue;  // no producer-reader link to cut
    // Lemma P2 (a tile-only Pointwise op), or Lemma P3 restricted to the readers a subgraph can
    // hold with the MatMul: every fusable reader is a tile-only Pointwise op.
    bool glue = false;
    if (problem.op(p).type == OpType::kPointwise) {
      glue = tile_bound.TileOnly(p);
    } else {
      glue = std::all_of(ops.begin(), ops.end(), [&](int e) {
        return !roles.Fusable(p, e) || (problem.op(e).type == OpType::kPointwise && tile_bound.TileOnly(e));
      });
    }
    if (glue) cut[static_cast<size_t>(t)] = CutKind::kGlue;
  }
  return cut;
}

std::vector<CutKind> DesignCuts(const Problem& problem, const CostModes& modes) {
  std::vector<CutKind> cut = AdmissibleCuts(problem, modes);
  const Hardware& hw = problem.hardware();
  auto large = [&](int o) {
    const Tensor& out = problem.tensor(problem.op(o).output);
    return problem.op(o).type == OpType::kPointwise && out.width > hw.native_w && out.height > hw.native_h;
  };
  for (int t = 0; t < problem.num_tensors(); ++t) {
    if (cut[static_cast<size_t>(t)] != CutKind::kGlue) continue;
    if (!large(problem.producer(t))) cut[static_cast<size_t>(t)] = CutKind::kKept;
  }
  return cut;
}

CoreSplit Cores(const Problem& problem, const CostModes& modes, const std::vector<CutKind>& cut) {
  const bound::RoleGraph roles(problem, modes);
  const bound::ReadLists reads = bound::ReadsOf(problem);
  const std::vector<CutKind> admissible = AdmissibleCuts(problem, modes);
  CoreSplit split;
  split.cut.assign(admissible.size(), CutKind::kKept);
  for (size_t t = 0; t < cut.size() && t < admissible.size(); ++t) {
    if (cut[t] == admissible[t]) split.cut[t] = cut[t];
  }
  bound::Components components = Linked(problem, roles, reads, split.cut);
  split.core_of = Numbered(components, problem.num_ops(), &split.count);
  return split;
}

std::vector<std::vector<int>> Pieces(const Problem& problem, const CoreSplit& split, const std::vector<int>& ops) {
  std::vector<int> sorted = ops;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  const int n = static_cast<int>(sorted.size());
  auto local = [&](int o) {
    auto it = std::lower_bound(sorted.begin(), sorted.end(), o);
    return it != sorted.end() && *it == o ? static_cast<int>(it - sorted.begin()) : -1;
  };
  bound::Components components(n);
  std::vector<int> first_reader(static_cast<size_t>(problem.num_tensors()), -1);
  for (int i = 0; i < n; ++i) {
    const Op& op = problem.op(sorted[static_cast<size_t>(i)]);
    for (int t : op.inputs) {
      const CutKind kind = split.cut[static_cast<size_t>(t)];
      // Producer to reader, inside the op set (the edge is fusable when the set is valid).
      const int p = local(problem.producer(t));
      if (p >= 0 && kind != CutKind::kGlue) components.Join(i, p);
      if (kind == CutKind::kExternalShared) continue;
      int& first = first_reader[static_cast<size_t>(t)];
      if (first < 0) {
        first = i;
      } else {
        components.Join(i, first);
      }
    }
  }
  std::vector<std::vector<int>> pieces;
  std::vector<int> index(static_cast<size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    int& id = index[static_cast<size_t>(components.Find(i))];
    if (id < 0) {
      id = static_cast<int>(pieces.size());
      pieces.emplace_back();
    }
    pieces[static_cast<size_t>(id)].push_back(sorted[static_cast<size_t>(i)]);
  }
  return pieces;
}

std::vector<double> ComponentLowerBounds(const Problem& problem, const CostModes& modes,
                                         const std::vector<int>& component_of) {
  const size_t count =
      component_of.empty() ? 0 : static_cast<size_t>(*std::max_element(component_of.begin(), component_of.end())) + 1;
  std::vector<double> best(count, 0);
  std::vector<bound::Variant> variants = {bound::Variant::kPlain, bound::Variant::kCapacity};
  if (bound::AnySharedSplit(problem)) variants.push_back(bound::Variant::kShared);
  for (bound::Variant variant : variants) {
    std::vector<double> by_component;
    bound::MixedBound(problem, modes, variant, &component_of, &by_component);
    for (size_t c = 0; c < by_component.size() && c < count; ++c) best[c] = std::max(best[c], by_component[c]);
  }
  return best;
}

}  // namespace tilesched
