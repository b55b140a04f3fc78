// Tier 2 on cores, one lambda at a time (search/core_lp.h; docs/bounds.md, "Cores", Lemma V6).
//
// The LP at a fixed lambda. Columns: whole contexts j (an op set connected over the kept links,
// retained r, resident R) at a lower bound l_j on their latency (ContextPricer, Lemmas X1-X10);
// piece contexts pi (such an op set with glue imports I, glue exports E, r, R) at a lower bound on
// g_pi(lambda) (PiecePrice, Lemma V3); u_t per external-shared tensor t at (1 - lambda)|t|/bw.
// Rows: cover per op (>= 1); flow per tensor (columns retaining t minus columns starting with t
// resident, a piece's count taken at 1/n_t, n_t the readers of an external-shared t; >= 0); glue
// per glue tensor (exporting minus importing pieces, = 0); share per external-shared tensor (u_t
// minus the pieces reading t not resident, each at 1/n_t; >= 0). The coefficients 1/n_t are
// rounded down, so every schedule's point satisfies the rows as written.
#include "core_lp.h"

#include <coin/ClpSimplex.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>

#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include "piece_price.h"
#include "plan_cache.h"
#include "tier2.h"
#include "tilesched/graph.h"

namespace tilesched::search {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kMaxOpSets = 1000000;
constexpr int64_t kMaxColumns = 4000000;
// The LP cost of a column no configuration fits: far above any schedule (as tier 2's).
constexpr double kBigCostFactor = 1e6;

struct Column {
  int op_set;
  bool piece;
  Mask imports, exports, retained, resident;
  double cost;  // a lower bound on the column's context (cheap until `exact`)
  bool exact;
};

class CoreLp {
 public:
  CoreLp(const Problem& problem, const CostModes& modes, const CoreSplit& split, const Budget& budget,
         int64_t max_tile_configs)
      : problem_(problem), modes_(modes), split_(split), budget_(budget), plans_(problem),
        pricer_(problem, modes, plans_, budget, max_tile_configs), max_tile_configs_(max_tile_configs),
        bandwidth_(problem.hardware().slow_memory_bandwidth) {}

  CoreLpResult Run(std::span<const double> lambdas);

 private:
  bool List();
  double WholeCheap(const Column& col) const;
  double PieceCheap(const Column& col, double lambda) const;
  PieceContext Context(const Column& col) const;
  // The LP at `lambda`, refined until no cheap column is attractive; its best certificate.
  double RunLambda(double lambda, Tier2Status* status);
  // Lemma T2 with the rows of V6: the duals repaired, scaled by alpha; alpha x sum y (less the
  // rounding margin). Also every column's bracket under the duals as given into `bracket`.
  double Certificate(const double* dual, double lambda, std::vector<double>* bracket) const;

  const Problem& problem_;
  const CostModes modes_;
  const CoreSplit& split_;
  const Budget& budget_;
  PlanCache plans_;
  ContextPricer pricer_;
  const int64_t max_tile_configs_;
  const double bandwidth_;
  Mask glue_ = 0, shared_ = 0;  // cut tensors by kind
  std::vector<double> share_coef_;  // per tensor: 1/n_t rounded down (external-shared), else 1
  std::vector<Column> columns_;
  CoreLpResult result_;
};

CoreLpResult CoreLp::Run(std::span<const double> lambdas) {
  result_.cores = split_.count;
  if (!ContextPricer::Fits(problem_)) {
    result_.status = Tier2Status::kTooManyOps;
    return result_;
  }
  const std::vector<Mask> adjacency = KeptAdjacency(problem_, split_);
  if (!pricer_.EnumerateOpSets(kMaxOpSets, &adjacency)) {
    result_.status = budget_.Expired() ? Tier2Status::kTimeLimit : Tier2Status::kTooManyOpSets;
    return result_;
  }
  result_.op_sets = static_cast<int64_t>(pricer_.op_sets().size());
  if (!List()) {
    result_.status = budget_.Expired() ? Tier2Status::kTimeLimit : Tier2Status::kTooManyContexts;
    return result_;
  }
  result_.status = Tier2Status::kConverged;
  for (double lambda : lambdas) {
    Tier2Status status = Tier2Status::kConverged;
    const double value = lambda >= 0 && lambda <= 1 && !budget_.Expired() ? RunLambda(lambda, &status) : 0;
    if (budget_.Expired() && status == Tier2Status::kConverged && value == 0) status = Tier2Status::kTimeLimit;
    result_.by_lambda.push_back(value);
    if (value > result_.value) {
      result_.value = value;
      result_.lambda = lambda;
    }
    if (result_.status == Tier2Status::kConverged) result_.status = status;
  }
  return result_;
}

bool CoreLp::List() {
  const int n_tensors = problem_.num_tensors();
  share_coef_.assign(static_cast<size_t>(n_tensors), 1.0);
  std::vector<int> readers(static_cast<size_t>(n_tensors), 0);
  for (int o = 0; o < problem_.num_ops(); ++o) {
    std::vector<int> ins = problem_.op(o).inputs;
    std::sort(ins.begin(), ins.end());
    ins.erase(std::unique(ins.begin(), ins.end()), ins.end());
    for (int t : ins) ++readers[static_cast<size_t>(t)];
  }
  Mask produced_by_ops = 0;
  for (int o = 0; o < problem_.num_ops(); ++o) produced_by_ops |= Mask{1} << problem_.op(o).output;
  for (int t = 0; t < n_tensors; ++t) {
    const CutKind kind = split_.cut[static_cast<size_t>(t)];
    if (kind == CutKind::kGlue && problem_.producer(t) >= 0) glue_ |= Mask{1} << t;
    if (kind == CutKind::kExternalShared) {
      shared_ |= Mask{1} << t;
      const int n = std::max(1, readers[static_cast<size_t>(t)]);
      // Rounded down: k <= n pieces of one subgraph then add up to at most 1.
      share_coef_[static_cast<size_t>(t)] = n == 1 ? 1.0 : std::nextafter(1.0 / n, 0.0);
    }
  }
  const int64_t capacity = problem_.hardware().fast_memory_capacity;
  const std::vector<OpSet>& op_sets = pricer_.op_sets();
  for (int i = 0; i < static_cast<int>(op_sets.size()); ++i) {
    const OpSet& c = op_sets[static_cast<size_t>(i)];
    // Glue it may import (read, produced outside) or export (a sink someone reads).
    Mask exportable = 0;
    for (int t : Ids(c.sinks & glue_)) {
      if (!problem_.graph().successors(problem_.producer(t)).empty()) exportable |= Mask{1} << t;
    }
    const std::vector<int> importable = Ids(c.external & glue_);
    const std::vector<int> exports = Ids(exportable);
    if (importable.size() + exports.size() > 20) return false;  // over a million interfaces: too many
    const bool reads_shared = (c.external & shared_) != 0;
    const size_t interfaces = size_t{1} << (importable.size() + exports.size());
    for (size_t bits = 0; bits < interfaces; ++bits) {
      Mask imports = 0, exported = 0;
      for (size_t k = 0; k < importable.size(); ++k) {
        if ((bits >> k) & 1) imports |= Mask{1} << importable[k];
      }
      for (size_t k = 0; k < exports.size(); ++k) {
        if ((bits >> (importable.size() + k)) & 1) exported |= Mask{1} << exports[k];
      }
      // bits == 0: the whole column; a piece needs a cut tensor that ties it to another piece.
      const bool piece = bits != 0 || reads_shared;
      const std::vector<int> readable = Ids(c.external & produced_by_ops & ~imports);
      for (const Mask r : c.retention) {
        int64_t held = 0;
        for (int t : Ids(r)) held += problem_.tensor(t).size();
        const bool listed = ForEachFittingSubset(problem_, readable, held, capacity, [&](Mask resident) {
          if (bits == 0) columns_.push_back({i, false, 0, 0, r, resident, 0, false});
          if (piece) columns_.push_back({i, true, imports, exported, r, resident, 0, false});
          return static_cast<int64_t>(columns_.size()) <= kMaxColumns &&
                 ((columns_.size() & 4095) != 0 || !budget_.Expired());
        });
        if (!listed) return false;
      }
    }
  }
  for (Column& col : columns_) {
    if (col.piece) {
      ++result_.piece_columns;
    } else {
      ++result_.whole_columns;
      col.cost = WholeCheap(col);
      col.exact = !std::isfinite(col.cost);  // no tile fits beside what is held (X8 b)
    }
  }
  return true;
}

double CoreLp::WholeCheap(const Column& col) const {
  const OpSet& c = pricer_.op_set(col.op_set);
  return std::max({c.compute_once, pricer_.LoadStoreBound(c, col.retained, col.resident),
                   pricer_.FitComputeBound(c, col.retained, col.resident)});
}

// lambda x C1 + (1 - lambda) x X3 with V3's flags: at most PiecePrice at every granularity.
double CoreLp::PieceCheap(const Column& col, double lambda) const {
  const OpSet& c = pricer_.op_set(col.op_set);
  int64_t elements = 0;
  for (int t : Ids(c.external & ~(col.resident | col.imports | shared_))) elements += problem_.tensor(t).size();
  for (int t : Ids((c.sinks & ~(col.retained | col.exports)) | c.output_sinks)) elements += problem_.tensor(t).size();
  return lambda * c.compute_once + (1 - lambda) * static_cast<double>(elements) / bandwidth_;
}

PieceContext CoreLp::Context(const Column& col) const {
  PieceContext p;
  p.ops = Ids(pricer_.op_set(col.op_set).ops);
  p.imports = Ids(col.imports);
  p.exports = Ids(col.exports);
  p.retained = Ids(col.retained);
  p.resident = Ids(col.resident);
  return p;
}

double CoreLp::Certificate(const double* dual, double lambda, std::vector<double>* bracket) const {
  const int n_ops = problem_.num_ops(), n_t = problem_.num_tensors();
  std::vector<double> y(static_cast<size_t>(n_ops)), z(static_cast<size_t>(n_t)), zeta(static_cast<size_t>(n_t)),
      sigma(static_cast<size_t>(n_t));
  for (int o = 0; o < n_ops; ++o) y[static_cast<size_t>(o)] = std::max(0.0, dual[o]);
  for (int t = 0; t < n_t; ++t) {
    const size_t i = static_cast<size_t>(t);
    z[i] = std::max(0.0, dual[n_ops + t]);
    zeta[i] = ((glue_ >> t) & 1) ? dual[n_ops + n_t + t] : 0.0;
  }
  // Every column's bracket (in long double, rounded up to a double with T2's margin for the
  // sum's rounding) and the sum of its terms' magnitudes.
  auto bracket_of = [&](const Column& col, double* magnitude_out) {
    long double v = 0, magnitude = 0;
    auto add = [&](long double term) {
      v += term;
      magnitude += term < 0 ? -term : term;
    };
    for (Mask m = pricer_.op_set(col.op_set).ops; m; m &= m - 1) add(y[static_cast<size_t>(CountrZero(m))]);
    for (Mask m = col.retained; m; m &= m - 1) add(z[static_cast<size_t>(CountrZero(m))]);
    for (Mask m = col.resident; m; m &= m - 1) {
      const size_t t = static_cast<size_t>(CountrZero(m));
      add(-static_cast<long double>(z[t]) * (col.piece ? share_coef_[t] : 1.0));
    }
    if (col.piece) {
      for (Mask m = col.exports; m; m &= m - 1) add(zeta[static_cast<size_t>(CountrZero(m))]);
      for (Mask m = col.imports; m; m &= m - 1) {
        add(-static_cast<long double>(zeta[static_cast<size_t>(CountrZero(m))]));
      }
      for (Mask m = pricer_.op_set(col.op_set).external & shared_ & ~col.resident; m; m &= m - 1) {
        const size_t t = static_cast<size_t>(CountrZero(m));
        add(-static_cast<long double>(sigma[t]) * share_coef_[t]);
      }
    }
    const long double raised = v + 1e-15L * magnitude;
    double b = static_cast<double>(raised);
    if (static_cast<long double>(b) < raised) b = std::nextafter(b, kInf);
    *magnitude_out = static_cast<double>(magnitude);
    return b;
  };
  // The column of u_t: sigma_t <= (1 - lambda)|t|/bw (a relative 1e-12 below its rounding).
  std::vector<double> cap(static_cast<size_t>(n_t), 0.0);
  for (int t : Ids(shared_)) {
    const size_t i = static_cast<size_t>(t);
    cap[i] = (1 - lambda) * static_cast<double>(problem_.tensor(t).size()) / bandwidth_ * (1 - 1e-12);
    sigma[i] = std::clamp(dual[n_ops + 2 * n_t + t], 0.0, cap[i]);
  }
  // The brackets under the LP's own duals (for the caller: which columns are attractive).
  bracket->assign(columns_.size(), 0.0);
  std::vector<double> magnitudes(columns_.size());
  for (size_t ci = 0; ci < columns_.size(); ++ci) (*bracket)[ci] = bracket_of(columns_[ci], &magnitudes[ci]);
  // Repair, first additively, for a column above its cost by the LP's tolerances (or by the
  // margin at a cost of 0): lower the y of its ops, then raise the sigma of the shared tensors
  // it reads (up to their caps) by the excess (plus a relative 1e-9 of it and 1e-12 of the
  // column's magnitude). Both only lower other brackets (cover coefficients are +1, share
  // coefficients -c_t), y stays >= 0 and sigma within its cap. What is left lowers the glue dual
  // of one of its exports, which raises only the importing pieces' brackets, repaired in the
  // next pass; up to four passes, then T2's scaling for whatever is left. Done two ways and the
  // larger certificate kept (each is valid, and each wins somewhere): glue duals only lowered,
  // so passes cannot undo each other; or also raised at an import of a column with no export
  // (which can undo a lowering, and then end at alpha = 0 for a column of cost 0).
  const std::vector<double> y0 = y, zeta0 = zeta, sigma0 = sigma;
  auto repaired = [&](bool both_ways) {
    y = y0;
    zeta = zeta0;
    sigma = sigma0;
    for (int pass = 0; pass < 4; ++pass) {
      bool moved_glue = false;
      for (size_t ci = 0; ci < columns_.size(); ++ci) {
        const Column& col = columns_[ci];
        double magnitude = 0;
        const double b = pass == 0 ? (*bracket)[ci] : bracket_of(col, &magnitude);
        if (pass == 0) magnitude = magnitudes[ci];
        if (!(b > col.cost)) continue;
        double excess = (b - col.cost) * (1 + 1e-9) + 1e-12 * magnitude;
        for (Mask m = pricer_.op_set(col.op_set).ops; m && excess > 0; m &= m - 1) {
          double& yo = y[static_cast<size_t>(CountrZero(m))];
          const double take = std::min(yo, excess);
          yo = take == yo ? 0.0 : std::max(0.0, std::nextafter(yo - take, 0.0));
          excess -= take;
        }
        if (!col.piece) continue;
        for (Mask m = pricer_.op_set(col.op_set).external & shared_ & ~col.resident; m && excess > 0; m &= m - 1) {
          const size_t t = static_cast<size_t>(CountrZero(m));
          const double give = std::min(cap[t] - sigma[t], excess / share_coef_[t]);
          if (give <= 0) continue;
          sigma[t] = std::min(cap[t], std::nextafter(sigma[t] + give, kInf));
          excess -= give * share_coef_[t];
        }
        if (excess <= 0) continue;
        if (col.exports != 0) {
          double& glue_dual = zeta[static_cast<size_t>(CountrZero(col.exports))];
          glue_dual = std::nextafter(glue_dual - excess, -kInf);
          moved_glue = true;
        } else if (col.imports != 0 && both_ways) {
          double& glue_dual = zeta[static_cast<size_t>(CountrZero(col.imports))];
          glue_dual = std::nextafter(glue_dual + excess, kInf);
          moved_glue = true;
        }
      }
      if (!moved_glue) break;
    }
    // Then by scaling (Lemma T2): alpha <= 1, the least ratio of cost to a positive bracket.
    double alpha = 1;
    for (size_t ci = 0; ci < columns_.size(); ++ci) {
      double magnitude = 0;
      const double b = bracket_of(columns_[ci], &magnitude);
      if (b <= columns_[ci].cost) continue;
      alpha = b > 0 && std::isfinite(b) ? std::min(alpha, columns_[ci].cost / b) : 0.0;  // NaN: nothing proven
    }
    long double y_sum = 0;
    for (double v : y) y_sum += v;
    return alpha * static_cast<double>(y_sum) * (1 - 1e-9);
  };
  return std::max(repaired(false), repaired(true));
}

double CoreLp::RunLambda(double lambda, Tier2Status* status) {
  const int n_ops = problem_.num_ops(), n_t = problem_.num_tensors();
  for (Column& col : columns_) {
    if (!col.piece) continue;
    col.cost = PieceCheap(col, lambda);
    col.exact = false;
  }
  double finite = 0;
  for (const Column& col : columns_) {
    if (std::isfinite(col.cost)) finite = std::max(finite, col.cost);
  }
  const double big = kBigCostFactor * (1 + finite) * n_ops;
  auto lp_cost = [&](const Column& col) { return std::isfinite(col.cost) ? col.cost : big; };

  ClpSimplex lp;
  lp.setLogLevel(0);
  lp.resize(n_ops + 3 * n_t, 0);
  for (int o = 0; o < n_ops; ++o) lp.setRowBounds(o, 1.0, COIN_DBL_MAX);
  for (int t = 0; t < n_t; ++t) {
    lp.setRowBounds(n_ops + t, 0.0, COIN_DBL_MAX);           // flow
    lp.setRowBounds(n_ops + n_t + t, 0.0, 0.0);              // glue
    lp.setRowBounds(n_ops + 2 * n_t + t, 0.0, COIN_DBL_MAX);  // share
  }
  std::vector<int> rows;
  std::vector<double> values;
  for (const Column& col : columns_) {
    rows.clear();
    values.clear();
    auto put = [&](int row, double v) {
      rows.push_back(row);
      values.push_back(v);
    };
    for (int o : Ids(pricer_.op_set(col.op_set).ops)) put(o, 1.0);
    // One entry per row: a tensor both retained and resident is not possible (one is produced
    // inside, the other outside).
    for (int t : Ids(col.retained)) put(n_ops + t, 1.0);
    for (int t : Ids(col.resident)) put(n_ops + t, -(col.piece ? share_coef_[static_cast<size_t>(t)] : 1.0));
    if (col.piece) {
      for (int t : Ids(col.exports)) put(n_ops + n_t + t, 1.0);
      for (int t : Ids(col.imports)) put(n_ops + n_t + t, -1.0);
      for (int t : Ids(pricer_.op_set(col.op_set).external & shared_ & ~col.resident)) {
        put(n_ops + 2 * n_t + t, -share_coef_[static_cast<size_t>(t)]);
      }
    }
    lp.addColumn(static_cast<int>(rows.size()), rows.data(), values.data(), 0.0, COIN_DBL_MAX, lp_cost(col));
  }
  for (int t : Ids(shared_)) {
    const int row = n_ops + 2 * n_t + t;
    const double one = 1.0;
    lp.addColumn(1, &row, &one, 0.0, COIN_DBL_MAX,
                 (1 - lambda) * static_cast<double>(problem_.tensor(t).size()) / bandwidth_);
  }
  double proven = 0;
  std::vector<double> bracket;
  std::vector<size_t> suspects;
  while (true) {
    if (budget_.Expired()) {
      *status = Tier2Status::kTimeLimit;
      break;
    }
    ++result_.lp_rounds;
    lp.primal();
    if (!lp.isProvenOptimal()) {
      *status = Tier2Status::kSolverFailed;
      break;
    }
    proven = std::max(proven, Certificate(lp.getRowPrice(), lambda, &bracket));
    // Attractive or in use at a cheap bound: price exactly.
    suspects.clear();
    for (size_t ci = 0; ci < columns_.size(); ++ci) {
      const Column& col = columns_[ci];
      if (!col.exact && bracket[ci] > 0 && bracket[ci] >= col.cost * (1 - 1e-9)) suspects.push_back(ci);
    }
    if (suspects.empty()) break;
    std::vector<double> priced(suspects.size(), -1);
    tbb::parallel_for(size_t{0}, suspects.size(), [&](size_t i) {
      const Column& col = columns_[suspects[i]];
      if (col.piece && !budget_.Expired()) {
        priced[i] = PiecePrice(problem_, modes_, split_, Context(col), lambda, max_tile_configs_, &budget_).value;
      }
    });
    for (size_t i = 0; i < suspects.size(); ++i) {
      Column& col = columns_[suspects[i]];
      if (!col.piece && !budget_.Expired()) {
        priced[i] = pricer_.Price(col.op_set, col.retained, col.resident, Pricing::kLowerOnly, kInf).lb;
        ++result_.whole_priced;
      } else if (col.piece && priced[i] >= 0) {
        ++result_.pieces_priced;
      }
      if (priced[i] < 0 || budget_.Expired()) continue;  // out of time: left cheap (a price cut short is 0)
      col.cost = std::max(col.cost, priced[i]);
      col.exact = true;
      lp.setObjectiveCoefficient(static_cast<int>(suspects[i]), lp_cost(col));
    }
  }
  return proven;
}

}  // namespace

std::vector<Mask> KeptAdjacency(const Problem& problem, const CoreSplit& split) {
  const int n = problem.num_ops();
  std::vector<Mask> adjacent(static_cast<size_t>(n), 0);
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (Pieces(problem, split, {a, b}).size() != 1) continue;
      adjacent[static_cast<size_t>(a)] |= Mask{1} << b;
      adjacent[static_cast<size_t>(b)] |= Mask{1} << a;
    }
  }
  return adjacent;
}

CoreLpResult CoreLpBound(const Problem& problem, const CostModes& modes, const CoreSplit& split, const Budget& budget,
                         std::span<const double> lambdas, int64_t max_tile_configs) {
  CoreLp lp(problem, modes, split, budget, max_tile_configs);
  CoreLpResult result = lp.Run(lambdas);
  result.seconds = budget.Elapsed();
  return result;
}

CoreTier2Result CoreTier2Bound(const Problem& problem, const Tier2Options& options, CoreCuts cuts) {
  std::optional<tbb::global_control> threads;
  if (options.threads > 0) {
    threads.emplace(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(options.threads));
  }
  const Budget budget(options.time_limit, options.stop);
  const CoreSplit split = Cores(problem, options.modes,
                                cuts == CoreCuts::kAll ? AdmissibleCuts(problem, options.modes)
                                                       : DesignCuts(problem, options.modes));
  CoreTier2Result out;
  out.lambdas = {0.0, 0.25, 0.5, 0.75, 1.0};
  const CoreLpResult run = CoreLpBound(problem, options.modes, split, budget, out.lambdas, options.max_tile_configs);
  out.value = run.value;
  out.lambda = run.lambda;
  out.by_lambda = run.by_lambda;
  out.status = run.status;
  out.seconds = run.seconds;
  out.summary = CoreLpSummary(run);
  return out;
}

std::string CoreLpSummary(const CoreLpResult& result) {
  if (result.status == Tier2Status::kTooManyOps) return "more than 64 ops or 128 tensors; nothing proven";
  if (result.status == Tier2Status::kTooManyOpSets) return "too many op sets or retention subsets; nothing proven";
  if (result.status == Tier2Status::kTooManyContexts) return "too many contexts; nothing proven";
  std::string line = std::to_string(result.cores) + " cores, " + std::to_string(result.op_sets) + " op sets, " +
                     std::to_string(result.whole_columns) + " whole and " + std::to_string(result.piece_columns) +
                     " piece columns, " + std::to_string(result.whole_priced) + " and " +
                     std::to_string(result.pieces_priced) + " priced, " + std::to_string(result.lp_rounds) +
                     " LP rounds; " + Tier2StatusName(result.status) + ", bound " + std::to_string(result.value);
  if (result.lambda >= 0) line += " at lambda " + std::to_string(result.lambda);
  return line;
}

}  // namespace tilesched::search
