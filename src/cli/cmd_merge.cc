// `tilesched merge`: join the shard files of a sweep into one file sorted by point, checking
// that every point of the grid is there exactly once (sweep library: MergeSweepFiles).
#include <iostream>
#include <string>

#include "args.h"
#include "commands.h"
#include "sweep.h"
#include "tilesched/table.h"

namespace tilesched::cli {

namespace {

constexpr const char* kCommand = "merge";

}  // namespace

int RunMerge(int argc, char** argv, int first) {
  Args args(kCommand, "SHARD... -o OUT [--format csv|jsonl]",
            "Joins the files written by `tilesched sweep --shard I/N` (CSV or JSON Lines, told\n"
            "apart by content; they may be mixed). Every point 0..of-1 must be present exactly\n"
            "once and all rows must agree on `of`; otherwise the first missing or duplicated\n"
            "point is named with its files. OUT gets the rows sorted by point (atomic write).",
            {{"output", "OUT", "merged rows go here (required)", "-o"},
             {"format", "csv|jsonl",
              "default: OUT's extension (.csv, .jsonl), else the shards' format"}},
            1, 1 << 20);
  if (auto code = ParseCommandLine(args, argc, argv, first)) return *code;
  const std::string output = args.Get("output");
  if (!args.Has("output")) return Fail(kCommand, "-o OUT is required", kExitUsage);
  if (Status s = CheckOutputOptions(args, {"output"}); !s.ok()) {
    return Fail(kCommand, s.message(), kExitUsage);
  }

  std::optional<std::string> format;
  if (args.Has("format")) format = args.Get("format");
  auto merged = sweep::MergeSweepFiles(args.positional(), output, format);
  if (!merged.ok()) return Fail(kCommand, merged.status().message(), kExitUsage);
  const size_t files = args.positional().size();
  std::cerr << "merge: " << Counted(static_cast<int64_t>(*merged), "point") << " from "
            << Counted(static_cast<int64_t>(files), "file") << "; written to " << output << "\n";
  return kExitOk;
}

}  // namespace tilesched::cli
