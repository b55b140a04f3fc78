// Sweep row schema, CSV / JSON Lines lines, shard files and merging.
#include "sweep_rows.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>

#include "tilesched/csv.h"
#include "tilesched/flat_json.h"

namespace tilesched::sweep {

namespace {

struct ColumnInfo {
  const char* name;
  bool numeric;
};

constexpr ColumnInfo kColumns[] = {
    {"point", true},       {"of", true},          {"problem", false},
    {"capacity", true},    {"bandwidth", true},   {"native", true},
    {"matmul_throughput", true}, {"vector_throughput", true},
    {"rules", false},      {"matmul_reduction", false},
    {"k_limit", false},    {"seed", true},        {"strategy", false},
    {"status", false},     {"latency", true},     {"lower_bound", true},
    {"ratio", true},       {"gap", true},         {"subgraphs", true},   {"compute_bound_share", true},
    {"wall_s", true},      {"message", false},
};
constexpr size_t kNumColumns = sizeof(kColumns) / sizeof(kColumns[0]);

std::string Where(const std::string& name, int line) {
  return name + " line " + std::to_string(line) + ": ";
}

// Control characters as spaces, so that a row is always one line.
std::string OneLine(std::string text) {
  for (char& ch : text) {
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  }
  return text;
}

Result<int64_t> ParseCount(const std::string& text, const std::string& column) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return Status::Error(column + ": expected a non-negative integer, got '" + text + "'");
  }
  return value;
}

// Checks the cells of one row and fills point / of.
Status CheckRow(SweepRow* row) {
  for (size_t c = 0; c < kNumColumns; ++c) {
    const std::string& cell = row->cells[c];
    if (!kColumns[c].numeric || cell.empty()) continue;
    char* end = nullptr;
    const double value = std::strtod(cell.c_str(), &end);
    if (end != cell.c_str() + cell.size() || !std::isfinite(value)) {
      return Status::Error(std::string(kColumns[c].name) + ": expected a number, got '" + cell + "'");
    }
  }
  auto point = ParseCount(row->cells[0], "point");
  if (!point.ok()) return point.status();
  auto of = ParseCount(row->cells[1], "of");
  if (!of.ok()) return of.status();
  if (*point >= *of) {
    return Status::Error("point " + std::to_string(*point) + " is not below of " +
                         std::to_string(*of));
  }
  const std::string& status = row->cells[SweepColumn("status")];
  if (status != "ok" && status != "infeasible" && status != "error") {
    return Status::Error("status: expected ok, infeasible or error, got '" + status + "'");
  }
  row->point = *point;
  row->of = *of;
  return Status::Ok();
}

Result<SweepRow> ParseCsvRow(const std::string& line) {
  auto cells = SplitCsvLine(line);
  if (!cells.ok()) return cells.status();
  if (cells->size() != kNumColumns) {
    return Status::Error("expected " + std::to_string(kNumColumns) + " cells, got " +
                         std::to_string(cells->size()));
  }
  SweepRow row;
  row.cells = std::move(cells).value();
  if (Status s = CheckRow(&row); !s.ok()) return s;
  return row;
}

Result<SweepRow> ParseJsonRow(const std::string& line) {
  auto fields = ParseFlatJsonLine(line);
  if (!fields.ok()) return fields.status();
  SweepRow row;
  row.cells.resize(kNumColumns);
  std::vector<bool> seen(kNumColumns, false);
  for (const JsonField& f : *fields) {
    size_t c = 0;
    while (c < kNumColumns && f.name != kColumns[c].name) ++c;
    if (c == kNumColumns) return Status::Error(f.name + ": not a sweep column");
    seen[c] = true;
    const bool numeric = kColumns[c].numeric;
    if (f.kind == JsonScalar::kString && numeric) {
      return Status::Error(f.name + ": expected a number or null, got a string");
    }
    if (f.kind == JsonScalar::kNumber && !numeric) {
      return Status::Error(f.name + ": expected a string, got a number");
    }
    if (f.kind == JsonScalar::kNull && !numeric) {
      return Status::Error(f.name + ": expected a string, got null");
    }
    row.cells[c] = f.text;
  }
  for (size_t c = 0; c < kNumColumns; ++c) {
    if (!seen[c]) return Status::Error(std::string(kColumns[c].name) + ": missing");
  }
  if (Status s = CheckRow(&row); !s.ok()) return s;
  return row;
}

}  // namespace

const std::vector<std::string>& SweepColumns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> names;
    for (const ColumnInfo& c : kColumns) names.push_back(c.name);
    return names;
  }();
  return columns;
}

size_t SweepColumn(const std::string& column) {
  for (size_t c = 0; c < kNumColumns; ++c) {
    if (column == kColumns[c].name) return c;
  }
  assert(false && "not a sweep column");
  return 0;
}

Result<SweepFormat> ParseSweepFormat(const std::string& text) {
  if (text == "csv") return SweepFormat::kCsv;
  if (text == "jsonl") return SweepFormat::kJsonl;
  return Status::Error("expected csv or jsonl, got '" + text + "'");
}

const char* SweepFormatName(SweepFormat format) {
  return format == SweepFormat::kCsv ? "csv" : "jsonl";
}

SweepFormat SweepFormatForPath(const std::string& path) {
  auto ends_with = [&](const std::string& suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".jsonl") || ends_with(".ndjson") ? SweepFormat::kJsonl : SweepFormat::kCsv;
}

SweepRow NewSweepRow(int64_t point, int64_t of) {
  SweepRow row;
  row.point = point;
  row.of = of;
  row.cells.resize(kNumColumns);
  row.cells[0] = std::to_string(point);
  row.cells[1] = std::to_string(of);
  return row;
}

std::string SweepHeader(SweepFormat format) {
  if (format == SweepFormat::kJsonl) return "";
  std::string line;
  for (size_t c = 0; c < kNumColumns; ++c) line += (c ? "," : "") + std::string(kColumns[c].name);
  return line + "\n";
}

std::string FormatSweepRow(const SweepRow& row, SweepFormat format) {
  assert(row.cells.size() == kNumColumns);
  if (format == SweepFormat::kCsv) return CsvLine(row.cells);
  std::vector<JsonField> fields;
  for (size_t c = 0; c < kNumColumns; ++c) {
    const std::string& cell = row.cells[c];
    const JsonScalar kind = !kColumns[c].numeric ? JsonScalar::kString
                            : cell.empty()       ? JsonScalar::kNull
                                                 : JsonScalar::kNumber;
    fields.push_back({kColumns[c].name, kind, OneLine(cell)});
  }
  return FlatJsonLine(fields) + "\n";
}

Result<SweepFile> ParseSweepFile(const std::string& text, const std::string& name) {
  SweepFile file;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return file;
  file.format = text[first] == '{' ? SweepFormat::kJsonl : SweepFormat::kCsv;
  bool header_seen = file.format == SweepFormat::kJsonl;
  int line_no = 0;
  size_t start = 0;
  while (start < text.size()) {
    ++line_no;
    const size_t newline = text.find('\n', start);
    if (newline == std::string::npos) {
      return Status::Error(Where(name, line_no) +
                           "the last line has no newline (a killed sweep? finish it with "
                           "`tilesched sweep --resume`)");
    }
    std::string line = text.substr(start, newline - start);
    start = newline + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (!header_seen) {
      header_seen = true;
      if (line + "\n" != SweepHeader(SweepFormat::kCsv)) {
        return Status::Error(Where(name, line_no) + "expected the sweep header '" +
                             SweepHeader(SweepFormat::kCsv).substr(
                                 0, SweepHeader(SweepFormat::kCsv).size() - 1) +
                             "'");
      }
      continue;
    }
    auto row = file.format == SweepFormat::kCsv ? ParseCsvRow(line) : ParseJsonRow(line);
    if (!row.ok()) return row.status().WithContext(Where(name, line_no));
    file.rows.push_back(std::move(row).value());
    file.rows.back().line = line_no;
  }
  return file;
}

Result<std::vector<SweepRow>> MergeSweepRows(const std::vector<NamedRows>& files) {
  struct Ref {
    int64_t point;
    size_t file, row;
  };
  std::vector<Ref> refs;
  const SweepRow* first = nullptr;
  size_t first_file = 0;
  for (size_t f = 0; f < files.size(); ++f) {
    for (size_t r = 0; r < files[f].rows.size(); ++r) {
      const SweepRow& row = files[f].rows[r];
      if (!first) {
        first = &row;
        first_file = f;
      } else if (row.of != first->of) {
        return Status::Error(Where(files[f].name, row.line) + "of is " + std::to_string(row.of) +
                             " but " + Where(files[first_file].name, first->line) + "of is " +
                             std::to_string(first->of) + " (shards of different sweeps?)");
      }
      refs.push_back({row.point, f, r});
    }
  }
  if (!first) return Status::Error("no rows in the shard files");
  std::stable_sort(refs.begin(), refs.end(),
                   [](const Ref& a, const Ref& b) { return a.point < b.point; });
  std::string searched;
  for (size_t f = 0; f < files.size(); ++f) searched += (f ? ", " : "") + files[f].name;
  auto at = [&](const Ref& ref) {
    return files[ref.file].name + " line " + std::to_string(files[ref.file].rows[ref.row].line);
  };
  const std::string of_text = " of " + std::to_string(first->of);
  int64_t expected = 0;
  std::vector<SweepRow> merged;
  for (size_t i = 0; i < refs.size(); ++i) {
    if (refs[i].point > expected) {
      return Status::Error("point " + std::to_string(expected) + of_text + " is missing (looked in " +
                           searched + ")");
    }
    if (i > 0 && refs[i].point == refs[i - 1].point) {
      return Status::Error("point " + std::to_string(refs[i].point) + of_text +
                           " appears twice: " + at(refs[i - 1]) + " and " + at(refs[i]));
    }
    merged.push_back(files[refs[i].file].rows[refs[i].row]);
    expected = refs[i].point + 1;
  }
  if (expected < first->of) {
    return Status::Error("point " + std::to_string(expected) + of_text + " is missing (looked in " +
                         searched + ")");
  }
  return merged;
}

}  // namespace tilesched::sweep
