// Small helpers on sorted op-id lists (subgraph op sets).
#ifndef TILESCHED_SEARCH_OP_SETS_H_
#define TILESCHED_SEARCH_OP_SETS_H_

#include <algorithm>
#include <iterator>
#include <vector>

namespace tilesched::search {

inline std::vector<int> Union(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

inline std::vector<int> Without(const std::vector<int>& ops, int op) {
  std::vector<int> out;
  for (int o : ops) {
    if (o != op) out.push_back(o);
  }
  return out;
}

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_OP_SETS_H_
