// `tilesched cut`: some ops of a problem as a problem of their own (CutOut, tilesched/problem.h),
// to study one part of a large graph with the tools that do not reach the whole: the exact
// mode, tier 2 of the bound (docs/bounds.md, "Cut-outs"): listed ops, the link component of an
// op, or its core (docs/bounds.md, "Cores").
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "tilesched/file_util.h"
#include "tilesched/io.h"
#include "tilesched/lower_bound.h"

namespace tilesched::cli {

namespace {

// "3,5-9,12" as op ids (ranges inclusive), or the error naming the bad entry.
Result<std::vector<int>> ParseOpList(const std::string& text) {
  std::vector<int> ops;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const size_t dash = item.find('-', 1);
    auto number = [&](const std::string& s) -> Result<int64_t> {
      if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) {
        return Status::Error("--ops: '" + item + "' is not an op id or a range A-B of them");
      }
      return std::stoll(s);
    };
    auto first = number(dash == std::string::npos ? item : item.substr(0, dash));
    if (!first.ok()) return first.status();
    auto last = dash == std::string::npos ? first : number(item.substr(dash + 1));
    if (!last.ok()) return last.status();
    if (*last < *first) return Status::Error("--ops: the range '" + item + "' ends before it starts");
    if (*last - *first >= 10000000) return Status::Error("--ops: the range '" + item + "' is too long");
    for (int64_t o = *first; o <= *last; ++o) ops.push_back(static_cast<int>(o));
    start = comma + 1;
  }
  return ops;
}

}  // namespace

int RunCut(int argc, char** argv, int first) {
  std::vector<Option> options = ModeOptions();
  options.push_back({"ops", "LIST", "the ops to keep: ids and inclusive ranges, e.g. 0,3-9,12"});
  options.push_back({"component-of", "OP",
                     "keep the link component of op OP instead (docs/bounds.md \"Tier 2 by components\"; "
                     "it depends on --rules)"});
  options.push_back({"core-of", "OP",
                     "keep the core of op OP instead: its link component cut at the tensors of --cuts "
                     "(docs/bounds.md \"Cores\"; rules=contest only)"});
  options.push_back({"cuts", "design|all",
                     "with --core-of: the cuts DesignCuts makes (default; docs/design_cores.md) or every "
                     "admissible cut (the smallest cores)"});
  options.push_back({"output", "OUT.json", "write the cut-out here (default: stdout)", "-o"});
  Args args("cut", "PROBLEM.json (--ops LIST | --component-of OP | --core-of OP) [options]",
            "Writes some ops of PROBLEM.json as a problem of their own, to study a part of a\n"
            "large graph with what does not reach the whole (the exact strategy of `schedule`,\n"
            "tier 2 of `bound`). Tensors produced outside the ops become graph inputs, tensors they produce\n"
            "and no kept op reads become graph outputs; names are kept (\"op N\" and \"tensor N\"\n"
            "with the original ids when the problem has none). A tensor also read outside is not\n"
            "forced to be stored in the cut-out, so its optimum and bounds describe the part\n"
            "alone, not its share of the whole problem (docs/bounds.md \"Cut-outs\"). --core-of keeps a\n"
            "core: the ops linked without crossing a cut tensor (a shared input, or a tensor only ever\n"
            "demanded as the tile; docs/bounds.md \"Cores\").",
            options, 1, 1);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  if (Status s = CheckOutputOptions(args, {"output"}); !s.ok()) return Fail("cut", s.message(), kExitUsage);
  if (static_cast<int>(args.Has("ops")) + args.Has("component-of") + args.Has("core-of") != 1) {
    return Fail("cut", "give exactly one of --ops, --component-of and --core-of", kExitUsage);
  }
  const std::string cuts = args.Has("cuts") ? args.Get("cuts") : "design";
  if (args.Has("cuts") && !args.Has("core-of")) return Fail("cut", "--cuts needs --core-of", kExitUsage);
  if (cuts != "design" && cuts != "all") {
    return Fail("cut", "--cuts: '" + cuts + "' is neither 'design' nor 'all'", kExitUsage);
  }
  auto modes = ModesFromArgs(args);
  if (!modes.ok()) return Fail("cut", modes.status().message(), kExitUsage);
  if (args.Has("core-of") && modes->rules != Rules::kContest) {
    return Fail("cut", "--core-of needs --rules contest (nothing is cut under algebra rules; use --component-of)",
                kExitUsage);
  }
  std::vector<std::string> warnings;
  auto problem = LoadProblem(args.positional()[0], &warnings);
  if (!problem.ok()) return Fail("cut", problem.status().message(), kExitUsage);
  PrintWarnings("cut", warnings);
  std::vector<int> ops;
  if (args.Has("ops")) {
    auto list = ParseOpList(args.Get("ops"));
    if (!list.ok()) return Fail("cut", list.status().message(), kExitUsage);
    ops = std::move(list).value();
  } else {
    const std::string flag = args.Has("core-of") ? "core-of" : "component-of";
    auto op = args.GetInt(flag, 0);
    if (!op.ok()) return Fail("cut", op.status().message(), kExitUsage);
    if (*op < 0 || *op >= problem->num_ops()) {
      return Fail("cut", "--" + flag + ": op " + std::to_string(*op) + " is out of range (the problem has " +
                             std::to_string(problem->num_ops()) + " ops)",
                  kExitUsage);
    }
    std::vector<int> group_of;
    if (flag == "core-of") {
      const CoreSplit split = Cores(*problem, *modes,
                                    cuts == "all" ? AdmissibleCuts(*problem, *modes) : DesignCuts(*problem, *modes));
      group_of = split.core_of;
      std::cerr << "cut: " << split.count << " cores under " << (cuts == "all" ? "every admissible cut" : "the design cuts") << "\n";
    } else {
      group_of = LinkComponents(*problem, *modes);
    }
    for (int o = 0; o < problem->num_ops(); ++o) {
      if (group_of[o] == group_of[*op]) ops.push_back(o);
    }
  }
  auto cut = CutOut(*problem, ops);
  if (!cut.ok()) return Fail("cut", cut.status().message(), kExitUsage);
  std::cerr << "cut: " << cut->num_ops() << " of " << problem->num_ops() << " ops, " << cut->num_tensors()
            << " tensors\n";
  const std::string json = ProblemToJson(*cut);
  if (!args.Has("output")) {
    std::cout << json;
    return kExitOk;
  }
  if (Status s = WriteFileAtomic(args.Get("output"), json); !s.ok()) return Fail("cut", s.message(), kExitUsage);
  return kExitOk;
}

}  // namespace tilesched::cli
