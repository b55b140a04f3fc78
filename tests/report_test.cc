// Schedule reports: the DAG drawing (DOT with one cluster per subgraph, recomputed ops drawn
// once), the HTML page (header, one timeline bar per subgraph placed at its start time, one
// table row per subgraph, self-contained), and the `report` / `dot` commands end to end:
// Graphviz rendering, the fallback without Graphviz, error exits, and a headless Chromium
// rendering of the page (skipped when Chromium is not installed; scripts/ci_report.sh installs
// it).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "report_dot.h"
#include "report_html.h"
#include "report_tools.h"
#include "test_files.h"
#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/graph.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"
#include "tilesched/table.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;
using testing::ProblemBuilder;
using testing::Sched;
using testing::Sg;

// --- helpers ----------------------------------------------------------------------------------
// A missing tool skips its test, except under scripts/ci_report.sh, which installs the tools
// and sets TILESCHED_REQUIRE_TOOLS=1 so that a skip cannot pass for a success.
bool ToolsRequired() { return std::getenv("TILESCHED_REQUIRE_TOOLS") != nullptr; }

using testing::CountOf;

using testing::ScratchDir;
using testing::Slurp;
using testing::Spit;
using CommandResult = testing::ToolRun;

// Runs `argv` with stdout / stderr captured; `env` (e.g. "PATH=/x") is set for the command only.
// Chromium on a loaded machine can be slow: five minutes before it is killed.
CommandResult RunCommand(const ScratchDir& dir, const std::vector<std::string>& argv,
                         const std::string& env = "") {
  return testing::RunTool(argv, dir.path(),
                          env.empty() ? std::vector<std::string>{} : std::vector<std::string>{env},
                          std::chrono::minutes(5));
}

std::string Benchmark(int n) {
  return std::string(TILESCHED_SOURCE_DIR) + "/data/benchmarks/mlsys-2026-" + std::to_string(n) +
         ".json";
}

// Op vertices of a DOT text: lines `N[label="op ...`; note vertices have other labels.
std::vector<int> OpVertices(const std::string& dot) {
  static const std::regex vertex(R"(^(\d+)\[.*label="op (\d+) )");
  std::vector<int> ops;
  std::istringstream in(dot);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, vertex)) {
      EXPECT_EQ(m[1], m[2]) << "vertex id and op id differ: " << line;
      ops.push_back(std::stoi(m[2]));
    }
  }
  return ops;
}

// Cluster of every vertex line (by vertex id; -1 outside every cluster), from the nesting of
// `subgraph cluster_sgN {` blocks.
std::map<int, int> ClusterOfVertex(const std::string& dot) {
  static const std::regex open(R"(^subgraph cluster_sg(\d+) \{)");
  static const std::regex vertex(R"(^(\d+)\[)");
  std::map<int, int> cluster_of;
  int current = -1;
  std::istringstream in(dot);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, open)) {
      current = std::stoi(m[1]);
    } else if (line == "}") {
      current = -1;
    } else if (std::regex_search(line, m, vertex)) {
      EXPECT_EQ(cluster_of.count(std::stoi(m[1])), 0u) << "vertex drawn twice: " << line;
      cluster_of[std::stoi(m[1])] = current;
    }
  }
  return cluster_of;
}

std::set<std::pair<int, int>> Edges(const std::string& dot) {
  static const std::regex edge(R"(^(\d+) -> (\d+))");
  std::set<std::pair<int, int>> edges;
  std::istringstream in(dot);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, edge)) {
      EXPECT_TRUE(edges.insert({std::stoi(m[1]), std::stoi(m[2])}).second) << "twice: " << line;
    }
  }
  return edges;
}

std::set<std::pair<int, int>> Dependencies(const Problem& p) {
  std::set<std::pair<int, int>> deps;
  for (int o = 0; o < p.num_ops(); ++o) {
    for (int s : p.graph().successors(o)) deps.insert({o, s});
  }
  return deps;
}

// T0 -> op 0 -> T1 -> op 1 -> T2 (output); T1 -> op 2 -> T3 (output); all 128x128.
Problem Fork() {
  ProblemBuilder b(/*capacity=*/200000, /*bandwidth=*/10);
  for (int t = 0; t < 4; ++t) b.Tensor(128, 128);
  b.Pointwise({0}, 1, 100);
  b.Pointwise({1}, 2, 10);
  b.Pointwise({1}, 3, 10);
  return b.Build();
}

// op 0 runs in sg 0 (fused, T1 never stored), again alone in sg 1 (storing T1), and op 2 reads
// T1 in sg 2. Subgraph 1 has only a recomputed op: its cluster must not vanish.
Schedule ForkWithRecompute() {
  return Sched({Sg({0, 1}, {128, 128, 1}), Sg({0}, {128, 128, 1}), Sg({2}, {128, 128, 1})});
}

Evaluation MustEvaluate(const Problem& p, const Schedule& s) {
  auto ev = Evaluate(p, s, {});
  EXPECT_TRUE(ev.ok()) << ev.status().message();
  return ev.ok() ? *ev : Evaluation{};
}

// --- DOT ----------------------------------------------------------------------------------------

TEST(ReportDot, ProblemAloneHasOneNodePerOpEveryEdgeAndNoCluster) {
  auto problem = LoadProblem(Benchmark(5));
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  const std::string dot = report::ProblemDot(*problem);
  std::vector<int> ops = OpVertices(dot);
  std::sort(ops.begin(), ops.end());
  ASSERT_EQ(static_cast<int>(ops.size()), problem->num_ops()) << dot;
  for (int o = 0; o < problem->num_ops(); ++o) EXPECT_EQ(ops[o], o);
  EXPECT_EQ(Edges(dot), Dependencies(*problem));
  EXPECT_EQ(CountOf(dot, "subgraph"), 0) << dot;
  EXPECT_EQ(dot.rfind("digraph G {", 0), 0u) << dot;
}

TEST(ReportDot, OneClusterPerSubgraphEachOpInItsFirstSubgraph) {
  const Problem p = Fork();
  const Schedule s = ForkWithRecompute();
  const std::string dot = report::ScheduleDot(p, s, MustEvaluate(p, s));
  for (int sg = 0; sg < 3; ++sg) {
    EXPECT_EQ(CountOf(dot, "subgraph cluster_sg" + std::to_string(sg) + " {"), 1) << dot;
  }
  EXPECT_EQ(CountOf(dot, "subgraph "), 3) << dot;
  const std::map<int, int> cluster_of = ClusterOfVertex(dot);
  // Ops 0, 1, 2 and one note (vertex 3, for sg 1).
  ASSERT_EQ(cluster_of.size(), 4u) << dot;
  EXPECT_EQ(cluster_of.at(0), 0);
  EXPECT_EQ(cluster_of.at(1), 0);
  EXPECT_EQ(cluster_of.at(2), 2);
  EXPECT_EQ(cluster_of.at(3), 1) << "sg 1 recomputes op 0 only and keeps a note node";
  EXPECT_EQ(OpVertices(dot).size(), 3u);
  EXPECT_NE(dot.find("label=\"recomputes op 0\""), std::string::npos) << dot;
  // The recomputed op is marked where it is drawn.
  static const std::regex op0(R"(\n0\[([^\n]*)\];)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dot, m, op0)) << dot;
  EXPECT_NE(m[1].str().find("dashed"), std::string::npos) << m[1];
  EXPECT_NE(m[1].str().find("recomputed in sg 1"), std::string::npos) << m[1];
  EXPECT_EQ(Edges(dot), Dependencies(p));
  // Cluster labels carry the subgraph's tile and latency.
  const Evaluation ev = MustEvaluate(p, s);
  EXPECT_NE(dot.find("label=\"sg 2: tile 128x128x1, latency " +
                     FormatNumber(ev.subgraphs[2].cost.latency) + "\""),
            std::string::npos)
      << dot;
}

TEST(ReportDot, GraphvizOutlinesEveryClusterEvenARecomputeOnlyOne) {
  const std::string dot_program = report::FindProgram("dot");
  if (dot_program.empty()) {
    const char* why = "Graphviz 'dot' is not installed (scripts/ci_report.sh installs it)";
    if (ToolsRequired()) FAIL() << why;
    GTEST_SKIP() << why;
  }
  const Problem p = Fork();
  const Schedule s = ForkWithRecompute();
  report::TempDir dir("tilesched_report_test");
  ASSERT_FALSE(dir.path().empty());
  Spit(dir.File("g.dot"), report::ScheduleDot(p, s, MustEvaluate(p, s)));
  const Status run = report::RunProgram(dir.path(), {dot_program, "-Tsvg", "g.dot", "-o", "g.svg"},
                                     /*timeout_seconds=*/60);
  ASSERT_TRUE(run.ok()) << run.message();
  const std::string svg = Slurp(dir.File("g.svg"));
  EXPECT_EQ(CountOf(svg, "class=\"cluster\""), 3) << svg;
  for (int sg = 0; sg < 3; ++sg) {
    EXPECT_EQ(CountOf(svg, "<title>cluster_sg" + std::to_string(sg) + "</title>"), 1) << sg;
  }
}

TEST(ReportDot, BenchmarkScheduleEveryOpOnceInTheRightCluster) {
  // A hand-made schedule of benchmark 1 (5 ops in a chain): each op alone.
  auto problem = LoadProblem(Benchmark(1));
  ASSERT_TRUE(problem.ok());
  Schedule s;
  for (int o : problem->graph().topo_order()) s.subgraphs.push_back(Sg({o}, {128, 128, 1}));
  auto ev = Evaluate(*problem, s, {});
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  const std::string dot = report::ScheduleDot(*problem, s, *ev);
  const std::map<int, int> cluster_of = ClusterOfVertex(dot);
  ASSERT_EQ(static_cast<int>(cluster_of.size()), problem->num_ops()) << dot;
  for (size_t sg = 0; sg < s.subgraphs.size(); ++sg) {
    EXPECT_EQ(cluster_of.at(s.subgraphs[sg].ops[0]), static_cast<int>(sg));
  }
  EXPECT_EQ(Edges(dot), Dependencies(*problem));
}

// --- HTML ---------------------------------------------------------------------------------------

struct EscapeCase {
  std::string in, out;
};

TEST(ReportHtml, EscapesMarkup) {
  const std::vector<EscapeCase> cases = {
      {"plain", "plain"},
      {"a<b>&c", "a&lt;b&gt;&amp;c"},
      {"\"quoted\" 'single'", "&quot;quoted&quot; &#39;single&#39;"},
      {"", ""},
  };
  for (const EscapeCase& c : cases) EXPECT_EQ(report::HtmlEscape(c.in), c.out) << c.in;
}

TEST(ReportHtml, InlineSvgDropsPrologAndDoctype) {
  const std::string doc =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
      "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<!-- Generated -->\n"
      "<svg width=\"10pt\"><g/></svg>\n";
  EXPECT_EQ(report::InlineSvg(doc), "<svg width=\"10pt\"><g/></svg>");
  EXPECT_EQ(report::InlineSvg("no svg here"), "");
}

// Bars of the timeline in page order: (data-subgraph, margin-left %, width %).
struct Bar {
  int subgraph;
  double left, width;
};
std::vector<Bar> TimelineBars(const std::string& html) {
  static const std::regex bar(
      R"re(class="timeline-bar" data-subgraph="(\d+)" style="margin-left:([0-9.]+)%;width:([0-9.]+)%)re");
  std::vector<Bar> bars;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), bar); it != std::sregex_iterator();
       ++it) {
    bars.push_back({std::stoi((*it)[1]), std::stod((*it)[2]), std::stod((*it)[3])});
  }
  return bars;
}

TEST(ReportHtml, TimelineBarsFollowExecutionOrderAndLatency) {
  const Problem p = Fork();
  const Schedule s = ForkWithRecompute();
  const Evaluation ev = MustEvaluate(p, s);
  report::ReportInput in;
  in.problem_path = "dir/fork<1>.json";
  in.solution_path = "fork.solution.json";
  in.problem = &p;
  in.schedule = &s;
  in.evaluation = &ev;
  in.bounds = ComputeLowerBounds(p, {});
  in.graph_dot = report::ScheduleDot(p, s, ev);
  in.graph_note = "no dot here";
  const std::string html = report::ReportHtml(in);

  const std::vector<Bar> bars = TimelineBars(html);
  ASSERT_EQ(bars.size(), 3u) << html;
  EXPECT_EQ(CountOf(html, "class=\"timeline-bar\""), 3);
  double start = 0;
  for (int sg = 0; sg < 3; ++sg) {
    const double latency = ev.subgraphs[sg].cost.latency;
    EXPECT_EQ(bars[sg].subgraph, sg);
    // /*start / total * 100=*/ and /*latency / total * 100=*/, printed with 4 decimals.
    EXPECT_NEAR(bars[sg].left, 100 * start / ev.total, 1e-4);
    EXPECT_NEAR(bars[sg].width, 100 * latency / ev.total, 1e-4);
    start += latency;
  }
  EXPECT_NEAR(bars.back().left + bars.back().width, 100, 2e-4);
  EXPECT_EQ(CountOf(html, "class=\"subgraph-row\""), 3);
  // Op 0 is recomputed in sg 1: starred there only.
  EXPECT_NE(html.find("<td>0*</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>0, 1</td>"), std::string::npos);
  // Without an SVG the DOT text is embedded, escaped, with the note.
  EXPECT_NE(html.find("<pre class=\"dot\">digraph G {"), std::string::npos);
  EXPECT_NE(html.find("no dot here"), std::string::npos);
  EXPECT_NE(html.find("fillcolor=&quot;#"), std::string::npos) << "DOT quotes escaped";
  EXPECT_NE(html.find("dir/fork&lt;1&gt;.json"), std::string::npos);
  EXPECT_EQ(html.find("fork<1>"), std::string::npos) << "unescaped file name";
  EXPECT_NE(html.find("<dd id=\"total-latency\">" + FormatNumber(ev.total) + "</dd>"),
            std::string::npos);
}

// --- commands end to end ------------------------------------------------------------------------

// Solutions found by the scheduler for a few benchmarks, shared by the end-to-end tests.
class ReportCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new report::TempDir("tilesched_report_suite");
    for (int n : kBenchmarks) {
      const std::string out = dir_->File("s" + std::to_string(n) + ".json");
      const std::string cmd = std::string(TILESCHED_BINARY) + " schedule " + Benchmark(n) +
                              " --iterations 100 --quiet -o " + out + " 2>/dev/null";
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string Solution(int n) { return dir_->File("s" + std::to_string(n) + ".json"); }
  static int Subgraphs(int n) {
    auto s = LoadSolution(Solution(n));
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? static_cast<int>(s->subgraphs.size()) : -1;
  }

  static constexpr int kBenchmarks[] = {1, 5, 9};
  static report::TempDir* dir_;  // suite-wide (ScratchDir is per test)
};

report::TempDir* ReportCommand::dir_ = nullptr;

// No http(s) URL in any src= or href= attribute (xlink:href included): the page must not load
// anything.
void ExpectSelfContained(const std::string& html) {
  static const std::regex external(R"re((src|href)\s*=\s*["']?\s*(https?:)?//)re",
                                   std::regex::icase);
  EXPECT_FALSE(std::regex_search(html, external)) << "external resource in the page";
  EXPECT_EQ(CountOf(html, "<link"), 0);
  EXPECT_EQ(CountOf(html, "<script"), 0);
}

TEST_F(ReportCommand, RendersOneOutlineAndOneBarPerSubgraph) {
  if (report::FindProgram("dot").empty()) {
    const char* why = "Graphviz 'dot' is not installed (scripts/ci_report.sh installs it)";
    if (ToolsRequired()) FAIL() << why;
    GTEST_SKIP() << why;
  }
  ScratchDir dir;
  for (int n : kBenchmarks) {
    const std::string html_path = dir.File("r" + std::to_string(n) + ".html");
    const CommandResult r =
        RunCommand(dir, {TILESCHED_BINARY, "report", Benchmark(n), Solution(n), "-o", html_path});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const std::string html = Slurp(html_path);
    const int subgraphs = Subgraphs(n);
    ASSERT_GT(subgraphs, 0);
    EXPECT_EQ(CountOf(html, "<g id=\"clust"), subgraphs) << "benchmark " << n;
    for (int sg = 0; sg < subgraphs; ++sg) {
      EXPECT_EQ(CountOf(html, "<title>cluster_sg" + std::to_string(sg) + "</title>"), 1)
          << "benchmark " << n << " sg " << sg;
    }
    EXPECT_EQ(static_cast<int>(TimelineBars(html).size()), subgraphs);
    EXPECT_EQ(CountOf(html, "class=\"subgraph-row\""), subgraphs);
    EXPECT_EQ(CountOf(html, "<svg"), 1);
    EXPECT_EQ(CountOf(html, "<?xml"), 0);
    EXPECT_EQ(CountOf(html, "<!DOCTYPE svg"), 0);
    ExpectSelfContained(html);
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(html.find("</html>"), std::string::npos);
  }
}

TEST_F(ReportCommand, WithoutGraphvizEmbedsTheDotTextAndWarns) {
  ScratchDir dir;
  const std::string html_path = dir.File("r.html");
  // A PATH without `dot` on it.
  const CommandResult r =
      RunCommand(dir, {TILESCHED_BINARY, "report", Benchmark(5), Solution(5), "-o", html_path},
                 "PATH=" + dir.File("empty"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: Graphviz 'dot' not found"), std::string::npos) << r.err;
  EXPECT_EQ(CountOf(r.err, "\n"), 1) << r.err;
  const std::string html = Slurp(html_path);
  EXPECT_EQ(CountOf(html, "<svg"), 0);
  EXPECT_EQ(CountOf(html, "<pre class=\"dot\">"), 1);
  const int subgraphs = Subgraphs(5);
  EXPECT_EQ(CountOf(html, "subgraph cluster_sg"), subgraphs);
  EXPECT_EQ(static_cast<int>(TimelineBars(html).size()), subgraphs);
  ExpectSelfContained(html);
}

struct BadInputCase {
  std::string name;
  std::vector<std::string> args;  // after "report"; @P problem, @S solution, @O output, @X junk
  int code;
  std::string needle;  // must be in the one-line message
};

TEST_F(ReportCommand, BadInputGetsOneLineAndNoFile) {
  const std::vector<BadInputCase> cases = {
      {"missing problem", {"@D/nope.json", "@S", "-o", "@O"}, 2, "nope.json"},
      {"malformed solution", {"@P", "@X", "-o", "@O"}, 2, "junk.json"},
      {"no output", {"@P", "@S"}, 2, "--output"},
      {"unknown option", {"@P", "@S", "-o", "@O", "--colour"}, 2, "--colour"},
      {"bad mode", {"@P", "@S", "-o", "@O", "--rules", "loose"}, 2, "--rules"},
      {"invalid schedule", {"@P", "@B", "-o", "@O"}, 1, "invalid schedule"},
      {"solution of another problem", {"@P", "@S9", "-o", "@O"}, 1, "invalid schedule"},
  };
  for (const BadInputCase& c : cases) {
    ScratchDir dir;
    Spit(dir.File("junk.json"), "{\"subgraphs\": [[0], ");
    // Benchmark 5's solution with one subgraph's tile far over capacity.
    auto loaded = LoadSolution(Solution(5));
    ASSERT_TRUE(loaded.ok());
    Schedule bad = *loaded;
    bad.subgraphs[0].granularity = {4096, 4096, 4096};
    Spit(dir.File("bad.json"), SolutionToJson(bad, std::vector<double>(bad.subgraphs.size(), 1)));
    std::vector<std::string> argv = {TILESCHED_BINARY, "report"};
    for (const std::string& a : c.args) {
      if (a == "@P")
        argv.push_back(Benchmark(5));
      else if (a == "@S")
        argv.push_back(Solution(5));
      else if (a == "@S9")
        argv.push_back(Solution(9));
      else if (a == "@O")
        argv.push_back(dir.File("out.html"));
      else if (a == "@X")
        argv.push_back(dir.File("junk.json"));
      else if (a == "@B")
        argv.push_back(dir.File("bad.json"));
      else if (a.rfind("@D", 0) == 0)
        argv.push_back(dir.File(a.substr(3)));
      else
        argv.push_back(a);
    }
    const CommandResult r = RunCommand(dir, argv);
    EXPECT_EQ(r.code, c.code) << c.name << ": " << r.err;
    EXPECT_EQ(CountOf(r.err, "\n"), 1) << c.name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("tilesched report: ", 0), 0u) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir.File("out.html"))) << c.name;
    EXPECT_EQ(r.out, "") << c.name;
  }
}

TEST_F(ReportCommand, HelpDescribesTheCommands) {
  ScratchDir dir;
  for (const std::string command : {"report", "dot", "plot"}) {
    const CommandResult r = RunCommand(dir, {TILESCHED_BINARY, command, "--help"});
    EXPECT_EQ(r.code, 0) << command;
    EXPECT_EQ(r.out.rfind("usage: tilesched " + command + " ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("--output"), std::string::npos) << r.out;
  }
}

TEST_F(ReportCommand, DotCommandWritesClustersToStdoutOrAFile) {
  ScratchDir dir;
  const int subgraphs = Subgraphs(9);
  const CommandResult to_stdout =
      RunCommand(dir, {TILESCHED_BINARY, "dot", Benchmark(9), Solution(9)});
  ASSERT_EQ(to_stdout.code, 0) << to_stdout.err;
  EXPECT_EQ(CountOf(to_stdout.out, "subgraph cluster_sg"), subgraphs);
  auto problem = LoadProblem(Benchmark(9));
  ASSERT_TRUE(problem.ok());
  EXPECT_EQ(static_cast<int>(OpVertices(to_stdout.out).size()), problem->num_ops());
  EXPECT_EQ(Edges(to_stdout.out), Dependencies(*problem));

  const CommandResult to_file = RunCommand(
      dir, {TILESCHED_BINARY, "dot", Benchmark(9), Solution(9), "-o", dir.File("g.dot")});
  ASSERT_EQ(to_file.code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(Slurp(dir.File("g.dot")), to_stdout.out);

  const CommandResult plain = RunCommand(dir, {TILESCHED_BINARY, "dot", Benchmark(9)});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(CountOf(plain.out, "subgraph"), 0);
  EXPECT_EQ(static_cast<int>(OpVertices(plain.out).size()), problem->num_ops());

  const CommandResult wrong = RunCommand(dir, {TILESCHED_BINARY, "dot", Benchmark(9), Solution(5)});
  EXPECT_EQ(wrong.code, 1);
  EXPECT_EQ(wrong.out, "");
  EXPECT_EQ(CountOf(wrong.err, "\n"), 1) << wrong.err;
}

// --- headless Chromium --------------------------------------------------------------------------

TEST_F(ReportCommand, ChromiumShowsOneOutlineAndOneBarPerSubgraph) {
  std::string chromium = report::FindProgram("chromium");
  if (chromium.empty()) chromium = report::FindProgram("chromium-browser");
  if (chromium.empty()) {
    const char* why = "Chromium is not installed (scripts/ci_report.sh installs it)";
    if (ToolsRequired()) FAIL() << why;
    GTEST_SKIP() << why;
  }
  if (report::FindProgram("dot").empty()) {
    const char* why = "Graphviz 'dot' is not installed (scripts/ci_report.sh installs it)";
    if (ToolsRequired()) FAIL() << why;
    GTEST_SKIP() << why;
  }
  ScratchDir dir;
  const int n = 9;
  const std::string html_path = dir.File("report.html");
  const CommandResult report =
      RunCommand(dir, {TILESCHED_BINARY, "report", Benchmark(n), Solution(n), "-o", html_path});
  ASSERT_EQ(report.code, 0) << report.err;
  const int subgraphs = Subgraphs(n);

  auto browser = [&](const std::string& profile, const std::vector<std::string>& extra) {
    std::vector<std::string> argv = {report::FindProgram("timeout"),
                                     "180",
                                     chromium,
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--disable-quic",
                                     "--no-first-run",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--user-data-dir=" + dir.File(profile)};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("file://" + html_path);
    return RunCommand(dir, argv);
  };
  // Chromium may complain about dbus and the like on stderr: only the DOM and the PNG count.
  const CommandResult dom = browser("profile-dom", {"--dump-dom"});
  ASSERT_EQ(dom.code, 0) << dom.err;
  EXPECT_EQ(CountOf(dom.out, "class=\"cluster\""), subgraphs) << dom.out.substr(0, 2000);
  for (int sg = 0; sg < subgraphs; ++sg) {
    EXPECT_EQ(CountOf(dom.out, "<title>cluster_sg" + std::to_string(sg) + "</title>"), 1) << sg;
  }
  EXPECT_EQ(static_cast<int>(TimelineBars(dom.out).size()), subgraphs);
  EXPECT_NE(dom.out.find("id=\"total-latency\""), std::string::npos);

  const std::string png = dir.File("report.png");
  const CommandResult shot =
      browser("profile-shot", {"--screenshot=" + png, "--window-size=1400,2000"});
  ASSERT_EQ(shot.code, 0) << shot.err;
  ASSERT_TRUE(fs::exists(png)) << shot.err;
  EXPECT_GT(fs::file_size(png), 20000u) << "a blank page compresses to a few KB";
  EXPECT_EQ(Slurp(png).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

}  // namespace
}  // namespace tilesched
