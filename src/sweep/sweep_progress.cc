// Sweep progress: a redrawn bar on terminals, rate-limited lines elsewhere.
#include "sweep_progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tilesched::sweep {

namespace {

// Redraw a terminal at most this often; print a plain line at most this often.
constexpr auto kTerminalInterval = std::chrono::milliseconds(100);
constexpr auto kLineInterval = std::chrono::seconds(5);
constexpr int kBarWidth = 30;

}  // namespace

SweepProgress::SweepProgress(std::ostream& out, int64_t total, int64_t done, bool terminal,
                             bool enabled)
    : out_(out),
      total_(total),
      resumed_(done),
      done_(done),
      terminal_(terminal),
      enabled_(enabled),
      start_(Clock::now()),
      last_draw_(Clock::now()) {}

std::string SweepProgress::FormatSeconds(double seconds) {
  const int64_t s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  char buffer[48];
  if (s < 60) {
    std::snprintf(buffer, sizeof(buffer), "%llds", static_cast<long long>(s));
  } else if (s < 3600) {
    std::snprintf(buffer, sizeof(buffer), "%lldm%02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else {
    std::snprintf(buffer, sizeof(buffer), "%lldh%02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  }
  return buffer;
}

std::string SweepProgress::Line(bool bar) const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const int64_t finished = done_ - resumed_;
  std::string eta = "?";
  if (done_ >= total_) {
    eta = "0s";
  } else if (finished > 0) {
    eta = FormatSeconds(elapsed / static_cast<double>(finished) *
                        static_cast<double>(total_ - done_));
  }
  const double fraction = total_ > 0 ? static_cast<double>(done_) / static_cast<double>(total_) : 1;
  std::string text;
  if (bar) {
    const int filled = static_cast<int>(fraction * kBarWidth);
    text = "sweep [" + std::string(static_cast<size_t>(filled), '#') +
           std::string(static_cast<size_t>(kBarWidth - filled), '.') + "] ";
    text += std::to_string(done_) + "/" + std::to_string(total_) + " points " +
            std::to_string(static_cast<int>(fraction * 100)) + "%, ETA " + eta;
  } else {
    text = "sweep: " + std::to_string(done_) + "/" + std::to_string(total_) + " points, ETA " + eta;
  }
  return text;
}

void SweepProgress::DrawLocked(bool force) {
  if (!enabled_) return;
  const auto now = Clock::now();
  const Clock::duration interval = terminal_ ? Clock::duration(kTerminalInterval)
                                             : Clock::duration(kLineInterval);
  if (!force && now - last_draw_ < interval) return;
  last_draw_ = now;
  if (terminal_) {
    // \033[K clears what a longer previous line left to the right.
    out_ << "\r" << Line(/*bar=*/true) << "\033[K" << std::flush;
    drawn_ = true;
  } else {
    out_ << Line(/*bar=*/false) << "\n" << std::flush;
  }
}

void SweepProgress::PointDone() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  DrawLocked(/*force=*/done_ == total_);
}

void SweepProgress::Note(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_) out_ << "\r\033[K";
  out_ << line << "\n";
  if (drawn_) {
    drawn_ = false;
    DrawLocked(/*force=*/true);
  }
  out_ << std::flush;
}

void SweepProgress::Finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (drawn_) {
    out_ << "\n" << std::flush;
    drawn_ = false;
  }
}

}  // namespace tilesched::sweep
