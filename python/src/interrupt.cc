// RunInterruptible: the library call on its own thread, signal handlers polled on this one.
#include "interrupt.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace tilesched::python {

namespace py = pybind11;

namespace {

// How often the waiting thread runs Python's signal handlers: Ctrl-C stops a call within this
// plus the call's own reaction time (a search checks its stop flag between moves).
constexpr std::chrono::milliseconds kSignalPoll{50};

}  // namespace

std::optional<py::error_already_set> RunInterruptible(const std::function<void()>& work,
                                                      std::atomic<bool>& stop) {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::exception_ptr failure;
  std::thread worker([&] {
    try {
      work();
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    finished.notify_all();
  });
  std::optional<py::error_already_set> raised;
  for (;;) {
    bool ended = false;
    {
      // Without the GIL, so that work() may call back into Python (an on_improvement callback).
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(mutex);
      ended = finished.wait_for(lock, kSignalPoll, [&] { return done; });
    }
    if (ended) break;
    // Signal handlers run only in the main thread; elsewhere this returns 0.
    if (!raised && PyErr_CheckSignals() != 0) {
      raised.emplace();  // takes the raised exception and clears Python's error indicator
      stop.store(true);
    }
  }
  {
    py::gil_scoped_release release;
    worker.join();
  }
  if (failure) std::rethrow_exception(failure);
  return raised;
}

}  // namespace tilesched::python
