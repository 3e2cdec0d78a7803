// libcudart.so.13 on the simulated machine: memory (spec cuda_runtime.md §4). Allocation of
// every kind, copies of every cudaMemcpyKind with their exact bytes, 2D copies with pitches,
// peer copies, memsets, cudaMemGetInfo against the driver, pointer attributes, the
// stream-ordered allocator's pool statistics, and the error codes with the last error. A
// program written against the runtime API; run once per machine (ACCEL_CUDART_TEST_DEVICES).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#include "cudart_api.h"
#include "memory_driver.h"

#if !ACCEL_CUDART_TEST_TOOLKIT
#define cudaHostAllocDefault (accel::cudart_abi::kHostAllocDefault)
#define cudaHostAllocMapped (accel::cudart_abi::kHostAllocMapped)
#define cudaHostRegisterDefault (accel::cudart_abi::kHostRegisterDefault)
#define cudaMemAttachGlobal (accel::cudart_abi::kMemAttachGlobal)
#define cudaInvalidDeviceId (accel::cudart_abi::kInvalidDeviceId)
#endif

namespace {

using accel::cudart_test::memory_driver;
namespace drv = accel::cuda_abi;

constexpr std::size_t kMiB = std::size_t{1} << 20;

int device_count() {
  int count = -1;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  return count;
}

std::vector<unsigned char> pattern(std::size_t bytes, unsigned seed) {
  std::vector<unsigned char> out(bytes);
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(i * 7 + seed);
  return out;
}

class CudartMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    (void)cudaGetLastError();
  }
};

TEST_F(CudartMemory, CopiesOfEveryExplicitKindMoveTheExactBytes) {
  constexpr std::size_t kBytes = 4096 + 13;
  const std::vector<unsigned char> source = pattern(kBytes, 3);
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, kBytes), cudaSuccess);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(cudaMemcpy(a, source.data(), kBytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(b, a, kBytes, cudaMemcpyDeviceToDevice), cudaSuccess);
  std::vector<unsigned char> back(kBytes, 0);
  EXPECT_EQ(cudaMemcpy(back.data(), b, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, source);
  std::vector<unsigned char> host_copy(kBytes, 0);
  EXPECT_EQ(cudaMemcpy(host_copy.data(), back.data(), kBytes, cudaMemcpyHostToHost), cudaSuccess);
  EXPECT_EQ(host_copy, source);
  EXPECT_EQ(cudaFree(a), cudaSuccess);
  EXPECT_EQ(cudaFree(b), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(CudartMemory, DefaultKindInfersEachDirectionFromThePointers) {
  constexpr std::size_t kBytes = 1000;
  const std::vector<unsigned char> source = pattern(kBytes, 11);
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, kBytes), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(a, source.data(), kBytes, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(b, a, kBytes, cudaMemcpyDefault), cudaSuccess);
  std::vector<unsigned char> back(kBytes, 0);
  EXPECT_EQ(cudaMemcpy(back.data(), b, kBytes, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(back, source);
  std::vector<unsigned char> host_copy(kBytes, 0);
  EXPECT_EQ(cudaMemcpy(host_copy.data(), back.data(), kBytes, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(host_copy, source);
  EXPECT_EQ(cudaFree(a), cudaSuccess);
  EXPECT_EQ(cudaFree(b), cudaSuccess);
}

TEST_F(CudartMemory, AsyncCopiesThroughPinnedMemoryOnTheLegacyStream) {
  constexpr std::size_t kBytes = 64 * 1024;
  void* pinned = nullptr;
  void* dev = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dev, kBytes), cudaSuccess);
  const std::vector<unsigned char> source = pattern(kBytes, 5);
  std::memcpy(pinned, source.data(), kBytes);
  EXPECT_EQ(cudaMemcpyAsync(dev, pinned, kBytes, cudaMemcpyHostToDevice, nullptr), cudaSuccess);
  EXPECT_EQ(cudaMemsetAsync(pinned, 0, 0, nullptr), cudaSuccess);
  std::vector<unsigned char> back(kBytes, 0);
  void* pinned_back = nullptr;
  ASSERT_EQ(cudaHostAlloc(&pinned_back, kBytes, cudaHostAllocDefault), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(pinned_back, dev, kBytes, cudaMemcpyDefault, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::memcpy(back.data(), pinned_back, kBytes);
  EXPECT_EQ(back, source);
  EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(pinned_back), cudaSuccess);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
}

TEST_F(CudartMemory, AKindOutsideTheEnumIsInvalidMemcpyDirection) {
  char host[16] = {};
  char other[16] = {};
  for (int kind : {-1, 5, 7, 100}) {
    const auto k = static_cast<cudaMemcpyKind>(kind);
    EXPECT_EQ(cudaMemcpy(other, host, sizeof(host), k), cudaErrorInvalidMemcpyDirection) << kind;
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    EXPECT_EQ(cudaMemcpyAsync(other, host, sizeof(host), k, nullptr),
              cudaErrorInvalidMemcpyDirection);
    EXPECT_EQ(cudaMemcpy2D(other, 16, host, 16, 16, 1, k), cudaErrorInvalidMemcpyDirection);
    EXPECT_EQ(cudaMemcpy2DAsync(other, 16, host, 16, 16, 1, k, nullptr),
              cudaErrorInvalidMemcpyDirection);
    EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidMemcpyDirection);
    (void)cudaGetLastError();
  }
}

// Note [Copy kinds] in memory_copies.cpp: an explicit direction is checked by its driver call.
TEST_F(CudartMemory, AnExplicitKindThePointersContradictIsInvalidValue) {
  char host[64] = {};
  char other[64] = {};
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, sizeof(host)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(other, host, sizeof(host), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(host, other, sizeof(host), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(dev, host, sizeof(host), cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
}

TEST_F(CudartMemory, TwoDimensionalCopiesKeepThePitchPadding) {
  constexpr std::size_t kWidth = 100, kHeight = 7, kHostPitch = 128;
  void* dev = nullptr;
  std::size_t pitch = 0;
  ASSERT_EQ(cudaMallocPitch(&dev, &pitch, kWidth, kHeight), cudaSuccess);
  EXPECT_GE(pitch, kWidth);
  EXPECT_EQ(pitch % 16, 0u);
  ASSERT_EQ(cudaMemset2D(dev, pitch, 0xEE, pitch, kHeight), cudaSuccess);
  const std::vector<unsigned char> source = pattern(kHostPitch * kHeight, 1);
  EXPECT_EQ(
      cudaMemcpy2D(dev, pitch, source.data(), kHostPitch, kWidth, kHeight, cudaMemcpyHostToDevice),
      cudaSuccess);
  // The whole pitched area back, padding included.
  std::vector<unsigned char> raw(pitch * kHeight, 0);
  EXPECT_EQ(cudaMemcpy(raw.data(), dev, raw.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::size_t row = 0; row < kHeight; ++row) {
    for (std::size_t col = 0; col < pitch; ++col) {
      const unsigned char want = col < kWidth ? source[row * kHostPitch + col] : 0xEE;
      ASSERT_EQ(raw[row * pitch + col], want) << row << "," << col;
    }
  }
  // Back into a host area of another pitch, with Default and asynchronously.
  std::vector<unsigned char> back(kWidth * kHeight, 0);
  EXPECT_EQ(cudaMemcpy2DAsync(back.data(), kWidth, dev, pitch, kWidth, kHeight, cudaMemcpyDefault,
                              nullptr),
            cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (std::size_t row = 0; row < kHeight; ++row) {
    for (std::size_t col = 0; col < kWidth; ++col) {
      ASSERT_EQ(back[row * kWidth + col], source[row * kHostPitch + col]);
    }
  }
  // A width over either pitch.
  EXPECT_EQ(cudaMemcpy2D(dev, pitch, source.data(), 50, kWidth, kHeight, cudaMemcpyHostToDevice),
            cudaErrorInvalidPitchValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidPitchValue);
  EXPECT_EQ(cudaMemset2D(dev, 64, 0, kWidth, kHeight), cudaErrorInvalidPitchValue);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
}

TEST_F(CudartMemory, PeerCopiesBetweenDevices) {
  if (device_count() < 2) GTEST_SKIP() << "needs two devices";
  constexpr std::size_t kBytes = 3 * 4096 + 1;
  const std::vector<unsigned char> source = pattern(kBytes, 9);
  void* on0 = nullptr;
  void* on1 = nullptr;
  ASSERT_EQ(cudaMalloc(&on0, kBytes), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&on1, kBytes), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(on0, source.data(), kBytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpyPeer(on1, 1, on0, 0, kBytes), cudaSuccess);
  std::vector<unsigned char> back(kBytes, 0);
  EXPECT_EQ(cudaMemcpy(back.data(), on1, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, source);
  EXPECT_EQ(cudaMemset(on0, 0, kBytes), cudaSuccess);
  EXPECT_EQ(cudaMemcpyPeerAsync(on0, 0, on1, 1, kBytes, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::fill(back.begin(), back.end(), 0);
  EXPECT_EQ(cudaMemcpy(back.data(), on0, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, source);
  EXPECT_EQ(cudaMemcpyPeer(on1, device_count(), on0, 0, kBytes), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaMemcpyPeer(on1, 1, on0, -1, kBytes), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaFree(on0), cudaSuccess);
  EXPECT_EQ(cudaFree(on1), cudaSuccess);
}

TEST_F(CudartMemory, MemsetsWriteTheValuesLowByte) {
  constexpr std::size_t kBytes = 5000;
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, kBytes), cudaSuccess);
  EXPECT_EQ(cudaMemset(dev, 0x1AB, kBytes), cudaSuccess);
  EXPECT_EQ(cudaMemsetAsync(static_cast<char*>(dev) + 100, 0x5C, 50, nullptr), cudaSuccess);
  std::vector<unsigned char> back(kBytes, 0);
  EXPECT_EQ(cudaMemcpy(back.data(), dev, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::size_t i = 0; i < kBytes; ++i) {
    ASSERT_EQ(back[i], (i >= 100 && i < 150) ? 0x5C : 0xAB) << i;
  }
  EXPECT_EQ(cudaMemset2DAsync(dev, 100, 0x01, 10, 3, nullptr), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(back.data(), dev, 300, cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::size_t i = 0; i < 300; ++i) {
    const unsigned char old = (i >= 100 && i < 150) ? 0x5C : 0xAB;
    ASSERT_EQ(back[i], i % 100 < 10 ? 0x01 : old) << i;
  }
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
}

TEST_F(CudartMemory, MemGetInfoIsTheDriversAndFallsByTheGranularity) {
  std::size_t free0 = 0, total0 = 0;
  ASSERT_EQ(cudaMemGetInfo(&free0, &total0), cudaSuccess);
  std::size_t driver_free = 0, driver_total = 0;
  ASSERT_EQ(memory_driver().cuMemGetInfo(&driver_free, &driver_total), drv::CUDA_SUCCESS);
  EXPECT_EQ(free0, driver_free);
  EXPECT_EQ(total0, driver_total);
  drv::CUmemAllocationProp prop{};
  prop.type = drv::CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = drv::CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  std::size_t granularity = 0;
  ASSERT_EQ(memory_driver().cuMemGetAllocationGranularity(&granularity, &prop,
                                                          drv::CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            drv::CUDA_SUCCESS);
  ASSERT_GT(granularity, 0u);
  constexpr std::size_t kBytes = 3 * kMiB + 1;
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, kBytes), cudaSuccess);
  std::size_t free1 = 0, total1 = 0;
  ASSERT_EQ(cudaMemGetInfo(&free1, &total1), cudaSuccess);
  EXPECT_EQ(total1, total0);
  EXPECT_EQ(free0 - free1, (kBytes + granularity - 1) / granularity * granularity);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free1, &total1), cudaSuccess);
  EXPECT_EQ(free1, free0);
  EXPECT_EQ(cudaMemGetInfo(nullptr, &total1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
}

TEST_F(CudartMemory, PointerAttributesOfEveryKindOfMemory) {
  const int device = device_count() - 1;
  ASSERT_EQ(cudaSetDevice(device), cudaSuccess);
  void* dev = nullptr;
  void* pinned = nullptr;
  void* managed = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 256), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, 256), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(&managed, 256, cudaMemAttachGlobal), cudaSuccess);
  std::vector<char> pageable(4096);
  cudaPointerAttributes a{};

  ASSERT_EQ(cudaPointerGetAttributes(&a, dev), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeDevice);
  EXPECT_EQ(a.device, device);
  EXPECT_EQ(a.devicePointer, dev);
  EXPECT_EQ(a.hostPointer, nullptr);
  ASSERT_EQ(cudaPointerGetAttributes(&a, static_cast<char*>(dev) + 10), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeDevice);
  EXPECT_EQ(a.devicePointer, static_cast<char*>(dev) + 10);

  ASSERT_EQ(cudaPointerGetAttributes(&a, pinned), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeHost);
  EXPECT_EQ(a.device, device);
  EXPECT_EQ(a.devicePointer, pinned);
  EXPECT_EQ(a.hostPointer, pinned);

  ASSERT_EQ(cudaPointerGetAttributes(&a, managed), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeManaged);
  EXPECT_EQ(a.device, device);
  EXPECT_EQ(a.devicePointer, managed);
  EXPECT_EQ(a.hostPointer, managed);

  ASSERT_EQ(cudaPointerGetAttributes(&a, pageable.data()), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
  EXPECT_EQ(a.device, cudaInvalidDeviceId);
  EXPECT_EQ(a.devicePointer, nullptr);
  EXPECT_EQ(a.hostPointer, pageable.data());
  for (long r : a.reserved) EXPECT_EQ(r, 0);

  // Registered: host memory of the device current at registration.
  ASSERT_EQ(cudaHostRegister(pageable.data(), pageable.size(), cudaHostRegisterDefault),
            cudaSuccess);
  ASSERT_EQ(cudaPointerGetAttributes(&a, pageable.data()), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeHost);
  EXPECT_EQ(a.device, device);
  EXPECT_EQ(a.hostPointer, pageable.data());
  void* alias = nullptr;
  EXPECT_EQ(cudaHostGetDevicePointer(&alias, pageable.data(), 0), cudaSuccess);
  EXPECT_EQ(a.devicePointer, alias);
  EXPECT_EQ(cudaHostRegister(pageable.data(), pageable.size(), cudaHostRegisterDefault),
            cudaErrorHostMemoryAlreadyRegistered);
  EXPECT_EQ(cudaGetLastError(), cudaErrorHostMemoryAlreadyRegistered);
  EXPECT_EQ(cudaHostUnregister(pageable.data()), cudaSuccess);
  EXPECT_EQ(cudaHostUnregister(pageable.data()), cudaErrorHostMemoryNotRegistered);
  EXPECT_EQ(cudaGetLastError(), cudaErrorHostMemoryNotRegistered);

  EXPECT_EQ(cudaPointerGetAttributes(nullptr, dev), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(pinned), cudaSuccess);
  EXPECT_EQ(cudaFree(managed), cudaSuccess);
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
}

TEST_F(CudartMemory, HostAllocFlagsAndMappedPointers) {
  void* mapped = nullptr;
  ASSERT_EQ(cudaHostAlloc(&mapped, 4096, cudaHostAllocMapped), cudaSuccess);
  unsigned flags = 0;
  EXPECT_EQ(cudaHostGetFlags(&flags, mapped), cudaSuccess);
  EXPECT_EQ(flags & cudaHostAllocMapped, static_cast<unsigned>(cudaHostAllocMapped));
  void* alias = nullptr;
  EXPECT_EQ(cudaHostGetDevicePointer(&alias, mapped, 0), cudaSuccess);
  EXPECT_NE(alias, nullptr);
  EXPECT_EQ(cudaHostGetDevicePointer(&alias, mapped, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaHostAlloc(&mapped, 4096, 0x80), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFreeHost(mapped), cudaSuccess);
}

TEST_F(CudartMemory, AllocationErrorsAndSizeZero) {
  void* p = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(cudaMalloc(&p, 0), cudaSuccess);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(cudaMalloc(nullptr, 16), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocManaged(&p, 0, cudaMemAttachGlobal), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMallocManaged(&p, 16, 0x4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(nullptr), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // Not an allocation; freed twice; a device pointer to cudaFreeHost.
  std::vector<char> pageable(64);
  EXPECT_EQ(cudaFree(pageable.data()), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, 64), cudaSuccess);
  EXPECT_EQ(cudaFreeHost(dev), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
  EXPECT_EQ(cudaFree(dev), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  // A null host pointer with a size.
  EXPECT_EQ(cudaMemcpy(nullptr, pageable.data(), 16, cudaMemcpyDefault), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
}

int pool_attribute_int(cudaMemPool_t pool, cudaMemPoolAttr attr) {
  int value = -1;
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, attr, &value), cudaSuccess);
  return value;
}

std::uint64_t pool_stat(cudaMemPool_t pool, cudaMemPoolAttr attr) {
  std::uint64_t ours = ~0ull, theirs = ~1ull;
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, attr, &ours), cudaSuccess);
  EXPECT_EQ(
      memory_driver().cuMemPoolGetAttribute(reinterpret_cast<drv::CUmemoryPool>(pool),
                                            static_cast<drv::CUmemPool_attribute>(attr), &theirs),
      drv::CUDA_SUCCESS);
  EXPECT_EQ(ours, theirs) << static_cast<int>(attr);
  return ours;
}

TEST_F(CudartMemory, PoolStatisticsAreExactAfterStreamOrderedAllocations) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool = nullptr;
  ASSERT_EQ(cudaMemPoolCreate(&pool, &props), cudaSuccess);
  EXPECT_EQ(pool_stat(pool, cudaMemPoolAttrUsedMemCurrent), 0u);
  EXPECT_EQ(pool_stat(pool, cudaMemPoolAttrReservedMemCurrent), 0u);
  EXPECT_EQ(pool_attribute_int(pool, cudaMemPoolReuseAllowOpportunistic), 1);

  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(cudaMallocFromPoolAsync(&a, 1024, pool, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMallocFromPoolAsync(&b, 1000, pool, nullptr), cudaSuccess);
  EXPECT_EQ(pool_stat(pool, cudaMemPoolAttrUsedMemCurrent), 2024u);
  EXPECT_EQ(pool_stat(pool, cudaMemPoolAttrUsedMemHigh), 2024u);
  const std::uint64_t reserved = pool_stat(pool, cudaMemPoolAttrReservedMemCurrent);
  EXPECT_GE(reserved, 2024u);
  // Pool memory takes copies like any device memory.
  const std::vector<unsigned char> source = pattern(1000, 4);
  EXPECT_EQ(cudaMemcpyAsync(b, source.data(), 1000, cudaMemcpyHostToDevice, nullptr), cudaSuccess);
  std::vector<unsigned char> back(1000, 0);
  EXPECT_EQ(cudaMemcpy(back.data(), b, 1000, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, source);
  cudaPointerAttributes attr{};
  ASSERT_EQ(cudaPointerGetAttributes(&attr, a), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeDevice);

  EXPECT_EQ(cudaFreeAsync(a, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(pool_stat(pool, cudaMemPoolAttrUsedMemCurrent), 1000u);
  EXPECT_EQ(pool_stat(pool, cudaMemPoolAttrUsedMemHigh), 2024u);
  // cudaFree of stream-ordered memory frees it in stream order (decision 206, Memory).
  EXPECT_EQ(cudaFree(b), cudaSuccess);
  EXPECT_EQ(pool_stat(pool, cudaMemPoolAttrUsedMemCurrent), 0u);

  // Watermarks reset only to zero; current values cannot be set.
  std::uint64_t zero = 0, one = 1;
  EXPECT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &one), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero), cudaSuccess);
  EXPECT_EQ(pool_stat(pool, cudaMemPoolAttrUsedMemHigh), 0u);
  EXPECT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &zero),
            cudaErrorInvalidValue);
  // Trimming to zero gives back every unused byte.
  EXPECT_EQ(cudaMemPoolTrimTo(pool, 0), cudaSuccess);
  EXPECT_EQ(pool_stat(pool, cudaMemPoolAttrReservedMemCurrent), 0u);
  EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
}

TEST_F(CudartMemory, DevicePoolsAndAccess) {
  cudaMemPool_t default_pool = nullptr, current = nullptr;
  ASSERT_EQ(cudaDeviceGetDefaultMemPool(&default_pool, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetMemPool(&current, 0), cudaSuccess);
  EXPECT_EQ(current, default_pool);
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool = nullptr;
  ASSERT_EQ(cudaMemPoolCreate(&pool, &props), cudaSuccess);
  ASSERT_EQ(cudaDeviceSetMemPool(0, pool), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetMemPool(&current, 0), cudaSuccess);
  EXPECT_EQ(current, pool);
  // cudaMallocAsync allocates from the device's current pool.
  void* p = nullptr;
  ASSERT_EQ(cudaMallocAsync(&p, 4096, nullptr), cudaSuccess);
  EXPECT_EQ(pool_stat(pool, cudaMemPoolAttrUsedMemCurrent), 4096u);
  EXPECT_EQ(cudaFreeAsync(p, nullptr), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(pool_stat(pool, cudaMemPoolAttrUsedMemCurrent), 0u);
  cudaMemLocation self{};
  self.type = cudaMemLocationTypeDevice;
  self.id = 0;
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  EXPECT_EQ(cudaMemPoolGetAccess(&flags, pool, &self), cudaSuccess);
  EXPECT_EQ(flags, cudaMemAccessFlagsProtReadWrite);
  if (device_count() >= 2) {
    cudaMemLocation peer{};
    peer.type = cudaMemLocationTypeDevice;
    peer.id = 1;
    EXPECT_EQ(cudaMemPoolGetAccess(&flags, pool, &peer), cudaSuccess);
    EXPECT_EQ(flags, cudaMemAccessFlagsProtNone);
    cudaMemAccessDesc desc{};
    desc.location = peer;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    EXPECT_EQ(cudaMemPoolSetAccess(pool, &desc, 1), cudaSuccess);
    EXPECT_EQ(cudaMemPoolGetAccess(&flags, pool, &peer), cudaSuccess);
    EXPECT_EQ(flags, cudaMemAccessFlagsProtReadWrite);
  }
  ASSERT_EQ(cudaDeviceSetMemPool(0, default_pool), cudaSuccess);
  EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetMemPool(&current, device_count()), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaMallocAsync(nullptr, 16, nullptr), cudaErrorInvalidValue);
}

}  // namespace
