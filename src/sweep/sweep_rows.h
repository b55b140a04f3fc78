// Sweep rows: the row schema of `tilesched sweep` (also read by `tilesched plot`), writing a
// row as a CSV or JSON Lines line, reading shard files back, and merging shards.
//
// Entry points: SweepColumns() (the schema, in order), FormatSweepRow(row, format) (one
// complete line), ParseSweepFile(text, name) (CSV with its header line or JSON Lines, told
// apart by content; every row checked against the schema), MergeSweepRows(files) (every point
// of the grid exactly once, all rows agreeing on `of`; sorted by point).
#ifndef TILESCHED_SWEEP_ROWS_H_
#define TILESCHED_SWEEP_ROWS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tilesched/status.h"

namespace tilesched::sweep {

// point,of,problem,capacity,bandwidth,native,matmul_throughput,vector_throughput,rules,
// matmul_reduction,k_limit,seed,strategy,
// status,latency,lower_bound,ratio,gap,subgraphs,compute_bound_share,wall_s,message
const std::vector<std::string>& SweepColumns();
// Index of `column` in SweepColumns() (asserts it exists).
size_t SweepColumn(const std::string& column);
// The columns that identify a point (point .. strategy); equal for the same point of a grid.
inline constexpr size_t kSweepKeyColumns = 13;

enum class SweepFormat { kCsv, kJsonl };
Result<SweepFormat> ParseSweepFormat(const std::string& text);
const char* SweepFormatName(SweepFormat format);
// jsonl for a path ending in .jsonl or .ndjson, csv otherwise.
SweepFormat SweepFormatForPath(const std::string& path);

struct SweepRow {
  int64_t point = 0;
  int64_t of = 0;
  std::vector<std::string> cells;  // one per column, SweepColumns() order; "" = no value
  int line = 0;                    // line in the file it was read from (0 = not read)
};

// An empty row for `point` of `of` with both cells set.
SweepRow NewSweepRow(int64_t point, int64_t of);

// "point,of,...\n" for CSV; empty for JSON Lines (no header).
std::string SweepHeader(SweepFormat format);
// One complete line, '\n' included. Control characters in cells become spaces, so a row is
// always exactly one line. CSV quotes cells holding commas or quotes (RFC 4180); JSON Lines
// writes numeric columns as numbers, empty ones as null.
std::string FormatSweepRow(const SweepRow& row, SweepFormat format);

struct SweepFile {
  SweepFormat format = SweepFormat::kCsv;
  std::vector<SweepRow> rows;
};

// Reads a whole sweep file. JSON Lines when its first non-blank character is '{', CSV (header
// line first) otherwise; an empty file is CSV without rows. Messages name `name` and the line:
// "shard0.csv line 4: latency: expected a number, got 'abc'". A last line without its newline
// (a sweep killed mid-write) is an error.
Result<SweepFile> ParseSweepFile(const std::string& text, const std::string& name);

struct NamedRows {
  std::string name;  // file name, for messages
  std::vector<SweepRow> rows;
};

// Joins shards: all rows agree on `of`, and every point 0..of-1 is present exactly once
// (otherwise the smallest missing or duplicated point is named, with its files and lines).
// Returns the rows sorted by point.
Result<std::vector<SweepRow>> MergeSweepRows(const std::vector<NamedRows>& files);

}  // namespace tilesched::sweep

#endif  // TILESCHED_SWEEP_ROWS_H_
