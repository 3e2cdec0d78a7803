#pragma once
// accel::Error and its few subclasses: how every public function reports failure.
//
// The public API throws; the layers below it (backends, the mock engine) return Status
// and never throw. An Error carries a kind (which Python exception PyTorch would raise
// for the same situation, so callers can branch without parsing text), the device it
// concerns, and the driver's result code and name when a driver call failed.
// Subclasses exist only where a caller reacts differently: OutOfMemoryError,
// ForkError, DeferredCallError.
//
// Messages follow "<operation>: <what failed> (<key>=<value>, ...)"; where PyTorch has a
// known message for the same situation its text is used verbatim.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace accel {

enum class ErrorKind {
  kRuntime,       // RuntimeError: a call that cannot be carried out in this state
  kValue,         // ValueError: a well-typed argument with a bad value
  kType,          // TypeError: an argument of the wrong kind
  kIndex,         // a device index outside the range the API accepts
  kDriver,        // the driver returned an error (AcceleratorError in PyTorch)
  kUnavailable,   // no accelerator, no driver, or no device
  kConfig,        // a malformed environment variable or configuration file
  kOutOfMemory,   // OutOfMemoryError
  kFork,          // ForkError: device use in a child forked after initialisation
  kDeferredCall,  // DeferredCallError: a lazy_call callback failed at initialisation
  kUnsupported,   // NotImplementedError: the backend lacks the capability the call needs
};

std::string_view to_string(ErrorKind kind) noexcept;

struct ErrorDetail {
  std::optional<int> device;       // the device index the failure concerns
  std::optional<int> driver_code;  // e.g. a CUresult
  std::string driver_error_name;   // e.g. "CUDA_ERROR_INVALID_DEVICE"; empty if none
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, ErrorDetail detail = {});

  ErrorKind kind() const noexcept { return kind_; }
  const std::optional<int>& device() const noexcept { return detail_.device; }
  const std::optional<int>& driver_code() const noexcept { return detail_.driver_code; }
  const std::string& driver_error_name() const noexcept { return detail_.driver_error_name; }

 private:
  ErrorKind kind_;
  ErrorDetail detail_;
};

// What the caching allocator knew when it ran out of memory: what users have asked for
// since 2019 (pytorch#29554) on top of PyTorch's message. Empty (device -1) for an OOM that
// did not come from the caching allocator (a driver call's own).
struct StreamMemoryReport {
  std::int64_t stream = 0;                // Stream::id()
  std::size_t largest_free_block = 0;     // the largest cached free block of that stream
  std::size_t reserved_unallocated = 0;   // cached free bytes of that stream
};
struct OutOfMemoryReport {
  int device = -1;
  std::size_t requested_bytes = 0;    // what the caller asked for
  std::size_t allocation_bytes = 0;   // the segment size the allocator tried to get
  std::size_t total_bytes = 0;        // device capacity
  std::size_t free_bytes = 0;         // driver-reported free memory
  std::size_t allocated_bytes = 0;    // allocated_bytes.all.current
  std::size_t reserved_bytes = 0;     // reserved_bytes.all.current
  std::size_t largest_free_block = 0;  // over every stream of the device
  std::vector<StreamMemoryReport> streams;  // every stream with cached blocks, by id
};

class OutOfMemoryError : public Error {
 public:
  explicit OutOfMemoryError(const std::string& message, ErrorDetail detail = {},
                            OutOfMemoryReport report = {})
      : Error(ErrorKind::kOutOfMemory, message, std::move(detail)), report_(std::move(report)) {}
  const OutOfMemoryReport& report() const noexcept { return report_; }

 private:
  OutOfMemoryReport report_;
};

// Thrown by every device-touching call in a child process forked after the parent
// initialised the runtime, before the driver is reached. See Note [Fork safety].
class ForkError : public Error {
 public:
  explicit ForkError(const std::string& message) : Error(ErrorKind::kFork, message) {}
};

// A callback queued with lazy_call() threw while init() replayed the queue. what() names
// the callback's error and where it was queued; cause() is the original exception.
class DeferredCallError : public Error {
 public:
  DeferredCallError(const std::string& message, std::string origin, std::exception_ptr cause)
      : Error(ErrorKind::kDeferredCall, message),
        origin_(std::move(origin)),
        cause_(std::move(cause)) {}
  const std::string& origin() const noexcept { return origin_; }
  const std::exception_ptr& cause() const noexcept { return cause_; }

 private:
  std::string origin_;
  std::exception_ptr cause_;
};

}  // namespace accel
