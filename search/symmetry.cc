// Interchangeable branches (search/symmetry.h; docs/bounds.md, Lemma T7).
#include "symmetry.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <utility>

namespace tilesched::search {

namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  // splitmix64's finaliser over the running hash and the value.
  uint64_t x = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t Bits(double v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

int Root(std::vector<int>& parent, int i) {
  while (parent[static_cast<size_t>(i)] != i) {
    parent[static_cast<size_t>(i)] = parent[static_cast<size_t>(parent[static_cast<size_t>(i)])];
    i = parent[static_cast<size_t>(i)];
  }
  return i;
}

void Join(std::vector<int>& parent, int a, int b) {
  a = Root(parent, a);
  b = Root(parent, b);
  if (a != b) parent[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
}

// Dense orbit ids (0, 1, ... in order of first member) from a union-find.
std::vector<int> Orbits(std::vector<int>& parent) {
  std::vector<int> id(parent.size(), -1), orbit(parent.size());
  int next = 0;
  for (size_t i = 0; i < parent.size(); ++i) {
    const int root = Root(parent, static_cast<int>(i));
    if (id[static_cast<size_t>(root)] < 0) id[static_cast<size_t>(root)] = next++;
    orbit[i] = id[static_cast<size_t>(root)];
  }
  return orbit;
}

// Colour refinement over ops and tensors until the number of colours stops growing: ops (and
// tensors) an automorphism maps onto each other end with the same colour. A collision only
// proposes a branch that IsAutomorphism then rejects.
void Refine(const Problem& problem, std::span<const Mask> kept, std::vector<uint64_t>* op_colour,
            std::vector<uint64_t>* tensor_colour) {
  const int n_ops = problem.num_ops(), n_tensors = problem.num_tensors();
  std::vector<std::vector<std::pair<int, int>>> readers(static_cast<size_t>(n_tensors));  // (op, slot or -1)
  for (int o = 0; o < n_ops; ++o) {
    const Op& op = problem.op(o);
    for (size_t s = 0; s < op.inputs.size(); ++s) {
      const int slot = op.type == OpType::kMatMul ? static_cast<int>(s) : -1;
      readers[static_cast<size_t>(op.inputs[s])].emplace_back(o, slot);
    }
  }
  auto& oc = *op_colour;
  auto& tc = *tensor_colour;
  oc.assign(static_cast<size_t>(n_ops), 0);
  tc.assign(static_cast<size_t>(n_tensors), 0);
  for (int o = 0; o < n_ops; ++o) {
    const Op& op = problem.op(o);
    oc[static_cast<size_t>(o)] = Mix(Mix(Mix(1, static_cast<uint64_t>(op.type)), Bits(op.base_cost)), op.inputs.size());
  }
  for (int t = 0; t < n_tensors; ++t) {
    uint64_t h = Mix(Mix(2, static_cast<uint64_t>(problem.tensor(t).width)), static_cast<uint64_t>(problem.tensor(t).height));
    for (const Mask m : kept) h = Mix(h, m.test(t) ? 1 : 0);
    tc[static_cast<size_t>(t)] = h;
  }
  auto distinct = [&] {
    std::vector<uint64_t> all(oc);
    all.insert(all.end(), tc.begin(), tc.end());
    std::sort(all.begin(), all.end());
    return std::unique(all.begin(), all.end()) - all.begin();
  };
  auto count = distinct();
  for (int round = 0; round < n_ops + n_tensors; ++round) {
    std::vector<uint64_t> next_t(tc.size()), next_o(oc.size());
    for (int t = 0; t < n_tensors; ++t) {
      std::vector<uint64_t> seen;
      for (const auto& [o, slot] : readers[static_cast<size_t>(t)]) {
        seen.push_back(Mix(oc[static_cast<size_t>(o)], static_cast<uint64_t>(slot + 1)));
      }
      std::sort(seen.begin(), seen.end());
      const int p = problem.producer(t);
      uint64_t h = Mix(tc[static_cast<size_t>(t)], p < 0 ? 0 : oc[static_cast<size_t>(p)]);
      for (uint64_t v : seen) h = Mix(h, v);
      next_t[static_cast<size_t>(t)] = h;
    }
    for (int o = 0; o < n_ops; ++o) {
      const Op& op = problem.op(o);
      std::vector<uint64_t> in;
      for (int t : op.inputs) in.push_back(tc[static_cast<size_t>(t)]);
      if (op.type == OpType::kPointwise) std::sort(in.begin(), in.end());
      uint64_t h = Mix(oc[static_cast<size_t>(o)], tc[static_cast<size_t>(op.output)]);
      for (uint64_t v : in) h = Mix(h, v);
      next_o[static_cast<size_t>(o)] = h;
    }
    tc = std::move(next_t);
    oc = std::move(next_o);
    const auto now = distinct();
    if (now == count) break;
    count = now;
  }
}

// The swap of branches a and b (same length, ops by position; tensors slot by slot), or empty
// maps when the slots do not pair up as a swap.
bool SwapMaps(const Problem& problem, const std::vector<int>& a, const std::vector<int>& b, std::vector<int>* op_map,
              std::vector<int>* tensor_map) {
  op_map->resize(static_cast<size_t>(problem.num_ops()));
  std::iota(op_map->begin(), op_map->end(), 0);
  tensor_map->assign(static_cast<size_t>(problem.num_tensors()), -1);
  auto pair = [&](int x, int y) {
    if (x == y) {  // a tensor both branches touch in the same slot: kept in place
      int& m = (*tensor_map)[static_cast<size_t>(x)];
      if (m >= 0 && m != x) return false;
      m = x;
      return true;
    }
    int& mx = (*tensor_map)[static_cast<size_t>(x)];
    int& my = (*tensor_map)[static_cast<size_t>(y)];
    if ((mx >= 0 && mx != y) || (my >= 0 && my != x)) return false;
    mx = y;
    my = x;
    return true;
  };
  for (size_t p = 0; p < a.size(); ++p) {
    const Op& oa = problem.op(a[p]);
    const Op& ob = problem.op(b[p]);
    (*op_map)[static_cast<size_t>(a[p])] = b[p];
    (*op_map)[static_cast<size_t>(b[p])] = a[p];
    if (oa.inputs.size() != ob.inputs.size() || !pair(oa.output, ob.output)) return false;
    for (size_t s = 0; s < oa.inputs.size(); ++s) {
      if (!pair(oa.inputs[s], ob.inputs[s])) return false;
    }
  }
  for (size_t t = 0; t < tensor_map->size(); ++t) {
    if ((*tensor_map)[t] < 0) (*tensor_map)[t] = static_cast<int>(t);
  }
  return true;
}

}  // namespace

bool IsAutomorphism(const Problem& problem, const std::vector<int>& op_map, const std::vector<int>& tensor_map,
                    std::span<const Mask> kept) {
  const int n_ops = problem.num_ops(), n_tensors = problem.num_tensors();
  if (static_cast<int>(op_map.size()) != n_ops || static_cast<int>(tensor_map.size()) != n_tensors) return false;
  auto is_permutation = [](const std::vector<int>& map) {
    std::vector<uint8_t> hit(map.size(), 0);
    for (int v : map) {
      if (v < 0 || v >= static_cast<int>(map.size()) || hit[static_cast<size_t>(v)]) return false;
      hit[static_cast<size_t>(v)] = 1;
    }
    return true;
  };
  if (!is_permutation(op_map) || !is_permutation(tensor_map)) return false;
  for (int t = 0; t < n_tensors; ++t) {
    const int u = tensor_map[static_cast<size_t>(t)];
    if (!(problem.tensor(t) == problem.tensor(u))) return false;
    for (const Mask m : kept) {
      if (((m >> t) & 1) != ((m >> u) & 1)) return false;
    }
  }
  for (int o = 0; o < n_ops; ++o) {
    const Op& op = problem.op(o);
    const Op& image = problem.op(op_map[static_cast<size_t>(o)]);
    if (op.type != image.type || op.base_cost != image.base_cost || op.inputs.size() != image.inputs.size() ||
        tensor_map[static_cast<size_t>(op.output)] != image.output) {
      return false;
    }
    std::vector<int> mapped, theirs(image.inputs);
    for (int t : op.inputs) mapped.push_back(tensor_map[static_cast<size_t>(t)]);
    if (op.type == OpType::kPointwise) {
      std::sort(mapped.begin(), mapped.end());
      std::sort(theirs.begin(), theirs.end());
    }
    if (mapped != theirs) return false;
  }
  return true;
}

Symmetry Symmetry::Find(const Problem& problem, std::span<const Mask> kept) {
  Symmetry result;
  if (!ContextPricer::Fits(problem)) return result;
  const int n_ops = problem.num_ops(), n_tensors = problem.num_tensors();
  std::vector<uint64_t> oc, tc;
  Refine(problem, kept, &oc, &tc);
  // Ops whose colour no other op has are fixed by every automorphism, and so are such tensors.
  std::map<uint64_t, int> op_colours, tensor_colours;
  for (uint64_t c : oc) ++op_colours[c];
  for (uint64_t c : tc) ++tensor_colours[c];
  std::vector<uint8_t> claimed(static_cast<size_t>(n_ops), 0);
  auto movable = [&](int o) {
    return o >= 0 && !claimed[static_cast<size_t>(o)] && op_colours[oc[static_cast<size_t>(o)]] > 1;
  };
  std::vector<int> op_parent(static_cast<size_t>(n_ops)), tensor_parent(static_cast<size_t>(n_tensors));
  std::iota(op_parent.begin(), op_parent.end(), 0);
  std::iota(tensor_parent.begin(), tensor_parent.end(), 0);
  std::vector<int> op_map, tensor_map;
  // Candidate branches: the movable ops joined producer to reader; then, among those no class
  // took, also through every tensor that is not fixed (a copy's own inputs).
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<int> parent(static_cast<size_t>(n_ops));
    std::iota(parent.begin(), parent.end(), 0);
    for (int t = 0; t < n_tensors; ++t) {
      const int producer = problem.producer(t);
      const bool readers_too = pass == 1 && tensor_colours[tc[static_cast<size_t>(t)]] > 1;
      int first_reader = -1;
      for (int o = 0; o < n_ops; ++o) {
        const auto& in = problem.op(o).inputs;
        if (!movable(o) || std::find(in.begin(), in.end(), t) == in.end()) continue;
        if (movable(producer)) Join(parent, producer, o);
        if (readers_too && first_reader >= 0) Join(parent, first_reader, o);
        if (first_reader < 0) first_reader = o;
      }
    }
    std::map<int, std::vector<int>> by_root;
    for (int o = 0; o < n_ops; ++o) {
      if (movable(o)) by_root[Root(parent, o)].push_back(o);
    }
    // Branches with the same colours, each ordered by (colour, id), grouped in order of first op.
    std::map<std::vector<uint64_t>, std::vector<std::vector<int>>> groups;
    for (auto& [root, ops] : by_root) {
      std::sort(ops.begin(), ops.end(), [&](int x, int y) {
        return std::make_pair(oc[static_cast<size_t>(x)], x) < std::make_pair(oc[static_cast<size_t>(y)], y);
      });
      std::vector<uint64_t> key;
      for (int o : ops) key.push_back(oc[static_cast<size_t>(o)]);
      groups[key].push_back(ops);
    }
    for (auto& [key, branches] : groups) {
      std::sort(branches.begin(), branches.end(), [](const auto& x, const auto& y) {
        return *std::min_element(x.begin(), x.end()) < *std::min_element(y.begin(), y.end());
      });
      // The first branch left against the others; those its swap maps onto the problem join its
      // class, and the rest try again with the next first.
      while (branches.size() >= 2) {
        BranchClass cls;
        cls.branches.push_back(branches[0]);
        std::vector<std::vector<int>> rest;
        for (size_t j = 1; j < branches.size(); ++j) {
          if (!SwapMaps(problem, branches[0], branches[j], &op_map, &tensor_map) ||
              !IsAutomorphism(problem, op_map, tensor_map, kept)) {
            rest.push_back(branches[j]);
            continue;
          }
          cls.branches.push_back(branches[j]);
          for (int o = 0; o < n_ops; ++o) Join(op_parent, o, op_map[static_cast<size_t>(o)]);
          for (size_t t = 0; t < tensor_map.size(); ++t) Join(tensor_parent, static_cast<int>(t), tensor_map[t]);
        }
        if (cls.branches.size() >= 2) {
          for (const auto& branch : cls.branches) {
            for (int o : branch) claimed[static_cast<size_t>(o)] = 1;
          }
          result.classes_.push_back(std::move(cls));
        }
        branches = std::move(rest);
      }
    }
  }
  if (!result.classes_.empty()) {
    result.op_orbit_ = Orbits(op_parent);
    result.tensor_orbit_ = Orbits(tensor_parent);
  }
  return result;
}

int Symmetry::branches() const {
  int n = 0;
  for (const BranchClass& c : classes_) n += static_cast<int>(c.branches.size());
  return n;
}

Mask Symmetry::Canonical(Mask ops) const {
  for (const BranchClass& c : classes_) {
    uint64_t patterns[64];
    const size_t m = c.branches.size();
    for (size_t i = 0; i < m; ++i) {
      uint64_t p = 0;
      const std::vector<int>& branch = c.branches[i];
      for (size_t pos = 0; pos < branch.size(); ++pos) {
        p |= static_cast<uint64_t>(ops.test(branch[pos])) << pos;
        ops &= ~(Mask{1} << branch[pos]);
      }
      patterns[i] = p;
    }
    std::sort(patterns, patterns + m, [](uint64_t x, uint64_t y) { return x > y; });
    for (size_t i = 0; i < m; ++i) {
      const std::vector<int>& branch = c.branches[i];
      for (size_t pos = 0; pos < branch.size(); ++pos) ops |= Mask{(patterns[i] >> pos) & 1} << branch[pos];
    }
  }
  return ops;
}

}  // namespace tilesched::search
