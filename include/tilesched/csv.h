// CSV: the one reader and writer of comma-separated files (sweep rows, sweep plots, the
// benchmark targets and the golden results table).
//
// Entry points: CsvLine(cells) writes one record (RFC 4180 quoting of cells holding commas or
// quotes; control characters become spaces, so a record is always one line). ParseCsv(text,
// name) reads a whole file into records with the line each starts on (RFC 4180: quoted cells
// may hold commas, line breaks and doubled quotes; LF or CRLF; blank lines skipped; with
// `comments`, lines starting with '#' skipped too). SplitCsvLine(line) reads one record
// written on one line. Messages name the file and line: "sweep.csv line 2: a quoted field is
// never closed".
#ifndef TILESCHED_CSV_H_
#define TILESCHED_CSV_H_

#include <string>
#include <vector>

#include "tilesched/status.h"

namespace tilesched {

// Cells as one CSV line with its '\n'.
std::string CsvLine(const std::vector<std::string>& cells);

struct CsvRecord {
  int line = 0;  // 1-based line the record starts on
  std::vector<std::string> fields;
};

Result<std::vector<CsvRecord>> ParseCsv(const std::string& text, const std::string& name,
                                        bool comments = false);

// The cells of one record on one line (no file name or line in messages; "" is one empty cell).
Result<std::vector<std::string>> SplitCsvLine(const std::string& line);

}  // namespace tilesched

#endif  // TILESCHED_CSV_H_
