// Lemmas S1-S3 (docs/bounds.md, "Shared inputs: loads split by what each reader holds"): which
// graph inputs have their loads split by footprints, what each reader owns, the least
// footprint-weighted load over the tiles, and the charges built on them (src/bound/shared_inputs.h).
//
// Work: PlanSharedInputs is linear in the total number of (reader, operand) pairs;
// MinFootprintLoad visits at most min(native_h, 2 sqrt(grid_h)) heights times as many widths
// (only the smallest tile of each row or column count can be the minimum), each O(terms).
#include "shared_inputs.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "tilesched/graph.h"

namespace tilesched::bound {
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

bool SharedInputCharges::GraphInputSlicesFit(int c, const Role& r) const {
  const Op& op = p_.op(c);
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const int t = op.inputs[i];
    if (p_.producer(t) >= 0) continue;
    const Slot slot = op.type == OpType::kPointwise ? Slot::kPointwise : i == 0 ? Slot::kLhs : Slot::kRhs;
    const Role d = Demanded(op.type, slot, r, g_.Root(c));
    const Tensor& tensor = p_.tensor(t);
    const double slice = (d.rows == DimKind::kFull ? static_cast<double>(tensor.height) : 1) *
                         (d.cols == DimKind::kFull ? static_cast<double>(tensor.width) : 1);
    if (slice > static_cast<double>(p_.hardware().fast_memory_capacity - 1)) return false;
  }
  return true;
}

// The slice of tensor v demanded in kinds d at the first step of tile 0 (Lemma S1).
FootprintTerm SharedInputCharges::SliceTerm(int v, const Role& d) const {
  const Tensor& tensor = p_.tensor(v);
  FootprintTerm term;
  term.rows_tile = d.rows == DimKind::kTile;
  term.rows = d.rows == DimKind::kFull ? tensor.height : 1;
  term.cols_tile = d.cols == DimKind::kTile;
  term.cols = d.cols == DimKind::kFull ? tensor.width : 1;
  return term;
}

double SharedInputCharges::Arrival(int c, const Role& r, int pos, double loaded, double resident, double inside,
                                   bool first) const {
  const Hardware& hw = p_.hardware();
  const Op& op = p_.op(c);
  const int x = op.inputs[static_cast<size_t>(pos)];
  const int t = op.inputs[static_cast<size_t>(1 - pos)];
  const std::vector<int>& owned = plan_.owned[static_cast<size_t>(c)][static_cast<size_t>(1 - pos)];
  const Streaming s = reloads_.StreamedBy(c, t, pos == 0 ? Slot::kRhs : Slot::kLhs, r, first);
  FootprintGrid grid;
  grid.grid_h = r.grid_h;
  grid.grid_w = r.grid_w;
  grid.native_h = hw.native_h;
  grid.native_w = hw.native_w;
  grid.per_row = s.per_row;
  grid.per_col = s.per_col;
  const double per_element =
      static_cast<double>(p_.tensor(t).size()) / static_cast<double>(hw.fast_memory_capacity - 1);
  auto share = [&](const std::vector<FootprintTerm>& terms) { return per_element * MinFootprintLoad(terms, grid); };
  const bool owns_x = std::find(owned.begin(), owned.end(), x) != owned.end();
  const Role dx = Demanded(op.type, pos == 0 ? Slot::kLhs : Slot::kRhs, r, g_.Root(c));
  std::vector<FootprintTerm> terms;
  if (owns_x) terms.push_back(SliceTerm(x, dx));
  double best = loaded + share(terms);
  if (resident == 0) {
    terms.clear();
    if (owns_x) terms.push_back({false, p_.tensor(x).size(), false, 1});
    best = std::min(best, share(terms));
  }
  if (inside >= 0) {
    // The producer p computes x's demanded region at that step and needs its own operands'
    // slices there: the graph inputs among them are loaded (produced ones may be computed
    // inside too and are not counted).
    const Op& p = p_.op(p_.producer(x));
    terms.clear();
    for (int v : owned) {
      if (v == x || p_.producer(v) >= 0) continue;
      const auto at = std::find(p.inputs.begin(), p.inputs.end(), v);
      if (at == p.inputs.end()) continue;
      // A MatMul reading v in both positions: either slice would do; none is claimed.
      if (p.type == OpType::kMatMul && p.inputs[0] == p.inputs[1]) continue;
      const Slot slot = p.type == OpType::kPointwise ? Slot::kPointwise
                        : at == p.inputs.begin()     ? Slot::kLhs
                                                     : Slot::kRhs;
      terms.push_back(SliceTerm(v, Demanded(p.type, slot, dx, g_.Root(p_.producer(x)))));
    }
    best = std::min(best, inside + share(terms));
  }
  return best;
}

}  // namespace tilesched::bound
