// `tilesched report`: PLACEHOLDER (being implemented; replace this whole file).
#include "args.h"
#include "commands.h"

namespace tilesched::cli {

int RunReport(int, char**, int) { return Fail("report", "not implemented yet", kExitUsage); }

}  // namespace tilesched::cli
