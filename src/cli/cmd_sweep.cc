// `tilesched sweep`: PLACEHOLDER (being implemented; replace this whole file).
#include "args.h"
#include "commands.h"

namespace tilesched::cli {

int RunSweep(int, char**, int) { return Fail("sweep", "not implemented yet", kExitUsage); }

}  // namespace tilesched::cli
