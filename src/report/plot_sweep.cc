// Sweep CSV reading and gnuplot script generation.
#include "plot_sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "tilesched/csv.h"

namespace tilesched::report {

namespace {

Result<double> ParseNumber(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return Status::Error(where + ": expected a number, got '" + text + "'");
  }
  return value;
}

std::string Where(const SweepPoint& p, const std::string& column) {
  return "line " + std::to_string(p.line) + ": " + column;
}

// Columns whose differing values keep points on separate lines (besides the series column).
const std::vector<std::string>& KeyColumns() {
  static const std::vector<std::string> columns = {"problem", "capacity", "bandwidth",
                                                   "native",  "rules",    "matmul_reduction",
                                                   "k_limit", "seed",     "strategy"};
  return columns;
}

bool Varies(const std::vector<SweepPoint>& points, const std::string& column) {
  for (const SweepPoint& p : points) {
    if (p.fields.at(column) != points.front().fields.at(column)) return true;
  }
  return false;
}

std::string KeyOf(const SweepPoint& p, const std::vector<std::string>& columns) {
  std::string key;
  for (const std::string& column : columns) key += p.fields.at(column) + '\x1f';
  return key;
}

// Whether `column` takes two values among points that agree on every one of `group`.
bool VariesWithin(const std::vector<SweepPoint>& points, const std::string& column,
                  const std::vector<std::string>& group) {
  std::map<std::string, std::string> seen;
  for (const SweepPoint& p : points) {
    const auto [it, fresh] = seen.emplace(KeyOf(p, group), p.fields.at(column));
    if (!fresh && it->second != p.fields.at(column)) return true;
  }
  return false;
}

// What an x column measures, and its unit (for the title and the axis label).
struct Axis {
  std::string name;
  std::string unit;
};

Axis AxisOf(const std::string& column) {
  if (column == "capacity") return {"fast memory capacity", "elements"};
  if (column == "bandwidth") return {"slow memory bandwidth", "elements per time unit"};
  return {"native tile width and height", "elements"};
}

// A legend label: a problem by its file name without directory and ".json", another column as
// column=value; control characters become spaces.
std::string ValueLabel(const std::string& column, const std::string& value) {
  std::string text = column + "=" + value;
  if (column == "problem") {
    text = std::filesystem::path(value).filename().string();
    const std::string suffix = ".json";
    if (text.size() > suffix.size() &&
        text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
      text.resize(text.size() - suffix.size());
    }
  }
  for (char& ch : text) {
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  }
  return text;
}

// A gnuplot single-quoted string: no escapes inside, a quote is doubled.
std::string Quote(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

std::string Number(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.12g", value);
  return buffer;
}

// Distinct line colours (the "category10" set), repeated after ten series.
constexpr const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr size_t kNumColours = sizeof(kColours) / sizeof(kColours[0]);

}  // namespace

const std::vector<std::string>& SweepRequiredColumns() {
  static const std::vector<std::string> columns = {
      "problem", "capacity", "bandwidth", "native", "rules",   "matmul_reduction",
      "k_limit", "seed",     "strategy",  "status", "latency", "lower_bound"};
  return columns;
}

const std::vector<std::string>& PlotXColumns() {
  static const std::vector<std::string> columns = {"capacity", "bandwidth", "native"};
  return columns;
}

const std::vector<std::string>& PlotSeriesColumns() {
  static const std::vector<std::string> columns = {
      "problem", "capacity", "bandwidth", "native", "rules", "matmul_reduction", "k_limit"};
  return columns;
}

Result<std::vector<SweepPoint>> ParseSweepCsv(const std::string& text, const std::string& name) {
  auto records = ParseCsv(text, name);
  if (!records.ok()) return records.status();
  if (records->empty()) return Status::Error(name + ": empty file, expected a header line");
  const std::vector<std::string>& header = records->front().fields;
  for (size_t c = 0; c < header.size(); ++c) {
    if (std::find(header.begin(), header.begin() + static_cast<long>(c), header[c]) !=
        header.begin() + static_cast<long>(c)) {
      return Status::Error(name + " line 1: column '" + header[c] + "' appears twice");
    }
  }
  for (const std::string& column : SweepRequiredColumns()) {
    if (std::find(header.begin(), header.end(), column) == header.end()) {
      return Status::Error(name + " line 1: the header has no '" + column +
                           "' column (is this a sweep CSV?)");
    }
  }
  std::vector<SweepPoint> points;
  for (size_t r = 1; r < records->size(); ++r) {
    const CsvRecord& record = (*records)[r];
    if (record.fields.size() != header.size()) {
      return Status::Error(name + " line " + std::to_string(record.line) + ": expected " +
                           std::to_string(header.size()) + " fields like the header, got " +
                           std::to_string(record.fields.size()));
    }
    SweepPoint point;
    point.line = record.line;
    for (size_t c = 0; c < header.size(); ++c) point.fields[header[c]] = record.fields[c];
    if (point.fields["status"] != "ok") continue;
    auto latency = ParseNumber(point.fields["latency"], name + " " + Where(point, "latency"));
    if (!latency.ok()) return latency.status();
    auto bound = ParseNumber(point.fields["lower_bound"], name + " " + Where(point, "lower_bound"));
    if (!bound.ok()) return bound.status();
    point.latency = *latency;
    point.lower_bound = *bound;
    points.push_back(std::move(point));
  }
  return points;
}

Status CheckPlotOptions(const PlotOptions& options) {
  const auto& xs = PlotXColumns();
  const auto& series_columns = PlotSeriesColumns();
  if (!options.x.empty() && std::find(xs.begin(), xs.end(), options.x) == xs.end()) {
    return Status::Error("--x: expected capacity, bandwidth or native, got '" + options.x + "'");
  }
  if (std::find(series_columns.begin(), series_columns.end(), options.series) ==
      series_columns.end()) {
    return Status::Error(
        "--series: expected problem, capacity, bandwidth, native, rules, "
        "matmul_reduction or k_limit, got '" +
        options.series + "'");
  }
  if (options.series == options.x) {
    return Status::Error("--series " + options.series + " is the x axis; choose another series");
  }
  return Status::Ok();
}

Result<PlotFiles> BuildPlot(const std::vector<SweepPoint>& points, const PlotOptions& options) {
  if (Status s = CheckPlotOptions(options); !s.ok()) return s;
  const auto& xs = PlotXColumns();
  if (points.empty()) return Status::Error("nothing to plot: no rows with status=ok");

  PlotFiles files;
  files.x = options.x;
  if (files.x.empty()) {
    for (const std::string& column : xs) {
      if (Varies(points, column)) {
        files.x = column;
        break;
      }
    }
    if (files.x.empty()) {
      return Status::Error(
          "capacity, bandwidth and native are the same in every status=ok row: "
          "nothing varies to plot against (pass --x to choose one anyway)");
    }
  }
  if (files.x == options.series) {
    return Status::Error("--series " + options.series + " is the x axis; choose another series");
  }

  // Line key: the series column, then every other key column that still varies among the
  // points of one line, so points of different settings never share a line (a column that
  // only follows the series, like a problem's own bandwidth, does not split it).
  std::vector<std::string> key_columns = {options.series};
  for (const std::string& column : KeyColumns()) {
    if (column != files.x && column != options.series &&
        VariesWithin(points, column, key_columns)) {
      key_columns.push_back(column);
    }
  }
  std::vector<std::string> keys;
  std::vector<std::vector<std::pair<double, const SweepPoint*>>> lines;
  for (const SweepPoint& p : points) {
    const std::string key = KeyOf(p, key_columns);
    auto x = ParseNumber(p.fields.at(files.x), Where(p, files.x));
    if (!x.ok()) return x.status();
    if (options.log_x && *x <= 0) {
      return Status::Error("--log-x: " + Where(p, files.x) + " is " + p.fields.at(files.x) +
                           ", not positive");
    }
    if (options.log_y && (p.latency <= 0 || p.lower_bound <= 0)) {
      return Status::Error("--log-y: " + Where(p, "latency / lower_bound") +
                           " are not both positive");
    }
    const size_t index =
        static_cast<size_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
    if (index == keys.size()) {
      keys.push_back(key);
      lines.emplace_back();
      std::string label;
      for (const std::string& column : key_columns) {
        label += (label.empty() ? "" : " ") + ValueLabel(column, p.fields.at(column));
      }
      files.labels.push_back(label);
    }
    lines[index].emplace_back(*x, &p);
  }

  files.output = options.png ? "plot.png" : "plot.svg";
  std::string plot;
  for (size_t s = 0; s < lines.size(); ++s) {
    auto& line = lines[s];
    std::stable_sort(line.begin(), line.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::string file = "series" + std::to_string(s) + ".dat";
    std::string data = "# " + files.labels[s] + "\n# " + files.x + " latency lower_bound\n";
    for (const auto& [x, p] : line) {
      data += Number(x) + " " + Number(p->latency) + " " + Number(p->lower_bound) + "\n";
    }
    files.data.emplace_back(file, std::move(data));
    const std::string colour = Quote(kColours[s % kNumColours]);
    plot += (s ? ", \\\n     " : "plot ") + Quote(file) +
            " using 1:2 with linespoints linecolor rgb " + colour +
            " linewidth 2 pointtype 7 pointsize 0.8 title " + Quote(files.labels[s]) +
            ", \\\n     " + Quote(file) + " using 1:3 with lines linecolor rgb " + colour +
            " linewidth 1.5 dashtype 2 notitle";
  }
  // One legend entry explains every dashed line.
  plot +=
      ", \\\n     NaN with lines linecolor rgb '#444444' linewidth 1.5 dashtype 2 title "
      "'lower bound (dashed)'\n";

  const Axis axis = AxisOf(files.x);
  const std::string title = options.title.empty() ? "latency vs " + axis.name : options.title;
  std::string& script = files.script;
  script = "# tilesched plot: latency (solid, points) and lower bound (dashed) against " + files.x +
           ".\n";
  // noenhanced: underscores in problem names stay underscores, not subscripts.
  script += options.png ? "set terminal pngcairo size 1280,800 noenhanced font 'Helvetica,12'"
                        : "set terminal svg size 960,600 dynamic noenhanced font 'Helvetica,13'";
  script += " background rgb 'white'\n";
  script += "set output " + Quote(files.output) + "\n";
  script += "set title " + Quote(title) + "\n";
  script += "set xlabel " + Quote(axis.name + " (" + axis.unit + ")") + "\n";
  script += "set ylabel 'latency (time units)'\n";
  script += "set grid\nset key below\n";
  // Axes end at the data, with a small margin so end points are not cut by the frame.
  script += "set autoscale xfix\nset offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05\n";
  if (options.log_x) script += "set logscale x\n";
  // A log axis would otherwise round out to whole decades and squash the lines.
  if (options.log_y) script += "set logscale y\nset autoscale yfix\n";
  script += plot;
  return files;
}

}  // namespace tilesched::report
