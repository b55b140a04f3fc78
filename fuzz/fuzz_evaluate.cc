// libFuzzer target: a problem and a solution joined by "\n----\n", parsed and evaluated in three
// cost-mode combinations; a valid schedule must obey the latency invariants (see fuzz_checks.h).
//
// Entry point: LLVMFuzzerTestOneInput. A broken invariant prints what broke and aborts, so
// libFuzzer saves the input as a crasher.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const tilesched::Status status = tilesched::fuzz::CheckEvaluateInput(input);
  if (!status.ok()) {
    std::fprintf(stderr, "fuzz_evaluate: invariant broken: %s\n", status.message().c_str());
    std::abort();
  }
  return 0;
}
