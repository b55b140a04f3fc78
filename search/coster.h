// SubgraphCoster: the only window strategies have onto the cost model (docs/style.md rule 7).
//
// Entry points: SubgraphCoster::Configure(plan, retained, resident) gives the best TileChoice
// of a subgraph in its context, or nullopt when nothing fits. ModelCoster answers with the
// real Configurator and memoizes on (ops, retained, resident), the whole key a subgraph's cost
// depends on (docs/style.md rule 8), written with ids relabelled by rank inside the subgraph so that
// identical shapes (the blocks of a stack) are configured once, with a per-thread table of the
// last answers by the ids themselves in front of it (a hit then costs no key and no lock); tests
// substitute a fake coster for fast, exact strategy tests.
#ifndef TILESCHED_SEARCH_COSTER_H_
#define TILESCHED_SEARCH_COSTER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "configure.h"
#include "tilesched/cost_model.h"
#include "tilesched/demand.h"

namespace tilesched::search {

class SubgraphCoster {
 public:
  virtual ~SubgraphCoster() = default;
  // `retained` and `resident` are sorted tensor ids. Safe to call concurrently.
  virtual std::optional<TileChoice> Configure(const SubgraphPlan& plan,
                                              std::span<const int> retained,
                                              std::span<const int> resident) = 0;
  // Number of Configure calls that were not answered from a cache.
  virtual int64_t evaluations() const = 0;
};

class ModelCoster : public SubgraphCoster {
 public:
  // `progress`, when given, also counts costings and configurations (live progress output).
  ModelCoster(const CostModel& model, ConfigureOptions options = {},
              SearchProgress* progress = nullptr);
  ~ModelCoster() override;

  std::optional<TileChoice> Configure(const SubgraphPlan& plan, std::span<const int> retained,
                                      std::span<const int> resident) override;
  int64_t evaluations() const override;
  const Configurator& configurator() const { return configurator_; }

 private:
  struct Memo;
  Configurator configurator_;
  std::unique_ptr<Memo> memo_;
  SearchProgress* progress_;
  uint64_t id_;  // unique per coster of the process: the per-thread front of the memo tells them apart
};

}  // namespace tilesched::search

#endif  // TILESCHED_SEARCH_COSTER_H_
