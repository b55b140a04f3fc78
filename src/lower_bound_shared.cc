// Lemma S1 (docs/bounds.md, "Shared inputs: loads split by what each reader holds"): which
// graph inputs have their loads split by footprints, what each reader owns, and the least
// footprint-weighted load over the tiles.
//
// Work: PlanSharedInputs is linear in the total number of (reader, operand) pairs;
// MinFootprintLoad visits at most min(native_h, 2 sqrt(grid_h)) heights times as many widths
// (only the smallest tile of each row or column count can be the minimum), each O(terms).
#include "tilesched/lower_bound_shared.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "tilesched/graph.h"

namespace tilesched {
namespace {

int64_t Ceil(int64_t a, int64_t b) { return (a + b - 1) / b; }

// (tile extent, tile count) pairs to try along one axis. The footprint grows with the extent
// and the count falls, so for each count only its smallest extent ceil(E / count) matters.
// Unknown grids and axes that do not multiply the load take the least extent, 1.
std::vector<std::pair<int64_t, int64_t>> AxisCandidates(int64_t grid, int64_t native, bool counts) {
  if (grid <= 0 || !counts) return {{1, 1}};
  const int64_t top = std::min(native, grid);
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t count = Ceil(grid, top);
  for (;;) {
    const int64_t extent = Ceil(grid, count);
    out.emplace_back(extent, count);
    if (extent == 1) break;
    count = Ceil(grid, extent - 1);
  }
  return out;
}

}  // namespace

double MinFootprintLoad(const std::vector<FootprintTerm>& terms, const FootprintGrid& grid) {
  if (terms.empty()) return 0;
  const auto rows = AxisCandidates(grid.grid_h, grid.native_h, grid.per_row);
  const auto cols = AxisCandidates(grid.grid_w, grid.native_w, grid.per_col);
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [h, r] : rows) {
    for (const auto& [w, c] : cols) {
      double footprint = 0;
      for (const FootprintTerm& t : terms) {
        footprint += static_cast<double>(t.rows_tile ? h : t.rows) * static_cast<double>(t.cols_tile ? w : t.cols);
      }
      best = std::min(best, footprint * static_cast<double>(r) * static_cast<double>(c));
    }
  }
  return best;
}

SharedPlan PlanSharedInputs(const Problem& problem, const std::vector<double>& alpha_load) {
  const int nt = problem.num_tensors();
  const int64_t capacity = problem.hardware().fast_memory_capacity;
  SharedPlan plan;
  plan.split.assign(static_cast<size_t>(nt), false);
  plan.owned.assign(static_cast<size_t>(problem.num_ops()), {});
  std::vector<int> count(static_cast<size_t>(nt), 0);
  for (int t = 0; t < nt; ++t) {
    if (problem.producer(t) >= 0 || capacity < 2) continue;
    // The group: MatMuls reading t in exactly one position; per reader its candidate tensors
    // (the other operand, and the inputs of that operand's producer), never t itself.
    std::vector<std::pair<int, int>> group;  // (op, position of t)
    std::vector<std::vector<int>> candidates;
    std::vector<int> readers(problem.graph().consumers(t).begin(), problem.graph().consumers(t).end());
    std::sort(readers.begin(), readers.end());
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
    for (int c : readers) {
      const Op& op = problem.op(c);
      if (op.type != OpType::kMatMul || op.inputs[0] == op.inputs[1]) continue;
      const int position = op.inputs[0] == t ? 0 : 1;
      const int other = op.inputs[static_cast<size_t>(1 - position)];
      std::vector<int> cand{other};
      if (const int p = problem.producer(other); p >= 0) {
        for (int v : problem.op(p).inputs) {
          if (v != t && std::find(cand.begin(), cand.end(), v) == cand.end()) cand.push_back(v);
        }
      }
      for (int v : cand) ++count[static_cast<size_t>(v)];
      group.emplace_back(c, position);
      candidates.push_back(std::move(cand));
    }
    // Owned: candidates of exactly one reader, so the readers' footprints are of distinct
    // tensors. The split pays off when a reader's resident operand beats the even share.
    bool pays = false;
    for (size_t i = 0; i < group.size(); ++i) {
      auto& owned = plan.owned[static_cast<size_t>(group[i].first)][static_cast<size_t>(group[i].second)];
      for (int v : candidates[i]) {
        if (count[static_cast<size_t>(v)] == 1) owned.push_back(v);
      }
      const int other = candidates[i].front();
      const int64_t size = problem.tensor(other).size();
      if (count[static_cast<size_t>(other)] == 1 && problem.producer(other) >= 0 && size < capacity &&
          static_cast<double>(size) / static_cast<double>(capacity - 1) > alpha_load[static_cast<size_t>(t)]) {
        pays = true;
      }
    }
    for (const auto& cand : candidates) {
      for (int v : cand) count[static_cast<size_t>(v)] = 0;
    }
    if (pays) {
      plan.split[static_cast<size_t>(t)] = true;
    } else {
      for (const auto& [c, position] : group) plan.owned[static_cast<size_t>(c)][static_cast<size_t>(position)].clear();
    }
  }
  return plan;
}

}  // namespace tilesched
