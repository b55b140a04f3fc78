// Process clock from /proc: the process's start time in clock ticks since boot, against
// CLOCK_BOOTTIME.
#include "process_clock.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace tilesched::cli {

namespace {

// Kept for the final Evaluate() of the best schedule and its write + fsync + rename
// (measured 1-20 ms on a loaded disk; docs/scaling.md).
constexpr double kFinalWriteReserveSeconds = 0.02;
// And per op, for the work after the deadline that grows with the graph: on a 960-op stack at
// load 10, freeing the candidate enumeration's sets took 15-30 ms after the deadline
// (docs/scaling.md, "Short limits"); 20 us per op is 19 ms there, 3 ms on the 152-op benchmarks.
constexpr double kAfterDeadlinePerOpSeconds = 20e-6;

}  // namespace

double SecondsSinceProcessStart() {
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Field 2 (the command name) may hold spaces: fields are counted after its closing ')'.
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  // Field 22 (starttime) is the 20th after the name: state is field 3.
  for (int i = 3; i < 22 && fields >> field; ++i) {
  }
  unsigned long long start_ticks = 0;
  if (!(fields >> start_ticks)) return 0;
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  timespec now{};
  if (ticks_per_second <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return 0;
  const double since_boot = static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
  return std::max(0.0, since_boot - static_cast<double>(start_ticks) / static_cast<double>(ticks_per_second));
}

double SearchSeconds(double limit, int ops) {
  if (limit <= 0) return limit;
  return std::max(0.5 * limit, limit - SecondsSinceProcessStart() - kFinalWriteReserveSeconds -
                                   kAfterDeadlinePerOpSeconds * std::max(0, ops));
}

}  // namespace tilesched::cli
