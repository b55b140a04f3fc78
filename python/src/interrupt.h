// Long library calls made interruptible from Python: the call runs on a thread of its own while
// the calling thread, without the GIL, waits for it and every 50 ms takes the GIL for as long as
// Python's signal handlers take (PyErr_CheckSignals). When a handler raises (Ctrl-C:
// KeyboardInterrupt), the call's stop flag is set, as SIGINT sets it on the command line, and the
// call ends with its best result.
//
// Entry point: RunInterruptible(work, stop).
#ifndef TILESCHED_PYTHON_INTERRUPT_H_
#define TILESCHED_PYTHON_INTERRUPT_H_

#include <pybind11/pybind11.h>

#include <atomic>
#include <functional>
#include <optional>

namespace tilesched::python {

// Runs work() (which must watch `stop`) with the GIL released; called with the GIL held. Returns
// the exception a signal handler raised (work() was then stopped and has returned), or nullopt.
// An exception work() throws is rethrown here.
std::optional<pybind11::error_already_set> RunInterruptible(const std::function<void()>& work,
                                                            std::atomic<bool>& stop);

}  // namespace tilesched::python

#endif  // TILESCHED_PYTHON_INTERRUPT_H_
