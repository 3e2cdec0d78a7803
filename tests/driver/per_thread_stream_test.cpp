// The per-thread default stream (CUDA Driver API, "Stream synchronization behavior";
// cuda.h's __CUDA_API_PTDS / __CUDA_API_PTSZ variants; cuGetProcAddress's
// CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM).

#include <thread>

#include "driver_test.h"

namespace accel::driver_test {
namespace {

using PerThreadStream = DriverTest;

CUstream per_thread_handle() { return reinterpret_cast<CUstream>(kStreamPerThread); }
CUstream legacy_handle() { return reinterpret_cast<CUstream>(kStreamLegacy); }

// cuGetProcAddress serves the _ptsz / _ptds variant under the per-thread flag and the row
// itself under the default and legacy flags.
TEST_F(PerThreadStream, ProcAddressServesTheVariantUnderThePerThreadFlag) {
  ACCEL_REQUIRE_SYMBOLS("cuMemcpyAsync_ptsz", "cuMemcpyHtoD_v2_ptds");
  void* pfn = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuGetProcAddress_v2("cuMemcpyAsync", &pfn, 12000,
                                                        CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                                                        &status));
  EXPECT_EQ(status, CU_GET_PROC_ADDRESS_SUCCESS);
  EXPECT_EQ(pfn, reinterpret_cast<void*>(cu().cuMemcpyAsync_ptsz));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuGetProcAddress_v2("cuMemcpyHtoD", &pfn, 12000,
                                                        CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                                                        &status));
  EXPECT_EQ(pfn, reinterpret_cast<void*>(cu().cuMemcpyHtoD_v2_ptds));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuGetProcAddress_v2("cuMemcpyAsync", &pfn, 12000,
                                                        CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status));
  EXPECT_EQ(pfn, reinterpret_cast<void*>(cu().cuMemcpyAsync));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuGetProcAddress_v2("cuMemcpyAsync", &pfn, 12000,
                                                        CU_GET_PROC_ADDRESS_DEFAULT, &status));
  EXPECT_EQ(pfn, reinterpret_cast<void*>(cu().cuMemcpyAsync));
}

// In a _ptsz variant the handle 0 is the calling thread's per-thread stream: the same
// stream as CU_STREAM_PER_THREAD, not the legacy stream. [inferred] cuStreamGetId answers
// for the special handles.
TEST_F(PerThreadStream, HandleZeroInAVariantIsTheThreadsPerThreadStream) {
  ACCEL_REQUIRE_SYMBOLS("cuStreamGetId_ptsz");
  unsigned long long zero_in_variant = 0, per_thread = 0, legacy = 0, zero = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamGetId_ptsz(nullptr, &zero_in_variant));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamGetId(per_thread_handle(), &per_thread));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamGetId(legacy_handle(), &legacy));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamGetId(nullptr, &zero));
  EXPECT_EQ(zero_in_variant, per_thread);
  EXPECT_EQ(zero, legacy);
  EXPECT_NE(per_thread, legacy);
  // The explicit handles mean the same in both flavours.
  unsigned long long legacy_in_variant = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamGetId_ptsz(legacy_handle(), &legacy_in_variant));
  EXPECT_EQ(legacy_in_variant, legacy);
}

// Each thread has its own per-thread stream (of the same context).
TEST_F(PerThreadStream, EachThreadHasItsOwnPerThreadStream) {
  ACCEL_REQUIRE_SYMBOLS("cuStreamGetId_ptsz");
  unsigned long long mine = 0, other = 0;
  CUresult other_rc = CUDA_ERROR_UNKNOWN;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamGetId_ptsz(nullptr, &mine));
  std::thread([&] {
    if (cu().cuCtxSetCurrent(primary) == CUDA_SUCCESS) {
      other_rc = cu().cuStreamGetId_ptsz(nullptr, &other);
    }
  }).join();
  ACCEL_ASSERT_CU(CUDA_SUCCESS, other_rc);
  EXPECT_NE(mine, other);
}

// Work queued on the per-thread stream through a _ptsz variant completes in order with the
// thread's later synchronous (_ptds) copy, which runs on that same stream.
TEST_F(PerThreadStream, VariantsQueueOnThePerThreadStreamInOrder) {
  ACCEL_REQUIRE_SYMBOLS("cuMemsetD8Async_ptsz", "cuMemcpyDtoH_v2_ptds", "cuStreamSynchronize_ptsz");
  CUdeviceptr d = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&d, 4096));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD8Async_ptsz(d, 0x5a, 4096, nullptr));
  unsigned char host[4096] = {};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyDtoH_v2_ptds(host, d, sizeof host));
  EXPECT_EQ(host[0], 0x5a);
  EXPECT_EQ(host[4095], 0x5a);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuStreamSynchronize_ptsz(nullptr));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuStreamQuery_ptsz(nullptr));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(d));
}

}  // namespace
}  // namespace accel::driver_test
