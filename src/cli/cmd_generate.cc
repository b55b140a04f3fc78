// `tilesched generate stack`: writes a transformer-like stack of identical blocks (the
// workload of the scaling measurements, src/experiment/stack.h) as a problem JSON.
#include <iostream>

#include "args.h"
#include "commands.h"
#include "stack.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"

namespace tilesched::cli {

int RunGenerate(int argc, char** argv, int first) {
  Args args("generate", "stack --blocks N [-o OUT.json]",
            "Writes a generated problem. 'stack': N identical transformer-like blocks of 15 ops\n"
            "(norm, Q, K-transposed and V projections, scores, softmax, scores x V, output\n"
            "projection, residual, norm, gated 4x MLP, residual; sequence 512, width 256),\n"
            "fast memory 300000, bandwidth 20, native tile 128x128. See docs/scaling.md.\n"
            "Exit status: 0 written, 2 usage error.",
            {{"blocks", "N", "number of blocks (1 to 100000)", ""},
             {"output", "OUT.json", "write the problem here (default: stdout)", "-o"}},
            1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  if (args.positional()[0] != "stack") {
    return Fail("generate", "unknown kind '" + args.positional()[0] + "' (known: stack)", kExitUsage);
  }
  auto blocks = args.GetInt("blocks", -1);
  if (!blocks.ok()) return Fail("generate", blocks.status().message(), kExitUsage);
  if (*blocks < 1 || *blocks > 100000) {
    return Fail("generate", "--blocks: expected 1 to 100000, got " + std::to_string(*blocks),
                kExitUsage);
  }
  auto problem = experiment::MakeTransformerStack(static_cast<int>(*blocks), /*seq=*/512, /*width=*/256);
  if (!problem.ok()) return Fail("generate", problem.status().message(), kExitInternal);
  const std::string json = ProblemToJson(*problem);
  if (!args.Has("output")) {
    std::cout << json;
    return kExitOk;
  }
  if (args.Get("output").empty()) return Fail("generate", "--output: expected a file name", kExitUsage);
  if (Status s = WriteFileAtomic(args.Get("output"), json); !s.ok()) {
    return Fail("generate", s.message(), kExitUsage);
  }
  return kExitOk;
}

}  // namespace tilesched::cli
