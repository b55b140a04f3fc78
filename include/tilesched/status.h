// Status and Result<T>: the error channel for bad input and bad configuration.
//
// Entry points: Status::Ok(), Status::Error(message), Result<T>. A failed Status carries one
// line a person can act on ("subgraph 3: working set 65536 exceeds capacity 60000 at tile 0,
// k-step 1"). Programming bugs assert instead (docs/style.md rule 5).
#ifndef TILESCHED_STATUS_H_
#define TILESCHED_STATUS_H_

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace tilesched {

class Status {
 public:
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !failed_; }
  const std::string& message() const { return message_; }

  // Returns this status with `context` prepended ("subgraph 3: " + message).
  Status WithContext(const std::string& context) const;

 private:
  Status() = default;
  explicit Status(std::string message) : failed_(true), message_(std::move(message)) {}

  bool failed_ = false;
  std::string message_;
};

template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : data_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(data_).ok() && "Result built from an ok Status has no value");
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  const T& value() const& {
    assert(ok());
    return std::get<T>(data_);
  }
  T& value() & {
    assert(ok());
    return std::get<T>(data_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(data_));
  }
  const T* operator->() const { return &value(); }
  const T& operator*() const& { return value(); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(data_); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace tilesched

#endif  // TILESCHED_STATUS_H_
