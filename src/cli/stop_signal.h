// The stop signal: one process-wide flag that SIGTERM / SIGINT set, for every command that
// runs a search (schedule, mlsys, sweep). The first signal asks the run to stop (it ends with
// its results written); with kSecondEnds a second signal ends the process at once.
//
// Entry points: InstallStopSignals(second), StopFlag() (pass it to the search or sweep as
// their `stop`), StopSignalNumber() (the signal received first, 0 when none).
#ifndef TILESCHED_CLI_STOP_SIGNAL_H_
#define TILESCHED_CLI_STOP_SIGNAL_H_

#include <atomic>

namespace tilesched::cli {

enum class SecondSignal {
  kKeepStopping,  // further signals only set the flag again (schedule, mlsys)
  kSecondEnds,    // a second signal ends the process with the default action (sweep)
};

void InstallStopSignals(SecondSignal second);
std::atomic<bool>& StopFlag();
int StopSignalNumber();

}  // namespace tilesched::cli

#endif  // TILESCHED_CLI_STOP_SIGNAL_H_
