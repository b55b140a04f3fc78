// External programs for the report library (`dot` for the HTML report, `gnuplot` for sweep
// plots), run in a private temporary directory.
//
// Entry points: FindProgram(name) looks a program up on PATH; TempDir makes a fresh directory
// removed with everything in it when it goes out of scope; RunProgram(dir, argv) runs a program
// there and reports a failure with the first line it printed.
#ifndef TILESCHED_REPORT_REPORT_TOOLS_H_
#define TILESCHED_REPORT_REPORT_TOOLS_H_

#include <string>
#include <vector>

#include "tilesched/status.h"

namespace tilesched::report {

// Full path of an executable `name` found on PATH, or "" when there is none.
std::string FindProgram(const std::string& name);

class TempDir {
 public:
  // A fresh directory under the system temp directory; path() is empty when creation failed.
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // `path()/name`.
  std::string File(const std::string& name) const;

 private:
  std::string path_;
};

// Runs argv[0] (a full path) with argv[1..] in working directory `dir`, stdin from /dev/null and
// stdout + stderr captured into `dir`. Fails when the program cannot start, exits non-zero,
// dies from a signal or runs longer than `timeout_seconds` (it is then killed); the message
// names the program and quotes the first line it printed.
Status RunProgram(const std::string& dir, const std::vector<std::string>& argv,
                  double timeout_seconds);

}  // namespace tilesched::report

#endif  // TILESCHED_REPORT_REPORT_TOOLS_H_
