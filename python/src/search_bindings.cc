// Binding of the search (search.h): schedule() runs RunSearch with the GIL released, its options
// set key by key through ApplyConfigEntry (the search preset keys, configs/README.md), Ctrl-C
// setting its stop flag (interrupt.h), and an on_improvement callback that hears every better
// schedule from the search's threads, holding the GIL while it runs.
#include <pybind11/stl.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <utility>

#include "bindings.h"
#include "interrupt.h"
#include "tilesched/evaluate.h"
#include "tilesched/search.h"

namespace tilesched::python {

namespace {

// What on_improvement receives.
struct Improvement {
  double latency = 0;  // Evaluate()'s total
  std::string found_by;
  double time_s = 0;  // since the search started
  Schedule schedule;
};

// Calls a Python callable on every improvement. The search calls it from its worker threads, one
// at a time; the GIL is taken for the call. An exception the callable raises stops the search
// and is raised by schedule() once the search has returned.
class CallbackObserver : public search::SearchObserver {
 public:
  CallbackObserver(py::object callback, std::atomic<bool>* stop)
      : callback_(std::move(callback)), stop_(stop), start_(std::chrono::steady_clock::now()) {}

  void Improved(const Schedule& schedule, double total, const std::string& by) override {
    Improvement improvement{total, by,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
                            schedule};
    py::gil_scoped_acquire gil;
    if (error_) return;
    try {
      callback_(std::move(improvement));
    } catch (py::error_already_set& e) {
      error_.emplace(std::move(e));
      stop_->store(true);
    }
  }

  // The callable's exception, if it raised one (called with the GIL held, after the search).
  std::optional<py::error_already_set> TakeError() { return std::exchange(error_, std::nullopt); }

 private:
  py::object callback_;
  std::atomic<bool>* stop_;
  std::chrono::steady_clock::time_point start_;
  std::optional<py::error_already_set> error_;  // guarded by the GIL
};

// RunSearch on `entries` (config key, JSON text value); see the file comment. Returns the
// result's fields; "interrupted" is true when Ctrl-C stopped it (the package raises
// tilesched.Interrupted with the result).
py::dict RunSchedule(const PyProblem& p, const std::vector<std::pair<std::string, std::string>>& entries,
                     const py::object& on_improvement, const std::optional<Schedule>& start) {
  search::SearchOptions options;
  for (const auto& [key, value] : entries) Check(search::ApplyConfigEntry(key, value, &options));
  if (start) {
    // Judged before the search, as `schedule --start` does: InvalidSchedule names the rule.
    auto judged = Evaluate(*p.problem, *start, options.modes);
    if (!judged.ok()) RaiseInvalid("the start schedule is invalid: " + judged.status().message());
    options.start = *start;
  }
  if (options.time_limit <= 0 && options.iterations <= 0) {
    options.time_limit = search::kDefaultScheduleSeconds;
  }
  std::atomic<bool> stop{false};
  CallbackObserver observer(on_improvement, &stop);
  search::SearchHooks hooks;
  hooks.observer = on_improvement.is_none() ? nullptr : &observer;
  hooks.stop = &stop;
  std::optional<Result<search::SearchResult>> run;
  std::optional<py::error_already_set> raised =
      RunInterruptible([&] { run.emplace(search::RunSearch(*p.problem, options, hooks)); }, stop);
  if (std::optional<py::error_already_set> error = observer.TakeError()) throw std::move(*error);
  if (raised && !raised->matches(PyExc_KeyboardInterrupt)) throw std::move(*raised);
  search::SearchResult result = Unwrap(std::move(*run));
  // Every number reported comes from the evaluator (as `tilesched schedule` reports them).
  auto evaluation = Evaluate(*p.problem, result.schedule, options.modes);
  if (!evaluation.ok()) {
    throw std::runtime_error("internal error: the search produced an invalid schedule: " +
                             evaluation.status().message());
  }
  py::dict out;
  out["schedule"] = result.schedule;
  out["latency"] = evaluation->total;
  out["lower_bound"] = result.lower_bound;
  out["gap"] = result.gap;
  out["optimal"] = result.optimal;
  out["found_by"] = result.found_by;
  out["time_s"] = result.seconds;
  out["evaluations"] = result.evaluations;
  out["reached_gap"] = result.reached_gap;
  out["report"] = result.report;
  out["modes"] = ModesString(options.modes);
  out["rules"] = RulesName(options.modes.rules);
  out["matmul_reduction"] = MatmulReductionName(options.modes.matmul_reduction);
  out["k_limit"] = KLimitName(options.modes.k_limit);
  out["interrupted"] = raised.has_value();
  return out;
}

}  // namespace

void BindSearch(py::module_& m) {
  py::class_<Improvement>(m, "Improvement",
                          "A better schedule the search found (what on_improvement receives).")
      .def_readonly("latency", &Improvement::latency, "its total latency (Evaluate()'s)")
      .def_readonly("found_by", &Improvement::found_by, "the strategy phase that found it")
      .def_readonly("time_s", &Improvement::time_s, "seconds since the search started")
      .def_readonly("schedule", &Improvement::schedule)
      .def("__repr__", [](const Improvement& i) {
        return "Improvement(latency=" + py::repr(py::float_(i.latency)).cast<std::string>() +
               ", found_by='" + i.found_by + "')";
      });
  m.def("schedule", &RunSchedule, py::arg("problem"), py::arg("entries"), py::arg("on_improvement"),
        py::arg("start"));
  m.def("strategy_names", &search::StrategyNames);
  m.attr("DEFAULT_SCHEDULE_SECONDS") = search::kDefaultScheduleSeconds;
}

}  // namespace tilesched::python
