// The linear program of the tier-2 bound (docs/bounds.md, "Tier 2: the covering LP"): one
// column per subgraph context (op set S, retained set r, resident set R) with a lower bound c on
// its latency; one covering row per op (every op runs at least once) and one flow row per tensor
// (no more subgraphs start with t resident than end retaining it), or one row per orbit of
// each (Lemma T7). The restricted master of a
// column generation: the caller adds the columns it priced and reads the duals.
//
// Entry points: CoverLp (AddColumn, Solve, Duals). COIN-OR CLP solves it; the bound is never
// taken from CLP's objective, only from duals the caller has checked against every column
// (CoveringLp::Scan and the certificate of Lemma T2 in search/tier2.cc), so CLP's tolerances
// cannot make it unsound.
#ifndef TILESCHED_SEARCH_COVER_LP_H_
#define TILESCHED_SEARCH_COVER_LP_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "mask.h"

class ClpSimplex;

namespace tilesched::search {

class CoverLp {
 public:
  CoverLp(int num_ops, int num_tensors);
  // Lemma T7: one covering row per orbit of ops (sum over the columns of the ops of the orbit
  // they hold, times x, >= the orbit's size) and one flow row per orbit of tensors, from the
  // orbit index of each op and tensor (search/symmetry.h); empty vectors: each its own orbit.
  CoverLp(int num_ops, int num_tensors, const std::vector<int>& op_orbit, const std::vector<int>& tensor_orbit);
  ~CoverLp();
  CoverLp(const CoverLp&) = delete;
  CoverLp& operator=(const CoverLp&) = delete;

  // Column x >= 0 of cost `cost`: covers `ops`, ends retaining `retained`, starts with
  // `resident` (bit i = op or tensor i).
  void AddColumn(Mask ops, Mask retained, Mask resident, double cost);
  // Solves the restricted LP; false when CLP reports neither optimal nor a usable state.
  bool Solve();
  double objective() const;
  // Duals, clamped at 0 (their sign in the dual program): y per op, z per tensor (with orbits,
  // each op and tensor gets its orbit's row's dual).
  void Duals(std::vector<double>* y, std::vector<double>* z) const;
  int num_columns() const;

 private:
  int num_ops_, num_tensors_;
  std::vector<int> op_row_, tensor_row_;  // the row of each op and tensor
  int op_rows_ = 0;
  std::unique_ptr<ClpSimplex> lp_;
};

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_COVER_LP_H_
