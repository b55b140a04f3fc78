// SweepLog: the output file of `tilesched sweep`, written as the sweep goes.
//
// Entry points: SweepLog::Open(path, format, resume) creates the file with its header, or with
// --resume keeps the rows already there (a trailing partial line, left by a killed sweep, is
// cut off first) and returns them; Append(row) adds one finished row with a single write() of
// the complete line, so a crashed or killed sweep keeps every finished row and never leaves a
// half row behind except as that partial last line. Rows go straight to the kernel (no user
// space buffer), so they survive the process being killed; Close() also fsyncs.
#ifndef TILESCHED_SWEEP_LOG_H_
#define TILESCHED_SWEEP_LOG_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sweep_rows.h"
#include "tilesched/status.h"

namespace tilesched::sweep {

class SweepLog {
 public:
  struct Opened;
  // Fails (before creating anything) when the file cannot be opened, or with --resume when
  // it holds another format or rows that cannot be read.
  static Result<Opened> Open(const std::string& path, SweepFormat format, bool resume);

  SweepLog(const SweepLog&) = delete;
  SweepLog& operator=(const SweepLog&) = delete;
  ~SweepLog();

  // Thread-safe; one write() per row.
  Status Append(const SweepRow& row);
  // Flushes to disk and closes; later Appends fail.
  Status Close();

  const std::string& path() const { return path_; }
  SweepFormat format() const { return format_; }

 private:
  SweepLog(std::string path, SweepFormat format, int fd)
      : path_(std::move(path)), format_(format), fd_(fd) {}

  std::string path_;
  SweepFormat format_;
  std::mutex mutex_;
  int fd_ = -1;
};

struct SweepLog::Opened {
  std::unique_ptr<SweepLog> log;
  std::vector<SweepRow> kept;  // rows found by --resume, in file order
  bool truncated = false;      // a partial last line was cut off
};

}  // namespace tilesched::sweep

#endif  // TILESCHED_SWEEP_LOG_H_
