// Hardware descriptions: strict-keys JSON, the formulas of docs/import.md, and Retarget.
#include "tilesched/hardware.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "tilesched/file_util.h"
#include "tilesched/io.h"

namespace tilesched {

namespace {

using json = nlohmann::json;

Status KeyError(const std::string& key, const std::string& what) {
  return Status::Error("hardware: " + key + ": " + what);
}

// The positive finite number under `key` of `object` (`path` prefixes nested keys in messages).
Result<double> PositiveNumber(const json& object, const std::string& key, const std::string& path) {
  auto it = object.find(key);
  if (it == object.end()) return KeyError(path + key, "missing key");
  if (!it->is_number()) return KeyError(path + key, "expected a number");
  const double v = it->get<double>();
  if (!std::isfinite(v) || v <= 0) return KeyError(path + key, "must be a positive number, got " + it->dump());
  return v;
}

Status CheckKeys(const json& object, const std::vector<std::string>& allowed, const std::string& path) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    bool known = false;
    for (const std::string& a : allowed) known = known || it.key() == a;
    if (!known) return Status::Error("hardware: unknown key '" + path + it.key() + "'");
  }
  return Status::Ok();
}

}  // namespace

Result<HardwareDescription> ParseHardwareDescription(const std::string& text) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    return Status::Error("malformed JSON: " + ReadableJsonError(e.what()));
  }
  if (!root.is_object()) return Status::Error("hardware: expected a JSON object");
  if (Status s = CheckKeys(root,
                           {"name", "source", "native_tile", "fast_memory_bytes",
                            "slow_memory_bytes_per_time", "element_bytes", "matmul_macs_per_time",
                            "vector_elements_per_time", "operator_costs", "rescale_from"},
                           "");
      !s.ok()) {
    return s;
  }
  HardwareDescription hw;
  for (const char* key : {"name", "source"}) {
    auto it = root.find(key);
    if (it == root.end()) return KeyError(key, "missing key");
    if (!it->is_string() || it->get<std::string>().empty()) return KeyError(key, "expected a non-empty string");
    (std::string(key) == "name" ? hw.name : hw.source) = it->get<std::string>();
  }
  auto tile = root.find("native_tile");
  if (tile == root.end()) return KeyError("native_tile", "missing key");
  if (!tile->is_array() || tile->size() != 2 || !(*tile)[0].is_number_integer() ||
      !(*tile)[1].is_number_integer() || (*tile)[0].get<int64_t>() <= 0 || (*tile)[1].get<int64_t>() <= 0) {
    return KeyError("native_tile", "expected [w, h], two positive integers, got " + tile->dump());
  }
  hw.native_w = (*tile)[0].get<int64_t>();
  hw.native_h = (*tile)[1].get<int64_t>();
  struct Field {
    const char* key;
    double* value;
  };
  for (Field f : {Field{"fast_memory_bytes", &hw.fast_memory_bytes},
                  Field{"slow_memory_bytes_per_time", &hw.slow_memory_bytes_per_time},
                  Field{"element_bytes", &hw.element_bytes},
                  Field{"matmul_macs_per_time", &hw.matmul_macs_per_time},
                  Field{"vector_elements_per_time", &hw.vector_elements_per_time}}) {
    auto v = PositiveNumber(root, f.key, "");
    if (!v.ok()) return v.status();
    *f.value = *v;
  }
  if (hw.fast_memory_bytes < hw.element_bytes) {
    return KeyError("fast_memory_bytes", "holds no element of element_bytes " + json(hw.element_bytes).dump());
  }
  if (auto costs = root.find("operator_costs"); costs != root.end()) {
    if (!costs->is_object()) return KeyError("operator_costs", "expected an object of op type -> work");
    for (auto it = costs->begin(); it != costs->end(); ++it) {
      if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0) {
        return KeyError("operator_costs." + it.key(), "must be a non-negative number, got " + it->dump());
      }
      hw.operator_costs[it.key()] = it->get<double>();
    }
  }
  if (auto from = root.find("rescale_from"); from != root.end()) {
    if (!from->is_object()) return KeyError("rescale_from", "expected an object");
    if (Status s = CheckKeys(*from, {"matmul_macs_per_time", "vector_elements_per_time"}, "rescale_from.");
        !s.ok()) {
      return s;
    }
    ThroughputReference ref;
    auto m = PositiveNumber(*from, "matmul_macs_per_time", "rescale_from.");
    if (!m.ok()) return m.status();
    auto v = PositiveNumber(*from, "vector_elements_per_time", "rescale_from.");
    if (!v.ok()) return v.status();
    ref.matmul_macs_per_time = *m;
    ref.vector_elements_per_time = *v;
    hw.rescale_from = ref;
  }
  if (Status s = ValidateHardware(DeriveHardware(hw)); !s.ok()) return Status::Error("hardware: " + s.message());
  return hw;
}

Result<HardwareDescription> LoadHardwareDescription(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  auto hw = ParseHardwareDescription(*text);
  if (!hw.ok()) return FileReadError(hw.status(), path, *text, "a hardware description");
  return hw;
}

Hardware DeriveHardware(const HardwareDescription& hw) {
  Hardware out;
  const double elements = std::floor(hw.fast_memory_bytes / hw.element_bytes);
  out.fast_memory_capacity = elements >= static_cast<double>(std::numeric_limits<int64_t>::max())
                                 ? std::numeric_limits<int64_t>::max()
                                 : static_cast<int64_t>(elements);
  out.slow_memory_bandwidth = hw.slow_memory_bytes_per_time / hw.element_bytes;
  out.native_w = hw.native_w;
  out.native_h = hw.native_h;
  return out;
}

double MatMulBaseCost(const HardwareDescription& hw, int64_t k) {
  return static_cast<double>(hw.native_w * hw.native_h) * static_cast<double>(k) / hw.matmul_macs_per_time;
}

double PointwiseBaseCost(const HardwareDescription& hw, double work) {
  return static_cast<double>(hw.native_w * hw.native_h) * work / hw.vector_elements_per_time;
}

double OperatorWork(const HardwareDescription& hw, const std::string& op_type) {
  if (auto it = hw.operator_costs.find(op_type); it != hw.operator_costs.end()) return it->second;
  auto w = [&](const char* op) { return OperatorWork(hw, op); };
  // Softmax: row max, subtract, exponentiate, row sum, divide.
  if (op_type == "Softmax") return w("ReduceMax") + w("Sub") + w("Exp") + w("ReduceSum") + w("Div");
  // LayerNormalization: mean, subtract, square, mean, add epsilon, square root, divide, scale, shift.
  if (op_type == "LayerNormalization") {
    return 2 * w("ReduceMean") + w("Sub") + w("Mul") + w("Add") + w("Sqrt") + w("Div") + w("Mul") + w("Add");
  }
  return 1;
}

Result<Problem> Retarget(const Problem& problem, const HardwareDescription& hw) {
  auto moved = problem.WithHardware(DeriveHardware(hw));
  if (!moved.ok()) return moved.status().WithContext("hardware '" + hw.name + "': ");
  if (!hw.rescale_from) return moved;
  const Hardware& old_hw = problem.hardware();
  const double area = static_cast<double>(hw.native_w * hw.native_h) /
                      static_cast<double>(old_hw.native_w * old_hw.native_h);
  auto rescaled = ScaleBaseCosts(*moved, area * hw.rescale_from->matmul_macs_per_time / hw.matmul_macs_per_time,
                                 area * hw.rescale_from->vector_elements_per_time / hw.vector_elements_per_time);
  if (!rescaled.ok()) return rescaled.status().WithContext("hardware '" + hw.name + "': ");
  return rescaled;
}

Result<Problem> ScaleBaseCosts(const Problem& problem, double matmul_factor, double pointwise_factor) {
  std::vector<Op> ops = problem.ops();
  for (Op& op : ops) op.base_cost *= op.type == OpType::kMatMul ? matmul_factor : pointwise_factor;
  auto scaled = Problem::Create(problem.tensors(), std::move(ops), problem.hardware());
  if (!scaled.ok()) return scaled;
  return scaled->WithNames(problem.names());  // the model's names stay with the graph
}

Result<Problem> LoadProblemOnHardware(const std::string& path, const std::string& hardware_path,
                                      std::vector<std::string>* warnings) {
  auto problem = LoadProblem(path, warnings);
  if (!problem.ok() || hardware_path.empty()) return problem;
  auto hw = LoadHardwareDescription(hardware_path);
  if (!hw.ok()) return hw.status();
  return Retarget(*problem, *hw);
}

}  // namespace tilesched
