#pragma once
// Helpers to assert the exact outcome of a call that should throw accel::Error: its
// dynamic type, its ErrorKind and its message (exactly, or containing a fragment).
//
// Usage:
//   EXPECT_TRUE(is_error(catch_error([] { accel::set_device_index("cpu"); }),
//                        accel::ErrorKind::kValue, "cpu doesn't match the current accelerator
//                        cuda."));
// Values only; thread-safe.

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <string_view>

#include "accel/error.h"

namespace accel::test {

// What a call threw. `type` is "none" when it returned normally, else one of "Error",
// "ForkError", "DeferredCallError", "OutOfMemoryError", "std::exception", "unknown".
struct CaughtError {
  std::string type = "none";
  ErrorKind kind = ErrorKind::kRuntime;
  std::string message;

  bool thrown() const { return type != "none"; }
  std::string describe() const;
};

template <class F>
CaughtError catch_error(F&& f) {
  CaughtError caught;
  try {
    f();
  } catch (const ForkError& e) {
    caught = {"ForkError", e.kind(), e.what()};
  } catch (const DeferredCallError& e) {
    caught = {"DeferredCallError", e.kind(), e.what()};
  } catch (const OutOfMemoryError& e) {
    caught = {"OutOfMemoryError", e.kind(), e.what()};
  } catch (const Error& e) {
    caught = {"Error", e.kind(), e.what()};
  } catch (const std::exception& e) {
    caught = {"std::exception", ErrorKind::kRuntime, e.what()};
  } catch (...) {
    caught = {"unknown", ErrorKind::kRuntime, ""};
  }
  return caught;
}

// An accel::Error (any subclass) of `kind` whose what() is exactly `message`.
::testing::AssertionResult is_error(const CaughtError& caught, ErrorKind kind,
                                    std::string_view message);
// An accel::Error (any subclass) of `kind` whose what() contains `fragment`.
::testing::AssertionResult is_error_containing(const CaughtError& caught, ErrorKind kind,
                                               std::string_view fragment);
// Exactly an accel::ForkError with PyTorch's re-initialisation message.
::testing::AssertionResult is_fork_error(const CaughtError& caught);

inline constexpr std::string_view kForkMessage =
    "Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you "
    "must use the 'spawn' start method";

}  // namespace accel::test
