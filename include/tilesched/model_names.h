// Labels in the model's terms for an imported problem's subgraphs (docs/import.md, "Model
// names"). Part of io; used by `evaluate`, `info` and `report`.
//
// Entry point: SubgraphLabel(problem, ops): the module path its ops share and what each op is
// within it ("m.h.0.attn: matmul[2], mul+add_4+softmax[2], matmul_1[2]"), or "" when the
// problem has no names (contest problems).
#ifndef TILESCHED_MODEL_NAMES_H_
#define TILESCHED_MODEL_NAMES_H_

#include <string>
#include <vector>

#include "tilesched/problem.h"

namespace tilesched {

// At most about `max_chars` characters: further ops are counted ("... (+5 ops)").
std::string SubgraphLabel(const Problem& problem, const std::vector<int>& ops, size_t max_chars = 120);

}  // namespace tilesched

#endif  // TILESCHED_MODEL_NAMES_H_
