// External programs: PATH look-up, a self-removing temp directory, fork/exec with a timeout.
#include "report_tools.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace tilesched::report {

namespace fs = std::filesystem;

std::string FindProgram(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;  // an empty entry would mean the working directory: not trusted
    const std::string candidate = dir + "/" + name;
    struct stat info;
    if (stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

TempDir::TempDir(const std::string& prefix) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (prefix + ".XXXXXX")).string();
  if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::File(const std::string& name) const { return path_ + "/" + name; }

namespace {

// The first non-empty line of `path`, trimmed, or "" when there is none.
std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos) continue;
    const size_t end = line.find_last_not_of(" \t\r");
    return line.substr(begin, end - begin + 1);
  }
  return "";
}

}  // namespace

Status RunProgram(const std::string& dir, const std::vector<std::string>& argv,
                  double timeout_seconds) {
  const std::string name = fs::path(argv[0]).filename().string();
  const std::string log = dir + "/" + name + ".log";
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const pid_t pid = fork();
  if (pid < 0) return Status::Error("cannot start " + name + " (" + std::strerror(errno) + ")");
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    const int in = open("/dev/null", O_RDONLY);
    const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || chdir(dir.c_str()) != 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    execv(args[0], args.data());
    _exit(127);
  }

  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      return Status::Error("lost track of " + name + " (" + std::strerror(errno) + ")");
    }
    if (Clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return Status::Error(name + " did not finish within " +
                           std::to_string(static_cast<int>(timeout_seconds)) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::Ok();
  const std::string said = FirstLine(log);
  std::string why;
  if (WIFSIGNALED(status)) {
    why = "was killed by signal " + std::to_string(WTERMSIG(status));
  } else if (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == 126) {
    why = "could not be run";
  } else {
    why = "failed (exit " + std::to_string(WEXITSTATUS(status)) + ")";
  }
  return Status::Error(name + " " + why + (said.empty() ? "" : ": " + said));
}

}  // namespace tilesched::report
