// File helpers: POSIX write + fsync + rename for atomic replacement.
#include "tilesched/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tilesched {

Result<std::string> ReadFile(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return Status::Error(path + ": is a directory, expected a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Status::Error(path + ": read error");
  return buffer.str();
}

Status WriteFileAtomic(const std::string& path, const std::string& contents) {
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) {
    return Status::Error(path + ": cannot create a temporary file beside it (" +
                         std::strerror(errno) + ")");
  }
  const char* data = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return Status::Error(path + ": write failed (" + why + ")");
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0) {
    unlink(tmp.c_str());
    return Status::Error(path + ": cannot flush the temporary file");
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    unlink(tmp.c_str());
    return Status::Error(path + ": cannot rename the temporary file into place (" + why + ")");
  }
  return Status::Ok();
}

Status CheckOutputPath(const std::string& path, const std::string& what) {
  if (path.empty()) return Status::Error(what + ": empty file name");
  struct stat info {};
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return Status::Error(what + ": " + path + " is a directory, expected a file name");
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return Status::Error(what + ": directory '" + dir + "' of " + path + " does not exist");
  }
  if (access(dir.c_str(), W_OK) != 0) {
    return Status::Error(what + ": cannot write to directory '" + dir + "' of " + path + " (" +
                         std::strerror(errno) + ")");
  }
  return Status::Ok();
}

}  // namespace tilesched
