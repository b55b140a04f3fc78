// Search options: defaults, then config file, then flags.
#include "search_args.h"

#include "tilesched/io.h"

namespace tilesched::cli {

std::vector<Option> SearchOptionFlags() {
  std::vector<Option> options = {
      {"strategy", "S", "greedy | beam | lns | anneal | portfolio | exact | cover (default portfolio; "
                        "lns and anneal alone start from one op per subgraph, not from greedy)"},
      {"time-limit", "SEC", "wall-clock budget in seconds"},
      {"iterations", "N", "work budget instead of time (deterministic for a seed)"},
      {"threads", "N", "worker threads (default: all cores)"},
      {"seed", "N", "random seed (default 1)"},
      {"beam-width", "N", "beam states per layer (default 16)"},
      {"gap", "G", "stop once within relative gap G of the lower bound (default 0: when proven "
                   "optimal; negative: never)"},
      {"tier2-first", "SEC", "before searching, tier 2 of the bound (the covering LP) for up to SEC "
                             "seconds, at most half the time limit; the search stops once it meets "
                             "that bound (default 0: off)"},
      {"config", "FILE", "search preset (JSON object; keys as in configs/README.md)"},
  };
  for (const Option& o : ModeOptions()) options.push_back(o);
  return options;
}

Status LoadSearchConfig(const std::string& path, search::SearchOptions* options) {
  return ApplyConfigFile(path, "a search preset", [options](const std::string& key, const std::string& value) {
    return search::ApplyConfigEntry(key, value, options);
  });
}

Result<search::SearchOptions> SearchOptionsFromArgs(const Args& args, search::SearchOptions base) {
  search::SearchOptions options = base;
  if (args.Has("config")) {
    if (Status s = LoadSearchConfig(args.Get("config"), &options); !s.ok()) return s;
  }
  if (args.Has("strategy")) {
    const std::string name = args.Get("strategy");
    bool known = false;
    for (const std::string& s : search::StrategyNames()) known |= s == name;
    if (!known) {
      return Status::Error("--strategy: unknown strategy '" + name + "' (" +
                           search::StrategyList() + ")");
    }
    options.strategy = name;
  }
  auto time_limit = args.GetDouble("time-limit", options.time_limit);
  if (!time_limit.ok()) return time_limit.status();
  if (*time_limit < 0) return Status::Error("--time-limit must not be negative");
  options.time_limit = *time_limit;
  auto iterations = args.GetInt("iterations", options.iterations);
  if (!iterations.ok()) return iterations.status();
  if (*iterations < 0) return Status::Error("--iterations must not be negative");
  options.iterations = *iterations;
  auto threads = args.GetInt("threads", options.threads);
  if (!threads.ok()) return threads.status();
  if (*threads < 0 || *threads > 1024) return Status::Error("--threads must be in [0, 1024]");
  options.threads = static_cast<int>(*threads);
  auto seed = args.GetInt("seed", static_cast<int64_t>(options.seed));
  if (!seed.ok()) return seed.status();
  if (*seed < 0) return Status::Error("--seed must not be negative");
  options.seed = static_cast<uint64_t>(*seed);
  auto width = args.GetInt("beam-width", options.beam_width);
  if (!width.ok()) return width.status();
  if (*width < 1) return Status::Error("--beam-width must be at least 1");
  options.beam_width = static_cast<int>(*width);
  auto gap = args.GetDouble("gap", options.gap);
  if (!gap.ok()) return gap.status();
  options.gap = *gap;
  auto tier2 = args.GetDouble("tier2-first", options.tier2_first);
  if (!tier2.ok()) return tier2.status();
  if (*tier2 < 0) return Status::Error("--tier2-first must not be negative");
  options.tier2_first = *tier2;
  auto modes = ModesFromArgs(args, options.modes);
  if (!modes.ok()) return modes.status();
  options.modes = *modes;
  return options;
}

}  // namespace tilesched::cli
