// The squeeze bound (docs/bounds.md, Lemmas R1-R4): per op, one (compute, traffic) pair per
// case of its first subgraph (how its operands arrive, whether its output is stored or
// retained, which of its readers join it) at the tiles that case lets fit; per class of ops
// that can be first together, the best lambda of lambda x compute + (1 - lambda) x memory.
//
// Work: the classes take O(ops^2) pair checks (at most 1,000 ops); per op at most
// 3^4 operand cases x 27 reader sets (each of 3 readers apart, joining, or joining and
// retaining) x 2 output cases x min(native_h, grid_h) tile heights, each in closed form over
// the width; the 51 lambdas multiply only the Pareto points kept per case.
#include "squeeze_bound.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "bound_graph.h"
#include "tilesched/bitset.h"
#include "tilesched/graph.h"
#include "tilesched/grid.h"

namespace tilesched::bound {
namespace {

constexpr int kMaxOps = 1000;        // the classes are quadratic in ops
constexpr size_t kMaxOperands = 4;   // more: the op keeps its fallback value
constexpr size_t kMaxFusedReaders = 3;  // more: one relaxed case for "some reader joins"
constexpr size_t kMaxWitnesses = 32;  // longer witness lists meet every other
constexpr int kLambdaSteps = 50;     // lambda in {0, 1/50, ..., 1}
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Point {
  double compute;
  double memory;  // time units (elements / bandwidth)
};

// One case of Lemma R2 with its Pareto front over the tiles that fit.
struct Case {
  uint32_t readers = 0;       // bit i: fusable reader i is in the op's first subgraph
  uint32_t kept = 0;          // bit i: and retains its output
  bool every_reader = false;  // a relaxed case that stands for every nonempty reader set
  // (producer, slot): slot 2i + 1 when this op is the producer's fusable reader i and retains
  // its output, 2i when not.
  std::vector<std::pair<int, size_t>> inside;
  std::vector<Point> points;
  bool Has(size_t slot) const {
    const size_t i = slot / 2;
    return every_reader || (i < 32 && (readers >> i & 1u) != 0 && (kept >> i & 1u) == (slot & 1u));
  }
};

struct OpCases {
  std::vector<int> fusable;  // readers that can be in the op's first subgraph (Lemmas M5, M6)
  std::vector<Case> cases;
};

class SqueezeBound {
 public:
  SqueezeBound(const Problem& p, const CostModes& modes)
      : p_(p), modes_(modes), hw_(p.hardware()), reads_(ReadsOf(p)), tile_ops_(p, modes.rules, reads_) {}

  double Run() {
    const int n = p_.num_ops();
    if (n > kMaxOps) return 0;
    // Lemma M6: separated_[a] holds every d reachable from a over a path with a never-fusable
    // edge; d is then never in a's first subgraph.
    separated_ = SeparatedOps(p_, [this](int a, int c) { return !NeverFusable(a, c); });
    MakeClasses();
    ops_.assign(static_cast<size_t>(n), {});
    witness_.assign(static_cast<size_t>(p_.num_tensors()), std::nullopt);
    for (int o = 0; o < n; ++o) ops_[static_cast<size_t>(o)].fusable = FusableReaders(o);
    MarkAbsent();
    for (int o = 0; o < n; ++o) BuildCases(o);

    // Lemma R4: per class, the best lambda of the grid.
    std::vector<double> best(static_cast<size_t>(n), 0), sum(static_cast<size_t>(n));
    std::vector<double> chi(static_cast<size_t>(n));
    std::vector<std::vector<double>> with_reader(static_cast<size_t>(n));
    for (int step = 0; step <= kLambdaSteps; ++step) {
      const double lambda = static_cast<double>(step) / kLambdaSteps;
      std::fill(sum.begin(), sum.end(), 0.0);
      for (int o : p_.graph().topo_order()) {
        const OpCases& oc = ops_[static_cast<size_t>(o)];
        double least = kInf;
        std::vector<double>& per_reader = with_reader[static_cast<size_t>(o)];
        per_reader.assign(2 * oc.fusable.size(), kInf);
        for (const Case& c : oc.cases) {
          double v = kInf;
          for (const Point& pt : c.points) v = std::min(v, lambda * pt.compute + (1 - lambda) * pt.memory);
          for (const auto& [producer, index] : c.inside) {
            // Lemma R3: the producer's extra in a case this op joins, shared by its fusable readers.
            const double extra = with_reader[static_cast<size_t>(producer)][index] - chi[static_cast<size_t>(producer)];
            v += extra / static_cast<double>(ops_[static_cast<size_t>(producer)].fusable.size());
          }
          least = std::min(least, v);
          for (size_t i = 0; i < per_reader.size(); ++i) {
            if (c.Has(i)) per_reader[i] = std::min(per_reader[i], v);
          }
        }
        // No case fits only when no valid schedule exists; claim nothing then.
        chi[static_cast<size_t>(o)] = least < kInf ? least : 0;
        sum[static_cast<size_t>(class_[static_cast<size_t>(o)])] += chi[static_cast<size_t>(o)];
      }
      for (int k = 0; k < n; ++k) best[static_cast<size_t>(k)] = std::max(best[static_cast<size_t>(k)], sum[static_cast<size_t>(k)]);
    }
    return std::accumulate(best.begin(), best.end(), 0.0);
  }

 private:
  // Lemma M5: c reads p's output in a slot that no role of p allows, so p and c are never in
  // one subgraph (c would compute that operand inside).
  bool NeverFusable(int p, int c) const {
    if (p_.op(c).type != OpType::kMatMul) return false;
    const auto& ins = p_.op(c).inputs;
    for (size_t s = 0; s < ins.size(); ++s) {
      if (ins[s] == p_.op(p).output && !ReductionReadAllowed(p_, modes_.rules, p, static_cast<int>(s))) return true;
    }
    return false;
  }

  // Lemma R4: ops a, b with neither separated from the other (M6) may be first together; a
  // first subgraph's ops are pairwise such, so they lie in one connected component. Quadratic
  // in ops (at most 1,000: kMaxOps).
  void MakeClasses() {
    const int n = p_.num_ops();
    Components components(n);
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        if (separated_[static_cast<size_t>(a)].Test(b) || separated_[static_cast<size_t>(b)].Test(a)) continue;
        // The smaller root stays the class's representative.
        const int ra = components.Find(a), rb = components.Find(b);
        if (ra != rb) components.Join(std::max(ra, rb), std::min(ra, rb));
      }
    }
    class_.resize(static_cast<size_t>(n));
    for (int o = 0; o < n; ++o) class_[static_cast<size_t>(o)] = components.Find(o);
  }

  std::vector<int> FusableReaders(int o) const {
    std::vector<int> out;
    for (const Read& r : reads_[static_cast<size_t>(p_.op(o).output)]) {
      if (NeverFusable(o, r.op) || separated_[static_cast<size_t>(o)].Test(r.op)) continue;
      if (std::find(out.begin(), out.end(), r.op) == out.end()) out.push_back(r.op);
    }
    return out;
  }

  // Lemma R1: one over the number of distinct readers of t in o's class (a load of t in a
  // subgraph is claimed only by readers first there or recomputed for one, all in one class).
  double Share(int o, int t) const {
    std::vector<int> seen;
    for (const Read& r : reads_[static_cast<size_t>(t)]) {
      if (class_[static_cast<size_t>(r.op)] == class_[static_cast<size_t>(o)] && std::find(seen.begin(), seen.end(), r.op) == seen.end()) {
        seen.push_back(r.op);
      }
    }
    return 1.0 / static_cast<double>(seen.size());
  }

  // Lemma M3 with M4's exception ruled out: a loaded operand of a split root that runs two or
  // more k-slices per tile (k <= native k < K, rule 3.4) is loaded whole once per grid column
  // (LHS) or row (RHS), unless another op in the subgraph may demand it in tile ranges along
  // the k-slice axis: every other reader is a MatMul reading it only in the same slot (a
  // k-slice or the full reduction, never a tile range, there) or is never in the subgraph.
  // The subgraph is F(o), or, for a value Lemma R3 charges along a chain of fusable readers,
  // F(x) of an op x downstream of o over fusable-reader links with o recomputed there: a reader
  // in absent_[o] is in none of these (M6).
  bool Streamed(int o, int t, int slot) const {
    if (p_.op(o).type != OpType::kMatMul || modes_.k_limit != KLimit::kNative) return false;
    if (p_.reduction_extent(o) <= hw_.native_k()) return false;
    for (const Read& d : reads_[static_cast<size_t>(t)]) {
      if (d.op == o || (p_.op(d.op).type == OpType::kMatMul && d.slot == slot)) continue;
      if (!absent_[static_cast<size_t>(o)].Test(d.op)) return false;
    }
    return true;
  }

  // absent_[o]: ops separated (M6) from o and from every op downstream of o over
  // fusable-reader links, so in no first subgraph of any of them.
  void MarkAbsent() {
    absent_ = separated_;
    const auto& order = p_.graph().topo_order();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      for (int r : ops_[static_cast<size_t>(*it)].fusable) absent_[static_cast<size_t>(*it)].And(absent_[static_cast<size_t>(r)]);
    }
  }

  // The value of an op outside Lemma R2's cases: C1's compute, and the loads and stores that
  // every first subgraph makes whatever its tile (graph inputs once, a graph output written).
  Case Fallback(int o) const {
    const Op& op = p_.op(o);
    double elements = 0;
    std::vector<int> seen;
    for (int t : op.inputs) {
      if (p_.producer(t) >= 0 || std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
      seen.push_back(t);
      elements += Share(o, t) * static_cast<double>(p_.tensor(t).size());
    }
    if (reads_[static_cast<size_t>(op.output)].empty()) elements += static_cast<double>(p_.tensor(op.output).size());
    Case c;
    c.every_reader = true;
    c.points.push_back({OpComputeOnce(p_, o, modes_.matmul_reduction), elements / hw_.slow_memory_bandwidth});
    return c;
  }

  // Lemma R2: a tensor of the grid's shape that a reader joining o demands as a tile region
  // forces one tile slice into that reader's step unless it can arrive without one: resident
  // (a produced tensor that fits, rule 3.6) or computed inside by a MatMul (whose slices may
  // be a single row or column). Its witnesses are tensors one of whose tile slices it forces:
  // itself when loaded, or, computed inside by its Pointwise producer (which needs the same
  // region of each input at the same step, SPEC 4), one forcing input's witnesses. Empty:
  // nothing forced. `all`: too many to list, treated as meeting every other set.
  struct Witness {
    bool forced = false;
    bool all = false;
    std::vector<int> tensors;  // sorted
  };
  const Witness& TileWitness(int u) {
    auto& memo = witness_[static_cast<size_t>(u)];
    if (memo) return *memo;
    Witness w;
    const int producer = p_.producer(u);
    if (producer < 0) {
      w.forced = true;
      w.tensors = {u};
    } else if (p_.tensor(u).size() + 1 > hw_.fast_memory_capacity && p_.op(producer).type == OpType::kPointwise) {
      const Witness* least = nullptr;
      for (int v : p_.op(producer).inputs) {
        const Witness& x = TileWitness(v);
        if (x.forced && (least == nullptr || (!x.all && (least->all || x.tensors.size() < least->tensors.size())))) least = &x;
      }
      if (least != nullptr) {
        w.forced = true;
        w.all = least->all || least->tensors.size() >= kMaxWitnesses;
        if (!w.all) {
          w.tensors = least->tensors;
          w.tensors.insert(std::lower_bound(w.tensors.begin(), w.tensors.end(), u), u);
        }
      }
    }
    memo = std::move(w);
    return *memo;
  }

  // The number of distinct tile slices the tensors force: a family of pairwise disjoint
  // witness sets (greedy, smallest first) names that many distinct tensors.
  int64_t DisjointWitnesses(const std::vector<int>& tensors) {
    std::vector<const Witness*> ws;
    for (int t : tensors) {
      const Witness& w = TileWitness(t);
      if (w.forced) ws.push_back(&w);
    }
    std::sort(ws.begin(), ws.end(), [](const Witness* x, const Witness* y) {
      return !x->all && (y->all || x->tensors.size() < y->tensors.size());
    });
    std::vector<int> used;
    int64_t count = 0;
    for (const Witness* w : ws) {
      if (w->all) {
        if (count == 0) ++count;
        break;
      }
      bool meets = false;
      for (int t : w->tensors) meets = meets || std::find(used.begin(), used.end(), t) != used.end();
      if (meets) continue;
      used.insert(used.end(), w->tensors.begin(), w->tensors.end());
      ++count;
    }
    return count;
  }

  enum class Arrival { kLoaded, kResident, kInside };
  struct Operand {
    int t = 0;
    int slot = 0;
    double size = 0;
    std::vector<Arrival> options;
    int producer = -1;
    size_t index = 0;  // o's index among the producer's fusable readers (their count: none)
    double share = 0;
    bool streamed = false;
    Point recompute{0, 0};  // Lemma R3's charge for a producer recomputed in another class
  };

  // A reader set of Lemma R2 and what it puts in fast memory.
  struct Readers {
    uint32_t q;        // bit i: fusable reader i joins
    uint32_t kept;     // and retains its output
    bool relaxed;      // stands for every nonempty set (too many readers to list)
    int64_t forced;    // tile slices its readers' other operands force (ForcedSlices)
    int64_t kept_sizes;
  };

  // Lemma R3: producer p, separated from o (M6) and in another class, is only recomputed in
  // o's first subgraph S; its compute there (C1) and the loads of its graph-input operands
  // that no op of o's class reads are claimed by nobody else, shared among the readers that
  // can fuse p (M5) and among the readers of each such input.
  Point Recomputation(int p, int o) const {
    const Op& op = p_.op(p);
    std::vector<int> fusing;
    for (const Read& r : reads_[static_cast<size_t>(op.output)]) {
      if (!NeverFusable(p, r.op) && std::find(fusing.begin(), fusing.end(), r.op) == fusing.end()) fusing.push_back(r.op);
    }
    double elements = 0;
    std::vector<int> seen;
    for (int u : op.inputs) {
      if (p_.producer(u) >= 0 || std::find(seen.begin(), seen.end(), u) != seen.end()) continue;
      seen.push_back(u);
      std::vector<int> readers;
      bool in_class = false;
      for (const Read& r : reads_[static_cast<size_t>(u)]) {
        in_class = in_class || class_[static_cast<size_t>(r.op)] == class_[static_cast<size_t>(o)];
        if (std::find(readers.begin(), readers.end(), r.op) == readers.end()) readers.push_back(r.op);
      }
      if (!in_class) elements += static_cast<double>(p_.tensor(u).size()) / static_cast<double>(readers.size());
    }
    const double share = 1.0 / static_cast<double>(fusing.size());
    return {share * OpComputeOnce(p_, p, modes_.matmul_reduction), share * elements / hw_.slow_memory_bandwidth};
  }

  void BuildCases(int o) {
    OpCases& oc = ops_[static_cast<size_t>(o)];
    const Op& op = p_.op(o);
    std::vector<int> distinct = op.inputs;
    std::sort(distinct.begin(), distinct.end());
    const bool repeated = std::adjacent_find(distinct.begin(), distinct.end()) != distinct.end();
    if (!tile_ops_.TileBound(o) || repeated || op.inputs.size() > kMaxOperands) {
      oc.cases.push_back(Fallback(o));
      return;
    }
    const int64_t cap = hw_.fast_memory_capacity;
    std::vector<Operand> operands;
    for (size_t s = 0; s < op.inputs.size(); ++s) {
      Operand x;
      x.t = op.inputs[s];
      x.slot = static_cast<int>(s);
      x.size = static_cast<double>(p_.tensor(x.t).size());
      x.share = Share(o, x.t);
      x.streamed = Streamed(o, x.t, x.slot);
      x.options.push_back(Arrival::kLoaded);
      x.producer = p_.producer(x.t);
      if (x.producer >= 0) {
        // Rule 3.6: only a produced tensor is retained; it counts in full next to at least
        // one more element (rule 3.8).
        if (p_.tensor(x.t).size() + 1 <= cap) x.options.push_back(Arrival::kResident);
        // Inside: the producer in o's first subgraph (M5), first there too (o among its
        // fusable readers) or recomputed (any o it can be fused with, M6 notwithstanding).
        if (!NeverFusable(x.producer, o)) {
          x.options.push_back(Arrival::kInside);
          const auto& f = ops_[static_cast<size_t>(x.producer)].fusable;
          x.index = static_cast<size_t>(std::find(f.begin(), f.end(), o) - f.begin());
          if (x.index == f.size() && class_[static_cast<size_t>(x.producer)] != class_[static_cast<size_t>(o)]) {
            x.recompute = Recomputation(x.producer, o);
          }
        }
      }
      operands.push_back(x);
    }
    // Reader sets Q (Lemma R2): every subset, or the empty one and a relaxed nonempty one.
    // With each: which of them retain their outputs (held in full at every step, rule 3.6).
    std::vector<Readers> sets;
    if (oc.fusable.size() <= kMaxFusedReaders) {
      uint32_t keepable = 0;
      for (size_t i = 0; i < oc.fusable.size(); ++i) {
        const int r_out = p_.op(oc.fusable[i]).output;
        if (!reads_[static_cast<size_t>(r_out)].empty() && p_.tensor(r_out).size() + 1 <= cap) keepable |= 1u << i;
      }
      for (uint32_t q = 0; q < (1u << oc.fusable.size()); ++q) {
        const int64_t forced = ForcedSlices(o, q);
        for (uint32_t kept = 0; kept <= q; ++kept) {
          if ((kept & ~(q & keepable)) != 0) continue;
          int64_t kept_sizes = 0;
          for (size_t i = 0; i < oc.fusable.size(); ++i) {
            if ((kept >> i & 1u) != 0) kept_sizes += p_.tensor(p_.op(oc.fusable[i]).output).size();
          }
          sets.push_back({q, kept, false, forced, kept_sizes});
        }
      }
    } else {
      sets = {{0u, 0u, false, 0, 0}, {0u, 0u, true, 0, 0}};
    }
    std::vector<size_t> choice(operands.size(), 0);
    while (true) {
      for (const Readers& r : sets) AddCases(o, operands, choice, r);
      size_t i = 0;
      while (i < operands.size() && ++choice[i] == operands[i].options.size()) choice[i++] = 0;
      if (i == operands.size()) break;
    }
    if (oc.cases.empty()) oc.cases.push_back(Fallback(o));
  }

  // Lemma R2: the cases of one operand choice and reader set, one per way the output leaves.
  // Slices the operands of the joined readers in q force into their step (other than o's output).
  int64_t ForcedSlices(int o, uint32_t q) {
    const OpCases& oc = ops_[static_cast<size_t>(o)];
    std::vector<int> operands_of_readers;
    for (size_t i = 0; i < oc.fusable.size(); ++i) {
      if ((q >> i & 1u) == 0) continue;
      for (int t : p_.op(oc.fusable[i]).inputs) {
        if (t != p_.op(o).output && std::find(operands_of_readers.begin(), operands_of_readers.end(), t) == operands_of_readers.end()) {
          operands_of_readers.push_back(t);
        }
      }
    }
    return DisjointWitnesses(operands_of_readers);
  }

  void AddCases(int o, const std::vector<Operand>& operands, const std::vector<size_t>& choice, const Readers& set) {
    const Op& op = p_.op(o);
    const Tensor& out = p_.tensor(op.output);
    const uint32_t q = set.q, kept = set.kept;
    const bool relaxed = set.relaxed;
    const bool joined = q != 0 || relaxed;
    const bool matmul = op.type == OpType::kMatMul;
    const int64_t reader_inputs = set.forced;
    Case base;
    base.readers = q;
    base.kept = kept;
    base.every_reader = relaxed;
    int64_t resident = 0;
    for (size_t i = 0; i < operands.size(); ++i) {
      if (operands[i].options[choice[i]] == Arrival::kResident) resident += static_cast<int64_t>(operands[i].size);
    }
    const int64_t kept_sizes = set.kept_sizes;
    const bool graph_output = reads_[static_cast<size_t>(op.output)].empty();
    // Output: consumed inside (no store), stored, or retained (in full, rule 3.6; never a graph output's only fate).
    enum class Out { kConsumed, kStored, kRetained };
    std::vector<Out> fates;
    if (joined) {
      fates.push_back(graph_output ? Out::kStored : Out::kConsumed);
    } else {
      fates.push_back(Out::kStored);
      if (!graph_output && out.size() + 1 <= hw_.fast_memory_capacity) fates.push_back(Out::kRetained);
    }
    for (Out fate : fates) {
      Case c = base;
      for (size_t i = 0; i < operands.size(); ++i) {
        if (operands[i].options[choice[i]] != Arrival::kInside) continue;
        // Lemma R3 charges only a producer that can be first with o (o among its fusable readers).
        if (operands[i].index < ops_[static_cast<size_t>(operands[i].producer)].fusable.size()) {
          c.inside.push_back({operands[i].producer, 2 * operands[i].index + (fate == Out::kRetained ? 1 : 0)});
        }
      }
      // Tile buffers (SPEC 6): a split root whose output feeds a reader inside is not a sink,
      // so under contest rules it holds its own accumulator beside the sink's buffer (or the
      // sink in full, when retained); a split root holds a buffer or its output in full in
      // both modes. Retained outputs count in full instead of a buffer.
      int64_t buffers = fate == Out::kRetained ? 0 : 1;
      if (fate == Out::kConsumed) buffers = kept != 0 ? (matmul ? 1 : 0) : (matmul && modes_.rules == Rules::kContest ? 2 : 1);
      const int64_t held = resident + kept_sizes + (fate == Out::kRetained ? out.size() : 0);
      const double store = fate == Out::kStored ? static_cast<double>(out.size()) : 0;
      AddPoints(o, operands, choice, held, buffers, joined ? reader_inputs : -1, store, &c);
      if (!c.points.empty()) ops_[static_cast<size_t>(o)].cases.push_back(std::move(c));
    }
  }

  // The Pareto front over tile heights h (the widest width that fits at each) of one case.
  void AddPoints(int o, const std::vector<Operand>& operands, const std::vector<size_t>& choice, int64_t held,
                 int64_t buffers, int64_t reader_inputs, double store, Case* c) const {
    const Op& op = p_.op(o);
    const Tensor& out = p_.tensor(op.output);
    const int64_t cap = hw_.fast_memory_capacity;
    const int64_t max_w = std::min(hw_.native_w, out.width);
    const bool matmul = op.type == OpType::kMatMul;
    double reduction = 1;
    if (matmul && modes_.matmul_reduction == MatmulReduction::kNativeK) {
      reduction = static_cast<double>(p_.reduction_extent(o)) / static_cast<double>(hw_.native_k());
    }
    std::vector<Point> pts;
    for (int64_t h = 1; h <= std::min(hw_.native_h, out.height); ++h) {
      // Only the least height of each row count: a taller one fits no wider tile.
      if (h > 1 && CeilDiv(out.height, h - 1) == CeilDiv(out.height, h)) continue;
      // Step of o at the first tile (rows [0, h), cols [0, w)): held tensors, the loaded
      // slices (a k-slice is at least 1 wide), the buffers; working set a + b x w.
      int64_t a = held, b = buffers * h;
      for (size_t i = 0; i < operands.size(); ++i) {
        if (operands[i].options[choice[i]] != Arrival::kLoaded) continue;
        if (!matmul) {
          b += h;
        } else if (operands[i].slot == 0) {
          a += h;
        } else {
          b += 1;
        }
      }
      int64_t w = max_w;
      if (a + b > cap) continue;
      if (b > 0) w = std::min(w, (cap - a) / b);
      if (reader_inputs >= 0) {
        // Step of the joined readers: held tensors, their graph inputs' tile slices, buffers.
        const int64_t rb = (reader_inputs + buffers) * h;
        if (held + rb > cap) continue;
        if (rb > 0) w = std::min(w, (cap - held) / rb);
      }
      const int64_t rows = CeilDiv(out.height, h), cols = CeilDiv(out.width, w);
      double elements = store;
      for (size_t i = 0; i < operands.size(); ++i) {
        if (operands[i].options[choice[i]] != Arrival::kLoaded) continue;
        double times = 1;
        if (operands[i].streamed) times = static_cast<double>(operands[i].slot == 0 ? cols : rows);
        elements += operands[i].share * operands[i].size * times;
      }
      Point pt{op.base_cost * static_cast<double>(rows * cols) * reduction, elements / hw_.slow_memory_bandwidth};
      for (size_t i = 0; i < operands.size(); ++i) {
        if (operands[i].options[choice[i]] != Arrival::kInside) continue;
        pt.compute += operands[i].recompute.compute;
        pt.memory += operands[i].recompute.memory;
      }
      pts.push_back(pt);
    }
    std::sort(pts.begin(), pts.end(), [](const Point& x, const Point& y) {
      return x.compute < y.compute || (x.compute == y.compute && x.memory < y.memory);
    });
    for (const Point& pt : pts) {
      if (c->points.empty() || pt.memory < c->points.back().memory) c->points.push_back(pt);
    }
  }

  const Problem& p_;
  const CostModes& modes_;
  const Hardware& hw_;
  const ReadLists reads_;
  const TileBoundOps tile_ops_;
  std::vector<Bitset> separated_;
  std::vector<Bitset> absent_;
  std::vector<int> class_;
  std::vector<OpCases> ops_;
  std::vector<std::optional<Witness>> witness_;
};

}  // namespace

double SqueezeLowerBound(const Problem& problem, const CostModes& modes) {
  return SqueezeBound(problem, modes).Run();
}

}  // namespace tilesched::bound
