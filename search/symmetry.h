// Interchangeable branches of a problem (docs/bounds.md, Lemma T7): classes of op groups that an
// automorphism of the problem may permute freely, for tier 2 to list one op set per orbit and to
// sum its covering and flow rows over orbits of ops and tensors.
//
// Entry points: Symmetry::Find(problem, kept) proposes branches by colour refinement and keeps
// those whose swap with the class's first branch IsAutomorphism verifies; Canonical(ops) maps an
// op set to its orbit's representative; op_orbit() and tensor_orbit() give the rows of the
// summed LP (search/cover_lp.h). Problems of at most 64 ops and 128 tensors (masks).
#ifndef TILESCHED_SEARCH_SYMMETRY_H_
#define TILESCHED_SEARCH_SYMMETRY_H_

#include <cstdint>
#include <span>
#include <vector>

#include "context_pricer.h"
#include "tilesched/problem.h"

namespace tilesched::search {

// One class of interchangeable branches: branches[i][p] is the op at position p of branch i.
// For every i, swapping branch 0 with branch i (op by position, and the tensors they touch slot
// by slot) is an automorphism of the problem, so every permutation of the branches is one.
struct BranchClass {
  std::vector<std::vector<int>> branches;
};

// Whether op_map and tensor_map (permutations of the ids) map the problem onto itself: every op
// onto one of the same type and base cost whose output is the image of its output and whose
// inputs are the images of its inputs (slot by slot for a MatMul, as a multiset for a Pointwise
// op, which needs the same region of each input, SPEC 4), every tensor onto one of the same
// shape, and each mask of `kept` onto itself.
bool IsAutomorphism(const Problem& problem, const std::vector<int>& op_map, const std::vector<int>& tensor_map,
                    std::span<const Mask> kept);

class Symmetry {
 public:
  Symmetry() = default;  // no symmetry: every op and tensor its own orbit

  // Classes of interchangeable branches, each swap verified (IsAutomorphism); `kept`: tensor
  // masks every automorphism must keep (a component's relaxations, Lemma W2).
  static Symmetry Find(const Problem& problem, std::span<const Mask> kept);

  bool trivial() const { return classes_.empty(); }
  const std::vector<BranchClass>& classes() const { return classes_; }
  int branches() const;  // over all classes

  // The representative of the orbit of `ops`: in every class, the branches' patterns (which of
  // their positions the set holds) sorted, the largest on branch 0.
  Mask Canonical(Mask ops) const;

  // Orbit index of each op and tensor (0, 1, ... in order of first id); empty when trivial.
  const std::vector<int>& op_orbit() const { return op_orbit_; }
  const std::vector<int>& tensor_orbit() const { return tensor_orbit_; }

 private:
  std::vector<BranchClass> classes_;
  std::vector<int> op_orbit_, tensor_orbit_;
};

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_SYMMETRY_H_
