// Append-as-you-go sweep output with resume.
#include "sweep_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tilesched/file_util.h"

namespace tilesched::sweep {

namespace {

Status WriteAll(int fd, const std::string& text, const std::string& path) {
  const char* data = text.data();
  size_t left = text.size();
  while (left > 0) {
    // A regular file takes the whole line in this one call; the loop only covers EINTR and
    // short writes on a full disk.
    const ssize_t n = write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Error(path + ": write failed (" + std::strerror(errno) + ")");
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

Result<SweepLog::Opened> SweepLog::Open(const std::string& path, SweepFormat format,
                                        bool resume) {
  Opened opened;
  bool write_header = true;
  struct stat info {};
  if (resume && stat(path.c_str(), &info) == 0) {
    auto read = ReadFile(path);
    if (!read.ok()) return read.status();
    std::string text = std::move(read).value();
    // Cut a partial last line: the row that was being written when the sweep died.
    const size_t last_newline = text.rfind('\n');
    const size_t keep = last_newline == std::string::npos ? 0 : last_newline + 1;
    if (keep < text.size()) {
      opened.truncated = true;
      text.resize(keep);
    }
    auto file = ParseSweepFile(text, path);
    if (!file.ok()) return file.status();
    const bool has_content = text.find_first_not_of(" \t\r\n") != std::string::npos;
    if (has_content && file->format != format) {
      return Status::Error(path + ": holds " + SweepFormatName(file->format) +
                           " rows, cannot resume it as " + SweepFormatName(format));
    }
    if (opened.truncated && truncate(path.c_str(), static_cast<off_t>(keep)) != 0) {
      return Status::Error(path + ": cannot cut off the partial last line (" +
                           std::strerror(errno) + ")");
    }
    opened.kept = std::move(file->rows);
    write_header = !has_content;
  }
  const int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (write_header ? O_TRUNC : 0);
  const int fd = open(path.c_str(), flags, 0644);
  if (fd < 0) return Status::Error(path + ": cannot open for writing (" + std::strerror(errno) + ")");
  if (write_header) {
    if (Status s = WriteAll(fd, SweepHeader(format), path); !s.ok()) {
      close(fd);
      return s;
    }
  }
  opened.log.reset(new SweepLog(path, format, fd));
  return opened;
}

SweepLog::~SweepLog() {
  if (fd_ >= 0) close(fd_);
}

Status SweepLog::Append(const SweepRow& row) {
  const std::string line = FormatSweepRow(row, format_);
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0) return Status::Error(path_ + ": already closed");
  return WriteAll(fd_, line, path_);
}

Status SweepLog::Close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ < 0) return Status::Ok();
  const bool synced = fsync(fd_) == 0;
  const bool closed = close(fd_) == 0;
  fd_ = -1;
  if (!synced || !closed) return Status::Error(path_ + ": cannot flush to disk");
  return Status::Ok();
}

}  // namespace tilesched::sweep
