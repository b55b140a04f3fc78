// The process-wide stop flag and its SIGTERM / SIGINT handlers.
#include "stop_signal.h"

#include <csignal>

namespace tilesched::cli {

namespace {

std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_second_ends = 0;

extern "C" void HandleStopSignal(int signal) {
  if (g_stop.exchange(true)) {
    if (g_second_ends) {
      std::signal(signal, SIG_DFL);
      std::raise(signal);
    }
    return;
  }
  g_signal = signal;
}

}  // namespace

void InstallStopSignals(SecondSignal second) {
  g_second_ends = second == SecondSignal::kSecondEnds ? 1 : 0;
  struct sigaction action {};
  action.sa_handler = HandleStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

std::atomic<bool>& StopFlag() { return g_stop; }

int StopSignalNumber() { return static_cast<int>(g_signal); }

}  // namespace tilesched::cli
