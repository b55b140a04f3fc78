// CoverLp: the tier-2 covering LP on COIN-OR CLP (search/cover_lp.h).
#include "cover_lp.h"

#include <coin/ClpSimplex.hpp>

#include <algorithm>
#include <map>
#include <numeric>

namespace tilesched::search {

CoverLp::CoverLp(int num_ops, int num_tensors) : CoverLp(num_ops, num_tensors, {}, {}) {}

CoverLp::CoverLp(int num_ops, int num_tensors, const std::vector<int>& op_orbit, const std::vector<int>& tensor_orbit)
    : num_ops_(num_ops), num_tensors_(num_tensors), lp_(std::make_unique<ClpSimplex>()) {
  op_row_ = op_orbit;
  if (op_row_.empty()) {
    op_row_.resize(static_cast<size_t>(num_ops));
    std::iota(op_row_.begin(), op_row_.end(), 0);
  }
  tensor_row_ = tensor_orbit;
  if (tensor_row_.empty()) {
    tensor_row_.resize(static_cast<size_t>(num_tensors));
    std::iota(tensor_row_.begin(), tensor_row_.end(), 0);
  }
  op_rows_ = op_row_.empty() ? 0 : *std::max_element(op_row_.begin(), op_row_.end()) + 1;
  const int tensor_rows = tensor_row_.empty() ? 0 : *std::max_element(tensor_row_.begin(), tensor_row_.end()) + 1;
  for (int& r : tensor_row_) r += op_rows_;
  lp_->setLogLevel(0);
  lp_->resize(op_rows_ + tensor_rows, 0);
  // Covering rows: sum over the columns of the ops of the orbit they hold, times x, >= the
  // orbit's size (1 for an op alone).
  std::vector<double> size(static_cast<size_t>(op_rows_), 0.0);
  for (int r : op_row_) size[static_cast<size_t>(r)] += 1;
  for (int r = 0; r < op_rows_; ++r) {
    lp_->setRowLower(r, size[static_cast<size_t>(r)]);
    lp_->setRowUpper(r, COIN_DBL_MAX);
  }
  // Flow rows: (columns retaining t) - (columns starting with t resident) >= 0, summed per orbit.
  for (int r = op_rows_; r < op_rows_ + tensor_rows; ++r) {
    lp_->setRowLower(r, 0.0);
    lp_->setRowUpper(r, COIN_DBL_MAX);
  }
}

CoverLp::~CoverLp() = default;

void CoverLp::AddColumn(Mask ops, Mask retained, Mask resident, double cost) {
  std::map<int, double> entries;  // by row, in row order
  for (int o = 0; o < num_ops_; ++o) {
    if (ops.test(o)) entries[op_row_[static_cast<size_t>(o)]] += 1.0;
  }
  for (int t = 0; t < num_tensors_; ++t) {
    const double v = (retained.test(t) ? 1.0 : 0.0) - (resident.test(t) ? 1.0 : 0.0);
    if (v != 0) entries[tensor_row_[static_cast<size_t>(t)]] += v;
  }
  std::vector<int> rows;
  std::vector<double> values;
  for (const auto& [row, value] : entries) {
    if (value == 0) continue;
    rows.push_back(row);
    values.push_back(value);
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
  for (int o = 0; o < num_ops_; ++o) (*y)[static_cast<size_t>(o)] = std::max(0.0, dual[op_row_[static_cast<size_t>(o)]]);
  for (int t = 0; t < num_tensors_; ++t) {
    (*z)[static_cast<size_t>(t)] = std::max(0.0, dual[tensor_row_[static_cast<size_t>(t)]]);
  }
}

int CoverLp::num_columns() const { return lp_->numberColumns(); }

}  // namespace tilesched::search
