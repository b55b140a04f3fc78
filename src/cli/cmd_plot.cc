// `tilesched plot`: PLACEHOLDER (being implemented; replace this whole file).
#include "args.h"
#include "commands.h"

namespace tilesched::cli {

int RunPlot(int, char**, int) { return Fail("plot", "not implemented yet", kExitUsage); }

}  // namespace tilesched::cli
