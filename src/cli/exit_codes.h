// Exit codes of the tilesched and mlsys programs, shared by every command.
#ifndef TILESCHED_CLI_EXIT_CODES_H_
#define TILESCHED_CLI_EXIT_CODES_H_

#include <string>

namespace tilesched::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;   // a schedule broke a rule, or a golden check failed
inline constexpr int kExitUsage = 2;     // bad arguments or unreadable / malformed input
inline constexpr int kExitInternal = 3;  // the search produced a schedule Evaluate() rejects

// The exit-status block every --help ends with (README, "Commands"); defined in args.cc.
std::string ExitStatusHelp();

// A run ended by `signal` (SIGTERM / SIGINT) exits with 128 + the signal, as shells do.
inline constexpr int ExitForSignal(int signal) { return 128 + signal; }

}  // namespace tilesched::cli

#endif  // TILESCHED_CLI_EXIT_CODES_H_
