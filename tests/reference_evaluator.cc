// Naive step-by-step oracle for the cost model (see reference_evaluator.h).
#include "reference_evaluator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace tilesched::testing {
namespace {

struct Range {
  int64_t lo, hi;
  bool spatial;  // comes from the tile's w or h
};

using SliceKey = std::tuple<int, int64_t, int64_t, int64_t, int64_t>;
using ComputeKey = std::tuple<int, bool, int64_t, int64_t, int64_t, int64_t>;

class Ref {
 public:
  Ref(const Problem& p, ReferenceModes m) : p_(p), m_(m) {}

  ReferenceResult Run(const Schedule& schedule) {
    ReferenceResult result;
    std::vector<bool> covered(p_.num_ops(), false);
    for (const Subgraph& sg : schedule.subgraphs) {
      for (int o : sg.ops) {
        if (o < 0 || o >= p_.num_ops()) return Invalid("op id out of range");
        covered[o] = true;
      }
    }
    if (schedule.subgraphs.empty()) return Invalid("empty schedule");
    for (bool c : covered) {
      if (!c) return Invalid("op not covered");
    }
    std::set<int> slow;
    for (int t = 0; t < p_.num_tensors(); ++t) {
      if (p_.is_graph_input(t)) slow.insert(t);
    }
    std::set<int> resident;
    for (const Subgraph& sg : schedule.subgraphs) {
      member_.assign(p_.num_ops(), false);
      for (int o : sg.ops) {
        if (member_[o]) return Invalid("duplicate op");
        member_[o] = true;
      }
      if (!Connected(sg.ops)) return Invalid("not connected");
      std::set<int> consumed, produced;
      for (int o : sg.ops) {
        for (int t : p_.op(o).inputs) consumed.insert(t);
        produced.insert(p_.op(o).output);
      }
      sinks_.clear();
      for (int t : produced) {
        if (!consumed.count(t)) sinks_.push_back(t);
      }
      for (int t : sinks_) {
        if (!(p_.tensor(t) == p_.tensor(sinks_[0]))) return Invalid("sink shapes differ");
      }
      const Tensor shape = p_.tensor(sinks_[0]);
      // Split roots: MatMuls reached from the sinks through Pointwise ops only.
      roots_.clear();
      std::vector<int> stack(sinks_.begin(), sinks_.end());
      std::set<int> seen;
      while (!stack.empty()) {
        const int t = stack.back();
        stack.pop_back();
        const int o = p_.producer(t);
        if (o < 0 || !member_[o] || seen.count(o)) continue;
        seen.insert(o);
        if (p_.op(o).type == OpType::kMatMul) {
          roots_.push_back(o);
        } else {
          for (int in : p_.op(o).inputs) stack.push_back(in);
        }
      }
      const Hardware& hw = p_.hardware();
      const Granularity g = sg.granularity;
      if (g.w < 1 || g.w > hw.native_w || g.h < 1 || g.h > hw.native_h) return Invalid("tile bounds");
      int64_t n_k = 1;
      if (!roots_.empty()) {
        if (g.k < 1) return Invalid("k < 1");
        if (!m_.k_reduction && g.k > hw.native_w) return Invalid("k above native");
        for (int r : roots_) {
          const int64_t big_k = p_.tensor(p_.op(r).inputs[0]).width;
          if (g.k > big_k) return Invalid("k above K");
          n_k = std::max(n_k, (big_k + g.k - 1) / g.k);
        }
      }
      tile_w_ = g.w;
      tile_h_ = g.h;
      contest_violation_ = false;
      const int64_t rows = (shape.height + g.h - 1) / g.h, cols = (shape.width + g.w - 1) / g.w;
      std::vector<int64_t> order = sg.traversal;
      if (order.empty()) {
        for (int64_t i = 0; i < rows * cols; ++i) order.push_back(i);
      }
      if (static_cast<int64_t>(order.size()) != rows * cols) return Invalid("order length");
      {
        std::vector<int64_t> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        for (int64_t i = 0; i < rows * cols; ++i) {
          if (sorted[i] != i) return Invalid("order not a permutation");
        }
      }
      std::set<int> retained(sg.retained.begin(), sg.retained.end());
      for (int t : retained) {
        if (!produced.count(t)) return Invalid("retained not produced");
      }
      for (int t : consumed) {
        if (produced.count(t)) continue;
        if (!slow.count(t) && !resident.count(t)) return Invalid("input not available");
      }
      resident_ = &resident;
      int64_t fixed = 0;
      for (int t : resident) fixed += p_.tensor(t).size();
      for (int t : retained) fixed += p_.tensor(t).size();
      int64_t sinks_kept = 0, sinks_written = 0, roots_kept = 0, nonsink_roots_kept = 0;
      for (int t : sinks_) {
        if (!retained.count(t)) ++sinks_kept;
        if (!retained.count(t) || p_.is_graph_output(t)) ++sinks_written;
      }
      for (int r : roots_) {
        const int t = p_.op(r).output;
        if (retained.count(t)) continue;
        ++roots_kept;
        if (std::find(sinks_.begin(), sinks_.end(), t) == sinks_.end()) ++nonsink_roots_kept;
      }
      const int64_t buffers =
          m_.contest ? sinks_kept + nonsink_roots_kept : std::max(sinks_kept, roots_kept);

      double latency = 0;
      int64_t loaded = 0, peak = 0;
      std::map<int, double> op_elements, op_time;
      std::set<SliceKey> previous;
      for (int64_t tile : order) {
        const int64_t r = tile / cols, c = tile % cols;
        const Range tr{r * g.h, std::min(shape.height, (r + 1) * g.h), true};
        const Range tc{c * g.w, std::min(shape.width, (c + 1) * g.w), true};
        for (int64_t j = 0; j < n_k; ++j) {
          slices_.clear();
          computes_.clear();
          for (int root : roots_) {
            const Op& op = p_.op(root);
            const int64_t big_k = p_.tensor(op.inputs[0]).width;
            if (j * g.k >= big_k) continue;
            const Range slice_cols{j * g.k, std::min(big_k, (j + 1) * g.k), false};
            const double len = static_cast<double>(slice_cols.hi - slice_cols.lo);
            double cost = op.base_cost * Ceil(tr.hi - tr.lo, hw.native_h) *
                          Ceil(tc.hi - tc.lo, hw.native_w) *
                          (m_.native_k ? len / static_cast<double>(hw.native_w)
                                       : len / static_cast<double>(big_k));
            AddCompute({root, true, tr.lo, tr.hi, tc.lo, tc.hi}, cost,
                       static_cast<double>((tr.hi - tr.lo) * (tc.hi - tc.lo)) * len /
                           static_cast<double>(big_k));
            Demand(op.inputs[0], tr, slice_cols, false);
            Demand(op.inputs[1], slice_cols, tc, false);
          }
          if (j == n_k - 1) {
            for (int t : sinks_) Demand(t, tr, tc, true);
          }
          double compute = 0;
          for (const auto& [key, work] : computes_) {
            compute += work.first;
            op_time[std::get<0>(key)] += work.first;
            op_elements[std::get<0>(key)] += work.second;
          }
          int64_t load = 0, ws = fixed, store = 0;
          for (const SliceKey& s : slices_) {
            const int64_t size = (std::get<2>(s) - std::get<1>(s)) * (std::get<4>(s) - std::get<3>(s));
            ws += size;
            if (!previous.count(s)) load += size;
          }
          const int64_t area = (tr.hi - tr.lo) * (tc.hi - tc.lo);
          ws += buffers * area;
          loaded += load;
          peak = std::max(peak, ws);
          if (ws > hw.fast_memory_capacity) {
            return Invalid(m_.contest && contest_violation_ ? "contest pointwise rule"
                                                              : "working set");
          }
          if (j == n_k - 1) store = sinks_written * area;
          latency += std::max(compute, static_cast<double>(load + store) / hw.slow_memory_bandwidth);
          previous = slices_;
        }
      }
      // Contest rule 7b, checked after costing (the order of checks does not matter here).
      if (m_.contest && contest_violation_) return Invalid("contest pointwise rule");
      for (int t : sinks_) {
        if (!retained.count(t) || p_.is_graph_output(t)) slow.insert(t);
      }
      resident = retained;
      result.latencies.push_back(latency);
      result.loaded.push_back(loaded);
      result.peak_working_set.push_back(peak);
      result.op_elements.push_back(op_elements);
      result.op_time.push_back(op_time);
      result.total += latency;
    }
    result.valid = true;
    return result;
  }

 private:
  static double Ceil(int64_t d, int64_t native) {
    return static_cast<double>((d + native - 1) / native);
  }
  static double Area(Range rows, Range cols) {
    return static_cast<double>((rows.hi - rows.lo) * (cols.hi - cols.lo));
  }
  static ReferenceResult Invalid(const std::string& why) {
    ReferenceResult r;
    r.reason = why;
    return r;
  }

  bool Connected(const std::vector<int>& ops) {
    std::set<int> reached = {ops[0]};
    bool grew = true;
    while (grew) {
      grew = false;
      for (int a : ops) {
        if (reached.count(a)) continue;
        for (int b : reached) {
          if (ShareTensor(a, b)) {
            reached.insert(a);
            grew = true;
            break;
          }
        }
      }
    }
    return reached.size() == ops.size();
  }
  bool ShareTensor(int a, int b) const {
    std::set<int> ta(p_.op(a).inputs.begin(), p_.op(a).inputs.end());
    ta.insert(p_.op(a).output);
    for (int t : p_.op(b).inputs) {
      if (ta.count(t)) return true;
    }
    return ta.count(p_.op(b).output) > 0;
  }

  // `elements`: output elements the (op, region) pair computes.
  void AddCompute(ComputeKey key, double cost, double elements) {
    auto [it, inserted] = computes_.emplace(key, std::make_pair(cost, elements));
    if (!inserted) it->second.first = std::max(it->second.first, cost);
  }

  // Demand region (rows, cols) of tensor t; `tile_side` is true on the epilogue path.
  void Demand(int t, Range rows, Range cols, bool tile_side) {
    const int o = p_.producer(t);
    if (o < 0 || !member_[o]) {
      if (!resident_->count(t)) slices_.insert({t, rows.lo, rows.hi, cols.lo, cols.hi});
      return;
    }
    const Op& op = p_.op(o);
    const Hardware& hw = p_.hardware();
    auto factor = [](Range r, int64_t native) {
      const int64_t d = r.hi - r.lo;
      return r.spatial ? static_cast<double>((d + native - 1) / native)
                       : static_cast<double>(d) / static_cast<double>(native);
    };
    if (op.type == OpType::kMatMul && tile_side) return;  // split root: the accumulator
    double cost = op.base_cost * factor(rows, hw.native_h) * factor(cols, hw.native_w);
    if (op.type == OpType::kPointwise) {
      // Contest rule 7b: read along a reduction axis, the tile must cover that axis.
      if (!rows.spatial && tile_h_ < p_.tensor(t).height) contest_violation_ = true;
      if (!cols.spatial && tile_w_ < p_.tensor(t).width) contest_violation_ = true;
      AddCompute({o, false, rows.lo, rows.hi, cols.lo, cols.hi}, cost, Area(rows, cols));
      for (int in : op.inputs) Demand(in, rows, cols, tile_side);
      return;
    }
    const int64_t big_k = p_.tensor(op.inputs[0]).width;
    if (m_.native_k) cost *= static_cast<double>(big_k) / static_cast<double>(hw.native_w);
    AddCompute({o, false, rows.lo, rows.hi, cols.lo, cols.hi}, cost, Area(rows, cols));
    Demand(op.inputs[0], rows, {0, big_k, false}, false);
    Demand(op.inputs[1], {0, big_k, false}, cols, false);
  }

  const Problem& p_;
  ReferenceModes m_;
  std::vector<bool> member_;
  std::vector<int> sinks_, roots_;
  std::set<SliceKey> slices_;
  std::map<ComputeKey, std::pair<double, double>> computes_;  // (cost, elements)
  const std::set<int>* resident_ = nullptr;
  int64_t tile_w_ = 0, tile_h_ = 0;
  bool contest_violation_ = false;
};

}  // namespace

ReferenceResult ReferenceEvaluate(const Problem& problem, const Schedule& schedule,
                                  ReferenceModes modes) {
  return Ref(problem, modes).Run(schedule);
}

}  // namespace tilesched::testing
