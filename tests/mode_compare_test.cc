// Several readings side by side (mode_compare.h, `tilesched evaluate --rules a,b`), the
// recomputation figures of the cost model checked by hand, and the disputed split-k examples of
// docs/split_k.md (data/examples/) judged under both readings.
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report_html.h"
#include "spec_problems.h"
#include "test_files.h"
#include "test_util.h"
#include "tilesched/evaluate.h"
#include "tilesched/io.h"
#include "tilesched/mode_compare.h"

namespace tilesched {
namespace {

using testing::Sched;
using testing::Sg;

const std::string kExamples = std::string(TILESCHED_SOURCE_DIR) + "/data/examples/";

constexpr CostModes kContest{};
constexpr CostModes kAlgebra{Rules::kAlgebra, MatmulReduction::kFullK, KLimit::kNative};

struct ExampleCase {
  const char* problem;
  const char* solution;
  const char* contest_error;  // substring of the rejection, or nullptr when valid
  double contest_total;       // when valid
  double algebra_total;
  double recomputation;       // compute time beyond once under algebra
};

// Every example of docs/split_k.md: verdict and total under both readings (bandwidth 10,
// native 128 everywhere).
TEST(SplitKExamples, VerdictAndTotalUnderBothReadings) {
  const std::vector<ExampleCase> cases = {
      // PW0(T0 128x256)->T1, MM1(T1, T2 256x256)->T3 128x256, costs 300, 1000; [128,128,64]:
      // 2 tiles x 4 k-steps. Contest: PW0 is read along K=256 (its region is tile rows x
      // k-slice), so w must cover its 256 columns (7b). Algebra, per tile: k-steps 1-3 compute
      // PW0 300*64/128=150 + MM1 1000*64/256=250 = 400 < load (128*64+64*128)/10 = 1638.4;
      // step 4 also stores the tile: (16384+16384)/10 = 3276.8. Tile 3*1638.4+3276.8 = 8192.
      // PW0 is computed once per tile column: 2.00x, 8*150 = 1200 of time, half of it again.
      {"prologue_split_k.json", "prologue_split_k_fused.solution.json", "SPEC 7b", 0,
       /*2*8192=*/16384, /*1200*(2-1)/2=*/600},
      // The same with T3 128x128 (SPEC E4): the tile is the whole output, only k iterates.
      // Contest: 7b still (w=128 < 256). Algebra: one tile, /*3*1638.4+3276.8=*/8192; PW0
      // computed once (4 slices of 128x64 = 128x256).
      {"prologue_whole_tile.json", "prologue_whole_tile_fused.solution.json", "SPEC 7b", 0,
       /*3*1638.4+3276.8=*/8192, 0},
      // MM0(T0 128x256, T1 256x128)->T2, PW1(T2,T3)->T4, costs 1000, 200, cap 60000, fused at
      // [128,128,64] (SPEC E9). Contest: at step 4 T0, T1 slices 8192+8192, T3 16384, the
      // accumulator and the epilogue's output tile 2*16384: 65536 > 60000 (7a, rule 3.8).
      // Algebra: one tile buffer, 49152 fits; steps 1-3 (8192+8192)/10 = 1638.4 each, step 4
      // (16384+16384+16384)/10 = 4915.2.
      {"epilogue_split_k.json", "epilogue_split_k_fused.solution.json",
       "working set 65536 exceeds capacity 60000", 0, /*3*1638.4+4915.2=*/9830.4, 0},
      // MM0(A 256x128, B 128x128)->T 256x128, MM1(T, C 128x256)->Out 256x256, costs 1000,
      // fused at [128,128,128], order [0,2,1,3]. Per tile: MM0's row strip of T over all K
      // (1000) + MM1's one k-slice (1000) = 2000. Loads + store: tile 0 A0+B+C0+Out
      // 4*16384/10 = 6553.6; tile 2 keeps B, C0: (16384+16384)/10 = 3276.8; tile 1 keeps B:
      // 3*16384/10 = 4915.2; tile 3 keeps B, C1: 3276.8. Valid under both readings (MM1 is a
      // sink, so 7a adds no buffer). MM0 computes each row strip twice: 4 tiles x 128x128 =
      // 2 x 256x128, 4*1000 of time, half of it beyond once.
      {"chained_matmul.json", "chained_matmul_column_major.solution.json", nullptr,
       /*6553.6+3276.8+4915.2+3276.8=*/18022.4, 18022.4, /*4000*(2-1)/2=*/2000},
      // The best schedules `tilesched schedule --iterations 2000 --seed 1` finds for the same
      // problems under contest rules (docs/split_k.md), valid under both readings.
      // Prologue, PW0 alone with T1 retained: 2 tiles loading T0's 16384 (300 < 1638.4) and
      // storing nothing = 3276.8; then MM1 with T1 resident, per tile 3 k-steps loading T2's
      // 64x128 slice (8192/10 = 819.2 > 250) and a last one storing the tile too
      // ((8192+16384)/10 = 2457.6): 2*(3*819.2+2457.6) = 9830.4.
      {"prologue_split_k.json", "prologue_split_k_retained.solution.json", nullptr,
       /*3276.8+9830.4=*/13107.2, 13107.2, 0},
      // The same with one output tile: 3276.8 + (3*819.2+2457.6).
      {"prologue_whole_tile.json", "prologue_whole_tile_retained.solution.json", nullptr,
       /*3276.8+4915.2=*/8192, 8192, 0},
      // Epilogue fused at k=32: contest's two tile buffers now fit at step 8 (4096+4096+16384
      // + 2*16384 = 57344). Steps 1-7 (4096+4096)/10 = 819.2; step 8 (8192+16384+16384)/10.
      {"epilogue_split_k.json", "epilogue_split_k_k32.solution.json", nullptr,
       /*7*819.2+4096=*/9830.4, 9830.4, 0},
      // Chained MatMuls unfused, T retained: MM0's 2 row tiles load A's strip and B, then only
      // A's (3276.8 + 1638.4, nothing stored); MM1 with T resident in order [0,2,3,1] loads C's
      // column strip on every other tile: 3276.8 + 1638.4 + 3276.8 + 1638.4.
      {"chained_matmul.json", "chained_matmul_retained.solution.json", nullptr,
       /*4915.2+9830.4=*/14745.6, 14745.6, 0},
  };
  for (const ExampleCase& c : cases) {
    SCOPED_TRACE(c.problem);
    auto problem = LoadProblem(kExamples + c.problem);
    ASSERT_TRUE(problem.ok()) << problem.status().message();
    auto schedule = LoadSolution(kExamples + c.solution);
    ASSERT_TRUE(schedule.ok()) << schedule.status().message();
    const std::vector<CostModes> modes = {kContest, kAlgebra};
    const std::vector<ModeResult> results = EvaluateModes(*problem, *schedule, modes);
    ASSERT_EQ(results.size(), 2u);
    if (c.contest_error) {
      ASSERT_FALSE(results[0].evaluation.ok());
      EXPECT_NE(results[0].evaluation.status().message().find(c.contest_error), std::string::npos)
          << results[0].evaluation.status().message();
      EXPECT_FALSE(AllValid(results));
    } else {
      ASSERT_TRUE(results[0].evaluation.ok()) << results[0].evaluation.status().message();
      EXPECT_NEAR(results[0].evaluation->total, c.contest_total, 1e-9 * c.contest_total);
      EXPECT_TRUE(AllValid(results));
    }
    ASSERT_TRUE(results[1].evaluation.ok()) << results[1].evaluation.status().message();
    EXPECT_NEAR(results[1].evaluation->total, c.algebra_total, 1e-9 * c.algebra_total);
    EXPECT_NEAR(RecomputationTime(results[1].evaluation->op_work), c.recomputation, 1e-9);
  }
}

// Chained MatMuls, column-major on the 2 x 2 grid, by hand: MM0 (inner) computes T's row strip
// of each tile over its full reduction, 128*128 = 16384 elements per tile, 4 tiles = 65536 =
// 2 x |T| (256*128 = 32768); MM1 (split root, one k-slice covering K=128) computes each tile
// once: 4 x 16384 = 65536 = |Out|.
TEST(Recomputation, ChainedMatMulInnerStripsComputedTwice) {
  auto problem = LoadProblem(kExamples + "chained_matmul.json");
  ASSERT_TRUE(problem.ok());
  auto loaded = LoadSolution(kExamples + "chained_matmul_column_major.solution.json");
  ASSERT_TRUE(loaded.ok());
  Schedule schedule = *loaded;
  for (const std::vector<int64_t>& order :
       {std::vector<int64_t>{0, 2, 1, 3}, std::vector<int64_t>{0, 1, 2, 3}}) {
    schedule.subgraphs[0].traversal = order;
    auto ev = Evaluate(*problem, schedule, kContest);
    ASSERT_TRUE(ev.ok()) << ev.status().message();
    const std::vector<OpWork>& work = ev->subgraphs[0].cost.op_work;
    ASSERT_EQ(work.size(), 2u);
    EXPECT_EQ(work[0].op, 0);
    EXPECT_EQ(work[0].output_size, /*256*128=*/32768);
    EXPECT_DOUBLE_EQ(work[0].elements, /*4*128*128=*/65536);
    EXPECT_DOUBLE_EQ(ComputedRelativeToOnce(work[0]), 2.0);
    EXPECT_DOUBLE_EQ(work[0].compute_time, /*4*1000=*/4000);
    EXPECT_DOUBLE_EQ(RecomputationTime(work[0]), /*4000*(65536-32768)/65536=*/2000);
    EXPECT_EQ(work[1].op, 1);
    EXPECT_DOUBLE_EQ(work[1].elements, /*4*128*128*(128/128)=*/65536);
    EXPECT_DOUBLE_EQ(ComputedRelativeToOnce(work[1]), 1.0);
    EXPECT_DOUBLE_EQ(RecomputationTime(work[1]), 0);
    // Raster order reads the same slices in another order: same recomputation, same total
    // (tile 1 keeps A0 and B, tile 2 only B).
    EXPECT_NEAR(ev->total, /*6553.6+3276.8+4915.2+3276.8=*/18022.4, 1e-9);
  }
}

// SPEC 3B: op 0 in two subgraphs, [[0,1],[0,2]] at [128,128,1], T2 retained. Each subgraph is
// one tile computing its two ops once (1500 each): op 0 is 1.00x in each subgraph, nothing
// recomputed inside either, but 2.00x over the schedule, half of its 3000 of time beyond once.
TEST(Recomputation, OpInTwoSubgraphs) {
  const Problem problem = testing::spec::Diamond();
  const Granularity g128{128, 128, 1};
  const Schedule schedule = Sched({Sg({0, 1}, g128, {2}), Sg({0, 2}, g128)});
  auto ev = Evaluate(problem, schedule, kContest);
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  EXPECT_NEAR(ev->total, 6276.8, 1e-9);
  for (const SubgraphReport& sg : ev->subgraphs) {
    ASSERT_EQ(sg.cost.op_work.size(), 2u);
    for (const OpWork& w : sg.cost.op_work) {
      EXPECT_DOUBLE_EQ(w.elements, /*128*128=*/16384);
      EXPECT_DOUBLE_EQ(w.compute_time, 1500);
    }
    EXPECT_DOUBLE_EQ(RecomputationTime(sg.cost.op_work), 0);
  }
  ASSERT_EQ(ev->op_work.size(), 3u);
  EXPECT_DOUBLE_EQ(ComputedRelativeToOnce(ev->op_work[0]), 2.0);
  EXPECT_DOUBLE_EQ(ev->op_work[0].compute_time, /*2*1500=*/3000);
  EXPECT_DOUBLE_EQ(ComputedRelativeToOnce(ev->op_work[1]), 1.0);
  EXPECT_DOUBLE_EQ(ComputedRelativeToOnce(ev->op_work[2]), 1.0);
  EXPECT_DOUBLE_EQ(RecomputationTime(ev->op_work), /*3000*(2-1)/2=*/1500);
}

// A split root accumulating all its k-slices over a tile computes that tile once; the inner
// MatMul of E8 computes 128x32 strips of T3 (K=256 each), 4 of them = T3 once.
TEST(Recomputation, SplitRootSlicesAddUpToOnce) {
  const Problem problem = testing::spec::E8();
  auto ev = Evaluate(problem, Sched({Sg({0, 1}, {128, 128, 32})}), kContest);
  ASSERT_TRUE(ev.ok()) << ev.status().message();
  EXPECT_NEAR(ev->total, 11372.8, 1e-9);
  const std::vector<OpWork>& work = ev->subgraphs[0].cost.op_work;
  ASSERT_EQ(work.size(), 2u);
  EXPECT_DOUBLE_EQ(work[0].elements, /*4*128*32=*/16384);
  EXPECT_DOUBLE_EQ(work[0].compute_time, /*4*4000*32/128=*/4000);
  EXPECT_DOUBLE_EQ(work[1].elements, /*4*128*128*32/128=*/16384);
  EXPECT_DOUBLE_EQ(work[1].compute_time, /*4*4000*32/128=*/4000);
  EXPECT_DOUBLE_EQ(RecomputationTime(ev->op_work), 0);
}

// The HTML report shows the same figures: per subgraph and in total.
TEST(Recomputation, HtmlReportShowsPerSubgraphAndTotal) {
  const Problem problem = testing::spec::Diamond();
  const Granularity g128{128, 128, 1};
  const Schedule schedule = Sched({Sg({0, 1}, g128, {2}), Sg({0, 2}, g128)});
  auto ev = Evaluate(problem, schedule, kContest);
  ASSERT_TRUE(ev.ok());
  report::ReportInput in;
  in.problem = &problem;
  in.schedule = &schedule;
  in.evaluation = &*ev;
  const std::string html = report::ReportHtml(in);
  EXPECT_EQ(testing::CountOf(html, "class=\"recompute-row\""), 2);
  EXPECT_NE(html.find("<td>0</td><td>op 0: 1.00x, op 1: 1.00x</td><td class=\"num\">0.0</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>all</td><td>op 0: 2.00x, op 1: 1.00x, op 2: 1.00x</td>"),
            std::string::npos);
  EXPECT_NE(html.find("id=\"recomputation-time\">1500.0<"), std::string::npos);
}

TEST(ModeCombinations, ListsExpandInFixedOrder) {
  auto all = ModeCombinations("contest,algebra", "", "native,reduction");
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[0], (CostModes{Rules::kContest, MatmulReduction::kFullK, KLimit::kNative}));
  EXPECT_EQ((*all)[1], (CostModes{Rules::kContest, MatmulReduction::kFullK, KLimit::kReduction}));
  EXPECT_EQ((*all)[2], (CostModes{Rules::kAlgebra, MatmulReduction::kFullK, KLimit::kNative}));
  EXPECT_EQ((*all)[3], (CostModes{Rules::kAlgebra, MatmulReduction::kFullK, KLimit::kReduction}));
  auto one = ModeCombinations("", "native_k", "");
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].matmul_reduction, MatmulReduction::kNativeK);
  auto bad = ModeCombinations("contest,algebr", "", "");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--rules: rules must be 'contest' or 'algebra', got 'algebr'"),
            std::string::npos)
      << bad.status().message();
  auto twice = ModeCombinations("", "", "native,native");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "--k-limit: 'native' is listed twice");
  EXPECT_FALSE(ModeCombinations("contest,", "", "").ok());
}

TEST(ModeCompare, DescribeFailureNamesRuleSubgraphAndObject) {
  FailureSite a = DescribeFailure(
      "subgraph 2: op 0 (Pointwise) is read along a reduction axis, so its tile must cover all "
      "256 columns, but w=128 (rules=contest, SPEC 7b)");
  EXPECT_EQ(a.rule, "SPEC 7b");
  EXPECT_EQ(a.subgraph, 2);
  EXPECT_EQ(a.object, "op 0");
  EXPECT_EQ(a.op, 0);
  EXPECT_FALSE(a.tensor.has_value());
  FailureSite b = DescribeFailure(
      "subgraph 0: working set 65536 exceeds capacity 60000 at tile 3 (row 1, col 1), k-step 4 of "
      "4 (rule 3.8)");
  EXPECT_EQ(b.rule, "rule 3.8");
  EXPECT_EQ(b.subgraph, 0);
  EXPECT_EQ(b.object, "tile 3");
  EXPECT_FALSE(b.op.has_value());
  EXPECT_FALSE(b.tensor.has_value());
  FailureSite c = DescribeFailure("op 4 is in no subgraph (rule 3.1)");
  EXPECT_EQ(c.rule, "rule 3.1");
  EXPECT_FALSE(c.subgraph.has_value());
  EXPECT_EQ(c.object, "op 4");
  EXPECT_EQ(c.op, 4);
  FailureSite d = DescribeFailure(
      "subgraph 1: op 3 reads tensor 5, which is not available: op 2 produces it, but no earlier "
      "subgraph wrote it to slow memory and the previous subgraph did not retain it (rule 3.5)");
  EXPECT_EQ(d.rule, "rule 3.5");
  EXPECT_EQ(d.object, "op 3");
  EXPECT_EQ(d.op, 3);
  EXPECT_EQ(d.tensor, 5);
}

// The --json shape: {"valid", "modes": [{rules, matmul_reduction, k_limit, valid, error, total,
// ...}]}, differences to the first valid column.
TEST(ModeCompare, JsonShape) {
  auto problem = LoadProblem(kExamples + "prologue_split_k.json");
  ASSERT_TRUE(problem.ok());
  auto schedule = LoadSolution(kExamples + "prologue_split_k_fused.solution.json");
  ASSERT_TRUE(schedule.ok());
  const std::vector<CostModes> modes = {
      kContest, kAlgebra, {Rules::kAlgebra, MatmulReduction::kNativeK, KLimit::kNative}};
  const auto out = nlohmann::json::parse(ModeComparisonToJson(EvaluateModes(*problem, *schedule, modes)));
  EXPECT_EQ(out["valid"], false);
  ASSERT_TRUE(out["modes"].is_array());
  ASSERT_EQ(out["modes"].size(), 3u);
  const auto& contest = out["modes"][0];
  EXPECT_EQ(contest["rules"], "contest");
  EXPECT_EQ(contest["matmul_reduction"], "full_k");
  EXPECT_EQ(contest["k_limit"], "native");
  EXPECT_EQ(contest["valid"], false);
  ASSERT_TRUE(contest["error"].is_string());
  EXPECT_NE(contest["error"].get<std::string>().find("SPEC 7b"), std::string::npos);
  EXPECT_EQ(contest["rule"], "SPEC 7b");
  EXPECT_EQ(contest["subgraph"], 0);
  EXPECT_EQ(contest["object"], "op 0");
  EXPECT_TRUE(contest["total"].is_null());
  EXPECT_TRUE(contest["difference"].is_null());
  const auto& algebra = out["modes"][1];
  EXPECT_EQ(algebra["rules"], "algebra");
  EXPECT_EQ(algebra["valid"], true);
  EXPECT_TRUE(algebra["error"].is_null());
  ASSERT_TRUE(algebra["total"].is_number());
  EXPECT_DOUBLE_EQ(algebra["total"].get<double>(), 16384);
  EXPECT_DOUBLE_EQ(algebra["difference"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(algebra["recomputation_time"].get<double>(), 600);
  // native_k: a 64-slice of MM1 costs 1000*64/128 = 500, PW0 150: 650 < 1638.4 still, so the
  // total is the same memory-bound 16384.
  const auto& native = out["modes"][2];
  EXPECT_EQ(native["matmul_reduction"], "native_k");
  EXPECT_DOUBLE_EQ(native["total"].get<double>(), 16384);
  EXPECT_DOUBLE_EQ(native["ratio"].get<double>(), 1);
}

// `tilesched evaluate` with lists: one table, exit 0 only when every reading accepts.
TEST(ModeCompareCli, ExitStatusAndOutput) {
  testing::ScratchDir dir("tilesched_mode_compare");
  const std::string tool = TILESCHED_BINARY;
  const std::string p = kExamples + "epilogue_split_k.json";
  const std::string s = kExamples + "epilogue_split_k_fused.solution.json";
  // Valid under algebra only: one run says so, exit 1.
  testing::ToolRun both = testing::RunTool({tool, "evaluate", p, s, "--rules", "contest,algebra"}, dir.path());
  EXPECT_EQ(both.code, 1) << both.err;
  EXPECT_NE(both.out.find("INVALID"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("9830.4"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("rule 3.8"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("valid under 1 of 2 readings"), std::string::npos) << both.out;
  // Every listed reading accepts: exit 0.
  testing::ToolRun algebra = testing::RunTool(
      {tool, "evaluate", p, s, "--rules", "algebra", "--matmul-reduction", "full_k,native_k"}, dir.path());
  EXPECT_EQ(algebra.code, 0) << algebra.err << algebra.out;
  EXPECT_NE(algebra.out.find("valid under 2 of 2 readings"), std::string::npos) << algebra.out;
  // --json with a list: the modes array; exit status as without --json.
  testing::ToolRun json = testing::RunTool({tool, "evaluate", p, s, "--rules", "contest,algebra", "--json"}, dir.path());
  EXPECT_EQ(json.code, 1);
  const auto parsed = nlohmann::json::parse(json.out);
  ASSERT_EQ(parsed["modes"].size(), 2u);
  EXPECT_EQ(parsed["modes"][0]["valid"], false);
  EXPECT_DOUBLE_EQ(parsed["modes"][1]["total"].get<double>(), 9830.4);
  // A single mode keeps the breakdown; invalid is exit 1, a bad list exit 2.
  testing::ToolRun single = testing::RunTool({tool, "evaluate", p, s, "--rules", "algebra"}, dir.path());
  EXPECT_EQ(single.code, 0);
  EXPECT_NE(single.out.find("modes: rules=algebra matmul_reduction=full_k k_limit=native"), std::string::npos);
  EXPECT_NE(single.out.find("recomputation: 0 of 2 ops computed more than once"), std::string::npos)
      << single.out;
  EXPECT_EQ(testing::RunTool({tool, "evaluate", p, s}, dir.path()).code, 1);
  testing::ToolRun bad = testing::RunTool({tool, "evaluate", p, s, "--rules", "contest,contest"}, dir.path());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--rules: 'contest' is listed twice"), std::string::npos) << bad.err;
  testing::ToolRun help = testing::RunTool({tool, "evaluate", "--help"}, dir.path());
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("Exit status 1 when the schedule is invalid under at least\none listed reading"),
            std::string::npos) << help.out;
}

}  // namespace
}  // namespace tilesched
