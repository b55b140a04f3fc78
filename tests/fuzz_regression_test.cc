// Replays every input the fuzzers ever broke the library with (tests/fuzz_regressions/) and
// the seed corpus (fuzz/corpus/) through the fuzz targets' own checks (fuzz/fuzz_checks.h):
// each must parse into a value obeying the invariants, or be rejected with a one-line error.
//
// A regression file is named <target>-<what>.<ext>, target being problem, solution or evaluate
// (the fuzz target it crashed); docs/reliability.md lists what each one broke.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../fuzz/fuzz_checks.h"
#include "tilesched/file_util.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

Status CheckInput(const std::string& target, const std::string& data) {
  if (target == "problem") return fuzz::CheckProblemInput(data);
  if (target == "solution") return fuzz::CheckSolutionInput(data);
  if (target == "evaluate") return fuzz::CheckEvaluateInput(data);
  return Status::Error("unknown fuzz target '" + target + "'");
}

std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Runs `file` through the checks of `target`; returns false when the input broke them.
bool Replay(const std::string& target, const fs::path& file) {
  SCOPED_TRACE(file.string());
  auto data = ReadFile(file.string());
  EXPECT_TRUE(data.ok()) << data.status().message();
  if (!data.ok()) return false;
  const Status status = CheckInput(target, *data);
  EXPECT_TRUE(status.ok()) << status.message();
  return status.ok();
}

TEST(FuzzRegression, SavedCrashersNowPass) {
  const fs::path dir = fs::path(TILESCHED_SOURCE_DIR) / "tests" / "fuzz_regressions";
  int replayed = 0;
  for (const fs::path& file : FilesIn(dir)) {
    const std::string name = file.filename().string();
    if (name == "README.md") continue;
    const size_t dash = name.find('-');
    ASSERT_NE(dash, std::string::npos) << name << " is not named <target>-<what>";
    Replay(name.substr(0, dash), file);
    ++replayed;
  }
  EXPECT_GT(replayed, 0) << "no saved crashers in " << dir;
}

TEST(FuzzRegression, SeedCorpusPasses) {
  const fs::path corpus = fs::path(TILESCHED_SOURCE_DIR) / "fuzz" / "corpus";
  for (const std::string target : {"problem", "solution", "evaluate"}) {
    const std::vector<fs::path> files = FilesIn(corpus / target);
    EXPECT_GE(files.size(), 10u) << target;
    for (const fs::path& file : files) Replay(target, file);
  }
  for (const fs::path& file : FilesIn(fs::path(TILESCHED_SOURCE_DIR) / "data" / "benchmarks")) {
    if (file.extension() == ".json") Replay("problem", file);
  }
}

// The evaluate seeds built from SPEC.md section 8 are judged as the SPEC says: the valid ones
// reach the checks of a valid evaluation, the invalid ones a one-line error.
TEST(FuzzRegression, SeparatorSplitsTheSpecVectors) {
  auto data = ReadFile(std::string(TILESCHED_SOURCE_DIR) + "/fuzz/corpus/evaluate/spec_4B.txt");
  ASSERT_TRUE(data.ok()) << data.status().message();
  const size_t split = data->find(fuzz::kSeparator);
  ASSERT_NE(split, std::string::npos);
  auto problem = ParseProblem(data->substr(0, split));
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  auto schedule = ParseSolution(data->substr(split + fuzz::kSeparator.size()));
  ASSERT_TRUE(schedule.ok()) << schedule.status().message();
  auto evaluation = Evaluate(*problem, *schedule, {});
  ASSERT_TRUE(evaluation.ok()) << evaluation.status().message();
  EXPECT_NEAR(evaluation->total, /*4B: 2048+1500+1500+1500=*/6548, 1e-9 * 6548);
}

}  // namespace
}  // namespace tilesched
