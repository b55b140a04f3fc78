// TextTable: aligned plain-text tables for human-readable output, and the number formats the
// commands and workflow libraries print (FormatNumber, FormatCount). Part of io.
#ifndef TILESCHED_TABLE_H_
#define TILESCHED_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

namespace tilesched {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Columns are left-aligned when `left[i]` is true, right-aligned otherwise.
  void Print(std::ostream& out, const std::vector<bool>& left = {}) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// Latency with one decimal ("367001.6"); large counts with thousands separators.
std::string FormatNumber(double value, int decimals = 1);
std::string FormatCount(int64_t value);
// "1 point", "3 points": a count with its noun, plural by a final "s".
std::string Counted(int64_t value, const std::string& noun);

}  // namespace tilesched

#endif  // TILESCHED_TABLE_H_
