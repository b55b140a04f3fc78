// Lemmas H1-H2 of docs/bounds.md: held and big tensors, and the big tensors of each op's cone
// (src/bound/held_tensors.h).
#include "held_tensors.h"

#include <algorithm>

#include "tilesched/graph.h"

namespace tilesched::bound {

int64_t HeldSize(const Problem& problem, const Held& held) {
  int64_t total = 0;
  for (int t : held) total += t >= 0 ? problem.tensor(t).size() : 0;
  return total;
}

bool Big(const Problem& problem, int t) {
  const int64_t cap = problem.hardware().fast_memory_capacity;
  const int64_t size = problem.tensor(t).size();
  return problem.producer(t) >= 0 && size < cap && 2 * size + 1 > cap;
}

ConeBigs::ConeBigs(const Problem& problem)
    : bigs_(static_cast<size_t>(problem.num_ops())), overflow_(static_cast<size_t>(problem.num_ops()), false) {
  for (int o : problem.graph().topo_order()) {
    std::vector<int>& bigs = bigs_[static_cast<size_t>(o)];
    bool overflow = false;
    for (int t : problem.op(o).inputs) {
      if (Big(problem, t)) bigs.push_back(t);
      const int q = problem.producer(t);
      if (q < 0) continue;
      const auto& up = bigs_[static_cast<size_t>(q)];
      bigs.insert(bigs.end(), up.begin(), up.end());
      overflow = overflow || overflow_[static_cast<size_t>(q)];
    }
    std::sort(bigs.begin(), bigs.end());
    bigs.erase(std::unique(bigs.begin(), bigs.end()), bigs.end());
    if (bigs.size() > kMaxConeBigs) {
      bigs.clear();
      overflow = true;
    }
    overflow_[static_cast<size_t>(o)] = overflow;
  }
}

bool ConeBigs::Apart(int a, int b) const {
  if (overflow_[static_cast<size_t>(a)] || overflow_[static_cast<size_t>(b)]) return false;
  const auto& x = bigs_[static_cast<size_t>(a)];
  const auto& y = bigs_[static_cast<size_t>(b)];
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i] == y[j]) return false;
    if (x[i] < y[j]) ++i;
    else ++j;
  }
  return true;
}

}  // namespace tilesched::bound
