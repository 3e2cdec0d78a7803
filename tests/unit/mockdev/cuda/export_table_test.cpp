// cuGetExportTable of the simulated driver (issue 19 item 3; Note [Export tables] in
// mockdev/src/cuda/driver_init.cpp): NOT_SUPPORTED before and after cuInit, no table, and one
// stderr line per process naming the cause and the fix.

#include <string>

#include "mock_test.h"

namespace mockdev::testing {
namespace {

using MockExportTable = MockTest;

constexpr const char* kLine =
    "mockdev: this program asked for the CUDA driver's undocumented export tables "
    "(cuGetExportTable), which NVIDIA's static CUDA runtime (nvcc's default) needs and the "
    "simulated driver does not serve: rebuild with `-cudart shared` (CMake: "
    "CUDA_RUNTIME_LIBRARY Shared) so that accel's libcudart.so.13 is used\n";

TEST_F(MockExportTable, RefusedOnEveryCallWithOneLineNamingTheCauseAndTheFix) {
  const void* table = &kLine;
  CUuuid id{};
  ::testing::internal::CaptureStderr();
  // Before cuInit, as NVIDIA's runtime calls it first.
  EXPECT_EQ(cu().cuGetExportTable(&table, &id), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(table, nullptr);
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  table = &kLine;
  EXPECT_EQ(cu().cuGetExportTable(&table, &id), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(table, nullptr);
  EXPECT_EQ(cu().cuGetExportTable(nullptr, nullptr), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), std::string(kLine));
}

// Resolvable like every row, so that a program asking cuGetProcAddress gets the same answer.
TEST_F(MockExportTable, ResolvesThroughCuGetProcAddress) {
  void* pfn = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  ASSERT_EQ(cu().cuGetProcAddress_v2("cuGetExportTable", &pfn, 3000, 0, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
  EXPECT_EQ(pfn, reinterpret_cast<void*>(cu().cuGetExportTable));
}

}  // namespace
}  // namespace mockdev::testing
