// Copies and memsets: bytes move when the operation completes, pageable and pinned host
// memory follow the CUDA Driver API's "API synchronization behavior" and the H200
// recording, out-of-range ranges
// are CUDA_ERROR_INVALID_VALUE, device memory is lazily backed, pinned memory is accounted.

#include <cstring>
#include <vector>

#include "stream_test.h"

namespace mockdev::testing {
namespace {

TEST_F(StreamTest, PageableAsyncHtoDConsumesItsSourceAtTheCall) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(4);
  int pageable = 1;
  ASSERT_EQ(cu().cuMemcpyHtoDAsync_v2(d, &pageable, sizeof pageable, s), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 1u);  // returned before the stream ran it
  pageable = 2;
  ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  int readback = 0;
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(&readback, d, sizeof readback), CUDA_SUCCESS);
  EXPECT_EQ(readback, 1);  // value at call (recorded)
}

TEST_F(StreamTest, PageableAsyncDtoHReturnsOnceComplete) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(4);
  ASSERT_EQ(cu().cuMemsetD32Async(d, 0x01020304u, 1, s), CUDA_SUCCESS);
  unsigned dest = 0;
  ASSERT_EQ(cu().cuMemcpyDtoHAsync_v2(&dest, d, sizeof dest, s), CUDA_SUCCESS);
  EXPECT_EQ(dest, 0x01020304u);  // complete at return (recorded)
  EXPECT_EQ(pending(s), 0u);
}

TEST_F(StreamTest, PinnedCopiesHappenWhenTheyExecute) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(4);
  void* raw = nullptr;
  ASSERT_EQ(cu().cuMemAllocHost_v2(&raw, 4096), CUDA_SUCCESS);
  int* pinned = static_cast<int*>(raw);
  pinned[0] = 5;
  ASSERT_EQ(cu().cuMemcpyHtoDAsync_v2(d, pinned, sizeof(int), s), CUDA_SUCCESS);
  pinned[0] = 6;
  ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  int readback = 0;
  cu().cuMemcpyDtoH_v2(&readback, d, sizeof readback);
  EXPECT_EQ(readback, 6);  // value at execution (recorded)
  pinned[1] = 0;
  ASSERT_EQ(cu().cuMemcpyDtoHAsync_v2(&pinned[1], d, sizeof(int), s), CUDA_SUCCESS);
  EXPECT_EQ(pinned[1], 0);  // returned before completion: the host sees the old bytes
  EXPECT_EQ(pinned[1], 0);  // deterministically, however often it looks
  ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(pinned[1], 6);
  EXPECT_EQ(cu().cuMemFreeHost(raw), CUDA_SUCCESS);
}

TEST_F(StreamTest, EagerPinnedDtoHIsVisibleAtOnce) {
  start(Schedule::kEager);
  CUdeviceptr d = alloc(4);
  ASSERT_EQ(cu().cuMemsetD8_v2(d, 9, 4), CUDA_SUCCESS);
  void* raw = nullptr;
  ASSERT_EQ(cu().cuMemHostAlloc(&raw, 64, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemcpyDtoHAsync_v2(raw, d, 4, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(static_cast<unsigned char*>(raw)[3], 9);
  cu().cuMemFreeHost(raw);
}

TEST_F(StreamTest, OutOfRangeCopiesAreInvalidValue) {
  start(Schedule::kEager);
  CUdeviceptr d = alloc(100);
  std::vector<unsigned char> host(200);
  EXPECT_EQ(cu().cuMemcpyHtoD_v2(d, host.data(), 101), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemcpyHtoD_v2(d + 50, host.data(), 51), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemcpyHtoD_v2(d + 50, host.data(), 50), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemcpyDtoH_v2(host.data(), d + 100, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemcpyDtoH_v2(host.data(), 0x1234, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemcpyDtoH_v2(nullptr, d, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemcpyDtoD_v2(d, d + 1, 100), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemsetD8_v2(d, 1, 101), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemsetD32_v2(d, 1, 26), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemsetD32_v2(d + 1, 1, 1), CUDA_ERROR_INVALID_VALUE);  // misaligned
  EXPECT_EQ(cu().cuMemsetD8Async(d, 1, SIZE_MAX, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemcpyHtoDAsync_v2(d, host.data(), SIZE_MAX, nullptr), CUDA_ERROR_INVALID_VALUE);
  // A freed allocation is no allocation.
  CUdeviceptr gone = alloc(16);
  ASSERT_EQ(cu().cuMemFree_v2(gone), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemsetD8_v2(gone, 1, 1), CUDA_ERROR_INVALID_VALUE);
  // Zero bytes do nothing.
  EXPECT_EQ(cu().cuMemcpyHtoD_v2(0x1234, nullptr, 0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemsetD8_v2(0, 1, 0), CUDA_SUCCESS);
}

TEST_F(StreamTest, MemsetPatternsAndDeviceCopies) {
  start(Schedule::kEager);
  CUdeviceptr d = alloc(64);
  ASSERT_EQ(cu().cuMemsetD32_v2(d, 0xAABBCCDDu, 16), CUDA_SUCCESS);
  unsigned char host[64] = {};
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(host, d, 8), CUDA_SUCCESS);
  const unsigned char expected[8] = {0xDD, 0xCC, 0xBB, 0xAA, 0xDD, 0xCC, 0xBB, 0xAA};
  EXPECT_EQ(std::memcmp(host, expected, 8), 0);
  // Overlapping device-to-device copy behaves like memmove.
  for (int i = 0; i < 16; ++i) host[i] = static_cast<unsigned char>(i);
  ASSERT_EQ(cu().cuMemcpyHtoD_v2(d, host, 16), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemcpyDtoD_v2(d + 4, d, 12), CUDA_SUCCESS);
  unsigned char out[16] = {};
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(out, d, 16), CUDA_SUCCESS);
  const unsigned char moved[16] = {0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  EXPECT_EQ(std::memcmp(out, moved, 16), 0);
}

TEST_F(StreamTest, UnifiedAddressingCopies) {
  start(Schedule::kEager);
  CUdeviceptr d = alloc(16);
  int a = 41, b = 0;
  const auto host = [](const void* p) {
    return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p));
  };
  ASSERT_EQ(cu().cuMemcpy(d, host(&a), sizeof a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemcpy(host(&b), d, sizeof b), CUDA_SUCCESS);
  EXPECT_EQ(b, 41);
  int c = 0;
  ASSERT_EQ(cu().cuMemcpyAsync(host(&c), host(&a), sizeof a, nullptr), CUDA_SUCCESS);  // host->host
  EXPECT_EQ(c, 41);
  // An address in a device's range that is no allocation: invalid, not host memory.
  EXPECT_EQ(cu().cuMemcpy(d + 4096, host(&a), sizeof a), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(StreamTest, PeerCopiesAcrossDevices) {
  CUcontext ctx0 = start(Schedule::kAdversarial);
  CUdeviceptr d0 = alloc(16);
  ASSERT_EQ(cu().cuMemsetD8_v2(d0, 0x5A, 16), CUDA_SUCCESS);
  CUcontext ctx1 = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&ctx1, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx1), CUDA_SUCCESS);
  CUdeviceptr d1 = alloc(16);
  CUstream s1 = make_stream();
  EXPECT_EQ(cu().cuMemcpyPeerAsync(d1, ctx0, d0, ctx1, 16, s1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemcpyPeerAsync(d1, ctx1, d0, reinterpret_cast<CUcontext>(0x99), 16, s1),
            CUDA_ERROR_INVALID_CONTEXT);
  // The memset on device 0's legacy stream has not run yet (adversarial); a peer copy on
  // device 1 is not ordered after it, so synchronise device 0 first.
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemcpyPeerAsync(d1, ctx1, d0, ctx0, 16, s1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamSynchronize(s1), CUDA_SUCCESS);
  EXPECT_EQ(byte_at(d1 + 15), 0x5A);
  ASSERT_EQ(cu().cuMemcpyPeer(d0, ctx0, d1, ctx1, 8), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemcpyDtoD_v2(d1, d0, 16), CUDA_SUCCESS);  // unified: across devices too
}

TEST_F(StreamTest, DeviceMemoryIsLazilyBacked) {
  start(Schedule::kEager);
  const std::size_t big = std::size_t{70} << 30;  // 70 GiB of an 80 GiB H100
  CUdeviceptr d = alloc(big);
  EXPECT_EQ(streams::backed_bytes(), 0u);
  EXPECT_EQ(cu().cuMemsetD8_v2(d, 0, big), CUDA_SUCCESS);  // zeros into untouched pages
  EXPECT_EQ(streams::backed_bytes(), 0u);
  EXPECT_EQ(byte_at(d + big - 1), 0);
  ASSERT_EQ(cu().cuMemsetD8_v2(d + big - 1, 7, 1), CUDA_SUCCESS);
  EXPECT_EQ(streams::backed_bytes(), 65536u);
  EXPECT_EQ(byte_at(d + big - 1), 7);
  ASSERT_EQ(cu().cuMemFree_v2(d), CUDA_SUCCESS);
  EXPECT_LE(streams::backed_bytes(), 65536u);
}

TEST_F(StreamTest, PinnedHostMemoryRules) {
  start(Schedule::kEager);
  void* a = nullptr;
  ASSERT_EQ(cu().cuMemAllocHost_v2(&a, 1000), CUDA_SUCCESS);
  EXPECT_EQ(streams::pinned_bytes(), 1000u);
  EXPECT_EQ(cu().cuMemAllocHost_v2(nullptr, 8), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemHostAlloc(&a, 8, 0x8), CUDA_ERROR_INVALID_VALUE);
  int local = 0;
  EXPECT_EQ(cu().cuMemFreeHost(&local), CUDA_ERROR_INVALID_VALUE);  // recorded
  std::vector<char> user(8192);
  ASSERT_EQ(cu().cuMemHostRegister_v2(user.data(), 4096, 0), CUDA_SUCCESS);
  EXPECT_EQ(streams::pinned_bytes(), 5096u);
  EXPECT_EQ(cu().cuMemHostRegister_v2(user.data() + 100, 10, 0),
            CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  EXPECT_EQ(cu().cuMemHostRegister_v2(user.data(), 4096, 0x100), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemHostUnregister(user.data() + 1), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(cu().cuMemFreeHost(user.data()), CUDA_ERROR_INVALID_VALUE);  // registered, not ours
  EXPECT_EQ(cu().cuMemHostUnregister(user.data()), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemHostUnregister(user.data()), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(cu().cuMemFreeHost(a), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemFreeHost(a), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(streams::pinned_bytes(), 0u);
}

TEST_F(StreamTest, FreeingPinnedMemoryFirstCompletesPendingWork) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(4);
  void* raw = nullptr;
  ASSERT_EQ(cu().cuMemAllocHost_v2(&raw, 4), CUDA_SUCCESS);
  std::memset(raw, 3, 4);
  ASSERT_EQ(cu().cuMemcpyHtoDAsync_v2(d, raw, 4, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemFreeHost(raw), CUDA_SUCCESS);  // the copy read it before the free
  EXPECT_EQ(pending(s), 0u);
  EXPECT_EQ(byte_at(d), 3);
}

// Note [Freeing synchronises] in cuda/driver_memory.cpp: cuMemFree completes the work still
// pending first, so a copy out of the memory delivers its bytes, even where nothing else
// would run it (adversarial); then the memory's pages are gone.
TEST_F(StreamTest, FreeingCompletesPendingWorkFirst) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(1 << 20);
  void* raw = nullptr;
  ASSERT_EQ(cu().cuMemAllocHost_v2(&raw, 4), CUDA_SUCCESS);
  std::memset(raw, 0x11, 4);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 9, 1 << 20, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemcpyDtoHAsync_v2(raw, d, 4, s), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 2u);
  ASSERT_EQ(cu().cuMemFree_v2(d), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 0u);
  EXPECT_EQ(static_cast<unsigned char*>(raw)[0], 9);
  EXPECT_EQ(streams::backed_bytes(), 0u);
  cu().cuMemFreeHost(raw);
}

// Note [Device-accessible host memory]: an async memset of mapped host memory is an
// operation of its stream like any other; the host sees its bytes once it ran.
TEST_F(StreamTest, AnAsyncMemsetOfMappedHostMemoryRunsInStreamOrder) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  void* h = nullptr;
  ASSERT_EQ(cu().cuMemHostAlloc(&h, 4096, kMemHostAllocDeviceMap), CUDA_SUCCESS);
  std::memset(h, 0, 4096);
  auto* bytes = static_cast<unsigned char*>(h);
  ASSERT_EQ(cu().cuMemsetD8Async(reinterpret_cast<std::uintptr_t>(h), 7, 4096, s), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 1u);
  EXPECT_EQ(bytes[100], 0);
  ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(bytes[100], 7);
  ASSERT_EQ(cu().cuMemFreeHost(h), CUDA_SUCCESS);
}

// Note [Managed memory]: managed memory is neither device memory in use nor pinned memory;
// a prefetch is an operation of its stream.
TEST_F(StreamTest, ManagedMemoryIsNotCountedAndAPrefetchIsOrdered) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  const std::uint64_t used = control::used_bytes(0);
  const std::uint64_t pinned = streams::pinned_bytes();
  CUdeviceptr m = 0;
  ASSERT_EQ(cu().cuMemAllocManaged(&m, 8u << 20, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  EXPECT_EQ(control::used_bytes(0), used);
  EXPECT_EQ(streams::pinned_bytes(), pinned);
  ASSERT_EQ(cu().cuMemPrefetchAsync(m, 8u << 20, 0, s), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 1u);
  ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemFree_v2(m), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemFree_v2(m), CUDA_ERROR_INVALID_VALUE);
}

// API synchronization behavior: a synchronous memset of pinned host memory or managed memory
// "is fully synchronous", even where nothing else would run it (adversarial).
TEST_F(StreamTest, ASyncMemsetOfHostOrManagedMemoryIsFullySynchronous) {
  start(Schedule::kAdversarial);
  void* h = nullptr;
  ASSERT_EQ(cu().cuMemHostAlloc(&h, 4096, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8_v2(reinterpret_cast<std::uintptr_t>(h), 9, 4096), CUDA_SUCCESS);
  EXPECT_EQ(static_cast<unsigned char*>(h)[4095], 9);
  CUdeviceptr m = 0;
  ASSERT_EQ(cu().cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD2D8_v2(m, 64, 3, 64, 4), CUDA_SUCCESS);
  EXPECT_EQ(reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(m))[3 * 64 + 63], 3);
  // Device memory: the synchronous form returns before it ran.
  CUdeviceptr d = alloc(4096);
  CUstream legacy = nullptr;
  ASSERT_EQ(cu().cuMemsetD8_v2(d, 1, 4096), CUDA_SUCCESS);
  EXPECT_EQ(pending(legacy), 1u);
  ASSERT_EQ(cu().cuMemFree_v2(m), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemFreeHost(h), CUDA_SUCCESS);
}

}  // namespace
}  // namespace mockdev::testing
