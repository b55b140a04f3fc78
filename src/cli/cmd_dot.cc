// `tilesched dot`: PLACEHOLDER (being implemented; replace this whole file).
#include "args.h"
#include "commands.h"

namespace tilesched::cli {

int RunDot(int, char**, int) { return Fail("dot", "not implemented yet", kExitUsage); }

}  // namespace tilesched::cli
