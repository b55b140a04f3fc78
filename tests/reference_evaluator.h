// A deliberately naive evaluator used only as a test oracle: it walks every step of every tile
// and derives each step's demand by recursion over concrete index ranges, sharing no code with
// the cost model beyond the Problem and Schedule values.
#ifndef TILESCHED_TESTS_REFERENCE_EVALUATOR_H_
#define TILESCHED_TESTS_REFERENCE_EVALUATOR_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilesched/problem.h"
#include "tilesched/schedule.h"

namespace tilesched::testing {

struct ReferenceModes {
  bool contest = true;      // rules=contest
  bool native_k = false;    // matmul_reduction=native_k
  bool k_reduction = false; // k_limit=reduction
};

struct ReferenceResult {
  bool valid = false;
  std::string reason;  // why invalid
  double total = 0;
  std::vector<double> latencies;
  std::vector<int64_t> loaded;       // elements read per subgraph
  std::vector<int64_t> peak_working_set;
  // Per subgraph, per op computed in it: output elements computed (a split root's k-slice of a
  // region counts slice/K of the region) and the compute time charged for them.
  std::vector<std::map<int, double>> op_elements, op_time;
};

ReferenceResult ReferenceEvaluate(const Problem& problem, const Schedule& schedule,
                                  ReferenceModes modes);

}  // namespace tilesched::testing

#endif  // TILESCHED_TESTS_REFERENCE_EVALUATOR_H_
