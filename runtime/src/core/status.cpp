// Status accessors and the Status -> accel::Error conversion.
#include "core/status.h"

namespace accel::detail {

namespace {
// Constant-initialised (no guard a fork could catch half-way), never destroyed in use.
constinit const std::string kEmptyMessage{};
constinit const ErrorDetail kEmptyDetail{};
}  // namespace

const std::string& Status::message() const noexcept {
  return failure_ ? failure_->message : kEmptyMessage;
}

const ErrorDetail& Status::detail() const noexcept {
  return failure_ ? failure_->detail : kEmptyDetail;
}

Status host_out_of_memory() noexcept {
  // 13 characters: stored in the string itself, so this cannot throw.
  return Status(ErrorKind::kRuntime, "out of memory");
}

void throw_error(const Status& status) {
  switch (status.kind()) {
    case ErrorKind::kOutOfMemory:
      throw OutOfMemoryError(status.message(), status.detail());
    case ErrorKind::kFork:
      throw ForkError(status.message());
    default:
      throw Error(status.kind(), status.message(), status.detail());
  }
}

}  // namespace accel::detail
