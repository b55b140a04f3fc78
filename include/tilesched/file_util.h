// Whole-file reads and atomic writes (write a temporary file beside the target, then rename).
//
// Entry points: ReadFile(path), WriteFileAtomic(path, contents). A reader of the target sees
// either the old file or the complete new one, never a partial write.
#ifndef TILESCHED_FILE_UTIL_H_
#define TILESCHED_FILE_UTIL_H_

#include <string>

#include "tilesched/status.h"

namespace tilesched {

Result<std::string> ReadFile(const std::string& path);
Status WriteFileAtomic(const std::string& path, const std::string& contents);

}  // namespace tilesched

#endif  // TILESCHED_FILE_UTIL_H_
