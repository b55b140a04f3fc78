// `tilesched merge`: join the shard files of a sweep into one file sorted by point, checking
// that every point of the grid is there exactly once.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "sweep_rows.h"
#include "tilesched/file_util.h"

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
            {{"output", "OUT", "merged rows go here (required; -o OUT)"},
             {"format", "csv|jsonl",
              "default: OUT's extension (.csv, .jsonl), else the shards' format"}},
            1, 1 << 20);
  std::vector<char*> rewritten(argv, argv + argc);
  std::string long_output = "--output";
  for (int i = first; i < argc; ++i) {
    if (std::string(argv[i]) == "-o") rewritten[static_cast<size_t>(i)] = long_output.data();
  }
  if (Status s = args.Parse(argc, rewritten.data(), first); !s.ok()) {
    return Fail(kCommand, s.message(), kExitUsage);
  }
  if (args.help()) {
    std::cout << args.HelpText();
    return kExitOk;
  }
  const std::string output = args.Get("output");
  if (output.empty()) return Fail(kCommand, "-o OUT is required", kExitUsage);

  std::vector<NamedRows> files;
  bool all_jsonl = true;
  for (const std::string& path : args.positional()) {
    auto text = ReadFile(path);
    if (!text.ok()) return Fail(kCommand, text.status().message(), kExitUsage);
    auto file = ParseSweepFile(*text, path);
    if (!file.ok()) return Fail(kCommand, file.status().message(), kExitUsage);
    all_jsonl &= file->format == SweepFormat::kJsonl;
    files.push_back({path, std::move(file->rows)});
  }
  // A .csv or .jsonl name decides; any other name keeps the shards' format.
  const std::string extension = std::filesystem::path(output).extension().string();
  SweepFormat format = SweepFormatForPath(output);
  if (extension != ".csv" && all_jsonl) format = SweepFormat::kJsonl;
  if (args.Has("format")) {
    auto parsed = ParseSweepFormat(args.Get("format"));
    if (!parsed.ok()) return Fail(kCommand, parsed.status().WithContext("--format: ").message(), kExitUsage);
    format = *parsed;
  }
  auto merged = MergeSweepRows(files);
  if (!merged.ok()) return Fail(kCommand, merged.status().message(), kExitUsage);
  std::string text = SweepHeader(format);
  for (const SweepRow& row : *merged) text += FormatSweepRow(row, format);
  if (Status s = WriteFileAtomic(output, text); !s.ok()) return Fail(kCommand, s.message(), kExitUsage);
  std::cerr << "merge: " << merged->size() << " points from " << files.size() << " file"
            << (files.size() == 1 ? "" : "s") << "; written to " << output << "\n";
  return kExitOk;
}

}  // namespace tilesched::cli
