// `tilesched generate`: writes a generated problem as JSON: a transformer-like stack of
// identical blocks (src/experiment/stack.h) or a random layered DAG of bounded degree
// (src/experiment/random_dag.h), the workloads of the scaling measurements.
#include <cstdint>
#include <iostream>

#include "args.h"
#include "commands.h"
#include "random_dag.h"
#include "stack.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"

namespace tilesched::cli {

namespace {

// The --NAME integer in [lo, hi] (fallback when absent), or the usage error's message.
Result<int64_t> IntInRange(const Args& args, const std::string& name, int64_t fallback,
                           int64_t lo, int64_t hi) {
  auto value = args.GetInt(name, fallback);
  if (!value.ok()) return value.status();
  if (*value < lo || *value > hi) {
    return Status::Error("--" + name + ": expected " + std::to_string(lo) + " to " +
                         std::to_string(hi) + ", got " + std::to_string(*value));
  }
  return *value;
}

}  // namespace

int RunGenerate(int argc, char** argv, int first) {
  Args args("generate", "stack --blocks N | random --ops N [options] [-o OUT.json]",
            "Writes a generated problem (see docs/scaling.md). 'stack': N identical\n"
            "transformer-like blocks of 15 ops (norm, Q, K-transposed and V projections, scores,\n"
            "softmax, scores x V, output projection, residual, norm, gated 4x MLP, residual;\n"
            "sequence 512, width 256). 'random': a random layered DAG of N ops on 256x256\n"
            "tensors, half MatMul, each op reading outputs of the 2 layers before it, at most\n"
            "2 inputs per op and 3 readers per tensor. Both: fast memory 300000, bandwidth 20,\n"
            "native tile 128x128.",
            {{"blocks", "N", "stack: number of blocks (1 to 100000)", ""},
             {"ops", "N", "random: number of ops (1 to 1000000)", ""},
             {"layer-width", "W", "random: ops per layer (default 8)", ""},
             {"seed", "S", "random: seed (default 1)", ""},
             {"output", "OUT.json", "write the problem here (default: stdout)", "-o"}},
            1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  if (Status s = CheckOutputOptions(args, {"output"}); !s.ok()) return Fail("generate", s.message(), kExitUsage);
  const std::string& kind = args.positional()[0];
  Result<Problem> problem = Status::Error("");
  if (kind == "stack") {
    auto blocks = IntInRange(args, "blocks", -1, 1, 100000);
    if (!blocks.ok()) return Fail("generate", blocks.status().message(), kExitUsage);
    problem = experiment::MakeTransformerStack(static_cast<int>(*blocks), /*seq=*/512, /*width=*/256);
  } else if (kind == "random") {
    auto ops = IntInRange(args, "ops", -1, 1, 1000000);
    if (!ops.ok()) return Fail("generate", ops.status().message(), kExitUsage);
    auto layer_width = IntInRange(args, "layer-width", 8, 1, 100000);
    if (!layer_width.ok()) return Fail("generate", layer_width.status().message(), kExitUsage);
    auto seed = IntInRange(args, "seed", 1, 0, INT64_MAX);
    if (!seed.ok()) return Fail("generate", seed.status().message(), kExitUsage);
    experiment::RandomDagOptions options;
    options.ops = static_cast<int>(*ops);
    options.layer_width = static_cast<int>(*layer_width);
    options.seed = static_cast<uint64_t>(*seed);
    problem = experiment::MakeRandomLayeredDag(options);
  } else {
    return Fail("generate", "unknown kind '" + kind + "' (known: stack, random)", kExitUsage);
  }
  if (!problem.ok()) return Fail("generate", problem.status().message(), kExitInternal);
  const std::string json = ProblemToJson(*problem);
  if (!args.Has("output")) {
    std::cout << json;
    return kExitOk;
  }
  if (Status s = WriteFileAtomic(args.Get("output"), json); !s.ok()) {
    return Fail("generate", s.message(), kExitUsage);
  }
  return kExitOk;
}

}  // namespace tilesched::cli
