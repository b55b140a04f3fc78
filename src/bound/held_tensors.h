// Lemmas H1-H2 of docs/bounds.md ("Held tensors"): a tensor retained by the previous subgraph is
// held whole at every step of the subgraph, also while the producers computed inside it for its
// readers run, so those producers are priced with less room (and cannot hold a second such
// tensor). The traffic pass's variant kHeld (traffic_bound.h) prices with them: the part `held`.
//
// Entry points: Held (what a charge is priced with), Big(problem, t), HeldSize(problem, held),
// ConeBigs(problem) (Lemma H2: which producers' cones read no big tensor in common).
#ifndef TILESCHED_BOUND_HELD_TENSORS_H_
#define TILESCHED_BOUND_HELD_TENSORS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tilesched/problem.h"

namespace tilesched::bound {

// Lemma H1: tensors known to be held whole in fast memory at every step of the subgraph (the
// resident operands of the ops that demand this one's region), sorted ids. Forgetting one only
// lowers a charge, so only "big" tensors are tracked (two of them never fit together with one
// more element, rule 3.8), and then one is all a subgraph can hold: at most one entry, which
// bounds the work by (ops x roles) per big tensor. Lemma H2's entry kNoBig instead: no big
// tensor is resident for any op of the cone being priced.
using Held = std::vector<int>;
constexpr int kNoBig = -1;
// Lemma H2 tracks up to this many big tensors read in an op's cone (more: never apart).
constexpr size_t kMaxConeBigs = 64;

// Lemma H1: the elements of the held tensors.
int64_t HeldSize(const Problem& problem, const Held& held);

// Lemmas H1-H2: a produced tensor that may be resident but never next to another such one
// (two of them and one more element exceed the capacity, rule 3.8).
bool Big(const Problem& problem, int t);

// Lemma H2: the big tensors read by each op or by any op it depends on. Linear in ops times
// kMaxConeBigs.
class ConeBigs {
 public:
  explicit ConeBigs(const Problem& problem);
  // The cones of producers a and b read no big tensor in common.
  bool Apart(int a, int b) const;

 private:
  std::vector<std::vector<int>> bigs_;  // sorted; empty with overflow_
  std::vector<bool> overflow_;          // more than kMaxConeBigs
};

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_HELD_TENSORS_H_
