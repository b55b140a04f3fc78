// libFuzzer target: ParseProblem on arbitrary bytes: a one-line error or a problem that survives a JSON
// round trip with finite lower bounds (see fuzz_checks.h).
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
  const tilesched::Status status = tilesched::fuzz::CheckProblemInput(input);
  if (!status.ok()) {
    std::fprintf(stderr, "fuzz_problem: invariant broken: %s\n", status.message().c_str());
    std::abort();
  }
  return 0;
}
