// The CSV reader and writer (RFC 4180).
#include "tilesched/csv.h"

namespace tilesched {

namespace {

std::string OneLine(std::string text) {
  for (char& ch : text) {
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  }
  return text;
}

std::string CsvCell(const std::string& cell) {
  if (cell.find_first_of(",\"") == std::string::npos) return cell;
  std::string out = "\"";
  for (char ch : cell) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

// RFC 4180: fields separated by commas, records by LF or CRLF, a field in double quotes may
// hold commas, line breaks and doubled quotes. Blank lines are skipped.
Result<std::vector<CsvRecord>> Split(const std::string& text, const std::string& name, bool comments) {
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field;
  int line = 1;
  record.line = 1;
  bool record_empty = true;  // nothing but an empty first field so far
  auto end_field = [&] {
    record.fields.push_back(std::move(field));
    field.clear();
  };
  auto end_record = [&] {
    end_field();
    if (!(record_empty && record.fields.size() == 1 && record.fields[0].empty())) {
      records.push_back(std::move(record));
    }
    record = CsvRecord();
    record_empty = true;
  };
  size_t i = 0;
  const size_t n = text.size();
  auto where = [&](int at) { return name.empty() ? std::string() : name + " line " + std::to_string(at) + ": "; };
  while (i < n) {
    const char ch = text[i];
    if (comments && ch == '#' && record_empty && field.empty()) {
      while (i < n && text[i] != '\n') ++i;  // the newline ends the (empty) record
      continue;
    }
    if (ch == '"' && field.empty()) {
      const int opened = line;
      ++i;
      for (;;) {
        if (i >= n) {
          return Status::Error(where(opened) + "a quoted field is never closed");
        }
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        if (text[i] == '\n') ++line;
        field += text[i++];
      }
      record_empty = false;
      if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
        return Status::Error(where(line) + "unexpected text after a closing quote");
      }
      continue;
    }
    if (ch == ',') {
      end_field();
      record_empty = false;
      ++i;
    } else if (ch == '\r' && i + 1 < n && text[i + 1] == '\n') {
      ++i;
    } else if (ch == '\n') {
      end_record();
      record.line = ++line;
      ++i;
    } else {
      field += ch;
      record_empty = false;
      ++i;
    }
  }
  if (!record_empty || !field.empty()) end_record();
  return records;
}

}  // namespace

std::string CsvLine(const std::vector<std::string>& cells) {
  std::string line;
  for (size_t c = 0; c < cells.size(); ++c) {
    if (c) line += ',';
    line += CsvCell(OneLine(cells[c]));
  }
  return line + "\n";
}

Result<std::vector<CsvRecord>> ParseCsv(const std::string& text, const std::string& name,
                                        bool comments) {
  return Split(text, name, comments);
}

Result<std::vector<std::string>> SplitCsvLine(const std::string& line) {
  auto records = Split(line, "", /*comments=*/false);
  if (!records.ok()) return records.status();
  if (records->empty()) return std::vector<std::string>{""};
  if (records->size() > 1) return Status::Error("a record spans more than one line");
  return std::move(records->front().fields);
}

}  // namespace tilesched
