// Sweep JSON: a SAX reader of flat objects keeps every number's text exactly as written.
#include "tilesched/flat_json.h"

#include <cassert>
#include <set>

#include <nlohmann/json.hpp>

#include "tilesched/io.h"

namespace tilesched {

namespace {

using nlohmann::json;

// Reads one object of scalars, optionally with flat lists of scalars as values. Nesting deeper
// than that is refused as soon as it opens, so no input can build a deep structure.
class FlatObjectReader : public nlohmann::json_sax<json> {
 public:
  struct Entry {
    std::string key;
    std::vector<JsonField> values;
    bool is_list = false;
  };

  FlatObjectReader(bool allow_lists, bool allow_null)
      : allow_lists_(allow_lists), allow_null_(allow_null) {}

  bool null() override {
    if (!allow_null_) return Reject("null");
    return Scalar(JsonScalar::kNull, "");
  }
  bool boolean(bool) override { return Reject("a boolean"); }
  bool number_integer(number_integer_t value) override {
    return Scalar(JsonScalar::kNumber, std::to_string(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return Scalar(JsonScalar::kNumber, std::to_string(value));
  }
  bool number_float(number_float_t, const string_t& text) override {
    return Scalar(JsonScalar::kNumber, text);
  }
  bool string(string_t& value) override { return Scalar(JsonScalar::kString, value); }
  bool binary(binary_t&) override { return Reject("binary data"); }
  bool start_object(std::size_t) override {
    if (state_ == State::kStart) {
      state_ = State::kInObject;
      return true;
    }
    return Reject("an object");
  }
  bool key(string_t& name) override {
    if (!keys_.insert(name).second) {
      error_ = name + ": appears twice";
      return false;
    }
    entries_.push_back({name, {}, false});
    return true;
  }
  bool end_object() override {
    state_ = State::kDone;
    return true;
  }
  bool start_array(std::size_t) override {
    if (state_ != State::kInObject || !allow_lists_) return Reject("a list");
    state_ = State::kInList;
    entries_.back().is_list = true;
    return true;
  }
  bool end_array() override {
    state_ = State::kInObject;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const json::exception& ex) override {
    error_ = "malformed JSON: " + ReadableJsonError(ex.what());
    return false;
  }

  bool done() const { return state_ == State::kDone; }
  const std::string& error() const { return error_; }
  std::vector<Entry>& entries() { return entries_; }

 private:
  enum class State { kStart, kInObject, kInList, kDone };

  bool Scalar(JsonScalar kind, std::string text) {
    if (state_ == State::kStart) return Reject("a single value");
    entries_.back().values.push_back({entries_.back().key, kind, std::move(text)});
    return true;
  }

  // Names the place of an unwanted value: "key", "key[2]", or the whole document.
  bool Reject(const std::string& what) {
    const std::string expected =
        allow_null_ ? "a number, a string or null" : "a number or a string";
    if (state_ == State::kStart) {
      error_ = "expected a JSON object, got " + what;
    } else if (state_ == State::kInList) {
      error_ = entries_.back().key + "[" + std::to_string(entries_.back().values.size()) +
               "]: expected " + expected + ", got " + what;
    } else {
      error_ = entries_.back().key + ": expected " + expected +
               (allow_lists_ ? " or a list of them" : "") + ", got " + what;
    }
    return false;
  }

  bool allow_lists_, allow_null_;
  State state_ = State::kStart;
  std::set<std::string> keys_;
  std::vector<Entry> entries_;
  std::string error_;
};

Status Read(const std::string& text, FlatObjectReader* reader) {
  bool ok = false;
  try {
    ok = json::sax_parse(text, reader);
  } catch (const json::exception& e) {
    return Status::Error("malformed JSON: " + ReadableJsonError(e.what()));
  }
  if (!ok || !reader->done()) {
    return Status::Error(reader->error().empty() ? "malformed JSON" : reader->error());
  }
  return Status::Ok();
}

// JSON string literal; invalid UTF-8 is replaced rather than refused, so any message or path
// can be written.
std::string Quoted(const std::string& text) {
  return json(text).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

Result<std::vector<ListConfigEntry>> ParseListConfig(const std::string& text) {
  FlatObjectReader reader(/*allow_lists=*/true, /*allow_null=*/false);
  if (Status s = Read(text, &reader); !s.ok()) return s;
  std::vector<ListConfigEntry> entries;
  for (FlatObjectReader::Entry& e : reader.entries()) {
    ListConfigEntry entry;
    entry.key = e.key;
    entry.is_list = e.is_list;
    for (JsonField& v : e.values) entry.items.push_back(std::move(v.text));
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string FlatJsonLine(const std::vector<JsonField>& fields) {
  std::string line = "{";
  for (size_t i = 0; i < fields.size(); ++i) {
    const JsonField& f = fields[i];
    if (i > 0) line += ',';
    line += Quoted(f.name) + ':';
    switch (f.kind) {
      case JsonScalar::kNull:
        line += "null";
        break;
      case JsonScalar::kNumber:
        assert(!f.text.empty() && "a JSON number needs its text");
        line += f.text;
        break;
      case JsonScalar::kString:
        line += Quoted(f.text);
        break;
    }
  }
  return line + "}";
}

Result<std::vector<JsonField>> ParseFlatJsonLine(const std::string& line) {
  FlatObjectReader reader(/*allow_lists=*/false, /*allow_null=*/true);
  if (Status s = Read(line, &reader); !s.ok()) return s;
  std::vector<JsonField> fields;
  for (FlatObjectReader::Entry& e : reader.entries()) {
    // Without lists every key has exactly one value.
    fields.push_back(std::move(e.values.front()));
  }
  return fields;
}

}  // namespace tilesched
