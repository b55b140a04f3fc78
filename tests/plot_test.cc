// Sweep plots: reading sweep CSVs (quoting, skipped rows, errors naming the line), the gnuplot
// script and data files (x column, series, line styles, log axes, terminals), and `tilesched
// plot` end to end (gnuplot run when installed, otherwise skipped; the missing-gnuplot message).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "plot_sweep.h"
#include "report_tools.h"
#include "test_files.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;
using report::BuildPlot;
using report::ParseSweepCsv;
using report::PlotFiles;
using report::PlotOptions;
using report::SweepPoint;

// A missing tool skips its test, except under scripts/ci_report.sh, which installs the tools
// and sets TILESCHED_REQUIRE_TOOLS=1 so that a skip cannot pass for a success.
bool ToolsRequired() { return std::getenv("TILESCHED_REQUIRE_TOOLS") != nullptr; }

const char kHeader[] =
    "point,of,problem,capacity,bandwidth,native,matmul_throughput,vector_throughput,rules,"
    "matmul_reduction,k_limit,seed,strategy,"
    "status,latency,lower_bound,ratio,gap,subgraphs,compute_bound_share,wall_s,message\n";

// One sweep row; `problem` is a path as `tilesched sweep` writes it.
std::string Row(int point, const std::string& problem, int capacity, int bandwidth,
                const std::string& status, const std::string& latency, double lower_bound,
                const std::string& message = "") {
  return std::to_string(point) + ",8," + problem + "," + std::to_string(capacity) + "," +
         std::to_string(bandwidth) + ",128,,,contest,full_k,native,1,portfolio," + status + "," +
         latency + "," + std::to_string(lower_bound) + ",1.5,0.5,3,0.25,0.1," + message + "\n";
}

// Two problems over three capacities (one point failed), listed out of x order.
std::string CapacitySweep() {
  return std::string(kHeader) +
         Row(0, "data/benchmarks/mlsys-2026-1.json", 60000, 20, "ok", "500", 100) +
         Row(1, "data/benchmarks/mlsys-2026-1.json", 30000, 20, "ok", "900", 100) +
         Row(2, "data/benchmarks/mlsys-2026-1.json", 90000, 20, "ok", "400", 100) +
         Row(3, "data/benchmarks/mlsys-2026-3.json", 30000, 20, "ok", "700", 200) +
         Row(4, "data/benchmarks/mlsys-2026-3.json", 60000, 20, "infeasible", "", 200,
             "\"no schedule fits, \"\"capacity\"\" too small\"") +
         Row(5, "data/benchmarks/mlsys-2026-3.json", 90000, 20, "ok", "300", 200);
}

std::vector<SweepPoint> MustParse(const std::string& csv) {
  auto points = ParseSweepCsv(csv, "sweep.csv");
  EXPECT_TRUE(points.ok()) << points.status().message();
  return points.ok() ? *points : std::vector<SweepPoint>{};
}

PlotFiles MustBuild(const std::vector<SweepPoint>& points, const PlotOptions& options) {
  auto files = BuildPlot(points, options);
  EXPECT_TRUE(files.ok()) << files.status().message();
  return files.ok() ? *files : PlotFiles{};
}

using testing::CountOf;

// --- CSV ----------------------------------------------------------------------------------------

TEST(PlotCsv, KeepsOkRowsWithTheirLines) {
  const std::vector<SweepPoint> points = MustParse(CapacitySweep());
  ASSERT_EQ(points.size(), 5u);
  EXPECT_EQ(points[0].line, 2);
  EXPECT_EQ(points[4].line, 7) << "the skipped row 6 still counts";
  EXPECT_EQ(points[1].fields.at("capacity"), "30000");
  EXPECT_DOUBLE_EQ(points[1].latency, 900);
  EXPECT_DOUBLE_EQ(points[3].lower_bound, 200);
}

TEST(PlotCsv, QuotingCrlfBlankLinesAndExtraColumns) {
  // Header with an extra column; CRLF line ends; a quoted message with a comma, a doubled quote
  // and a line break; a blank line at the end.
  std::string header = kHeader;
  header.insert(header.size() - 1, ",extra");
  std::string csv = header;
  csv += Row(0, "p.json", 10, 20, "ok", "5", 1, "\"a, \"\"b\"\"\nc\"");
  csv.insert(csv.size() - 1, ",x");
  csv += Row(1, "p.json", 20, 20, "ok", "4", 1);
  csv.insert(csv.size() - 1, ",y");
  std::string crlf;
  for (char ch : csv) crlf += ch == '\n' ? std::string("\r\n") : std::string(1, ch);
  // The line break inside the quoted field stays a bare LF.
  const size_t quoted = crlf.find("\"\"b\"\"\r\nc");
  ASSERT_NE(quoted, std::string::npos);
  crlf.erase(quoted + 5, 1);
  crlf += "\r\n";
  const std::vector<SweepPoint> points = MustParse(crlf);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].fields.at("message"), "a, \"b\"\nc");
  EXPECT_EQ(points[0].fields.at("extra"), "x");
  EXPECT_EQ(points[1].line, 4) << "the quoted line break counts as a line";
  EXPECT_EQ(points[1].fields.at("capacity"), "20");
}

struct CsvErrorCase {
  std::string name;
  std::string csv;
  std::string needle;
};

TEST(PlotCsv, ErrorsNameTheFileLineAndColumn) {
  std::string no_latency_column = kHeader;
  no_latency_column.replace(no_latency_column.find(",latency,"), 9, ",");
  const std::vector<CsvErrorCase> cases = {
      {"empty", "", "sweep.csv: empty file"},
      {"missing column", no_latency_column, "sweep.csv line 1: the header has no 'latency' column"},
      {"duplicate column", "problem,problem\n", "sweep.csv line 1: column 'problem' appears twice"},
      {"short row", std::string(kHeader) + "0,1,p.json,100\n",
       "sweep.csv line 2: expected 22 fields like the header, got 4"},
      {"bad latency", std::string(kHeader) + Row(0, "p.json", 1, 1, "ok", "fast", 1),
       "sweep.csv line 2: latency: expected a number, got 'fast'"},
      {"infinite latency", std::string(kHeader) + Row(0, "p.json", 1, 1, "ok", "inf", 1),
       "line 2: latency: expected a number, got 'inf'"},
      {"open quote", std::string(kHeader) + Row(0, "p.json", 1, 1, "ok", "1", 1, "\"never"),
       "sweep.csv line 2: a quoted field is never closed"},
      {"text after quote", std::string(kHeader) + Row(0, "\"p\"x", 1, 1, "ok", "1", 1),
       "sweep.csv line 2: unexpected text after a closing quote"},
  };
  for (const CsvErrorCase& c : cases) {
    auto points = ParseSweepCsv(c.csv, "sweep.csv");
    ASSERT_FALSE(points.ok()) << c.name;
    EXPECT_NE(points.status().message().find(c.needle), std::string::npos)
        << c.name << ": " << points.status().message();
    EXPECT_EQ(points.status().message().find('\n'), std::string::npos) << c.name;
  }
}

// --- script and data ----------------------------------------------------------------------------

TEST(PlotScript, OneLinePerProblemSortedByX) {
  const PlotFiles files = MustBuild(MustParse(CapacitySweep()), {});
  EXPECT_EQ(files.x, "capacity") << "the first parameter that varies";
  EXPECT_EQ(files.labels, (std::vector<std::string>{"mlsys-2026-1", "mlsys-2026-3"}));
  ASSERT_EQ(files.data.size(), 2u);
  EXPECT_EQ(files.data[0].first, "series0.dat");
  EXPECT_EQ(files.data[0].second,
            "# mlsys-2026-1\n# capacity latency lower_bound\n"
            "30000 900 100\n60000 500 100\n90000 400 100\n");
  EXPECT_EQ(files.data[1].second,
            "# mlsys-2026-3\n# capacity latency lower_bound\n30000 700 200\n90000 300 200\n");
  const std::string& s = files.script;
  EXPECT_EQ(files.output, "plot.svg");
  EXPECT_NE(s.find("set terminal svg "), std::string::npos) << s;
  EXPECT_NE(s.find("set output 'plot.svg'\n"), std::string::npos) << s;
  EXPECT_NE(s.find("set xlabel 'fast memory capacity (elements)'\n"), std::string::npos) << s;
  EXPECT_NE(s.find("set title 'latency vs fast memory capacity'\n"), std::string::npos) << s;
  // Per series: latency solid with points, lower bound dashed in the same colour, no own key.
  for (int i = 0; i < 2; ++i) {
    const std::string file = "'series" + std::to_string(i) + ".dat'";
    EXPECT_EQ(CountOf(s, file + " using 1:2 with linespoints"), 1) << s;
    EXPECT_EQ(CountOf(s, file + " using 1:3 with lines"), 1) << s;
  }
  EXPECT_EQ(CountOf(s, "with linespoints linecolor rgb '#1f77b4'"), 1);
  EXPECT_EQ(CountOf(s, "with lines linecolor rgb '#1f77b4' linewidth 1.5 dashtype 2 notitle"), 1);
  EXPECT_EQ(CountOf(s, "title 'mlsys-2026-1'"), 1);
  EXPECT_EQ(CountOf(s, "title 'lower bound (dashed)'"), 1);
  EXPECT_EQ(CountOf(s, "dashtype 2"), 3);
  EXPECT_EQ(CountOf(s, "logscale"), 0);
}

TEST(PlotScript, OptionsChangeAxesTerminalTitleAndSeries) {
  // Capacity and bandwidth both vary: x defaults to capacity, and with series=problem each
  // bandwidth gets lines of its own.
  const std::string csv = std::string(kHeader) + Row(0, "a.json", 100, 10, "ok", "9", 1) +
                          Row(1, "a.json", 200, 10, "ok", "8", 1) +
                          Row(2, "a.json", 100, 20, "ok", "7", 1) +
                          Row(3, "a.json", 200, 20, "ok", "6", 1);
  const std::vector<SweepPoint> points = MustParse(csv);
  const PlotFiles split = MustBuild(points, {});
  EXPECT_EQ(split.x, "capacity");
  EXPECT_EQ(split.labels, (std::vector<std::string>{"a bandwidth=10", "a bandwidth=20"}));

  // A column that only follows the series (each problem's own bandwidth) does not split lines.
  const std::string own_bandwidth = std::string(kHeader) + Row(0, "a.json", 100, 10, "ok", "9", 1) +
                                    Row(1, "a.json", 200, 10, "ok", "8", 1) +
                                    Row(2, "b.json", 100, 20, "ok", "7", 1) +
                                    Row(3, "b.json", 200, 20, "ok", "6", 1);
  EXPECT_EQ(MustBuild(MustParse(own_bandwidth), {}).labels, (std::vector<std::string>{"a", "b"}));
  // Problems as `tilesched sweep` names them (file stems) keep dots that are not ".json".
  const std::string stems = std::string(kHeader) + Row(0, "net.v2", 100, 10, "ok", "9", 1) +
                            Row(1, "net.v2", 200, 10, "ok", "8", 1) +
                            Row(2, "dir/net.v3.json", 100, 10, "ok", "7", 1);
  EXPECT_EQ(MustBuild(MustParse(stems), {}).labels, (std::vector<std::string>{"net.v2", "net.v3"}));

  PlotOptions by_bandwidth;
  by_bandwidth.x = "bandwidth";
  by_bandwidth.series = "capacity";
  by_bandwidth.title = "it's bandwidth";
  by_bandwidth.log_x = true;
  by_bandwidth.log_y = true;
  by_bandwidth.png = true;
  const PlotFiles files = MustBuild(points, by_bandwidth);
  EXPECT_EQ(files.x, "bandwidth");
  EXPECT_EQ(files.labels, (std::vector<std::string>{"capacity=100", "capacity=200"}));
  EXPECT_EQ(files.data[0].second,
            "# capacity=100\n# bandwidth latency lower_bound\n10 9 1\n20 7 1\n");
  EXPECT_EQ(files.output, "plot.png");
  EXPECT_NE(files.script.find("set terminal pngcairo "), std::string::npos);
  EXPECT_NE(files.script.find("set output 'plot.png'\n"), std::string::npos);
  EXPECT_NE(files.script.find("set title 'it''s bandwidth'\n"), std::string::npos)
      << "a quote is doubled inside a gnuplot single-quoted string";
  EXPECT_NE(files.script.find("set logscale x\n"), std::string::npos);
  EXPECT_NE(files.script.find("set logscale y\n"), std::string::npos);
}

struct PlotErrorCase {
  std::string name;
  PlotOptions options;
  std::string csv;  // "" = CapacitySweep()
  std::string needle;
};

TEST(PlotScript, RefusesWhatCannotBePlotted) {
  const std::string constant = std::string(kHeader) + Row(0, "a.json", 100, 10, "ok", "9", 1) +
                               Row(1, "b.json", 100, 10, "ok", "8", 1);
  const std::string zero_x = std::string(kHeader) + Row(0, "a.json", 0, 10, "ok", "9", 1) +
                             Row(1, "a.json", 100, 10, "ok", "8", 1);
  const std::string failed = std::string(kHeader) + Row(0, "a.json", 100, 10, "error", "", 1);
  PlotOptions bad_x, bad_series, same, log_x, log_y, plain;
  bad_x.x = "latency";
  bad_series.series = "seed";
  same.series = "capacity";
  log_x.log_x = true;
  log_y.log_y = true;
  const std::vector<PlotErrorCase> cases = {
      {"x not a parameter", bad_x, "",
       "--x: expected capacity, bandwidth or native, got 'latency'"},
      {"series not a parameter", bad_series, "", "--series: expected problem"},
      {"series is x", same, "", "--series capacity is the x axis"},
      {"nothing varies", plain, constant, "nothing varies to plot against"},
      {"no ok rows", plain, failed, "no rows with status=ok"},
      {"log of zero", log_x, zero_x, "--log-x: line 2: capacity is 0, not positive"},
      {"log of zero latency", log_y,
       std::string(kHeader) + Row(0, "a.json", 1, 1, "ok", "0", 1) +
           Row(1, "a.json", 2, 1, "ok", "1", 1),
       "--log-y: line 2"},
  };
  for (const PlotErrorCase& c : cases) {
    auto points = ParseSweepCsv(c.csv.empty() ? CapacitySweep() : c.csv, "sweep.csv");
    ASSERT_TRUE(points.ok()) << c.name << ": " << points.status().message();
    auto files = BuildPlot(*points, c.options);
    ASSERT_FALSE(files.ok()) << c.name;
    EXPECT_NE(files.status().message().find(c.needle), std::string::npos)
        << c.name << ": " << files.status().message();
  }
}

// --- gnuplot ------------------------------------------------------------------------------------

using testing::ScratchDir;
using testing::Slurp;
using testing::Spit;

TEST(PlotGnuplot, RunsTheGeneratedScript) {
  const std::string gnuplot = report::FindProgram("gnuplot");
  if (gnuplot.empty()) {
    const char* why = "gnuplot is not installed (scripts/ci_report.sh installs it)";
    if (ToolsRequired()) FAIL() << why;
    GTEST_SKIP() << why;
  }
  ScratchDir dir;
  const PlotFiles files = MustBuild(MustParse(CapacitySweep()), {});
  for (const auto& [name, contents] : files.data) Spit(dir.File(name), contents);
  Spit(dir.File("plot.gp"), files.script);
  const Status run = report::RunProgram(dir.path(), {gnuplot, "plot.gp"}, /*timeout_seconds=*/60);
  ASSERT_TRUE(run.ok()) << run.message();
  const std::string svg = Slurp(dir.File("plot.svg"));
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("mlsys-2026-1"), std::string::npos);
  EXPECT_NE(svg.find("mlsys-2026-3"), std::string::npos);
  EXPECT_NE(svg.find("lower bound (dashed)"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos) << "dashed lower bounds";
}

// Runs `tilesched plot ARGS` with its output captured; `env` entries (NAME=value) are set for
// the command only.
testing::ToolRun RunPlot(const ScratchDir& dir, const std::vector<std::string>& args,
                         const std::string& env = "") {
  std::vector<std::string> argv = {TILESCHED_BINARY, "plot"};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::RunTool(argv, dir.path(), env.empty() ? std::vector<std::string>{}
                                                      : std::vector<std::string>{env});
}

TEST(PlotCommand, WritesSvgAndPng) {
  if (report::FindProgram("gnuplot").empty()) {
    const char* why = "gnuplot is not installed (scripts/ci_report.sh installs it)";
    if (ToolsRequired()) FAIL() << why;
    GTEST_SKIP() << why;
  }
  ScratchDir dir;
  Spit(dir.File("sweep.csv"), CapacitySweep());
  const testing::ToolRun svg = RunPlot(dir, {dir.File("sweep.csv"), "-o", dir.File("p.svg"), "--title",
                                          "capacity sweep", "--log-x"});
  ASSERT_EQ(svg.code, 0) << svg.err;
  EXPECT_EQ(svg.out, "wrote " + dir.File("p.svg") + ": 2 line(s), 5 point(s) against capacity\n");
  const std::string image = Slurp(dir.File("p.svg"));
  EXPECT_NE(image.find("capacity sweep"), std::string::npos);
  EXPECT_NE(image.find("mlsys-2026-3"), std::string::npos);

  const testing::ToolRun png = RunPlot(dir, {dir.File("sweep.csv"), "--output", dir.File("p.png")});
  ASSERT_EQ(png.code, 0) << png.err;
  EXPECT_EQ(Slurp(dir.File("p.png")).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(fs::file_size(dir.File("p.png")), 5000u);
}

TEST(PlotCommand, BadInputGetsOneLineAndNoFile) {
  ScratchDir dir;
  Spit(dir.File("sweep.csv"), CapacitySweep());
  Spit(dir.File("bad.csv"), std::string(kHeader) + Row(0, "a.json", 1, 1, "ok", "slow", 1));
  struct Case {
    std::string name;
    std::vector<std::string> args;
    std::string env;
    std::string message;  // the whole stderr
  };
  const std::string csv = dir.File("sweep.csv");
  const std::string out = dir.File("p.svg");
  const std::vector<Case> cases = {
      {"no gnuplot",
       {csv, "-o", out},
       "PATH=" + dir.File("nowhere"),
       "tilesched plot: gnuplot not found: install the Debian package gnuplot-nox\n"},
      {"bad number",
       {dir.File("bad.csv"), "-o", out},
       "",
       "tilesched plot: " + dir.File("bad.csv") +
           " line 2: latency: expected a number, got 'slow'\n"},
      {"missing file", {dir.File("none.csv"), "-o", out}, "", ""},
      {"no output", {csv}, "", "tilesched plot: --output OUT.svg or OUT.png is required\n"},
      {"bad extension",
       {csv, "-o", dir.File("p.pdf")},
       "",
       "tilesched plot: --output: expected a file name ending in .svg or .png, got '" +
           dir.File("p.pdf") + "'\n"},
      {"bad x",
       {csv, "-o", out, "--x", "seed"},
       "",
       "tilesched plot: --x: expected capacity, bandwidth or native, got 'seed'\n"},
  };
  for (const Case& c : cases) {
    const testing::ToolRun r = RunPlot(dir, c.args, c.env);
    EXPECT_EQ(r.code, 2) << c.name << ": " << r.err;
    if (!c.message.empty()) {
      EXPECT_EQ(r.err, c.message) << c.name;
    }
    EXPECT_EQ(CountOf(r.err, "\n"), 1) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find("tilesched plot: "), std::string::npos) << c.name;
    EXPECT_EQ(r.out, "") << c.name;
    EXPECT_FALSE(fs::exists(out)) << c.name;
    EXPECT_FALSE(fs::exists(dir.File("p.pdf"))) << c.name;
  }
}

}  // namespace
}  // namespace tilesched
