// SearchTrace: a sampler thread and the event rows of one run's timeline.
#include "search_trace.h"

#include <cstdio>

namespace tilesched::cli {

namespace {

// Four samples a second: enough to see a phase's rate change, about 500 rows on a 120 s run.
constexpr std::chrono::milliseconds kPeriod{250};

}  // namespace

SearchTrace::SearchTrace(const search::SearchProgress& progress)
    : progress_(progress), start_(std::chrono::steady_clock::now()) {
  csv_ << "time_s,event,phase,best,found_by,configurations,costings,moves\n";
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Row("start");
  }
  sampler_ = std::thread([this] { Sample(); });
}

SearchTrace::~SearchTrace() { Finish(); }

void SearchTrace::PhaseStarted(const std::string& phase) {
  std::lock_guard<std::mutex> lock(mutex_);
  phase_ = phase;
  Row("phase");
}

void SearchTrace::Improved(double total, const std::string& by) {
  std::lock_guard<std::mutex> lock(mutex_);
  best_ = total;
  found_by_ = by;
  Row("improved");
}

std::string SearchTrace::Finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!finished_) {
      finished_ = true;
      Row("end");
    }
  }
  wake_.notify_all();
  if (sampler_.joinable()) sampler_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  return csv_.str();
}

void SearchTrace::Row(const char* event) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char numbers[64];
  std::snprintf(numbers, sizeof(numbers), "%.3f", seconds);
  char best[64] = "";
  if (best_ > 0) std::snprintf(best, sizeof(best), "%.10g", best_);
  // Phase and strategy names hold no commas or quotes (search/search.cc names them).
  csv_ << numbers << "," << event << "," << phase_ << "," << best << "," << found_by_ << ","
       << progress_.configurations.load(std::memory_order_relaxed) << ","
       << progress_.costings.load(std::memory_order_relaxed) << ","
       << progress_.moves.load(std::memory_order_relaxed) << "\n";
}

void SearchTrace::Sample() {
  std::unique_lock<std::mutex> lock(mutex_);
  auto next = std::chrono::steady_clock::now() + kPeriod;
  while (!wake_.wait_until(lock, next, [this] { return finished_; })) {
    Row("sample");
    next += kPeriod;
  }
}

}  // namespace tilesched::cli
