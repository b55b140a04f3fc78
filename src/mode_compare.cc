// Multi-mode evaluation: combinations of SPEC.md section 7 switches, one Evaluate() each.
#include "tilesched/mode_compare.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

namespace tilesched {

namespace {

using json = nlohmann::ordered_json;

// Splits "a,b" and parses each value; an empty text keeps `fallback`.
template <typename T, typename Parse>
Result<std::vector<T>> ParseList(const std::string& text, const std::string& flag, T fallback,
                                 Parse parse) {
  if (text.empty()) return std::vector<T>{fallback};
  std::vector<T> values;
  size_t begin = 0;
  while (true) {
    const size_t end = std::min(text.find(',', begin), text.size());
    auto value = parse(text.substr(begin, end - begin));
    if (!value.ok()) return value.status().WithContext(flag + ": ");
    if (std::find(values.begin(), values.end(), *value) != values.end()) {
      return Status::Error(flag + ": '" + text.substr(begin, end - begin) + "' is listed twice");
    }
    values.push_back(*value);
    if (end == text.size()) break;
    begin = end + 1;
  }
  return values;
}

// The decimal number that starts at `at`, or -1.
int NumberAfter(const std::string& text, size_t at) {
  size_t i = at;
  int value = 0;
  bool any = false;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    value = value * 10 + (text[i] - '0');
    any = true;
    ++i;
  }
  return any ? value : -1;
}

}  // namespace

Result<std::vector<CostModes>> ModeCombinations(const std::string& rules,
                                                const std::string& matmul_reduction,
                                                const std::string& k_limit,
                                                const CostModes& base) {
  auto r = ParseList<Rules>(rules, "--rules", base.rules, ParseRules);
  if (!r.ok()) return r.status();
  auto m = ParseList<MatmulReduction>(matmul_reduction, "--matmul-reduction",
                                      base.matmul_reduction, ParseMatmulReduction);
  if (!m.ok()) return m.status();
  auto k = ParseList<KLimit>(k_limit, "--k-limit", base.k_limit, ParseKLimit);
  if (!k.ok()) return k.status();
  std::vector<CostModes> out;
  for (Rules a : *r) {
    for (MatmulReduction b : *m) {
      for (KLimit c : *k) out.push_back({a, b, c});
    }
  }
  return out;
}

std::vector<ModeResult> EvaluateModes(const Problem& problem, const Schedule& schedule,
                                      std::span<const CostModes> modes) {
  std::vector<ModeResult> out;
  for (const CostModes& m : modes) out.push_back({m, Evaluate(problem, schedule, m)});
  return out;
}

bool AllValid(std::span<const ModeResult> results) {
  return std::all_of(results.begin(), results.end(),
                     [](const ModeResult& r) { return r.evaluation.ok(); });
}

FailureSite DescribeFailure(const std::string& message) {
  FailureSite site;
  // Rejections end with "(rule 3.8)" or "(rules=contest, SPEC 7b)" (evaluate.cc, cost_model.cc).
  for (const std::string marker : {"(rule ", "SPEC "}) {
    const size_t at = message.rfind(marker);
    if (at == std::string::npos) continue;
    const size_t begin = marker[0] == '(' ? at + 1 : at;
    const size_t end = message.find_first_of(";)", begin);
    site.rule = message.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    break;
  }
  size_t rest = 0;
  if (message.rfind("subgraph ", 0) == 0) {
    const int s = NumberAfter(message, 9);
    if (s >= 0) site.subgraph = s;
    rest = message.find(':');
    rest = rest == std::string::npos ? message.size() : rest;
  }
  size_t best = std::string::npos;
  for (const std::string word : {"op ", "tensor ", "tile "}) {
    for (size_t at = message.find(word, rest); at != std::string::npos;
         at = message.find(word, at + 1)) {
      const bool word_start = at == 0 || !std::isalpha(static_cast<unsigned char>(message[at - 1]));
      const int id = NumberAfter(message, at + word.size());
      if (word_start && id >= 0) {
        if (word == "op ") site.op = id;
        if (word == "tensor ") site.tensor = id;
        if (at < best) {
          best = at;
          site.object = word + std::to_string(id);
        }
        break;
      }
    }
  }
  return site;
}

const Evaluation* FirstValid(std::span<const ModeResult> results) {
  for (const ModeResult& r : results) {
    if (r.evaluation.ok()) return &*r.evaluation;
  }
  return nullptr;
}

std::string ModeComparisonToJson(std::span<const ModeResult> results) {
  json modes = json::array();
  const Evaluation* first = FirstValid(results);
  for (const ModeResult& r : results) {
    json m;
    m["rules"] = RulesName(r.modes.rules);
    m["matmul_reduction"] = MatmulReductionName(r.modes.matmul_reduction);
    m["k_limit"] = KLimitName(r.modes.k_limit);
    m["valid"] = r.evaluation.ok();
    if (r.evaluation.ok()) {
      const Evaluation& ev = *r.evaluation;
      m["error"] = nullptr;
      m["rule"] = nullptr;
      m["subgraph"] = nullptr;
      m["object"] = nullptr;
      m["total"] = ev.total;
      m["difference"] = first ? json(ev.total - first->total) : json(nullptr);
      m["ratio"] = first && first->total > 0 ? json(ev.total / first->total) : json(nullptr);
      m["recomputation_time"] = RecomputationTime(ev.op_work);
    } else {
      const std::string message = r.evaluation.status().message();
      const FailureSite site = DescribeFailure(message);
      m["error"] = message;
      m["rule"] = site.rule.empty() ? json(nullptr) : json(site.rule);
      m["subgraph"] = site.subgraph ? json(*site.subgraph) : json(nullptr);
      m["object"] = site.object.empty() ? json(nullptr) : json(site.object);
      m["total"] = nullptr;
      m["difference"] = nullptr;
      m["ratio"] = nullptr;
      m["recomputation_time"] = nullptr;
    }
    modes.push_back(std::move(m));
  }
  json out;
  out["valid"] = AllValid(results);
  out["modes"] = std::move(modes);
  return out.dump(2) + "\n";
}

}  // namespace tilesched
