// What several lower-bound parts read off the graph (docs/bounds.md): the reads of every tensor,
// contest rule 7b as a MatMul reader sees it, the ops whose region is always the tile (Lemmas
// P2-P3), the pairs of ops that are never in one first subgraph (Lemma M6), and a union-find.
//
// Entry points: ReadsOf(problem), ReductionReadAllowed(...), TileBoundOps, SeparatedOps(...),
// Components. Linear in ops and reads, except SeparatedOps (ops^2 / 64 words: callers cap the
// op count).
#ifndef TILESCHED_BOUND_BOUND_GRAPH_H_
#define TILESCHED_BOUND_BOUND_GRAPH_H_

#include <functional>
#include <vector>

#include "tilesched/bitset.h"
#include "tilesched/cost_model.h"
#include "tilesched/problem.h"

namespace tilesched::bound {

// One read of a tensor: op `op` reads it at input position `slot` (0 = LHS, 1 = RHS of a
// MatMul; any position of a Pointwise op).
struct Read {
  int op;
  int slot;
};
// Per tensor, its reads in op order, then input order.
using ReadLists = std::vector<std::vector<Read>>;
ReadLists ReadsOf(const Problem& problem);

// Contest rule 7b with rule 3.4 (ProportionalRegionFits): can op o's output be demanded with a
// proportional dimension by a MatMul reading it at input position `slot` (the LHS's columns or
// the RHS's rows run along the reduction)?
bool ReductionReadAllowed(const Problem& problem, Rules rules, int o, int slot);

// Lemmas P2-P3: the ops whose output region is the tile in every subgraph that holds them.
class TileBoundOps {
 public:
  TileBoundOps(const Problem& problem, Rules rules, const ReadLists& reads);
  // Lemma P2: a Pointwise op every reader of which is a tile-only Pointwise op or a MatMul that
  // may not demand it along its reduction (rule 7b): it only ever computes tile regions.
  bool TileOnly(int o) const { return tile_only_[static_cast<size_t>(o)]; }
  // Lemma P3: a MatMul every reader of whose output is a tile-only Pointwise op (or that has no
  // reader) is a split root in every subgraph. For a Pointwise op: TileOnly.
  bool TileBound(int o) const;

 private:
  const Problem& problem_;
  const ReadLists& reads_;
  std::vector<bool> tile_only_;
};

// Lemma M6: per op a, the ops reachable from a over a path with an edge c -> e that no subgraph
// can hold inside (`fusable(c, e)` false): never in a's first subgraph. `reach` (optional): per
// op its descendants, itself included.
std::vector<Bitset> SeparatedOps(const Problem& problem, const std::function<bool(int, int)>& fusable,
                                 std::vector<Bitset>* reach = nullptr);

// Union-find over ids 0..n-1 (path halving; Join(a, b) puts a's root under b's).
class Components {
 public:
  explicit Components(int n);
  int Find(int x);
  void Join(int a, int b) { parent_[static_cast<size_t>(Find(a))] = Find(b); }

 private:
  std::vector<int> parent_;
};

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_BOUND_GRAPH_H_
