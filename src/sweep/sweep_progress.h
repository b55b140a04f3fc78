// SweepProgress: progress of a running sweep on stderr.
//
// Entry points: SweepProgress(total, done, terminal) then PointDone() after every finished
// point, Note(line) for a message (an infeasible point's reason), Finish() at the end. On a
// terminal one line is redrawn in place with \r (a bar, points done / total, percent, ETA);
// otherwise plain lines "sweep: 5/12 points, ETA 30s", at most one every few seconds and one
// at the end, so a batch log stays short. The ETA extrapolates this run's points per second.
#ifndef TILESCHED_SWEEP_PROGRESS_H_
#define TILESCHED_SWEEP_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>

namespace tilesched::sweep {

class SweepProgress {
 public:
  // `done` points are finished already (kept by --resume); `enabled` false prints nothing
  // but notes.
  SweepProgress(std::ostream& out, int64_t total, int64_t done, bool terminal, bool enabled);

  void PointDone();
  void Note(const std::string& line);
  void Finish();

  // "45s", "12m05s", "3h02m".
  static std::string FormatSeconds(double seconds);

 private:
  using Clock = std::chrono::steady_clock;
  std::string Line(bool bar) const;
  void DrawLocked(bool force);

  std::ostream& out_;
  const int64_t total_;
  const int64_t resumed_;
  int64_t done_;
  const bool terminal_, enabled_;
  bool drawn_ = false;  // the terminal line is on screen
  const Clock::time_point start_;
  Clock::time_point last_draw_;
  std::mutex mutex_;
};

}  // namespace tilesched::sweep

#endif  // TILESCHED_SWEEP_PROGRESS_H_
