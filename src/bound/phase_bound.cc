// The phase bound (docs/bounds.md, Lemmas P1-P6): per step, max(compute, memory) is at least
// the compute on a tile's last step and at least the memory on the other steps; tile-side
// Pointwise ops compute only on the last step, and a split root's re-streamed operands load
// their k-slices on the steps before. Each op gets a value that holds in its first subgraph
// whatever that subgraph is; the bound is their sum.
#include "phase_bound.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bound_graph.h"
#include "tilesched/graph.h"
#include "tilesched/grid.h"

namespace tilesched::bound {
namespace {

class PhaseBound {
 public:
  PhaseBound(const Problem& p, const CostModes& modes)
      : p_(p), modes_(modes), hw_(p.hardware()), reads_(ReadsOf(p)), tile_ops_(p, modes.rules, reads_) {}

  double Run() {
    double last = 0, memory = 0;
    for (int o = 0; o < p_.num_ops(); ++o) {
      const Values v = Value(o);
      last += v.last;
      memory += v.memory;
    }
    // Lemma P6: every graph output is written at least once (M1).
    for (int t : p_.graph().graph_outputs()) memory += static_cast<double>(p_.tensor(t).size()) / hw_.slow_memory_bandwidth;
    return std::max(last, memory);
  }

 private:
  // Lemma P3: the fewest k-steps per tile op o runs as a split root whose operand is loaded
  // (0: no two steps are forced). k_limit=native: k <= native k (rule 3.4). k_limit=reduction:
  // one step would hold a K-long slice of the loaded operand next to a tile buffer (rule 3.8).
  int64_t ForcedSteps(int o) const {
    const int64_t k = p_.reduction_extent(o);
    if (modes_.k_limit == KLimit::kNative) return k > hw_.native_k() ? CeilDiv(k, hw_.native_k()) : 0;
    return k + 1 > hw_.fast_memory_capacity ? 2 : 0;
  }

  // Lemma P3: how operand t in input position `slot` of root-only MatMul o arrives in every
  // subgraph holding o: kNo when it may be resident or computed inside (or o reads it twice, or
  // another MatMul reads it); kAlone when o is its only reader; kWithTiles when its other
  // readers are tile-only Pointwise ops (Lemma P4, k_limit=native only).
  enum class Stream { kNo, kAlone, kWithTiles };
  Stream Streamed(int o, int t, int slot) const {
    const auto& readers = reads_[static_cast<size_t>(t)];
    int own = 0;
    bool others_tile_only = true;
    for (const Read& r : readers) {
      if (r.op == o) {
        ++own;
      } else {
        others_tile_only = others_tile_only && p_.op(r.op).type == OpType::kPointwise && tile_ops_.TileOnly(r.op);
      }
    }
    if (own != 1 || !others_tile_only) return Stream::kNo;
    const int producer = p_.producer(t);
    if (producer >= 0) {
      if (p_.tensor(t).size() < hw_.fast_memory_capacity) return Stream::kNo;  // may be resident
      // The producer inside o's subgraph would be demanded in (tile, slice) or (slice, tile).
      if (ReductionReadAllowed(p_, modes_.rules, producer, slot)) return Stream::kNo;
    }  // else a graph input: never resident (rule 3.6), never produced
    if (readers.size() == 1) return Stream::kAlone;
    return modes_.k_limit == KLimit::kNative ? Stream::kWithTiles : Stream::kNo;
  }

  // The op's values in time units under the two step rules of Lemma P1: `last` (compute on
  // last steps, loads on the others; Lemmas P2-P4) and `memory` (loads and stores on every
  // step; Lemma P6).
  struct Values {
    double last = 0;
    double memory = 0;
  };
  Values Value(int o) const {
    const Op& op = p_.op(o);
    const Tensor& out = p_.tensor(op.output);
    const double tiles = static_cast<double>(CeilDiv(out.height, hw_.native_h) * CeilDiv(out.width, hw_.native_w));
    Values v;
    if (op.type == OpType::kPointwise) {
      // Lemma P2: computes whole native tiles, on last steps only.
      if (tile_ops_.TileOnly(o)) v.last = op.base_cost * tiles;
      return v;
    }
    // Lemma P3: a split root in every subgraph (its output region is the tile).
    if (!tile_ops_.TileBound(o)) return v;
    const int64_t steps = ForcedSteps(o);
    if (steps < 2) return v;
    const double s = static_cast<double>(steps);
    const double k = static_cast<double>(p_.reduction_extent(o));
    double last = 0, memory = 0;
    for (int slot = 0; slot < 2; ++slot) {
      const int t = op.inputs[static_cast<size_t>(slot)];
      const Stream how = Streamed(o, t, slot);
      if (how == Stream::kNo) continue;
      // (tile, slice) once per grid column; (slice, tile) once per grid row (Lemma M3).
      const int64_t grid = slot == 0 ? CeilDiv(out.width, hw_.native_w) : CeilDiv(out.height, hw_.native_h);
      const double elements = static_cast<double>(p_.tensor(t).size()) * static_cast<double>(grid);
      if (how == Stream::kAlone) {
        last += (s - 1) / s * elements;  // slices 0 .. n_o - 2 (P3)
        memory += elements;              // every slice (M3)
      } else {
        last += std::max(0.0, (s - 2) / s) * elements;                          // slices 1 .. n_o - 2 (P4)
        memory += std::max(0.0, 1 - static_cast<double>(hw_.native_k()) / k) * elements;  // slices 1 .. n_o - 1
      }
      // A loaded intermediate was written by an earlier subgraph (Lemma M1; P6).
      if (p_.producer(t) >= 0) memory += static_cast<double>(p_.tensor(t).size());
    }
    v.last = last / hw_.slow_memory_bandwidth;
    v.memory = memory / hw_.slow_memory_bandwidth;
    return v;
  }

  const Problem& p_;
  const CostModes& modes_;
  const Hardware& hw_;
  const ReadLists reads_;
  const TileBoundOps tile_ops_;
};

}  // namespace

double PhaseLowerBound(const Problem& problem, const CostModes& modes) {
  return PhaseBound(problem, modes).Run();
}

}  // namespace tilesched::bound
