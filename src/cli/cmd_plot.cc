// `tilesched plot`: latency and lower bound of a sweep against a swept parameter, drawn by
// gnuplot through the report library (WriteSweepPlot, src/report/report.h).
#include <iostream>

#include "args.h"
#include "commands.h"
#include "report.h"

namespace tilesched::cli {

int RunPlot(int argc, char** argv, int first) {
  Args args(
      "plot", "SWEEP.csv -o OUT.svg|OUT.png [options]",
      "Draws latency (solid lines with points) and the lower bound (dashed) of the\n"
      "status=ok rows of a sweep CSV (as written by 'tilesched sweep') against a swept\n"
      "parameter, one line per problem or per value of another parameter (--series);\n"
      "points of one series that differ in a further parameter get lines of their own.\n"
      "Runs gnuplot (Debian package gnuplot-nox): SVG output, PNG when OUT ends in .png.\n"
      "A missing or failing gnuplot is an input error (exit 2). See docs/reports.md.",
      {
          {"output", "OUT", "write the plot here, .svg or .png (required)", "-o"},
          {"x", "capacity|bandwidth|native", "x axis (default: the first of them that varies)"},
          {"series", "COLUMN",
           "one line per value of problem (default), capacity, bandwidth, "
           "native, rules, matmul_reduction or k_limit"},
          {"title", "TEXT", "plot title (default: 'latency vs <x axis>')"},
          {"log-x", "", "logarithmic x axis"},
          {"log-y", "", "logarithmic y axis"},
      },
      1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  const std::string output = args.Get("output");
  if (!args.Has("output")) return Fail("plot", "--output OUT.svg or OUT.png is required", kExitUsage);
  if (Status s = CheckOutputOptions(args, {"output"}); !s.ok()) {
    return Fail("plot", s.message(), kExitUsage);
  }
  report::PlotRequest request;
  request.csv_path = args.positional()[0];
  request.output = output;
  request.options.x = args.Get("x");
  request.options.series = args.Get("series", "problem");
  request.options.title = args.Get("title");
  request.options.log_x = args.Has("log-x");
  request.options.log_y = args.Has("log-y");
  auto plot = report::WriteSweepPlot(request);
  if (!plot.ok()) return Fail("plot", plot.status().message(), kExitUsage);
  std::cout << "wrote " << output << ": " << plot->lines << " line(s), " << plot->points
            << " point(s) against " << plot->x << "\n";
  return kExitOk;
}

}  // namespace tilesched::cli
