// The mapping summary `tilesched import` prints (import.h: FormatImportSummary, LayerOf).
#include <algorithm>
#include <cctype>
#include <sstream>

#include "tilesched/import.h"
#include "tilesched/table.h"

namespace tilesched {

std::string LayerOf(const std::string& op_name) {
  // Components split at '.' and '/'; the layer ends at the first all-digit component.
  size_t start = 0;
  for (size_t i = 0; i <= op_name.size(); ++i) {
    if (i == op_name.size() || op_name[i] == '.' || op_name[i] == '/' || op_name[i] == '[' || op_name[i] == '+') {
      if (i > start && std::all_of(op_name.begin() + static_cast<long>(start), op_name.begin() + static_cast<long>(i),
                                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
        return op_name.substr(0, i);
      }
      if (i < op_name.size() && (op_name[i] == '[' || op_name[i] == '+')) break;
      start = i + 1;
    }
  }
  return "";
}

std::string FormatImportSummary(const ImportedModel& model) {
  std::ostringstream out;
  TextTable table({"ONNX op", "nodes", "MatMul", "Pointwise", "constant", "view", "input", "index"});
  ImportSummary::OpTypeCounts total;
  auto cell = [](int n) { return n == 0 ? std::string("-") : std::to_string(n); };
  for (const auto& [type, c] : model.summary.by_op_type) {
    table.AddRow({type, std::to_string(c.nodes), cell(c.matmul), cell(c.pointwise), cell(c.constant), cell(c.view),
                  cell(c.input), cell(c.index)});
    total.nodes += c.nodes, total.matmul += c.matmul, total.pointwise += c.pointwise, total.constant += c.constant;
    total.view += c.view, total.input += c.input, total.index += c.index;
  }
  table.AddRow({"all", std::to_string(total.nodes), cell(total.matmul), cell(total.pointwise), cell(total.constant),
                cell(total.view), cell(total.input), cell(total.index)});
  table.Print(out, {true});
  const Problem& p = model.problem;
  int matmuls = 0;
  for (const Op& op : p.ops()) matmuls += op.type == OpType::kMatMul;
  out << "\n" << p.num_ops() << " ops (" << matmuls << " MatMul, " << p.num_ops() - matmuls << " Pointwise), "
      << p.num_tensors() << " tensors; ops per layer:";
  std::vector<std::pair<std::string, int>> layers;
  for (int o = 0; o < p.num_ops(); ++o) {
    std::string layer = LayerOf(p.op_name(o));
    if (layer.empty()) layer = "(outside layers)";
    auto it = std::find_if(layers.begin(), layers.end(), [&](const auto& l) { return l.first == layer; });
    if (it == layers.end()) {
      layers.push_back({layer, 1});
    } else {
      ++it->second;
    }
  }
  for (const auto& [layer, count] : layers) out << " " << layer << " " << count << ";";
  out << "\n";
  return out.str();
}

}  // namespace tilesched
