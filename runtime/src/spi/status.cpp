// Status accessors and the Status -> accel::Error conversion.
#include "spi/status.h"

namespace accel::detail {

namespace {
// Never destroyed: an OK Status may be read from atexit handlers.
const std::string& empty_string() {
  static const std::string* const empty = new std::string();
  return *empty;
}
const ErrorDetail& empty_detail() {
  static const ErrorDetail* const empty = new ErrorDetail();
  return *empty;
}
}  // namespace

const std::string& Status::message() const noexcept {
  return failure_ ? failure_->message : empty_string();
}

const ErrorDetail& Status::detail() const noexcept {
  return failure_ ? failure_->detail : empty_detail();
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
