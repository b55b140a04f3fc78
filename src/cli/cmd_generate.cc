// `tilesched generate`: writes a generated problem as JSON: a transformer-like stack of
// identical blocks (src/experiment/stack.h), a random layered DAG of bounded degree
// (src/experiment/random_dag.h), the workloads of the scaling measurements; or a model-sized
// transformer (heads unrolled, plain, gated or MoE feed-forward blocks) or deep MLP on any
// hardware (src/experiment/model_family.h), the families of docs/results_large.md.
#include <cstdint>
#include <iostream>
#include <sstream>

#include "args.h"
#include "commands.h"
#include "model_family.h"
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

// Reads several integer options at once: each (name, fallback, lo, hi, destination).
struct IntOption {
  const char* name;
  int64_t fallback, lo, hi;
  int64_t* value;
};
Status ReadInts(const Args& args, std::initializer_list<IntOption> options) {
  for (const IntOption& o : options) {
    auto v = IntInRange(args, o.name, o.fallback, o.lo, o.hi);
    if (!v.ok()) return v.status();
    *o.value = *v;
  }
  return Status::Ok();
}

// --capacity, --bandwidth, --native (defaults: the scaling workloads' 300000, 20, 128).
Result<Hardware> HardwareFromArgs(const Args& args) {
  Hardware hw;
  int64_t native = 128;
  if (Status s = ReadInts(args, {{"capacity", 300000, 1, int64_t{1} << 40, &hw.fast_memory_capacity},
                                 {"native", 128, 1, 1 << 16, &native}});
      !s.ok()) {
    return s;
  }
  hw.native_w = hw.native_h = native;
  auto bandwidth = args.GetDouble("bandwidth", 20);
  if (!bandwidth.ok()) return bandwidth.status();
  if (!(*bandwidth > 0)) return Status::Error("--bandwidth must be positive");
  hw.slow_memory_bandwidth = *bandwidth;
  return hw;
}

Result<Problem> Transformer(const Args& args) {
  experiment::TransformerFamilyOptions o;
  int64_t layers = 0, heads = 0, moe_every = 0, experts = 0, seed = 0;
  if (Status s = ReadInts(args, {{"layers", 2, 1, 10000, &layers},
                                 {"seq", 256, 1, 1 << 24, &o.seq},
                                 {"width", 256, 1, 1 << 24, &o.width},
                                 {"heads", 4, 1, 4096, &heads},
                                 {"moe-every", 0, 0, 10000, &moe_every},
                                 {"experts", 8, 1, 1024, &experts},
                                 {"seed", 1, 0, INT64_MAX, &seed}});
      !s.ok()) {
    return s;
  }
  if (Status s = ReadInts(args, {{"ffn", 4 * o.width, 1, 1 << 26, &o.ffn}}); !s.ok()) return s;
  o.layers = static_cast<int>(layers);
  o.heads = static_cast<int>(heads);
  o.moe_every = static_cast<int>(moe_every);
  o.experts = static_cast<int>(experts);
  o.seed = static_cast<uint64_t>(seed);
  const std::string mlp = args.Get("mlp", "mixed");
  if (mlp == "plain") {
    o.mlp = experiment::MlpKind::kPlain;
  } else if (mlp == "gated") {
    o.mlp = experiment::MlpKind::kGated;
  } else if (mlp != "mixed") {
    return Status::Error("--mlp: expected plain, gated or mixed, got '" + mlp + "'");
  }
  auto hw = HardwareFromArgs(args);
  if (!hw.ok()) return hw.status();
  o.hardware = *hw;
  return experiment::MakeTransformerFamily(o);
}

Result<Problem> DeepMlp(const Args& args) {
  experiment::DeepMlpOptions o;
  int64_t layers = 0, seed = 0;
  if (Status s = ReadInts(args, {{"layers", 32, 1, 100000, &layers},
                                 {"seq", 512, 1, 1 << 24, &o.seq},
                                 {"seed", 1, 0, INT64_MAX, &seed}});
      !s.ok()) {
    return s;
  }
  o.layers = static_cast<int>(layers);
  o.seed = static_cast<uint64_t>(seed);
  if (args.Has("widths")) {
    o.widths.clear();
    std::stringstream list(args.Get("widths"));
    for (std::string item; std::getline(list, item, ',');) {
      char* end = nullptr;
      const long long w = std::strtoll(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || w < 1 || w > (1 << 24)) {
        return Status::Error("--widths: expected positive integers like 256,512, got '" +
                             args.Get("widths") + "'");
      }
      o.widths.push_back(w);
    }
  }
  auto hw = HardwareFromArgs(args);
  if (!hw.ok()) return hw.status();
  o.hardware = *hw;
  return experiment::MakeDeepMlp(o);
}

Result<Problem> Generate(const Args& args) {
  const std::string& kind = args.positional()[0];
  if (kind == "stack") {
    int64_t blocks = 0;
    if (Status s = ReadInts(args, {{"blocks", -1, 1, 100000, &blocks}}); !s.ok()) return s;
    return experiment::MakeTransformerStack(static_cast<int>(blocks), /*seq=*/512, /*width=*/256);
  }
  if (kind == "random") {
    int64_t ops = 0, layer_width = 0, seed = 0;
    if (Status s = ReadInts(args, {{"ops", -1, 1, 1000000, &ops},
                                   {"layer-width", 8, 1, 100000, &layer_width},
                                   {"seed", 1, 0, INT64_MAX, &seed}});
        !s.ok()) {
      return s;
    }
    experiment::RandomDagOptions options;
    options.ops = static_cast<int>(ops);
    options.layer_width = static_cast<int>(layer_width);
    options.seed = static_cast<uint64_t>(seed);
    return experiment::MakeRandomLayeredDag(options);
  }
  if (kind == "transformer") return Transformer(args);
  if (kind == "mlp") return DeepMlp(args);
  return Status::Error("unknown kind '" + kind + "' (known: stack, random, transformer, mlp)");
}

}  // namespace

int RunGenerate(int argc, char** argv, int first) {
  Args args("generate", "stack|random|transformer|mlp [options] [-o OUT.json]",
            "Writes a generated problem. 'stack': N identical transformer-like blocks of 15 ops\n"
            "(docs/scaling.md; sequence 512, width 256). 'random': a random layered DAG of N ops\n"
            "on 256x256 tensors, half MatMul, each op reading outputs of the 2 layers before it\n"
            "(docs/scaling.md). 'transformer': layers of attention with the heads unrolled and a\n"
            "plain, gated or mixture-of-experts feed-forward block, keys and values from an\n"
            "encoder memory given as input; 'mlp': a deep MLP of random widths. Both of these\n"
            "cost their ops as `tilesched import` does on configs/hardware/contest_like.json and\n"
            "take the hardware as options (src/experiment/model_family.h; scripts/make_large_suite.sh\n"
            "writes the model-sized suite of data/large from them).\n"
            "Hardware defaults: fast memory 300000, bandwidth 20, native tile 128x128.",
            {{"blocks", "N", "stack: number of blocks (1 to 100000)"},
             {"ops", "N", "random: number of ops (1 to 1000000)"},
             {"layer-width", "W", "random: ops per layer (default 8)"},
             {"layers", "N", "transformer, mlp: layers (default 2; mlp 32)"},
             {"seq", "S", "transformer, mlp: sequence length, the rows (default 256; mlp 512)"},
             {"width", "D", "transformer: model width (default 256)"},
             {"heads", "H", "transformer: attention heads, dividing the width (default 4)"},
             {"ffn", "F", "transformer: feed-forward width (default 4 x width)"},
             {"mlp", "KIND", "transformer: feed-forward blocks plain, gated or mixed (default mixed: "
                             "drawn per layer by the seed)"},
             {"moe-every", "N", "transformer: every N-th layer's block is a mixture of experts"},
             {"experts", "E", "transformer: experts of an MoE block (default 8)"},
             {"widths", "LIST", "mlp: the widths a layer's output is drawn from (default 256,512,1024)"},
             {"seed", "S", "random, transformer, mlp: seed (default 1)"},
             {"capacity", "C", "fast memory capacity in elements (default 300000)"},
             {"bandwidth", "B", "slow memory bandwidth in elements per time unit (default 20)"},
             {"native", "N", "native tile edge (default 128)"},
             {"output", "OUT.json", "write the problem here (default: stdout)", "-o"}},
            1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  if (Status s = CheckOutputOptions(args, {"output"}); !s.ok()) return Fail("generate", s.message(), kExitUsage);
  auto problem = Generate(args);
  if (!problem.ok()) return Fail("generate", problem.status().message(), kExitUsage);
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
