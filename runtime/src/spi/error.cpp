// accel::Error and ErrorKind names.
#include "accel/error.h"

namespace accel {

std::string_view to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::kRuntime:
      return "runtime";
    case ErrorKind::kValue:
      return "value";
    case ErrorKind::kType:
      return "type";
    case ErrorKind::kIndex:
      return "index";
    case ErrorKind::kDriver:
      return "driver";
    case ErrorKind::kUnavailable:
      return "unavailable";
    case ErrorKind::kConfig:
      return "config";
    case ErrorKind::kOutOfMemory:
      return "out_of_memory";
    case ErrorKind::kFork:
      return "fork";
    case ErrorKind::kDeferredCall:
      return "deferred_call";
    case ErrorKind::kUnsupported:
      return "unsupported";
  }
  return "unknown";
}

Error::Error(ErrorKind kind, const std::string& message, ErrorDetail detail)
    : std::runtime_error(message), kind_(kind), detail_(std::move(detail)) {}

}  // namespace accel
