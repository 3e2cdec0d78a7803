// Status and Result<T>: the failure carried from backends to the public API.
#include "spi/status.h"

#include <gtest/gtest.h>

#include <string>

#include "error_check.h"

namespace accel::detail {
namespace {

TEST(StatusTest, OkStatusHasNoMessage) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.message(), "");
  EXPECT_FALSE(ok.detail().device.has_value());
}

TEST(StatusTest, FailureCarriesKindMessageAndDetail) {
  Status failed(ErrorKind::kDriver, "op: failed (device=1)", ErrorDetail{1, 101, "NAME"});
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.kind(), ErrorKind::kDriver);
  EXPECT_EQ(failed.message(), "op: failed (device=1)");
  EXPECT_EQ(failed.detail().device, 1);
  EXPECT_EQ(failed.detail().driver_code, 101);
  EXPECT_EQ(failed.detail().driver_error_name, "NAME");
}

TEST(ResultTest, HoldsAValueOrAFailure) {
  Result<int> value(7);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 7);
  EXPECT_TRUE(value.status().ok());
  Result<int> failed(Status(ErrorKind::kIndex, "bad index"));
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().kind(), ErrorKind::kIndex);
  EXPECT_EQ(failed.status().message(), "bad index");
}

// A Result built from an OK Status has neither a value nor an error. It used to report
// failure with an empty message (an exception with no text at the public API); it is now a
// loud internal error that names the mistake.
TEST(ResultTest, BuiltFromAnOkStatusIsALoudInternalError) {
  Result<int> result{Status()};
  EXPECT_FALSE(result.ok());
  EXPECT_FALSE(result.status().ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kRuntime);
  const std::string message =
      "INTERNAL ASSERT FAILED: Result<T> built from an OK Status, which holds neither a value "
      "nor an error";
  EXPECT_EQ(result.status().message(), message);
  EXPECT_TRUE(test::is_error(test::catch_error([&] { (void)check(std::move(result)); }),
                             ErrorKind::kRuntime, message));
}

TEST(StatusTest, HostOutOfMemoryIsAShortRuntimeError) {
  Status status = host_out_of_memory();
  EXPECT_EQ(status.kind(), ErrorKind::kRuntime);
  EXPECT_EQ(status.message(), "out of memory");
}

}  // namespace
}  // namespace accel::detail
