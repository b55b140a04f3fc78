// `tilesched plot`: latency and lower bound of a sweep against a swept parameter, drawn by
// gnuplot from the script and data files plot_sweep.h generates.
#include <iostream>

#include "args.h"
#include "commands.h"
#include "plot_sweep.h"
#include "report_tools.h"
#include "tilesched/file_util.h"

namespace tilesched::cli {

namespace {

// gnuplot draws a sweep of any size in well under a second; this only guards against a hang.
constexpr double kGnuplotTimeoutSeconds = 120;

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int RunPlot(int argc, char** argv, int first) {
  Args args(
      "plot", "SWEEP.csv -o OUT.svg|OUT.png [options]",
      "Draws latency (solid lines with points) and the lower bound (dashed) of the\n"
      "status=ok rows of a sweep CSV (as written by 'tilesched sweep') against a swept\n"
      "parameter, one line per problem or per value of another parameter (--series);\n"
      "points of one series that differ in a further parameter get lines of their own.\n"
      "Runs gnuplot (Debian package gnuplot-nox): SVG output, PNG when OUT ends in .png.\n"
      "See docs/reports.md.\n"
      "Exit status: 0 written, 2 usage or input error (or gnuplot missing or failing).",
      {
          {"output", "OUT", "write the plot here, .svg or .png (required); -o for short"},
          {"x", "capacity|bandwidth|native", "x axis (default: the first of them that varies)"},
          {"series", "COLUMN",
           "one line per value of problem (default), capacity, bandwidth, "
           "native, rules, matmul_reduction or k_limit"},
          {"title", "TEXT", "plot title (default: 'latency vs <x axis>')"},
          {"log-x", "", "logarithmic x axis"},
          {"log-y", "", "logarithmic y axis"},
      },
      1, 1);
  std::vector<char*> expanded = ExpandShortOutput(argc, argv, first);
  if (Status s = args.Parse(argc, expanded.data(), first); !s.ok()) {
    return Fail("plot", s.message(), kExitUsage);
  }
  if (args.help()) {
    std::cout << args.HelpText();
    return kExitOk;
  }
  const std::string output = args.Get("output");
  if (output.empty()) return Fail("plot", "--output OUT.svg or OUT.png is required", kExitUsage);
  PlotOptions options;
  options.png = EndsWith(output, ".png");
  if (!options.png && !EndsWith(output, ".svg")) {
    return Fail("plot",
                "--output: expected a file name ending in .svg or .png, got '" + output + "'",
                kExitUsage);
  }
  options.x = args.Get("x");
  options.series = args.Get("series", "problem");
  options.title = args.Get("title");
  options.log_x = args.Has("log-x");
  options.log_y = args.Has("log-y");
  if (Status s = CheckPlotOptions(options); !s.ok()) return Fail("plot", s.message(), kExitUsage);

  const std::string& csv_path = args.positional()[0];
  auto text = ReadFile(csv_path);
  if (!text.ok()) return Fail("plot", text.status().message(), kExitUsage);
  auto points = ParseSweepCsv(*text, csv_path);
  if (!points.ok()) return Fail("plot", points.status().message(), kExitUsage);
  auto files = BuildPlot(*points, options);
  if (!files.ok()) return Fail("plot", csv_path + ": " + files.status().message(), kExitUsage);

  const std::string gnuplot = FindProgram("gnuplot");
  if (gnuplot.empty()) {
    return Fail("plot", "gnuplot not found: install the Debian package gnuplot-nox", kExitUsage);
  }
  TempDir dir("tilesched_plot");
  if (dir.path().empty()) return Fail("plot", "cannot create a temporary directory", kExitUsage);
  for (const auto& [name, contents] : files->data) {
    if (Status s = WriteFileAtomic(dir.File(name), contents); !s.ok()) {
      return Fail("plot", s.message(), kExitUsage);
    }
  }
  if (Status s = WriteFileAtomic(dir.File("plot.gp"), files->script); !s.ok()) {
    return Fail("plot", s.message(), kExitUsage);
  }
  if (Status s = RunProgram(dir.path(), {gnuplot, "plot.gp"}, kGnuplotTimeoutSeconds); !s.ok()) {
    return Fail("plot", s.message(), kExitUsage);
  }
  auto image = ReadFile(dir.File(files->output));
  if (!image.ok() || image->empty()) {
    return Fail("plot", "gnuplot wrote no " + files->output, kExitUsage);
  }
  if (Status s = WriteFileAtomic(output, *image); !s.ok())
    return Fail("plot", s.message(), kExitUsage);
  std::cout << "wrote " << output << ": " << files->labels.size() << " line(s), " << points->size()
            << " point(s) against " << files->x << "\n";
  return kExitOk;
}

}  // namespace tilesched::cli
