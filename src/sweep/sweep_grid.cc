// Grid axes, point decoding and shards.
#include "sweep_grid.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace tilesched::sweep {

namespace {

// Integers stay exact in a double below 2^53; larger hardware values make no sense anyway.
constexpr double kMaxInteger = 9.0e15;

std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

std::vector<std::string> SplitOn(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t at = text.find(separator, start);
    parts.push_back(Trim(text.substr(start, at == std::string::npos ? std::string::npos : at - start)));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

Result<double> ParseNumber(const std::string& text, const std::string& source) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return Status::Error(source + ": expected a number, got '" + text + "'");
  }
  return value;
}

// 12 significant digits: removes the noise that repeated float steps leave behind.
double Snap(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.12g", value);
  return std::strtod(buffer, nullptr);
}

struct AxisValue {
  double value = 0;
  bool generated = false;  // produced by a range (integer axes round these)
};

// "START:STOP:xF" or "START:STOP:+S", inclusive of STOP when the steps land on it.
Status ExpandRange(const std::string& item, const std::string& source,
                   std::vector<AxisValue>* out) {
  const std::vector<std::string> parts = SplitOn(item, ':');
  const std::string syntax = source + ": bad range '" + item +
                             "' (expected START:STOP:xFACTOR or START:STOP:+STEP)";
  if (parts.size() != 3 || parts[2].size() < 2 || (parts[2][0] != 'x' && parts[2][0] != '+')) {
    return Status::Error(syntax);
  }
  auto start = ParseNumber(parts[0], source);
  auto stop = ParseNumber(parts[1], source);
  auto step = ParseNumber(parts[2].substr(1), source);
  if (!start.ok() || !stop.ok() || !step.ok()) return Status::Error(syntax);
  if (*start > *stop) {
    return Status::Error(source + ": range '" + item + "' starts above its stop");
  }
  const bool geometric = parts[2][0] == 'x';
  if (geometric && (*step <= 1 || *start <= 0)) {
    return Status::Error(source + ": geometric range '" + item +
                         "' needs a factor above 1 and a start above 0");
  }
  if (!geometric && *step <= 0) {
    return Status::Error(source + ": range '" + item + "' needs a step above 0");
  }
  for (int64_t i = 0;; ++i) {
    const double value = Snap(geometric ? *start * std::pow(*step, static_cast<double>(i))
                                        : *start + static_cast<double>(i) * *step);
    if (value > *stop) break;
    if (static_cast<int64_t>(out->size()) >= kMaxAxisValues) {
      return Status::Error(source + ": more than " + std::to_string(kMaxAxisValues) + " values");
    }
    out->push_back({value, true});
  }
  return Status::Ok();
}

Result<std::vector<AxisValue>> ParseAxis(const std::string& text, const std::string& source) {
  if (Trim(text).empty()) return Status::Error(source + ": no values given");
  std::vector<AxisValue> values;
  for (const std::string& item : SplitOn(text, ',')) {
    if (item.empty()) return Status::Error(source + ": empty item in '" + text + "'");
    if (item.find(':') != std::string::npos) {
      if (Status s = ExpandRange(item, source, &values); !s.ok()) return s;
      continue;
    }
    auto value = ParseNumber(item, source);
    if (!value.ok()) return value.status();
    if (static_cast<int64_t>(values.size()) >= kMaxAxisValues) {
      return Status::Error(source + ": more than " + std::to_string(kMaxAxisValues) + " values");
    }
    values.push_back({*value, false});
  }
  return values;
}

template <typename T>
Status CheckUnique(const std::vector<T>& values, const std::string& source,
                   std::string (*name)(T)) {
  std::set<T> seen;
  for (const T& v : values) {
    if (!seen.insert(v).second) {
      return Status::Error(source + ": value " + name(v) + " appears twice");
    }
  }
  return Status::Ok();
}

std::string IntegerName(int64_t v) { return std::to_string(v); }
std::string DoubleName(double v) { return ShortestNumber(v); }

template <typename T>
Result<std::vector<T>> ParseNames(const std::string& text, const std::string& source,
                                  Result<T> (*parse)(const std::string&), const char* (*name)(T)) {
  if (Trim(text).empty()) return Status::Error(source + ": no values given");
  std::vector<T> values;
  std::set<std::string> seen;
  for (const std::string& item : SplitOn(text, ',')) {
    auto value = parse(item);
    if (!value.ok()) return value.status().WithContext(source + ": ");
    if (!seen.insert(name(*value)).second) {
      return Status::Error(source + ": value " + item + " appears twice");
    }
    values.push_back(*value);
  }
  return values;
}

}  // namespace

std::string ShortestNumber(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

Result<std::vector<double>> ParseNumberAxis(const std::string& text, const std::string& source) {
  auto parsed = ParseAxis(text, source);
  if (!parsed.ok()) return parsed.status();
  std::vector<double> values;
  for (const AxisValue& v : *parsed) {
    if (v.value <= 0) {
      return Status::Error(source + ": values must be positive, got " + ShortestNumber(v.value));
    }
    values.push_back(v.value);
  }
  if (Status s = CheckUnique(values, source, DoubleName); !s.ok()) return s;
  return values;
}

Result<std::vector<int64_t>> ParseIntegerAxis(const std::string& text, const std::string& source,
                                              int64_t min_value) {
  auto parsed = ParseAxis(text, source);
  if (!parsed.ok()) return parsed.status();
  std::vector<int64_t> values;
  for (const AxisValue& v : *parsed) {
    if (!v.generated && v.value != std::floor(v.value)) {
      return Status::Error(source + ": expected an integer, got " + ShortestNumber(v.value));
    }
    if (v.value < static_cast<double>(min_value) || v.value > kMaxInteger) {
      return Status::Error(source + ": values must be integers from " + std::to_string(min_value) +
                           " to 9e15, got " + ShortestNumber(v.value));
    }
    values.push_back(std::llround(v.value));
  }
  if (Status s = CheckUnique(values, source, IntegerName); !s.ok()) return s;
  return values;
}

Result<std::vector<Rules>> ParseRulesAxis(const std::string& text, const std::string& source) {
  return ParseNames<Rules>(text, source, ParseRules, RulesName);
}

Result<std::vector<MatmulReduction>> ParseMatmulReductionAxis(const std::string& text,
                                                              const std::string& source) {
  return ParseNames<MatmulReduction>(text, source, ParseMatmulReduction, MatmulReductionName);
}

Result<std::vector<KLimit>> ParseKLimitAxis(const std::string& text, const std::string& source) {
  return ParseNames<KLimit>(text, source, ParseKLimit, KLimitName);
}

namespace {

// Axis lengths in point order (problems slowest, seeds fastest); an unset hardware axis is 1.
std::vector<int64_t> Radices(const SweepGrid& g) {
  auto n = [](size_t size) { return std::max<int64_t>(1, static_cast<int64_t>(size)); };
  return {static_cast<int64_t>(g.problems.size()), n(g.capacity.size()),  n(g.bandwidth.size()),
          n(g.native.size()),                      n(g.matmul_throughput.size()), n(g.vector_throughput.size()),
          n(g.rules.size()),                       n(g.matmul_reduction.size()),
          n(g.k_limit.size()),                     n(g.seeds.size())};
}

}  // namespace

int64_t SweepGrid::size() const {
  // Saturates just above the limit so that no product overflows.
  int64_t total = 1;
  for (int64_t r : Radices(*this)) {
    if (r == 0) return 0;
    total = total > kMaxGridPoints / r ? kMaxGridPoints + 1 : total * r;
  }
  return total;
}

Status SweepGrid::CheckSize() const {
  if (problems.empty()) return Status::Error("no problem files given");
  if (size() > kMaxGridPoints) {
    return Status::Error("the grid has more than " + std::to_string(kMaxGridPoints) + " points");
  }
  return Status::Ok();
}

GridPoint SweepGrid::At(int64_t index) const {
  const std::vector<int64_t> radices = Radices(*this);
  std::vector<int64_t> digit(radices.size());
  int64_t rest = index;
  for (size_t d = radices.size(); d-- > 0;) {
    digit[d] = rest % radices[d];
    rest /= radices[d];
  }
  GridPoint p;
  p.index = index;
  p.problem = static_cast<int>(digit[0]);
  if (!capacity.empty()) p.capacity = capacity[digit[1]];
  if (!bandwidth.empty()) p.bandwidth = bandwidth[digit[2]];
  if (!native.empty()) p.native = native[digit[3]];
  if (!matmul_throughput.empty()) p.matmul_throughput = matmul_throughput[digit[4]];
  if (!vector_throughput.empty()) p.vector_throughput = vector_throughput[digit[5]];
  p.modes.rules = rules[digit[6]];
  p.modes.matmul_reduction = matmul_reduction[digit[7]];
  p.modes.k_limit = k_limit[digit[8]];
  p.seed = seeds[digit[9]];
  return p;
}

Result<Shard> ParseShard(const std::string& text) {
  const std::string usage = "--shard: expected I/N with 0 <= I < N, got '" + text + "'";
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return Status::Error(usage);
  Shard shard;
  const char* begin = text.data();
  const char* mid = begin + slash;
  const char* end = begin + text.size();
  auto [i_end, i_ec] = std::from_chars(begin, mid, shard.index);
  auto [n_end, n_ec] = std::from_chars(mid + 1, end, shard.count);
  if (i_ec != std::errc() || i_end != mid || n_ec != std::errc() || n_end != end ||
      shard.count < 1 || shard.index < 0 || shard.index >= shard.count) {
    return Status::Error(usage);
  }
  return shard;
}

std::vector<int64_t> ShardPoints(int64_t grid_size, const Shard& shard) {
  std::vector<int64_t> points;
  for (int64_t p = shard.index; p < grid_size; p += shard.count) points.push_back(p);
  return points;
}

}  // namespace tilesched::sweep
