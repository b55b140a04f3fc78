// `tilesched merge`: PLACEHOLDER (being implemented; replace this whole file).
#include "args.h"
#include "commands.h"

namespace tilesched::cli {

int RunMerge(int, char**, int) { return Fail("merge", "not implemented yet", kExitUsage); }

}  // namespace tilesched::cli
