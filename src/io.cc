// JSON reading and writing with strict type checks; every error names the field.
#include "tilesched/io.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "tilesched/file_util.h"
#include "tilesched/graph.h"
#include "tilesched/model_names.h"
#include "tilesched/report_json.h"

namespace tilesched {

namespace {

using nlohmann::json;

// Larger dimensions are refused so that sizes and sums stay exact in int64 and double.
constexpr int64_t kMaxDimension = int64_t{1} << 24;
constexpr int kMaxNesting = 64;

Status Fail(const std::string& field, const std::string& what) {
  return Status::Error(field + ": " + what);
}

std::string TypeOf(const json& value) { return value.type_name(); }

// Rejects nesting that would make recursive destruction of the parsed value deep.
Status CheckNesting(const std::string& text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (ch == '\\') {
        ++i;
      } else if (ch == '"') {
        in_string = false;
      }
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > kMaxNesting) {
        return Status::Error("JSON nests deeper than " + std::to_string(kMaxNesting) +
                             " levels at byte " + std::to_string(i));
      }
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return Status::Ok();
}

Result<json> ParseJson(const std::string& text) {
  if (Status s = CheckNesting(text); !s.ok()) return s;
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    // Not only parse_error: a number too large for a double throws out_of_range (406).
    return Status::Error("malformed JSON: " + ReadableJsonError(e.what()));
  }
}

Result<int64_t> GetInteger(const json& value, const std::string& field) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() &&
        value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Fail(field, "integer out of range");
    }
    return value.get<int64_t>();
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9.0e15) {
      return static_cast<int64_t>(d);
    }
    return Fail(field, "expected an integer, got " + value.dump());
  }
  return Fail(field, "expected an integer, got " + TypeOf(value));
}

Result<double> GetNumber(const json& value, const std::string& field) {
  if (!value.is_number()) return Fail(field, "expected a number, got " + TypeOf(value));
  const double d = value.get<double>();
  if (!std::isfinite(d)) return Fail(field, "expected a finite number");
  return d;
}

Result<int> GetId(const json& value, const std::string& field) {
  auto v = GetInteger(value, field);
  if (!v.ok()) return v.status();
  if (*v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max()) {
    return Fail(field, "id " + std::to_string(*v) + " is out of range");
  }
  return static_cast<int>(*v);
}

Result<const json*> GetKey(const json& object, const std::string& key, json::value_t type) {
  auto it = object.find(key);
  if (it == object.end()) return Fail(key, "missing key");
  if (type == json::value_t::array && !it->is_array()) {
    return Fail(key, "expected an array, got " + TypeOf(*it));
  }
  return &*it;
}

Result<std::vector<int>> GetIdList(const json& value, const std::string& field) {
  if (!value.is_array()) return Fail(field, "expected an array of ids, got " + TypeOf(value));
  std::vector<int> ids;
  for (size_t i = 0; i < value.size(); ++i) {
    auto id = GetId(value[i], field + "[" + std::to_string(i) + "]");
    if (!id.ok()) return id.status();
    ids.push_back(*id);
  }
  return ids;
}

Result<std::vector<int64_t>> GetDimensions(const json& object, const std::string& key) {
  auto list = GetKey(object, key, json::value_t::array);
  if (!list.ok()) return list.status();
  std::vector<int64_t> dims;
  for (size_t i = 0; i < (*list)->size(); ++i) {
    const std::string field = key + "[" + std::to_string(i) + "]";
    auto d = GetInteger((**list)[i], field);
    if (!d.ok()) return d.status();
    if (*d <= 0) return Fail(field, "must be positive, got " + std::to_string(*d));
    if (*d > kMaxDimension) {
      return Fail(field, std::to_string(*d) + " is above the limit " + std::to_string(kMaxDimension));
    }
    dims.push_back(*d);
  }
  return dims;
}

// Appends a warning for each key of `root` that is neither in `known` nor in `extra`.
void WarnUnknownKeys(const json& root, const std::vector<std::string>& known,
                     const std::vector<std::string>& extra, const std::string& what,
                     std::vector<std::string>* warnings) {
  if (!warnings) return;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const auto is = [&](const std::string& key) { return key == it.key(); };
    if (std::any_of(known.begin(), known.end(), is) || std::any_of(extra.begin(), extra.end(), is)) {
      continue;
    }
    warnings->push_back("unknown key " + json(it.key()).dump() + " ignored (not part of the " +
                        what + " format)");
  }
}

}  // namespace

std::string ReadableJsonError(const std::string& what) {
  // nlohmann prefixes "[json.exception.parse_error.101] "; keep the readable part.
  if (const size_t pos = what.find("] "); pos != std::string::npos) return what.substr(pos + 2);
  return what;
}

const std::vector<std::string>& ProblemExtraKeys() {
  static const std::vector<std::string> keys = {"op_names", "op_sources", "tensor_names"};
  return keys;
}

std::string JsonFileKind(const std::string& text) {
  if (!CheckNesting(text).ok()) return "";
  const json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!root.is_object()) return "";
  if (root.contains("op_types") || root.contains("widths")) return "a problem file";
  if (root.contains("subgraphs")) return "a solution file";
  if (root.contains("problems")) return "a sweep plan";
  if (root.contains("native_tile") || root.contains("fast_memory_bytes")) {
    return "a hardware description";
  }
  return "";
}

Result<Problem> ParseProblem(const std::string& text, std::vector<std::string>* warnings) {
  auto parsed = ParseJson(text);
  if (!parsed.ok()) return parsed.status();
  const json& root = *parsed;
  if (!root.is_object()) return Status::Error("problem: expected a JSON object, got " + TypeOf(root));
  WarnUnknownKeys(root,
                  {"widths", "heights", "op_types", "inputs", "outputs", "base_costs",
                   "fast_memory_capacity", "slow_memory_bandwidth", "native_granularity"},
                  ProblemExtraKeys(), "problem", warnings);

  auto widths = GetDimensions(root, "widths");
  if (!widths.ok()) return widths.status();
  auto heights = GetDimensions(root, "heights");
  if (!heights.ok()) return heights.status();
  if (widths->size() != heights->size()) {
    return Fail("heights", "has " + std::to_string(heights->size()) + " entries but widths has " +
                               std::to_string(widths->size()));
  }
  std::vector<Tensor> tensors;
  for (size_t t = 0; t < widths->size(); ++t) tensors.push_back({(*widths)[t], (*heights)[t]});

  auto types = GetKey(root, "op_types", json::value_t::array);
  if (!types.ok()) return types.status();
  const size_t num_ops = (*types)->size();
  for (const char* key : {"inputs", "outputs", "base_costs"}) {
    auto list = GetKey(root, key, json::value_t::array);
    if (!list.ok()) return list.status();
    if ((*list)->size() != num_ops) {
      return Fail(key, "has " + std::to_string((*list)->size()) + " entries but op_types has " +
                           std::to_string(num_ops));
    }
  }
  const json& inputs = root["inputs"];
  const json& outputs = root["outputs"];
  const json& costs = root["base_costs"];
  std::vector<Op> ops(num_ops);
  for (size_t o = 0; o < num_ops; ++o) {
    const std::string index = "[" + std::to_string(o) + "]";
    const json& type = (**types)[o];
    if (!type.is_string()) return Fail("op_types" + index, "expected a string, got " + TypeOf(type));
    const std::string name = type.get<std::string>();
    if (name == "MatMul") {
      ops[o].type = OpType::kMatMul;
    } else if (name == "Pointwise") {
      ops[o].type = OpType::kPointwise;
    } else {
      // dump() quotes and escapes the name, so a newline in it cannot split the message.
      return Fail("op_types" + index, "unknown op type " + type.dump() +
                                          " (expected \"MatMul\" or \"Pointwise\")");
    }
    auto in = GetIdList(inputs[o], "inputs" + index);
    if (!in.ok()) return in.status();
    ops[o].inputs = std::move(in).value();
    auto out = GetIdList(outputs[o], "outputs" + index);
    if (!out.ok()) return out.status();
    if (out->size() != 1) {
      return Fail("outputs" + index, "op " + std::to_string(o) + " must have exactly 1 output, got " +
                                         std::to_string(out->size()));
    }
    ops[o].output = out->front();
    auto cost = GetNumber(costs[o], "base_costs" + index);
    if (!cost.ok()) return cost.status();
    if (*cost < 0) return Fail("base_costs" + index, "must not be negative");
    ops[o].base_cost = *cost;
  }

  Hardware hw;
  {
    auto it = root.find("fast_memory_capacity");
    if (it == root.end()) return Fail("fast_memory_capacity", "missing key");
    auto v = GetInteger(*it, "fast_memory_capacity");
    if (!v.ok()) return v.status();
    if (*v <= 0) return Fail("fast_memory_capacity", "must be positive, got " + std::to_string(*v));
    hw.fast_memory_capacity = *v;
  }
  {
    auto it = root.find("slow_memory_bandwidth");
    if (it == root.end()) return Fail("slow_memory_bandwidth", "missing key");
    auto v = GetNumber(*it, "slow_memory_bandwidth");
    if (!v.ok()) return v.status();
    if (*v <= 0) return Fail("slow_memory_bandwidth", "must be positive");
    hw.slow_memory_bandwidth = *v;
  }
  {
    auto native = GetKey(root, "native_granularity", json::value_t::array);
    if (!native.ok()) return native.status();
    if ((*native)->size() != 2) {
      return Fail("native_granularity", "expected [w, h], got " + std::to_string((*native)->size()) +
                                            " entries");
    }
    int64_t values[2];
    for (int i = 0; i < 2; ++i) {
      const std::string field = "native_granularity[" + std::to_string(i) + "]";
      auto v = GetInteger((**native)[i], field);
      if (!v.ok()) return v.status();
      if (*v <= 0) return Fail(field, "must be positive, got " + std::to_string(*v));
      if (*v > kMaxDimension) return Fail(field, "is above the limit " + std::to_string(kMaxDimension));
      values[i] = *v;
    }
    hw.native_w = values[0];
    hw.native_h = values[1];
  }
  auto problem = Problem::Create(std::move(tensors), std::move(ops), hw);
  if (!problem.ok()) return problem;
  // Optional model names (an imported problem's, docs/import.md); contest files have none.
  ProblemNames names;
  for (auto [key, list] : {std::pair{"op_names", &names.ops}, std::pair{"tensor_names", &names.tensors}}) {
    auto it = root.find(key);
    if (it == root.end()) continue;
    if (!it->is_array()) return Fail(key, "expected an array of strings, got " + TypeOf(*it));
    for (size_t i = 0; i < it->size(); ++i) {
      const json& name = (*it)[i];
      if (!name.is_string()) {
        return Fail(std::string(key) + "[" + std::to_string(i) + "]", "expected a string, got " + TypeOf(name));
      }
      list->push_back(name.get<std::string>());
    }
  }
  if (names.ops.empty() && names.tensors.empty()) return problem;
  return problem->WithNames(std::move(names));
}

Status FileReadError(const Status& error, const std::string& path, const std::string& text,
                     const std::string& expected) {
  const std::string kind = JsonFileKind(text);
  if (!kind.empty() && kind != expected) {
    return Status::Error(path + ": this is " + kind + ", not " + expected);
  }
  return error.WithContext(path + ": ");
}

Result<Problem> LoadProblem(const std::string& path, std::vector<std::string>* warnings) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  std::vector<std::string> notes;
  auto problem = ParseProblem(*text, &notes);
  if (!problem.ok()) return FileReadError(problem.status(), path, *text, "a problem file");
  if (warnings) {
    for (const std::string& note : notes) warnings->push_back(path + ": " + note);
  }
  return problem;
}

Result<Schedule> ParseSolution(const std::string& text, std::vector<std::string>* warnings) {
  auto parsed = ParseJson(text);
  if (!parsed.ok()) return parsed.status();
  const json& root = *parsed;
  if (!root.is_object()) return Status::Error("solution: expected a JSON object, got " + TypeOf(root));
  WarnUnknownKeys(root,
                  {"subgraphs", "granularities", "tensors_to_retain", "traversal_orders",
                   "subgraph_latencies"},
                  {}, "solution", warnings);

  auto subgraphs = GetKey(root, "subgraphs", json::value_t::array);
  if (!subgraphs.ok()) return subgraphs.status();
  const size_t n = (*subgraphs)->size();
  auto check_length = [&](const char* key, bool required) -> Result<const json*> {
    auto it = root.find(key);
    if (it == root.end() || (!required && it->is_null())) {
      if (required) return Fail(key, "missing key");
      return static_cast<const json*>(nullptr);
    }
    if (!it->is_array()) return Fail(key, "expected an array, got " + TypeOf(*it));
    if (it->size() != n) {
      return Fail(key, "has " + std::to_string(it->size()) + " entries but subgraphs has " +
                           std::to_string(n) + " (rule 3.9)");
    }
    return &*it;
  };
  auto granularities = check_length("granularities", true);
  if (!granularities.ok()) return granularities.status();
  auto retain = check_length("tensors_to_retain", true);
  if (!retain.ok()) return retain.status();
  auto orders = check_length("traversal_orders", false);
  if (!orders.ok()) return orders.status();
  auto latencies = check_length("subgraph_latencies", false);
  if (!latencies.ok()) return latencies.status();

  Schedule schedule;
  schedule.subgraphs.resize(n);
  for (size_t s = 0; s < n; ++s) {
    const std::string index = "[" + std::to_string(s) + "]";
    Subgraph& sg = schedule.subgraphs[s];
    auto ops = GetIdList((**subgraphs)[s], "subgraphs" + index);
    if (!ops.ok()) return ops.status();
    sg.ops = std::move(ops).value();

    const json& g = (**granularities)[s];
    if (!g.is_array() || g.size() != 3) {
      return Fail("granularities" + index, "expected [w, h, k], got " + g.dump());
    }
    int64_t whk[3];
    for (int i = 0; i < 3; ++i) {
      auto v = GetInteger(g[i], "granularities" + index + "[" + std::to_string(i) + "]");
      if (!v.ok()) return v.status();
      whk[i] = *v;
    }
    sg.granularity = {whk[0], whk[1], whk[2]};

    auto kept = GetIdList((**retain)[s], "tensors_to_retain" + index);
    if (!kept.ok()) return kept.status();
    sg.retained = std::move(kept).value();

    if (*orders != nullptr) {
      const json& order = (**orders)[s];
      if (!order.is_null()) {
        const std::string field = "traversal_orders" + index;
        if (!order.is_array()) return Fail(field, "expected null or an array, got " + TypeOf(order));
        for (size_t i = 0; i < order.size(); ++i) {
          auto v = GetInteger(order[i], field + "[" + std::to_string(i) + "]");
          if (!v.ok()) return v.status();
          sg.traversal.push_back(*v);
        }
      }
    }
    if (*latencies != nullptr) {
      const json& value = (**latencies)[s];
      if (!value.is_null()) {
        auto v = GetNumber(value, "subgraph_latencies" + index);
        if (!v.ok()) return v.status();
        sg.reported_latency = *v;
      }
    }
  }
  return schedule;
}

Result<Schedule> LoadSolution(const std::string& path, std::vector<std::string>* warnings) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  std::vector<std::string> notes;
  auto schedule = ParseSolution(*text, &notes);
  if (!schedule.ok()) return FileReadError(schedule.status(), path, *text, "a solution file");
  if (warnings) {
    for (const std::string& note : notes) warnings->push_back(path + ": " + note);
  }
  return schedule;
}

std::string SolutionToJson(const Schedule& schedule, const std::vector<double>& latencies) {
  json subgraphs = json::array(), granularities = json::array(), retain = json::array(),
       orders = json::array(), lat = json::array();
  for (size_t s = 0; s < schedule.subgraphs.size(); ++s) {
    const Subgraph& sg = schedule.subgraphs[s];
    subgraphs.push_back(sg.ops);
    granularities.push_back({sg.granularity.w, sg.granularity.h, sg.granularity.k});
    retain.push_back(sg.retained);
    orders.push_back(sg.traversal.empty() ? json(nullptr) : json(sg.traversal));
    lat.push_back(s < latencies.size() ? json(latencies[s]) : json(nullptr));
  }
  std::string out = "{\n";
  out += "  \"subgraphs\": " + subgraphs.dump() + ",\n";
  out += "  \"granularities\": " + granularities.dump() + ",\n";
  out += "  \"tensors_to_retain\": " + retain.dump() + ",\n";
  out += "  \"traversal_orders\": " + orders.dump() + ",\n";
  out += "  \"subgraph_latencies\": " + lat.dump() + "\n";
  out += "}\n";
  return out;
}

std::string ProblemToJson(const Problem& problem) {
  json widths = json::array(), heights = json::array(), types = json::array(),
       inputs = json::array(), outputs = json::array(), costs = json::array();
  for (const Tensor& t : problem.tensors()) {
    widths.push_back(t.width);
    heights.push_back(t.height);
  }
  for (const Op& op : problem.ops()) {
    types.push_back(OpTypeName(op.type));
    inputs.push_back(op.inputs);
    outputs.push_back(json::array({op.output}));
    costs.push_back(op.base_cost);
  }
  const Hardware& hw = problem.hardware();
  std::string out = "{\n";
  out += "  \"widths\": " + widths.dump() + ",\n";
  out += "  \"heights\": " + heights.dump() + ",\n";
  out += "  \"op_types\": " + types.dump() + ",\n";
  out += "  \"inputs\": " + inputs.dump() + ",\n";
  out += "  \"outputs\": " + outputs.dump() + ",\n";
  out += "  \"base_costs\": " + costs.dump() + ",\n";
  out += "  \"fast_memory_capacity\": " + json(hw.fast_memory_capacity).dump() + ",\n";
  out += "  \"slow_memory_bandwidth\": " + json(hw.slow_memory_bandwidth).dump() + ",\n";
  out += "  \"native_granularity\": " + json::array({hw.native_w, hw.native_h}).dump();
  if (!problem.names().ops.empty()) out += ",\n  \"op_names\": " + json(problem.names().ops).dump(-1, ' ', false, json::error_handler_t::replace);
  if (!problem.names().tensors.empty()) out += ",\n  \"tensor_names\": " + json(problem.names().tensors).dump(-1, ' ', false, json::error_handler_t::replace);
  out += "\n}\n";
  return out;
}

namespace {

// Per op: output elements computed, relative to once, compute time and the part beyond once.
json OpWorkJson(const std::vector<OpWork>& work) {
  json out = json::array();
  for (const OpWork& w : work) {
    out.push_back({{"op", w.op},
                   {"elements", w.elements},
                   {"computed", ComputedRelativeToOnce(w)},
                   {"compute_time", w.compute_time},
                   {"recomputation_time", RecomputationTime(w)}});
  }
  return out;
}

json ModesJson(const CostModes& modes) {
  return {{"rules", RulesName(modes.rules)},
          {"matmul_reduction", MatmulReductionName(modes.matmul_reduction)},
          {"k_limit", KLimitName(modes.k_limit)}};
}

// Every part of the tier-1 bound, the largest ("best") and the part that sets it ("set_by").
json BoundsJson(const LowerBounds& bounds) {
  json out = json::object();
  for (const BoundPart& part : Parts(bounds)) out[part.name] = part.value;
  out["best"] = bounds.best();
  out["set_by"] = BestPart(bounds).name;
  return out;
}

}  // namespace

std::string EvaluationToJson(const Problem& problem, const Schedule& schedule, const Evaluation& evaluation,
                             const CostModes& modes, const LowerBounds& bounds) {
  json out;
  out["valid"] = true;
  out["total_latency"] = evaluation.total;
  out["modes"] = ModesJson(modes);
  out["lower_bound"] = BoundsJson(bounds);
  json subgraphs = json::array();
  for (size_t s = 0; s < evaluation.subgraphs.size(); ++s) {
    const SubgraphReport& r = evaluation.subgraphs[s];
    const Subgraph& sg = schedule.subgraphs[s];
    const SubgraphCost& c = r.cost;
    subgraphs.push_back({
        {"ops", sg.ops},
        {"granularity", {sg.granularity.w, sg.granularity.h, sg.granularity.k}},
        {"retained", sg.retained},
        {"sinks", r.sinks},
        {"written", r.written},
        {"split_roots", r.split_roots},
        {"latency", c.latency},
        {"compute_time", c.compute_time},
        {"memory_time", c.memory_time},
        {"tiles", c.tiles},
        {"k_steps", c.k_steps},
        {"steps", c.steps},
        {"compute_bound_steps", c.compute_bound_steps},
        {"memory_bound_steps", c.memory_bound_steps},
        {"compute_bound_time", c.compute_bound_time},
        {"memory_bound_time", c.memory_bound_time},
        {"loaded", c.loaded},
        {"stored", c.stored},
        {"peak_working_set", c.peak_working_set},
        {"peak_tile", c.peak_tile},
        {"peak_k_step", c.peak_k_step + 1},
        {"op_work", OpWorkJson(c.op_work)},
        {"recomputation_time", RecomputationTime(c.op_work)},
    });
    if (!problem.names().ops.empty()) {
      json names = json::array();
      for (int o : sg.ops) names.push_back(problem.op_name(o));
      subgraphs.back()["label"] = SubgraphLabel(problem, sg.ops);
      subgraphs.back()["op_names"] = std::move(names);
    }
  }
  out["subgraphs"] = std::move(subgraphs);
  out["op_work"] = OpWorkJson(evaluation.op_work);
  out["recomputation_time"] = RecomputationTime(evaluation.op_work);
  out["warnings"] = evaluation.warnings;
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string InvalidEvaluationToJson(const std::string& error, const CostModes& modes) {
  json out;
  out["valid"] = false;
  out["error"] = error;
  out["modes"] = ModesJson(modes);
  return out.dump(2) + "\n";
}

std::string ProblemInfoToJson(const Problem& problem, const LowerBounds& bounds,
                              const CostModes& modes) {
  json out;
  const Hardware& hw = problem.hardware();
  out["fast_memory_capacity"] = hw.fast_memory_capacity;
  out["slow_memory_bandwidth"] = hw.slow_memory_bandwidth;
  out["native_granularity"] = {hw.native_w, hw.native_h};
  json tensors = json::array();
  for (int t = 0; t < problem.num_tensors(); ++t) {
    const Tensor& x = problem.tensor(t);
    std::string role = problem.is_graph_input(t)    ? "input"
                       : problem.is_graph_output(t) ? "output"
                       : problem.producer(t) >= 0   ? "intermediate"
                                                    : "unused";
    tensors.push_back({{"id", t}, {"rows", x.height}, {"cols", x.width}, {"role", role}});
    if (!problem.tensor_name(t).empty()) tensors.back()["name"] = problem.tensor_name(t);
  }
  json ops = json::array();
  for (int o = 0; o < problem.num_ops(); ++o) {
    const Op& op = problem.op(o);
    ops.push_back({{"id", o},
                   {"type", OpTypeName(op.type)},
                   {"inputs", op.inputs},
                   {"output", op.output},
                   {"base_cost", op.base_cost},
                   {"compute_once", OpComputeOnce(problem, o, modes.matmul_reduction)}});
    if (!problem.op_name(o).empty()) ops.back()["name"] = problem.op_name(o);
  }
  out["tensors"] = std::move(tensors);
  out["ops"] = std::move(ops);
  out["graph_inputs"] = problem.graph().graph_inputs();
  out["graph_outputs"] = problem.graph().graph_outputs();
  out["modes"] = ModesJson(modes);
  out["lower_bound"] = BoundsJson(bounds);
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<std::vector<std::pair<std::string, std::string>>> ParseConfigEntries(const std::string& text) {
  auto parsed = ParseJson(text);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) return Status::Error("config: expected a JSON object, got " + TypeOf(*parsed));
  std::vector<std::pair<std::string, std::string>> entries;
  for (auto it = parsed->begin(); it != parsed->end(); ++it) {
    if (it.value().is_structured()) return Fail(it.key(), "expected a number or a string");
    entries.emplace_back(it.key(), it.value().dump());
  }
  return entries;
}

Status ApplyConfigFile(const std::string& path, const std::string& expected,
                       const std::function<Status(const std::string&, const std::string&)>& apply) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  auto entries = ParseConfigEntries(*text);
  if (!entries.ok()) return FileReadError(entries.status(), path, *text, expected);
  for (const auto& [key, value] : *entries) {
    if (Status s = apply(key, value); !s.ok()) return FileReadError(s, path, *text, expected);
  }
  return Status::Ok();
}

}  // namespace tilesched
