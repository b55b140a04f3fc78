// Subgraph labels from model names (model_names.h).
#include "tilesched/model_names.h"

#include <algorithm>

namespace tilesched {

namespace {

// The module path of an op name: what precedes the first '/' ("m.h.0.attn" of
// "m.h.0.attn/matmul[2]"), or the name up to its index suffix.
std::string ModuleOf(const std::string& name) {
  const size_t end = std::min(name.find('+'), name.find('['));
  const std::string first = name.substr(0, end);
  const size_t slash = first.rfind('/');
  return slash == std::string::npos ? first : first.substr(0, slash);
}

// Length of the longest common prefix of `a` and `b` that ends at a component boundary.
size_t CommonComponents(const std::string& a, const std::string& b) {
  size_t n = 0, last = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) {
    ++n;
    if (a[n - 1] == '.' || a[n - 1] == '/') last = n;
  }
  const bool whole = n == a.size() && (n == b.size() || b[n] == '.' || b[n] == '/');
  return whole ? n : last;
}

}  // namespace

std::string SubgraphLabel(const Problem& problem, const std::vector<int>& ops, size_t max_chars) {
  if (problem.names().ops.empty() || ops.empty()) return "";
  if (ops.size() == 1) return problem.op_name(ops[0]);
  std::string prefix = ModuleOf(problem.op_name(ops[0]));
  size_t len = prefix.size();
  for (int o : ops) len = std::min(len, CommonComponents(prefix, ModuleOf(problem.op_name(o))));
  prefix.resize(len);
  while (!prefix.empty() && (prefix.back() == '.' || prefix.back() == '/')) prefix.pop_back();
  std::string out = prefix.empty() ? "" : prefix + ": ";
  for (size_t i = 0; i < ops.size(); ++i) {
    std::string rest = problem.op_name(ops[i]).substr(prefix.size());
    if (!rest.empty() && (rest[0] == '.' || rest[0] == '/')) rest.erase(0, 1);
    if (i > 0 && out.size() + rest.size() > max_chars) {
      out += ", ... (+" + std::to_string(ops.size() - i) + " ops)";
      break;
    }
    out += (i ? ", " : "") + rest;
  }
  return out;
}

}  // namespace tilesched
