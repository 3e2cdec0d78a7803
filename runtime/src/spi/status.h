#pragma once
// Status and Result<T>: how backends report failure to the core without throwing.
//
// A backend call returns Status (or Result<T>); the core turns a failed Status into the
// matching accel::Error with to_error(). Backends must stay exception-free because they
// run in fork children, in destructors (guard restoration) and under driver locks.
// Cheap to return on the success path: an ok Status holds no string.
//
// A Result<T> holds a value or a failed Status. Building one from an OK Status is a bug in
// the caller (there is neither a value nor an error to report); rather than carry an
// empty failure, such a Result holds the internal error kResultFromOkStatus, so the mistake
// surfaces with a message that names it.

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "accel/error.h"

namespace accel::detail {

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(ErrorKind kind, std::string message, ErrorDetail detail = {})
      : failure_(Failure{kind, std::move(message), std::move(detail)}) {}

  bool ok() const noexcept { return !failure_.has_value(); }
  ErrorKind kind() const noexcept { return failure_ ? failure_->kind : ErrorKind::kRuntime; }
  const std::string& message() const noexcept;
  const ErrorDetail& detail() const noexcept;

 private:
  struct Failure {
    ErrorKind kind;
    std::string message;
    ErrorDetail detail;
  };
  std::optional<Failure> failure_;
};

// What a Result built from an OK Status holds instead (kRuntime, like PyTorch's internal
// asserts, which raise RuntimeError).
inline constexpr const char* kResultFromOkStatus =
    "INTERNAL ASSERT FAILED: Result<T> built from an OK Status, which holds neither a value "
    "nor an error";

// Status(kRuntime, "out of memory") without allocating: the message fits every standard
// library's small-string buffer. For noexcept code whose own error message could not be
// built because memory ran out.
Status host_out_of_memory() noexcept;

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}
  // `status` must be a failure; an OK one becomes kResultFromOkStatus.
  Result(Status status)
      : value_(status.ok() ? Status(ErrorKind::kRuntime, kResultFromOkStatus) : std::move(status)) {
  }

  bool ok() const noexcept { return std::holds_alternative<T>(value_); }
  const T& value() const& { return std::get<T>(value_); }
  T&& value() && { return std::get<T>(std::move(value_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  // The failure; an ok Status when this holds a value.
  Status status() const { return ok() ? Status() : std::get<Status>(value_); }

 private:
  std::variant<T, Status> value_;
};

// The exception a failed Status becomes at the public API: OutOfMemoryError for
// kOutOfMemory, ForkError for kFork, accel::Error otherwise. Requires !status.ok().
[[noreturn]] void throw_error(const Status& status);

// Throws throw_error(status) unless it is ok.
inline void check(const Status& status) {
  if (!status.ok()) throw_error(status);
}
template <class T>
T check(Result<T> result) {
  if (!result.ok()) throw_error(result.status());
  return std::move(result).value();
}

}  // namespace accel::detail
