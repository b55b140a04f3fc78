// The traffic bound of docs/bounds.md (Lemmas M1-M8, M10) and its variants (K1-K3 and J1, S1-S3,
// H1-H2, L1): every op is charged the traffic of its first subgraph (the first subgraph of the
// schedule that contains it), minimized over everything that subgraph could be: the op's role
// there (role_graph.h) and, per operand, how the operand arrives (loaded from slow memory,
// resident, or computed inside by its producer). Shares (alpha, beta) keep one transfer from
// being charged twice. Lemma M8 adds, per op whose output has one reader, what a resident
// operand and the retained output cannot both save; Lemma J1 prices what a Pointwise join's
// producers hold together, in the passes without M8's gains.
//
// Entry points: TrafficBound(problem, modes, ...).Run() (one pass: the sum of the charges, in
// elements); TrafficLowerBound(problem, modes) (the part `traffic`, in elements) and
// HeldLowerBound(problem, modes) (the part `held`); TiledCompute(...) (Lemma C2) and
// ForcedStores(...) (Lemma M1), read off a pass by the mixed and coupled parts. Work: linear in
// ops times roles, plus the role graph's reachability.
#ifndef TILESCHED_BOUND_TRAFFIC_BOUND_H_
#define TILESCHED_BOUND_TRAFFIC_BOUND_H_

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "capacity_charge.h"
#include "held_tensors.h"
#include "reloads.h"
#include "role_graph.h"
#include "shared_inputs.h"
#include "tilesched/cost_model.h"
#include "tilesched/problem.h"

namespace tilesched::bound {

// Which charges a traffic pass uses: Lemma M7's (plain), with Lemmas K1-K3 (capacity), with
// Lemma S1 and its companions S2-S3 (shared), or with K1 and Lemmas H1-H2, M4' (held).
enum class Variant { kPlain, kCapacity, kShared, kHeld };

// Lemmas whose use in the charges can be left out (tests compare the charges with and without).
struct ChargeLemmas {
  bool resident_pairs = true;  // Lemma M10: a MatMul's two operands are not both resident
  bool joins = true;           // Lemma J1: the split roots a Pointwise join computes inside
  bool pair_gains = true;      // Lemma M8's gains (where used: with stores, no coupling, not held)
};

class TrafficBound {
 public:
  // `with_stores`: charge the stores of loaded intermediates and the graph outputs (Lemma M1).
  // Without them every charge of op c is a load of c's first subgraph (Lemma G1).
  // `own_kinds` (optional, per op a bit per RoleKey): the kind pairs op o's own charge may
  // take (Lemma G3); the others still price o computed inside its readers.
  // `variant`: kCapacity adds Lemmas K1-K3 (charges minimized over the tiles that fit; the load
  // of a graph input read by several ops is charged to the split roots that read it); kShared
  // adds Lemmas S1-S3 (loads of shared graph inputs split by footprints, Lemma M4 sharpened,
  // roles whose graph-input slice cannot fit dropped); kHeld adds Lemmas H1-H2 and M4' to K1
  // (the producer computed inside is priced with the consumer's resident operands held; graph
  // inputs shared by M7's alpha, not Lemma K2; no Lemma K3).
  // `coupling` (Lemma L1, the coupled part, with kCapacity): every charge also counts the op's
  // own compute in its role, times this many elements per unit of compute (0: traffic only).
  // `lemmas`: Lemmas M10, J1 and M8's gains (all by default; J1 only in passes without M8's
  // gains).
  TrafficBound(const Problem& problem, const CostModes& modes, bool with_stores = true,
               std::vector<uint16_t> own_kinds = {}, Variant variant = Variant::kPlain, double coupling = 0,
               ChargeLemmas lemmas = {});

  // The sum of every op's charge, plus the graph outputs' stores with `with_stores` (elements),
  // plus Lemma M8's gains with `with_stores`, no coupling and a variant other than kHeld.
  double Run();
  // After Run(): the part of Run()'s total that Lemma M8 added (elements).
  double PairGain() const { return pair_gain_; }

  // After Run(): op o's charge (Lemma M7), its roles (Lemma M2), and the pair relations of
  // Lemmas M5, M6 and G6.
  double Charge(int o) const { return chi_[static_cast<size_t>(o)]; }
  const std::vector<Role>& Roles(int o) const { return roles_.Roles(o).roles; }
  bool HaveReach() const { return roles_.HaveReach(); }
  bool Separated(int a, int b) const { return roles_.Separated(a, b); }
  bool Excluded(int a, int b) const { return roles_.Excluded(a, b); }
  bool SinksMayMeet(int a, int b) const { return roles_.SinksMayMeet(a, b); }
  bool MayWriteShapeOf(int a, int t) const { return roles_.MayWriteShapeOf(a, t); }
  bool EdgeFusable(int c, int e) const { return roles_.Fusable(c, e); }
  std::vector<Role> DemandedOf(int p, int e) const { return roles_.DemandedOf(p, e); }

 private:
  // How one operand of the op being charged can arrive, and at what charge (Lemmas M1-M7).
  struct Arrival;
  // Lemma J1: what a producer computed inside a join shares its subgraph with (the tile
  // buffers the subgraph holds at least, the other split roots' graph-input slices).
  struct Join {
    int64_t buffers = 1;
    std::vector<StepSlice> slices;
  };
  double CostAt(int p, int at, const Held& held, bool first, const Join* join = nullptr);
  double Inside(int c, const Role& r, const std::vector<Slot>& slots, int producer, const Held& held,
                const Join* join = nullptr);
  double OpCost(int c, const Role& r, bool first, const Held& held, const Join* join = nullptr);
  std::vector<std::vector<double>> JoinInside(int c, const Role& r, const std::vector<int>& operands,
                                              const Held& held);
  Arrival ArriveBy(int c, const Role& r, int t, bool first, const Held& held, bool may_reside = true,
                   bool may_inside = true);
  CapOperand CapacityView(int c, const Role& r, int t, const Arrival& a, const std::vector<int>& operands,
                          bool first, const Held& held);
  void MarkApart(const std::vector<int>& operands, std::vector<CapOperand>* cap) const;
  double CapacityTotal(int c, const Role& r, const std::vector<CapOperand>& cap, int64_t held_size,
                       double compute, double total, const Join* join) const;
  int SameShapeMatMulReaders(int c, int t) const;
  // Lemma M8: the gains of the chosen (op, reader) pairs; each op is in at most one pair.
  double PairGains();
  // Lemma M8 counts in whole transfers, which the mixed part's per-subgraph split (no stores)
  // and the coupled part's compute (coupling) do not. Not in the held variant: its readers
  // price a producer computed inside with tensors held (H1-H2), and case (b)'s cap compares
  // charges with nothing held (docs/bounds.md, Lemma M8, "Where it applies").
  bool PairGainsUsed() const { return lemmas_.pair_gains && with_stores_ && coupling_ == 0 && !held_aware_; }
  // Lemma J1 needs K1's charges, and not in a pass with M8's gains: case (b)'s cap compares
  // charges a join's reader exceeds (its share of a producer priced with the join's buffers).
  bool JoinsUsed() const { return lemmas_.joins && capacity_aware_ && !PairGainsUsed(); }
  double PairGain(int c, int d, const std::vector<int>& apart);
  double FirstCharge(int o, const std::vector<int>& no_reside, std::vector<double>* per_role);
  double PrivateLoads(int q, int at, int64_t retained, std::map<std::pair<int, int>, double>* memo);

  const Problem& p_;
  const CostModes& modes_;
  const Hardware& hw_;
  const bool with_stores_;
  const std::vector<uint16_t> own_kinds_;
  const bool capacity_aware_;
  const bool held_aware_;
  const double coupling_;
  const ChargeLemmas lemmas_;
  const RoleGraph roles_;
  const Reloads reloads_;
  std::optional<SharedInputCharges> shared_;  // variant kShared
  std::optional<ConeBigs> cones_;             // variant kHeld
  std::vector<std::vector<double>> cost_first_, cost_weak_;
  std::vector<double> chi_;
  // Lemma M8: while no_reside_op_ is charged for its first subgraph, the tensors of
  // no_reside_ may not arrive resident.
  int no_reside_op_ = -1;
  std::vector<int> no_reside_;
  double pair_gain_ = 0;
  // Lemma H1: charges with tensors held, by (op, role, first, held).
  std::map<std::tuple<int, int, bool, Held>, double> memo_;
  // Lemma J1: charges inside a join, by (op, role, first, held, buffers, slices).
  std::map<std::tuple<int, int, bool, Held, int64_t, std::vector<StepSlice>>, double> join_memo_;
};

// Lemma C2: op o's compute in any subgraph (its cheapest role), after tb.Run().
double TiledCompute(const Problem& p, const TrafficBound& tb, int o, MatmulReduction mode);

// Stores every schedule makes somewhere (Lemma M1): an intermediate (not a graph output) too
// large to be resident with a reader that cannot compute it inside (Lemma M5) is loaded, so
// it was written. `tb` has run.
std::vector<int> ForcedStores(const Problem& problem, const TrafficBound& tb);

// Elements every schedule moves between slow and fast memory at least (Lemmas M1-M8); the part
// `traffic` is this / bandwidth.
double TrafficLowerBound(const Problem& problem, const CostModes& modes);

// Lemmas H1-H2, M4' (the part `held`): the traffic bound with Lemma K1's charges over the tiles
// that fit, graph inputs shared by M7's alpha (not Lemma K2), and every producer computed inside
// priced with its reader's resident operands held; / bandwidth.
double HeldLowerBound(const Problem& problem, const CostModes& modes);

}  // namespace tilesched::bound

#endif  // TILESCHED_BOUND_TRAFFIC_BOUND_H_
