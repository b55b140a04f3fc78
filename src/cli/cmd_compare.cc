// `tilesched compare`: PLACEHOLDER (being implemented; replace this whole file).
#include "args.h"
#include "commands.h"

namespace tilesched::cli {

int RunCompare(int, char**, int) { return Fail("compare", "not implemented yet", kExitUsage); }

}  // namespace tilesched::cli
