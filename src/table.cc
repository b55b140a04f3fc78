// Plain-text table layout.
#include "tilesched/table.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace tilesched {

void TextTable::Print(std::ostream& out, const std::vector<bool>& left) const {
  std::vector<size_t> width;
  for (const auto& row : rows_) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (size_t r = 0; r < rows_.size(); ++r) {
    std::string line;
    for (size_t i = 0; i < rows_[r].size(); ++i) {
      const std::string& cell = rows_[r][i];
      const std::string pad(width[i] - cell.size(), ' ');
      const bool align_left = i < left.size() && left[i];
      line += (i ? "  " : "") + (align_left ? cell + pad : pad + cell);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
    if (r == 0) {
      size_t total = 0;
      for (size_t w : width) total += w + 2;
      out << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
    }
  }
}

std::string FormatNumber(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

std::string FormatCount(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (value < 0 ? "-" : "") + out;
}

std::string Counted(int64_t value, const std::string& noun) {
  return FormatCount(value) + " " + noun + (value == 1 ? "" : "s");
}

}  // namespace tilesched
