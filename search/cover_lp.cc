// CoverLp: the tier-2 covering LP on COIN-OR CLP (search/cover_lp.h).
#include "cover_lp.h"

#include <coin/ClpSimplex.hpp>

#include <algorithm>

namespace tilesched::search {

CoverLp::CoverLp(int num_ops, int num_tensors)
    : num_ops_(num_ops), num_tensors_(num_tensors), lp_(std::make_unique<ClpSimplex>()) {
  lp_->setLogLevel(0);
  lp_->resize(num_ops + num_tensors, 0);
  // Covering rows: sum over the columns containing op o of x >= 1.
  for (int o = 0; o < num_ops; ++o) {
    lp_->setRowLower(o, 1.0);
    lp_->setRowUpper(o, COIN_DBL_MAX);
  }
  // Flow rows: (columns retaining t) - (columns starting with t resident) >= 0.
  for (int t = 0; t < num_tensors; ++t) {
    lp_->setRowLower(num_ops + t, 0.0);
    lp_->setRowUpper(num_ops + t, COIN_DBL_MAX);
  }
}

CoverLp::~CoverLp() = default;

void CoverLp::AddColumn(uint64_t ops, uint64_t retained, uint64_t resident, double cost) {
  std::vector<int> rows;
  std::vector<double> values;
  for (int o = 0; o < num_ops_; ++o) {
    if ((ops >> o) & 1) {
      rows.push_back(o);
      values.push_back(1.0);
    }
  }
  for (int t = 0; t < num_tensors_; ++t) {
    const double v =
        static_cast<double>((retained >> t) & 1) - static_cast<double>((resident >> t) & 1);
    if (v != 0) {
      rows.push_back(num_ops_ + t);
      values.push_back(v);
    }
  }
  lp_->addColumn(static_cast<int>(rows.size()), rows.data(), values.data(), 0.0, COIN_DBL_MAX,
                 cost);
}

bool CoverLp::Solve() {
  lp_->primal();
  return lp_->isProvenOptimal();
}

double CoverLp::objective() const { return lp_->objectiveValue(); }

void CoverLp::Duals(std::vector<double>* y, std::vector<double>* z) const {
  const double* dual = lp_->getRowPrice();
  y->assign(static_cast<size_t>(num_ops_), 0.0);
  z->assign(static_cast<size_t>(num_tensors_), 0.0);
  for (int o = 0; o < num_ops_; ++o) (*y)[static_cast<size_t>(o)] = std::max(0.0, dual[o]);
  for (int t = 0; t < num_tensors_; ++t) {
    (*z)[static_cast<size_t>(t)] = std::max(0.0, dual[num_ops_ + t]);
  }
}

int CoverLp::num_columns() const { return lp_->numberColumns(); }

}  // namespace tilesched::search
