// Evaluate(): the judge of every schedule (SPEC.md sections 3-7).
//
// Checks a whole Schedule against every validity rule, in stages, cheapest first: ids and
// coverage, then per subgraph in execution order its structure (rules 3.2-3.3), tile bounds
// (3.4, 7b), traversal (3.7), retention (3.6), availability (3.5), working set (3.8), and
// finally costs it. The first broken rule is returned as a one-line message naming the
// subgraph and the op, tensor, tile or k-step; a valid schedule gets its total latency and a
// breakdown per subgraph.
#ifndef TILESCHED_EVALUATE_H_
#define TILESCHED_EVALUATE_H_

#include <string>
#include <vector>

#include "tilesched/cost_model.h"
#include "tilesched/problem.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

struct SubgraphReport {
  SubgraphCost cost;
  std::vector<int> sinks;        // tensors the subgraph's ops produce and none of them reads
  std::vector<int> written;      // tensors written to slow memory
  std::vector<int> split_roots;  // MatMul ops whose reduction is split into k-slices
};

struct Evaluation {
  double total = 0;
  std::vector<SubgraphReport> subgraphs;
  std::vector<OpWork> op_work;  // per op id: what it computes, summed over its subgraphs
  std::vector<std::string> warnings;  // missing or differing reported latencies (rule 3.9)
};

Result<Evaluation> Evaluate(const Problem& problem, const Schedule& schedule,
                            const CostModes& modes);

// Relative tolerance for reported latencies (rule 3.9).
inline constexpr double kLatencyTolerance = 1e-9;

}  // namespace tilesched

#endif  // TILESCHED_EVALUATE_H_
