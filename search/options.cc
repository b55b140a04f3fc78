// Strict config-key handling for SearchOptions.
#include "tilesched/search.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>

namespace tilesched::search {

namespace {

// Time limits of any finite size are accepted (the search's Budget holds the longest ones).
constexpr double kAnySeconds = std::numeric_limits<double>::max();

Result<int64_t> ParseInt(const std::string& key, const std::string& text, int64_t lo, int64_t hi) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::Error(key + ": expected an integer, got " + text);
  }
  if (value < lo || value > hi) {
    return Status::Error(key + ": " + text + " is outside [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "]");
  }
  return value;
}

Result<double> ParseDouble(const std::string& key, const std::string& text, double lo, double hi) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return Status::Error(key + ": expected a number, got " + text);
  }
  if (value < lo || value > hi) return Status::Error(key + ": " + text + " is out of range");
  return value;
}

// Strips the quotes of a JSON string value.
Result<std::string> ParseString(const std::string& key, const std::string& text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') {
    return Status::Error(key + ": expected a string, got " + text);
  }
  return text.substr(1, text.size() - 2);
}

struct KeySpec {
  std::string help;
  std::function<Status(const std::string&, SearchOptions*)> apply;
};

template <typename T>
std::function<Status(const std::string&, SearchOptions*)> IntSetter(std::string key, T SearchOptions::*field,
                                                                    int64_t lo, int64_t hi) {
  return [key, field, lo, hi](const std::string& text, SearchOptions* o) {
    auto v = ParseInt(key, text, lo, hi);
    if (!v.ok()) return v.status();
    o->*field = static_cast<T>(*v);
    return Status::Ok();
  };
}

std::function<Status(const std::string&, SearchOptions*)> DoubleSetter(std::string key,
                                                                       double SearchOptions::*field,
                                                                       double lo, double hi) {
  return [key, field, lo, hi](const std::string& text, SearchOptions* o) {
    auto v = ParseDouble(key, text, lo, hi);
    if (!v.ok()) return v.status();
    o->*field = *v;
    return Status::Ok();
  };
}

std::function<Status(const std::string&, SearchOptions*)> ConfigureSetter(std::string key,
                                                                          int ConfigureOptions::*field) {
  return [key, field](const std::string& text, SearchOptions* o) {
    auto v = ParseInt(key, text, 1, 4096);
    if (!v.ok()) return v.status();
    o->configure.*field = static_cast<int>(*v);
    return Status::Ok();
  };
}

// A cost-model switch given as a JSON string, e.g. "rules": "algebra".
template <typename T>
std::function<Status(const std::string&, SearchOptions*)> ModeSetter(std::string key,
                                                                     Result<T> (*parse)(const std::string&),
                                                                     T CostModes::*field) {
  return [key, parse, field](const std::string& text, SearchOptions* o) {
    auto name = ParseString(key, text);
    if (!name.ok()) return name.status();
    auto value = parse(*name);
    if (!value.ok()) return value.status();
    o->modes.*field = *value;
    return Status::Ok();
  };
}

const std::map<std::string, KeySpec>& Keys() {
  static const std::map<std::string, KeySpec> keys = {
      {"strategy",
       {"greedy | beam | lns | anneal | portfolio | exact | cover",
        [](const std::string& text, SearchOptions* o) {
          auto v = ParseString("strategy", text);
          if (!v.ok()) return v.status();
          for (const std::string& name : StrategyNames()) {
            if (name == *v) {
              o->strategy = *v;
              return Status::Ok();
            }
          }
          return Status::Error("strategy: unknown strategy '" + *v + "'");
        }}},
      {"time_limit", {"seconds of wall clock (0 = none)", DoubleSetter("time_limit", &SearchOptions::time_limit, 0, kAnySeconds)}},
      {"iterations", {"work budget per strategy (0 = until the time limit)", IntSetter("iterations", &SearchOptions::iterations, 0, int64_t{1} << 40)}},
      {"gap", {"stop once within this relative gap of the lower bound (0 = when proven optimal, negative = never)", DoubleSetter("gap", &SearchOptions::gap, -1, 1e6)}},
      {"tier2_first", {"seconds of tier 2 of the bound before the search (0 = off; at most half the time limit)", DoubleSetter("tier2_first", &SearchOptions::tier2_first, 0, kAnySeconds)}},
      {"split_tier2", {"share of the time left for tier 2 after greedy, of the whole problem within its reach, else by link components (0 = off; only with a time limit)", DoubleSetter("split_tier2", &SearchOptions::split_tier2, 0, 0.9)}},
      {"threads", {"worker threads (0 = all)", IntSetter("threads", &SearchOptions::threads, 0, 1024)}},
      {"seed", {"random seed", IntSetter("seed", &SearchOptions::seed, 0, int64_t{1} << 62)}},
      {"greedy_restarts", {"greedy fusions with perturbed benefits before LNS (portfolio; 0 = off)", IntSetter("greedy_restarts", &SearchOptions::greedy_restarts, 0, 1 << 20)}},
      {"greedy_noise", {"spread of the restarts' benefit factors exp(noise x N(0, 1))", DoubleSetter("greedy_noise", &SearchOptions::greedy_noise, 0, 10)}},
      {"beam_width", {"beam states kept per layer", IntSetter("beam_width", &SearchOptions::beam_width, 1, 1 << 20)}},
      {"beam_max_width", {"widest beam the portfolio tries", IntSetter("beam_max_width", &SearchOptions::beam_max_width, 1, 1 << 20)}},
      {"anchors", {"ready ops a beam state may start its next subgraph from", IntSetter("anchors", &SearchOptions::anchors, 1, 64)}},
      {"max_subgraph_ops", {"largest enumerated subgraph (ops)", IntSetter("max_subgraph_ops", &SearchOptions::max_subgraph_ops, 1, 64)}},
      {"max_candidates", {"cap on all enumerated subgraphs", IntSetter("max_candidates", &SearchOptions::max_candidates, 1, 1 << 30)}},
      {"max_candidates_per_op", {"cap on enumerated subgraphs containing one op", IntSetter("max_candidates_per_op", &SearchOptions::max_candidates_per_op, 1, 1 << 20)}},
      {"lns_width", {"beam width inside an LNS window", IntSetter("lns_width", &SearchOptions::lns_width, 1, 1 << 20)}},
      {"lns_max_stages", {"longest LNS window (subgraphs)", IntSetter("lns_max_stages", &SearchOptions::lns_max_stages, 1, 1 << 20)}},
      {"lns_max_ops", {"most ops in an LNS window", IntSetter("lns_max_ops", &SearchOptions::lns_max_ops, 1, 1 << 20)}},
      {"anneal_chains", {"parallel annealing chains", IntSetter("anneal_chains", &SearchOptions::anneal_chains, 1, 1024)}},
      {"anneal_start_temp", {"initial temperature relative to the latency", DoubleSetter("anneal_start_temp", &SearchOptions::anneal_start_temp, 0, 10)}},
      {"anneal_restart", {"moves without a new best before a chain restarts from its best", IntSetter("anneal_restart", &SearchOptions::anneal_restart, 1, int64_t{1} << 40)}},
      {"anneal_end_temp", {"final temperature relative to the latency", DoubleSetter("anneal_end_temp", &SearchOptions::anneal_end_temp, 0, 10)}},
      {"tile_sizes", {"balanced tile sizes tried per dimension before halving", ConfigureSetter("tile_sizes", &ConfigureOptions::max_sizes)}},
      {"k_values", {"balanced split-k factors tried before halving", ConfigureSetter("k_values", &ConfigureOptions::max_ks)}},
      {"rules", {"contest | algebra", ModeSetter("rules", ParseRules, &CostModes::rules)}},
      {"matmul_reduction", {"full_k | native_k", ModeSetter("matmul_reduction", ParseMatmulReduction, &CostModes::matmul_reduction)}},
      {"k_limit", {"native | reduction", ModeSetter("k_limit", ParseKLimit, &CostModes::k_limit)}},
  };
  return keys;
}

}  // namespace

Status ApplyConfigEntry(const std::string& key, const std::string& value, SearchOptions* options) {
  const auto& keys = Keys();
  auto it = keys.find(key);
  if (it == keys.end()) {
    std::string known;
    for (const auto& [name, spec] : keys) known += (known.empty() ? "" : ", ") + name;
    return Status::Error("unknown config key '" + key + "' (known: " + known + ")");
  }
  return it->second.apply(value, options);
}

std::string ConfigKeysHelp() {
  std::string out;
  for (const auto& [name, spec] : Keys()) out += "  " + name + ": " + spec.help + "\n";
  return out;
}

}  // namespace tilesched::search
