// File and process helpers shared by the tests that run commands or write files: read and write
// whole files, a scratch directory per test, and starting a child process with its output
// redirected.
#ifndef TILESCHED_TESTS_TEST_FILES_H_
#define TILESCHED_TESTS_TEST_FILES_H_

#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace tilesched::testing {

// The whole file, or "" when it cannot be read.
inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// How many times `needle` occurs in `text`, without overlaps.
inline int CountOf(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size())) {
    ++count;
  }
  return count;
}

// The number value after `key` in `json` (the commands' JSON: `"key": value`); fails the test
// when the key is missing.
inline double JsonNumber(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\": ");
  EXPECT_NE(at, std::string::npos) << key << " in\n" << json;
  if (at == std::string::npos) return -1;
  return std::strtod(json.c_str() + at + key.size() + 4, nullptr);
}

inline void Spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A fresh directory under the system temp directory, named after `prefix`, the process and the
// running test; removed with everything in it when the object goes.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix = "tilesched_test") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // A parameterized test's name holds a '/' ("Case/param"): one directory, not two levels
    // of which only the inner one would be removed.
    std::string name = info ? info->name() : "global";
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(getpid()) + "_" + name);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string File(const std::string& name) const { return (path_ / name).string(); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// Starts argv[0] (a path) with argv, stdin from /dev/null, stdout and stderr to the given files
// ("" keeps the parent's) and `env` entries (NAME=value) added to the environment. Returns the
// child's pid (-1 when fork fails); the caller waits for it.
inline pid_t SpawnChild(const std::vector<std::string>& argv, const std::string& stdout_path,
                        const std::string& stderr_path, const std::vector<std::string>& env = {}) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  auto redirect = [](const std::string& path, int fd, int flags) {
    if (path.empty()) return;
    const int file = open(path.c_str(), flags, 0644);
    if (file < 0) _exit(126);
    dup2(file, fd);
    close(file);
  };
  redirect("/dev/null", 0, O_RDONLY);
  redirect(stdout_path, 1, O_WRONLY | O_CREAT | O_TRUNC);
  redirect(stderr_path, 2, O_WRONLY | O_CREAT | O_TRUNC);
  for (const std::string& entry : env) {
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) setenv(entry.substr(0, eq).c_str(), entry.substr(eq + 1).c_str(), 1);
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

// Waits up to `limit` for the child and returns its wait status; after `limit` the child is
// killed (SIGKILL) and -1 returned. `took`, when given, receives the time waited.
inline int WaitChild(pid_t pid, std::chrono::milliseconds limit,
                     std::chrono::milliseconds* took = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() - start > limit) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (took) {
    *took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
  }
  return status;
}

struct ToolRun {
  int code = -1;  // exit code, 128 + signal when killed by one, -1 after the time limit
  std::string out, err;
};

// Runs argv (argv[0] a path) with stdout and stderr captured in files under `dir` and `env`
// added to its environment; kills it after `limit`.
inline ToolRun RunTool(const std::vector<std::string>& argv, const std::string& dir,
                       const std::vector<std::string>& env = {},
                       std::chrono::milliseconds limit = std::chrono::seconds(60)) {
  static int calls = 0;
  const std::string id = std::to_string(calls++);
  const std::string out = dir + "/stdout" + id, err = dir + "/stderr" + id;
  const int status = WaitChild(SpawnChild(argv, out, err, env), limit);
  ToolRun run;
  if (status != -1) run.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = Slurp(out);
  run.err = Slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return run;
}

}  // namespace tilesched::testing

#endif  // TILESCHED_TESTS_TEST_FILES_H_
