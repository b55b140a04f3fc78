// Contest budgets (the tiers of the MLSys 2026 harness).
#include "tilesched/contest.h"

#include <algorithm>

namespace tilesched {

double ContestTierSeconds(int ops) {
  return ops <= 5 ? 2 : ops <= 20 ? 5 : ops <= 40 ? 15 : ops <= 70 ? 30 : ops <= 110 ? 60 : 120;
}

double ContestTimeLimit(double contest_seconds) {
  return std::max(contest_seconds - std::max(0.3, 0.05 * contest_seconds), 0.2);
}

}  // namespace tilesched
