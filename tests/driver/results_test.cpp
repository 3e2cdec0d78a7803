// The texts of cuGetErrorName and cuGetErrorString (mockdev/src/cuda/result_text.cpp, Note
// [Result texts]): every CUresult of cuda.h 13 has its name and the driver's text, which is
// what a program prints on a GPU.

#include <string>

#include "driver_test.h"

namespace accel::driver_test {
namespace {

using Results = DriverTest;

std::string text_of(const test::CudaEntryPoints& cu, CUresult rc) {
  const char* text = nullptr;
  EXPECT_EQ(cu.cuGetErrorString(rc, &text), CUDA_SUCCESS) << static_cast<int>(rc);
  return text != nullptr ? text : "";
}

TEST_F(Results, EveryCodeHasItsNameAndANonEmptyText){
#define ACCEL_CHECK_RESULT(name, value)                                            \
  {                                                                                \
    const char* got = nullptr;                                                     \
    ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuGetErrorName(name, &got));                \
    EXPECT_STREQ(got, #name);                                                      \
    const std::string text = text_of(cu(), name);                                  \
    EXPECT_FALSE(text.empty()) << #name;                                           \
    EXPECT_EQ(text.find("simulated"), std::string::npos) << #name << ": " << text; \
  }
    ACCEL_CUDA_RESULTS(ACCEL_CHECK_RESULT)
#undef ACCEL_CHECK_RESULT
}

TEST_F(Results, TextsAreTheDriversWords) {
  EXPECT_EQ(text_of(cu(), CUDA_SUCCESS), "no error");
  EXPECT_EQ(text_of(cu(), CUDA_ERROR_INVALID_VALUE), "invalid argument");
  EXPECT_EQ(text_of(cu(), CUDA_ERROR_INVALID_CONTEXT), "invalid device context");
  EXPECT_EQ(text_of(cu(), CUDA_ERROR_INVALID_HANDLE), "invalid resource handle");
  EXPECT_EQ(text_of(cu(), CUDA_ERROR_NOT_FOUND), "named symbol not found");
  EXPECT_EQ(text_of(cu(), CUDA_ERROR_NOT_READY), "device not ready");
  EXPECT_EQ(text_of(cu(), CUDA_ERROR_ILLEGAL_ADDRESS), "an illegal memory access was encountered");
  EXPECT_EQ(text_of(cu(), CUDA_ERROR_CONTEXT_IS_DESTROYED), "context is destroyed");
  EXPECT_EQ(text_of(cu(), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED),
            "peer access is already enabled");
  EXPECT_EQ(text_of(cu(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED),
            "operation not permitted when stream is capturing");
  EXPECT_EQ(text_of(cu(), CUDA_ERROR_TIMEOUT), "wait operation timed out");
  EXPECT_EQ(text_of(cu(), CUDA_ERROR_UNKNOWN), "unknown error");
}

// A number that is not a CUresult has neither.
TEST_F(Results, AnUnknownNumberHasNoText) {
  const char* text = "unchanged";
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuGetErrorString(static_cast<CUresult>(12345), &text));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuGetErrorName(static_cast<CUresult>(12345), &text));
}

}  // namespace
}  // namespace accel::driver_test
