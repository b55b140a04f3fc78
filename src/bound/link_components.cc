// Lemma W1 of docs/bounds.md (tilesched/lower_bound.h, LinkComponents): the ops that can share a
// subgraph. A subgraph is connected over links between its ops (rule 3.2): two readers of one
// tensor, or a producer and a reader of its output, and the latter only over an edge that a
// subgraph can hold inside (Lemma M5). So every subgraph lies inside one component of the graph
// of those links. Cost: one RoleGraph (the roles and fusable edges of Lemmas M2-M7), then a
// union-find over the edges and reads. Also Lemma W4 (ComponentLowerBounds): per component, the
// mixed roofline of mixed_bound.h with its flow restricted to the component, which tier 2 by
// components (search/split_tier2.cc) counts where its LP cannot price a component.
#include <algorithm>
#include <vector>

#include "bound_graph.h"
#include "mixed_bound.h"
#include "role_graph.h"
#include "tilesched/graph.h"
#include "tilesched/lower_bound.h"

namespace tilesched {

std::vector<int> LinkComponents(const Problem& problem, const CostModes& modes) {
  const int n = problem.num_ops();
  const bound::RoleGraph roles(problem, modes);
  bound::Components components(n);
  for (int p = 0; p < n; ++p) {
    for (int e : problem.graph().successors(p)) {
      if (roles.Fusable(p, e)) components.Join(p, e);
    }
  }
  for (const auto& reads : bound::ReadsOf(problem)) {
    for (size_t i = 1; i < reads.size(); ++i) components.Join(reads[0].op, reads[i].op);
  }
  // Numbered 0, 1, ... in the order of each component's smallest op.
  std::vector<int> index(static_cast<size_t>(n), -1), result(static_cast<size_t>(n));
  int next = 0;
  for (int o = 0; o < n; ++o) {
    int& id = index[static_cast<size_t>(components.Find(o))];
    if (id < 0) id = next++;
    result[static_cast<size_t>(o)] = id;
  }
  return result;
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
