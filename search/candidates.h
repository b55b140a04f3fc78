// CandidatePool: the subgraphs the search may form, enumerated once per problem from the DAG.
//
// Entry point: BuildCandidates(problem, plans, options). Every connected, convex op set up to
// `max_subgraph_ops` ops whose sinks share one shape (grown breadth-first from each op over
// shared tensors, without duplicates, at most `max_candidates_per_op` per op), plus larger
// structures the growth would miss: whole Pointwise chains and whole sibling groups (all
// readers of one tensor). Each candidate carries the kind that describes it.
#ifndef TILESCHED_SEARCH_CANDIDATES_H_
#define TILESCHED_SEARCH_CANDIDATES_H_

#include <functional>
#include <string>
#include <vector>

#include "plan_cache.h"
#include "tilesched/problem.h"
#include "tilesched/search.h"

namespace tilesched::search {

enum class CandidateKind {
  kSingleton,     // one op
  kPointwise,     // only Pointwise ops (chains and cones)
  kEpilogue,      // one MatMul and Pointwise ops after it
  kPrologue,      // one MatMul and Pointwise ops before it
  kMatMulChain,   // a MatMul feeding another MatMul, e.g. (A@B)@C
  kSiblings,      // ops that share an input and do not feed each other
  kMixed,         // anything else
};

const char* CandidateKindName(CandidateKind kind);

struct Candidate {
  std::vector<int> ops;  // sorted
  const SubgraphPlan* plan = nullptr;
  CandidateKind kind = CandidateKind::kSingleton;
};

struct CandidatePool {
  std::vector<Candidate> candidates;
  std::vector<std::vector<int>> by_op;  // candidate indices containing each op
};

// True when no path leaves `ops` and comes back (so the set can run as one step of a
// topological schedule without recomputation).
bool IsConvex(const Problem& problem, const std::vector<int>& ops);

CandidateKind Classify(const Problem& problem, const std::vector<int>& ops);

// `should_stop`, when given, is polled as sets are grown; the pool built so far is returned.
CandidatePool BuildCandidates(const Problem& problem, PlanCache& plans,
                              const SearchOptions& options,
                              const std::function<bool()>& should_stop = {});

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_CANDIDATES_H_
