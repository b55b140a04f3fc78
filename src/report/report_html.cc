// HTML report page: header, DAG, timeline, per-subgraph table.
#include "report_html.h"

#include <cassert>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "report_dot.h"
#include "tilesched/model_names.h"
#include "tilesched/table.h"

namespace tilesched::report {

namespace {

// Fixed layout; the compute / memory colours are the timeline legend's.
constexpr const char* kStyle = R"css(
body { font-family: Helvetica, Arial, sans-serif; margin: 24px; color: #222; max-width: 1400px; }
h1 { font-size: 22px; margin-bottom: 8px; }
h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ccc; padding-bottom: 4px; }
dl.summary { display: grid; grid-template-columns: max-content auto; gap: 3px 16px; }
dl.summary dt { font-weight: bold; }
dl.summary dd { margin: 0; font-family: monospace; }
.warnings { color: #a15c00; }
.note { color: #555; font-style: italic; }
.graph { overflow: auto; border: 1px solid #ddd; padding: 8px; background: #fff; }
.graph svg { max-width: 100%; height: auto; }
#graph-actual-size:checked ~ .graph svg { max-width: none; }
pre.dot { background: #f6f6f6; padding: 8px; overflow: auto; max-height: 600px; }
.legend span { display: inline-block; margin-right: 16px; }
.swatch { display: inline-block; width: 12px; height: 12px; vertical-align: middle;
          border: 2px solid; margin-right: 4px; }
.seg-compute, .swatch.compute { background: #4a7fc1; border-color: #4a7fc1; }
.seg-memory, .swatch.memory { background: #e08a3c; border-color: #e08a3c; }
.timeline { border: 1px solid #ddd; padding: 6px 8px; }
.timeline-row { display: flex; align-items: center; height: 20px; margin: 2px 0; }
.timeline-label { width: 76px; flex: none; font-family: monospace; font-size: 12px; }
.timeline-track { flex: 1; position: relative; height: 16px; background: #f4f4f4; }
.timeline-bar { height: 14px; display: flex; min-width: 2px; }
.seg { display: block; height: 100%; }
.timeline-value { width: 170px; flex: none; text-align: right; font-family: monospace;
                  font-size: 12px; }
table.subgraphs { border-collapse: collapse; font-size: 13px; }
table.subgraphs th, table.subgraphs td { border: 1px solid #ddd; padding: 3px 8px; }
table.subgraphs th { background: #f0f0f0; }
table.subgraphs td.num { text-align: right; font-family: monospace; }
)css";

std::string Percent(double part, double whole, int decimals = 1) {
  return whole > 0 ? FormatNumber(100.0 * part / whole, decimals) + "%" : "-";
}

// CSS percentages with enough digits that 100 bars still add up.
std::string CssPercent(double part, double whole) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buffer;
}

std::string TensorList(const std::vector<int>& tensors) {
  if (tensors.empty()) return "-";
  std::string text;
  for (size_t i = 0; i < tensors.size(); ++i) {
    text += (i ? ", T" : "T") + std::to_string(tensors[i]);
  }
  return text;
}

// First subgraph each op runs in; ops listed in a later subgraph are recomputed there.
std::vector<int> FirstSubgraph(const Problem& problem, const Schedule& schedule) {
  std::vector<int> first(problem.num_ops(), -1);
  for (size_t s = 0; s < schedule.subgraphs.size(); ++s) {
    for (int o : schedule.subgraphs[s].ops) {
      if (first[o] < 0) first[o] = static_cast<int>(s);
    }
  }
  return first;
}

void WriteHeader(const ReportInput& in, std::ostringstream& out) {
  const Problem& problem = *in.problem;
  const Evaluation& ev = *in.evaluation;
  const Hardware& hw = problem.hardware();
  out << "<header>\n<h1>Schedule report: "
      << HtmlEscape(std::filesystem::path(in.problem_path).filename().string()) << "</h1>\n"
      << "<dl class=\"summary\">\n"
      << "<dt>problem</dt><dd id=\"problem-file\">" << HtmlEscape(in.problem_path) << "</dd>\n"
      << "<dt>solution</dt><dd id=\"solution-file\">" << HtmlEscape(in.solution_path) << "</dd>\n"
      << "<dt>modes</dt><dd id=\"modes\">" << HtmlEscape(ModesString(in.modes)) << "</dd>\n"
      << "<dt>problem size</dt><dd>" << problem.num_ops() << " ops, " << problem.num_tensors()
      << " tensors; fast memory " << FormatCount(hw.fast_memory_capacity) << " elements, bandwidth "
      << FormatNumber(hw.slow_memory_bandwidth, 2) << ", native tile " << hw.native_w << "x"
      << hw.native_h << "</dd>\n"
      << "<dt>subgraphs</dt><dd id=\"subgraph-count\">" << ev.subgraphs.size() << "</dd>\n"
      << "<dt>total latency</dt><dd id=\"total-latency\">" << FormatNumber(ev.total) << "</dd>\n"
      << "<dt>lower bound</dt><dd id=\"lower-bound\">" << FormatNumber(in.bounds.best())
      << " (tier 1, set by its " << BestPart(in.bounds).name << " part; docs/bounds.md)</dd>\n"
      << "<dt>ratio</dt><dd id=\"ratio\">"
      << (in.bounds.best() > 0 ? FormatNumber(ev.total / in.bounds.best(), 3) : "-")
      << "</dd>\n</dl>\n";
  if (!ev.warnings.empty()) {
    out << "<ul class=\"warnings\">\n";
    for (const std::string& w : ev.warnings) out << "<li>warning: " << HtmlEscape(w) << "</li>\n";
    out << "</ul>\n";
  }
  out << "</header>\n";
}

void WriteGraph(const ReportInput& in, std::ostringstream& out) {
  out << "<section id=\"graph\">\n<h2>DAG and subgraphs</h2>\n"
      << "<p class=\"legend\">Each outlined box is one subgraph (execution order in its label). "
         "Boxes are MatMuls, ellipses Pointwise ops; a double border marks an op writing a "
         "graph output; a dashed border marks an op recomputed in later subgraphs (drawn in "
         "its first one; the later ones carry a note).</p>\n";
  const std::string svg = InlineSvg(in.graph_svg);
  if (!svg.empty()) {
    // A large graph is scaled to the page width; the checkbox (pure CSS, no script) shows it
    // at its natural size, scrollable.
    out << "<input type=\"checkbox\" id=\"graph-actual-size\">"
        << "<label for=\"graph-actual-size\"> actual size (scroll)</label>\n"
        << "<div class=\"graph\">\n"
        << svg << "\n</div>\n";
  } else {
    out << "<p class=\"note\" id=\"graph-missing\">" << HtmlEscape(in.graph_note) << "</p>\n"
        << "<pre class=\"dot\">" << HtmlEscape(in.graph_dot) << "</pre>\n";
  }
  out << "</section>\n";
}

void WriteTimeline(const ReportInput& in, std::ostringstream& out) {
  const Evaluation& ev = *in.evaluation;
  out << "<section id=\"timeline\">\n<h2>Timeline</h2>\n"
      << "<p class=\"legend\">One bar per subgraph in execution order, placed at its start "
         "time, width proportional to its latency: "
      << "<span><i class=\"swatch compute\"></i>compute-bound steps</span>"
      << "<span><i class=\"swatch memory\"></i>memory-bound steps</span></p>\n"
      << "<div class=\"timeline\">\n";
  double start = 0;
  for (size_t s = 0; s < ev.subgraphs.size(); ++s) {
    const SubgraphCost& c = ev.subgraphs[s].cost;
    const double split = c.compute_bound_time + c.memory_bound_time;
    const int sg = static_cast<int>(s);
    out << "<div class=\"timeline-row\"><span class=\"timeline-label\"><i class=\"swatch\" "
        << "style=\"background:" << SubgraphFill(sg) << ";border-color:" << SubgraphPen(sg)
        << "\"></i>sg " << sg << "</span><div class=\"timeline-track\">"
        << "<div class=\"timeline-bar\" data-subgraph=\"" << sg
        << "\" style=\"margin-left:" << CssPercent(start, ev.total)
        << ";width:" << CssPercent(c.latency, ev.total) << "\" title=\"sg " << sg << ": starts at "
        << FormatNumber(start) << ", latency " << FormatNumber(c.latency) << " (compute-bound "
        << FormatNumber(c.compute_bound_time) << ", memory-bound "
        << FormatNumber(c.memory_bound_time) << ")\">"
        << "<span class=\"seg seg-compute\" style=\"width:"
        << CssPercent(c.compute_bound_time, split) << "\"></span>"
        << "<span class=\"seg seg-memory\" style=\"width:" << CssPercent(c.memory_bound_time, split)
        << "\"></span></div></div><span class=\"timeline-value\">" << FormatNumber(c.latency)
        << " (" << Percent(c.latency, ev.total) << ")</span></div>\n";
    start += c.latency;
  }
  out << "</div>\n</section>\n";
}

void WriteTable(const ReportInput& in, std::ostringstream& out) {
  const Problem& problem = *in.problem;
  const Schedule& schedule = *in.schedule;
  const Evaluation& ev = *in.evaluation;
  const std::vector<int> first = FirstSubgraph(problem, schedule);
  const int64_t capacity = problem.hardware().fast_memory_capacity;
  out << "<section id=\"subgraphs\">\n<h2>Subgraphs</h2>\n"
      << "<p class=\"legend\">* an op recomputed here (it first ran in an earlier subgraph). "
         "Peak working set is the largest over all steps, as a share of the fast memory "
         "capacity.</p>\n"
      << "<table class=\"subgraphs\">\n<tr><th>sg</th><th>ops</th><th>tile w,h,k</th>"
         "<th>traversal</th><th>retained</th><th>tiles x k-steps</th><th>latency</th>"
         "<th>share</th><th>compute-bound</th><th>memory-bound</th>"
         "<th>peak working set</th>" << (problem.names().ops.empty() ? "" : "<th>model names</th>")
      << "</tr>\n";
  for (size_t s = 0; s < schedule.subgraphs.size(); ++s) {
    const int sg = static_cast<int>(s);
    const Subgraph& subgraph = schedule.subgraphs[s];
    const SubgraphCost& c = ev.subgraphs[s].cost;
    const Granularity& g = subgraph.granularity;
    std::string ops;
    for (size_t i = 0; i < subgraph.ops.size(); ++i) {
      const int o = subgraph.ops[i];
      ops += (i ? ", " : "") + std::to_string(o) + (first[o] < sg ? "*" : "");
    }
    const std::string traversal =
        subgraph.traversal.empty()
            ? "raster"
            : "custom (" + FormatCount(static_cast<int64_t>(subgraph.traversal.size())) + " tiles)";
    out << "<tr class=\"subgraph-row\" data-subgraph=\"" << sg << "\">"
        << "<td><i class=\"swatch\" style=\"background:" << SubgraphFill(sg)
        << ";border-color:" << SubgraphPen(sg) << "\"></i>" << sg << "</td>"
        << "<td>" << ops << "</td>"
        << "<td class=\"num\">" << g.w << "," << g.h << "," << g.k << "</td>"
        << "<td>" << traversal << "</td>"
        << "<td>" << TensorList(subgraph.retained) << "</td>"
        << "<td class=\"num\">" << FormatCount(c.tiles) << " x " << FormatCount(c.k_steps)
        << "</td>"
        << "<td class=\"num\">" << FormatNumber(c.latency) << "</td>"
        << "<td class=\"num\">" << Percent(c.latency, ev.total) << "</td>"
        << "<td class=\"num\">" << FormatNumber(c.compute_bound_time) << "</td>"
        << "<td class=\"num\">" << FormatNumber(c.memory_bound_time) << "</td>"
        << "<td class=\"num\">" << FormatCount(c.peak_working_set) << " ("
        << Percent(static_cast<double>(c.peak_working_set), static_cast<double>(capacity)) << ")</td>"
        << (problem.names().ops.empty() ? "" : "<td>" + HtmlEscape(SubgraphLabel(problem, subgraph.ops)) + "</td>")
        << "</tr>\n";
  }
  out << "</table>\n</section>\n";
}

// Per subgraph and over the schedule: each op's output computed relative to once, and the
// compute time beyond once (docs/cost_model.md "Recomputation").
void WriteRecomputation(const ReportInput& in, std::ostringstream& out) {
  const Evaluation& ev = *in.evaluation;
  out << "<section id=\"recomputation\">\n<h2>Recomputation</h2>\n"
      << "<p class=\"legend\">Per op, the output computed relative to computing it once (a split "
         "root's k-slices over a tile add up to that tile once), and the compute time spent "
         "beyond once, at the op's average time per element.</p>\n"
      << "<table class=\"recomputation\">\n<tr><th>sg</th><th>computed</th>"
         "<th>recompute time</th><th>share of compute</th></tr>\n";
  double compute = 0;
  for (size_t s = 0; s < ev.subgraphs.size(); ++s) {
    const SubgraphCost& c = ev.subgraphs[s].cost;
    compute += c.compute_time;
    out << "<tr class=\"recompute-row\" data-subgraph=\"" << s << "\"><td>" << s << "</td><td>"
        << HtmlEscape(ComputedSummary(c.op_work)) << "</td><td class=\"num\">"
        << FormatNumber(RecomputationTime(c.op_work)) << "</td><td class=\"num\">"
        << Percent(RecomputationTime(c.op_work), c.compute_time) << "</td></tr>\n";
  }
  out << "<tr class=\"recompute-total\"><td>all</td><td>" << HtmlEscape(ComputedSummary(ev.op_work))
      << "</td><td class=\"num\" id=\"recomputation-time\">"
      << FormatNumber(RecomputationTime(ev.op_work)) << "</td><td class=\"num\">"
      << Percent(RecomputationTime(ev.op_work), compute) << "</td></tr>\n</table>\n</section>\n";
}

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string InlineSvg(const std::string& svg) {
  const size_t begin = svg.find("<svg");
  const size_t end = svg.rfind("</svg>");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return "";
  return svg.substr(begin, end + 6 - begin);
}

std::string ReportHtml(const ReportInput& in) {
  assert(in.problem && in.schedule && in.evaluation);
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<title>tilesched report: "
      << HtmlEscape(std::filesystem::path(in.problem_path).filename().string())
      << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  WriteHeader(in, out);
  WriteGraph(in, out);
  WriteTimeline(in, out);
  WriteTable(in, out);
  WriteRecomputation(in, out);
  out << "</body>\n</html>\n";
  return out.str();
}

}  // namespace tilesched::report
