// Sweep definitions and settings -> grid and search options.
#include "sweep_config.h"

#include <cmath>
#include <cstdlib>

#include "tilesched/file_util.h"
#include "tilesched/flat_json.h"
#include "tilesched/hardware.h"
#include "tilesched/io.h"

namespace tilesched::sweep {

namespace {

std::string KeyList() {
  std::string list;
  for (const std::string& key : SweepDefinitionKeys()) list += (list.empty() ? "" : ", ") + key;
  return list;
}

SweepSetting* SettingFor(const std::string& key, SweepSettings* s) {
  if (key == "capacity") return &s->capacity;
  if (key == "bandwidth") return &s->bandwidth;
  if (key == "native") return &s->native;
  if (key == "matmul_throughput") return &s->matmul_throughput;
  if (key == "vector_throughput") return &s->vector_throughput;
  if (key == "rules") return &s->rules;
  if (key == "matmul_reduction") return &s->matmul_reduction;
  if (key == "k_limit") return &s->k_limit;
  if (key == "seeds") return &s->seeds;
  if (key == "strategy") return &s->strategy;
  if (key == "time_limit") return &s->time_limit;
  if (key == "iterations") return &s->iterations;
  if (key == "format") return &s->format;
  if (key == "search_config") return &s->search_config;
  return nullptr;
}

bool IsSingleValued(const std::string& key) {
  return key == "strategy" || key == "time_limit" || key == "iterations" || key == "format" ||
         key == "search_config";
}

Result<double> ParseSeconds(const SweepSetting& setting) {
  char* end = nullptr;
  const double value = std::strtod(setting.text.c_str(), &end);
  if (setting.text.empty() || end != setting.text.c_str() + setting.text.size() ||
      !std::isfinite(value) || value < 0) {
    return Status::Error(setting.source + ": expected a non-negative number of seconds, got '" +
                         setting.text + "'");
  }
  return value;
}

}  // namespace

const std::vector<std::string>& SweepDefinitionKeys() {
  static const std::vector<std::string> keys = {
      "description", "problems",  "capacity",   "bandwidth", "native",
      "matmul_throughput", "vector_throughput",
      "rules",       "matmul_reduction", "k_limit", "seeds", "strategy",
      "time_limit",  "iterations", "format", "search_config"};
  return keys;
}

Status ApplySweepDefinition(const std::string& text, const std::string& name,
                            SweepSettings* settings) {
  auto entries = ParseListConfig(text);
  if (!entries.ok()) return entries.status().WithContext(name + ": ");
  for (const ListConfigEntry& e : *entries) {
    const std::string where = name + ": " + e.key;
    if (e.key == "description") continue;  // free text for people reading the file
    if (e.key == "problems") {
      if (e.items.empty()) return Status::Error(where + ": empty list");
      settings->problems = e.items;
      continue;
    }
    SweepSetting* setting = SettingFor(e.key, settings);
    if (!setting) return Status::Error(where + ": unknown key (known: " + KeyList() + ")");
    if (IsSingleValued(e.key) && e.is_list) {
      return Status::Error(where + ": expected a single value, got a list");
    }
    if (e.items.empty()) return Status::Error(where + ": empty list");
    std::string joined;
    for (const std::string& item : e.items) joined += (joined.empty() ? "" : ",") + item;
    *setting = {joined, where};
  }
  return Status::Ok();
}

Status LoadSweepPlanFile(const std::string& path, SweepSettings* settings) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  if (Status s = ApplySweepDefinition(*text, path, settings); !s.ok()) {
    const std::string kind = JsonFileKind(*text);
    if (!kind.empty() && kind != "a sweep plan") {
      return Status::Error(path + ": this is " + kind + ", not a sweep plan");
    }
    return s;
  }
  return Status::Ok();
}

Result<SweepPlan> BuildSweepPlan(const SweepSettings& settings,
                                 const search::SearchOptions& base) {
  SweepPlan plan;
  SweepGrid& grid = plan.grid;
  grid.problems = settings.problems;
  // Unswept modes and seed are the preset's.
  grid.rules = {base.modes.rules};
  grid.matmul_reduction = {base.modes.matmul_reduction};
  grid.k_limit = {base.modes.k_limit};
  grid.seeds = {base.seed};
  if (settings.capacity.set()) {
    auto v = ParseIntegerAxis(settings.capacity.text, settings.capacity.source, /*min_value=*/1);
    if (!v.ok()) return v.status();
    grid.capacity = *v;
  }
  if (settings.bandwidth.set()) {
    auto v = ParseNumberAxis(settings.bandwidth.text, settings.bandwidth.source);
    if (!v.ok()) return v.status();
    grid.bandwidth = *v;
  }
  if (settings.native.set()) {
    auto v = ParseIntegerAxis(settings.native.text, settings.native.source, /*min_value=*/1);
    if (!v.ok()) return v.status();
    grid.native = *v;
  }
  for (auto [setting, axis] : {std::pair{&settings.matmul_throughput, &grid.matmul_throughput},
                               std::pair{&settings.vector_throughput, &grid.vector_throughput}}) {
    if (!setting->set()) continue;
    auto v = ParseNumberAxis(setting->text, setting->source);
    if (!v.ok()) return v.status();
    *axis = *v;
  }
  if (settings.rules.set()) {
    auto v = ParseRulesAxis(settings.rules.text, settings.rules.source);
    if (!v.ok()) return v.status();
    grid.rules = *v;
  }
  if (settings.matmul_reduction.set()) {
    auto v = ParseMatmulReductionAxis(settings.matmul_reduction.text,
                                      settings.matmul_reduction.source);
    if (!v.ok()) return v.status();
    grid.matmul_reduction = *v;
  }
  if (settings.k_limit.set()) {
    auto v = ParseKLimitAxis(settings.k_limit.text, settings.k_limit.source);
    if (!v.ok()) return v.status();
    grid.k_limit = *v;
  }
  if (settings.seeds.set()) {
    auto v = ParseIntegerAxis(settings.seeds.text, settings.seeds.source, /*min_value=*/0);
    if (!v.ok()) return v.status();
    grid.seeds.assign(v->begin(), v->end());
  }
  if (Status s = grid.CheckSize(); !s.ok()) return s;

  search::SearchOptions& search = plan.search;
  search = base;
  search.threads = 0;
  if (settings.strategy.set()) {
    bool known = false;
    std::string names;
    for (const std::string& s : search::StrategyNames()) {
      known |= s == settings.strategy.text;
      names += (names.empty() ? "" : ", ") + s;
    }
    if (!known) {
      return Status::Error(settings.strategy.source + ": unknown strategy '" +
                           settings.strategy.text + "' (" + names + ")");
    }
    search.strategy = settings.strategy.text;
  }
  if (settings.iterations.set()) {
    auto v = ParseIntegerAxis(settings.iterations.text, settings.iterations.source,
                              /*min_value=*/1);
    if (!v.ok()) return v.status();
    if (v->size() != 1) {
      return Status::Error(settings.iterations.source + ": expected one value");
    }
    search.iterations = v->front();
  }
  if (settings.time_limit.set()) {
    auto v = ParseSeconds(settings.time_limit);
    if (!v.ok()) return v.status();
    search.time_limit = *v;
  } else if (settings.iterations.set()) {
    search.time_limit = 0;  // a work budget alone: deterministic rows
  } else if (search.iterations == 0 && search.time_limit == 0) {
    search.time_limit = kDefaultPointSeconds;
  }
  if (search.time_limit <= 0 && search.iterations <= 0 && search.strategy != "greedy" &&
      search.strategy != "beam") {
    return Status::Error("a time limit of 0 needs --iterations (a work budget)");
  }
  if (settings.format.set()) {
    auto v = ParseSweepFormat(settings.format.text);
    if (!v.ok()) return v.status().WithContext(settings.format.source + ": ");
    plan.format = *v;
    plan.format_set = true;
  }
  return plan;
}

Result<SweepPlan> AssembleSweepPlan(const SweepSettings& settings, const std::string& hardware) {
  if (settings.problems.empty()) {
    return Status::Error("no problem files: give PROBLEM.json arguments or a --plan with problems");
  }
  search::SearchOptions base;
  if (settings.search_config.set()) {
    const Status s = ApplyConfigFile(
        settings.search_config.text, "a search preset",
        [&base](const std::string& key, const std::string& value) {
          return search::ApplyConfigEntry(key, value, &base);
        });
    if (!s.ok()) return s;
  }
  auto plan = BuildSweepPlan(settings, base);
  if (!plan.ok()) return plan.status();
  SweepGrid& grid = plan.value().grid;
  if (!grid.matmul_throughput.empty() || !grid.vector_throughput.empty()) {
    if (hardware.empty()) {
      return Status::Error("--matmul-throughput and --vector-throughput need --hardware HW.json");
    }
    auto hw = LoadHardwareDescription(hardware);
    if (!hw.ok()) return hw.status();
    grid.matmul_reference = hw->matmul_macs_per_time;
    grid.vector_reference = hw->vector_elements_per_time;
  }
  grid.hardware = hardware;
  return plan;
}

}  // namespace tilesched::sweep
