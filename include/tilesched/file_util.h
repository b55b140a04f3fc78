// Whole-file reads and atomic writes (write a temporary file beside the target, then rename).
//
// Entry points: ReadFile(path), WriteFileAtomic(path, contents), CheckOutputPath(path). A reader
// of the target sees either the old file or the complete new one, never a partial write.
#ifndef TILESCHED_FILE_UTIL_H_
#define TILESCHED_FILE_UTIL_H_

#include <string>

#include "tilesched/status.h"

namespace tilesched {

// The whole file; a directory, a missing file or an unreadable one is an error naming it.
Result<std::string> ReadFile(const std::string& path);
Status WriteFileAtomic(const std::string& path, const std::string& contents);

// Whether WriteFileAtomic(path, ...) can succeed, checked before a long run rather than after
// it: `path` is not a directory, and its directory exists and is writable. `what` names the
// option in the message ("--output").
Status CheckOutputPath(const std::string& path, const std::string& what);

}  // namespace tilesched

#endif  // TILESCHED_FILE_UTIL_H_
