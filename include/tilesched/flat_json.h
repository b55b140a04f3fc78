// Flat JSON: objects whose values are scalars or flat lists of scalars (sweep definitions,
// configs/sweeps/*.json) and one-line flat objects (JSON Lines sweep rows).
//
// Entry points: ParseListConfig(text) reads a JSON object whose values are scalars or flat
// lists of scalars (a sweep definition; the caller checks each key strictly).
// FlatJsonLine(fields) writes one flat JSON object on one line; ParseFlatJsonLine(line) reads
// one back. Numbers keep the exact text they were written with in both directions, so a row
// read from JSON Lines and written as CSV (or back) is unchanged. Part of the io target, the
// only place nlohmann_json appears.
#ifndef TILESCHED_FLAT_JSON_H_
#define TILESCHED_FLAT_JSON_H_

#include <string>
#include <vector>

#include "tilesched/status.h"

namespace tilesched {

// One key of a list config. A scalar value gives one item; a list gives one item per element.
// Items are texts: a string's contents, or a number as written in the file.
struct ListConfigEntry {
  std::string key;
  std::vector<std::string> items;
  bool is_list = false;
};

// Fails on malformed JSON, a non-object, a repeated key, and values that are not numbers,
// strings or lists of them ("capacity[1]: expected a number or a string, got an object").
Result<std::vector<ListConfigEntry>> ParseListConfig(const std::string& text);

enum class JsonScalar { kNull, kNumber, kString };

struct JsonField {
  std::string name;
  JsonScalar kind = JsonScalar::kNull;
  std::string text;  // a number's JSON text, or a string's contents; empty for null
};

// {"name":value,...} on one line, in field order, without a newline. A kNumber text must be a
// JSON number (asserted).
std::string FlatJsonLine(const std::vector<JsonField>& fields);

// A flat object of numbers, strings and nulls, fields in line order; booleans, nesting and
// repeated names fail with a message naming the field.
Result<std::vector<JsonField>> ParseFlatJsonLine(const std::string& line);

}  // namespace tilesched

#endif  // TILESCHED_FLAT_JSON_H_
