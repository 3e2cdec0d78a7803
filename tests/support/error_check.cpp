#include "error_check.h"

namespace accel::test {

std::string CaughtError::describe() const {
  if (!thrown()) return "no exception";
  return type + " (kind " + std::string(to_string(kind)) + "): \"" + message + "\"";
}

namespace {

bool is_accel_error(const CaughtError& caught) {
  return caught.type == "Error" || caught.type == "ForkError" ||
         caught.type == "DeferredCallError" || caught.type == "OutOfMemoryError";
}

}  // namespace

::testing::AssertionResult is_error(const CaughtError& caught, ErrorKind kind,
                                    std::string_view message) {
  if (is_accel_error(caught) && caught.kind == kind && caught.message == message) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "expected accel::Error (kind " << to_string(kind) << "): \"" << message
         << "\"\n  actual: " << caught.describe();
}

::testing::AssertionResult is_error_containing(const CaughtError& caught, ErrorKind kind,
                                               std::string_view fragment) {
  if (is_accel_error(caught) && caught.kind == kind &&
      caught.message.find(fragment) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "expected accel::Error (kind " << to_string(kind) << ") containing \"" << fragment
         << "\"\n  actual: " << caught.describe();
}

::testing::AssertionResult is_fork_error(const CaughtError& caught) {
  if (caught.type == "ForkError" && caught.kind == ErrorKind::kFork &&
      caught.message == kForkMessage) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "expected ForkError (kind fork): \"" << kForkMessage
                                       << "\"\n  actual: " << caught.describe();
}

}  // namespace accel::test
