// Sweep plots for `tilesched plot`: reading a sweep CSV and writing the gnuplot script and data
// files that draw latency (solid, with points) and the lower bound (dashed) against a swept
// hardware parameter.
//
// Entry points: ParseSweepCsv(text, name) keeps the status=ok rows of a sweep CSV (header line
// first; columns are found by name, RFC 4180 quoting); BuildPlot(points, options) picks the x
// column, groups the points into series and returns the script and data files, which refer to
// each other by bare file name so gnuplot runs in the directory they are written to.
#ifndef TILESCHED_REPORT_PLOT_SWEEP_H_
#define TILESCHED_REPORT_PLOT_SWEEP_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tilesched/status.h"

namespace tilesched::report {

// One status=ok row: every column's text, plus the two plotted numbers.
struct SweepPoint {
  int line = 0;  // 1-based line of the row in the CSV (for messages)
  std::map<std::string, std::string> fields;
  double latency = 0;
  double lower_bound = 0;
};

// Columns a sweep CSV must have (the schema of `tilesched sweep`; further columns are ignored).
const std::vector<std::string>& SweepRequiredColumns();
// Columns that may be put on the x axis (numeric hardware parameters), in default order.
const std::vector<std::string>& PlotXColumns();
// Columns that may name the series.
const std::vector<std::string>& PlotSeriesColumns();

// `name` prefixes messages ("sweep.csv line 4: latency: expected a number, got 'abc'").
Result<std::vector<SweepPoint>> ParseSweepCsv(const std::string& text, const std::string& name);

struct PlotOptions {
  std::string x;                   // one of PlotXColumns(); "" = the first that varies
  std::string series = "problem";  // one of PlotSeriesColumns()
  std::string title;               // "" = "latency vs <x axis name>"
  bool log_x = false;
  bool log_y = false;
  bool png = false;  // PNG instead of SVG
};

struct PlotFiles {
  std::string script;  // gnuplot script; writes `output` in its working directory
  std::string output;  // "plot.svg" or "plot.png"
  std::vector<std::pair<std::string, std::string>> data;  // (file name, contents), one per line
  std::string x;                                          // the x column used
  std::vector<std::string> labels;  // legend label of each series, in data order
};

// Checks x and series name columns they may (BuildPlot checks them too).
Status CheckPlotOptions(const PlotOptions& options);

Result<PlotFiles> BuildPlot(const std::vector<SweepPoint>& points, const PlotOptions& options);

}  // namespace tilesched::report

#endif  // TILESCHED_REPORT_PLOT_SWEEP_H_
