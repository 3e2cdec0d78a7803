// Memory queries and kinds (CUDA Driver API, "Unified Addressing" and "Memory Management";
// mockdev/src/cuda/driver_pointer.cpp, driver_managed.cpp): pointer attributes of device,
// pinned, mapped and managed memory and of a pointer the driver never made, address ranges,
// host memory used through device pointers, and managed memory's prefetch and advice.

#include <cstdlib>
#include <cstring>
#include <vector>

#include "driver_test.h"

namespace accel::driver_test {
namespace {

using MemoryQueries = DriverTest;

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr unsigned kMemoryTypeHost = 0x01;    // cuda.h's CU_MEMORYTYPE_HOST
constexpr unsigned kMemoryTypeDevice = 0x02;  // CU_MEMORYTYPE_DEVICE

template <typename T>
T attribute(const test::CudaEntryPoints& cu, CUpointer_attribute a, CUdeviceptr p) {
  T value{};
  EXPECT_EQ(name_of(cu.cuPointerGetAttribute(&value, a, p)), name_of(CUDA_SUCCESS)) << a;
  return value;
}

CUdeviceptr as_device(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// cuPointerGetAttribute on device memory: its context, type, device pointer (the address
// itself), device, range and identity; no host pointer.
TEST_F(MemoryQueries, DeviceMemoryAttributes) {
  ACCEL_REQUIRE_SYMBOLS("cuPointerGetAttribute");
  CUdeviceptr p = 0, q = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&p, 2 * kMiB));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&q, 2 * kMiB));
  const CUdeviceptr inside = p + 4096;
  EXPECT_EQ(attribute<CUcontext>(cu(), CU_POINTER_ATTRIBUTE_CONTEXT, inside), primary);
  EXPECT_EQ(attribute<unsigned>(cu(), CU_POINTER_ATTRIBUTE_MEMORY_TYPE, inside), kMemoryTypeDevice);
  EXPECT_EQ(attribute<CUdeviceptr>(cu(), CU_POINTER_ATTRIBUTE_DEVICE_POINTER, inside), inside);
  EXPECT_EQ(attribute<int>(cu(), CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, inside), device);
  EXPECT_EQ(attribute<CUdeviceptr>(cu(), CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, inside), p);
  EXPECT_EQ(attribute<std::size_t>(cu(), CU_POINTER_ATTRIBUTE_RANGE_SIZE, inside), 2 * kMiB);
  EXPECT_EQ(attribute<int>(cu(), CU_POINTER_ATTRIBUTE_IS_MANAGED, inside), 0);
  EXPECT_EQ(attribute<int>(cu(), CU_POINTER_ATTRIBUTE_MAPPED, inside), 1);
  EXPECT_EQ(attribute<int>(cu(), CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, p), 1);
  void* host = nullptr;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, p));
  // Buffer ids: one per allocation, never reused.
  const auto id_p = attribute<unsigned long long>(cu(), CU_POINTER_ATTRIBUTE_BUFFER_ID, p);
  const auto id_q = attribute<unsigned long long>(cu(), CU_POINTER_ATTRIBUTE_BUFFER_ID, q);
  EXPECT_NE(id_p, id_q);
  EXPECT_EQ(attribute<unsigned long long>(cu(), CU_POINTER_ATTRIBUTE_BUFFER_ID, inside), id_p);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(p));
  CUdeviceptr r = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&r, 2 * kMiB));
  const auto id_r = attribute<unsigned long long>(cu(), CU_POINTER_ATTRIBUTE_BUFFER_ID, r);
  EXPECT_NE(id_r, id_p);
  EXPECT_NE(id_r, id_q);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(q));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(r));
}

// Pinned host memory from cuMemHostAlloc: host memory whose device pointer is its own
// address ("Automatic Mapping of Host Allocated Host Memory").
TEST_F(MemoryQueries, PinnedHostMemoryAttributes) {
  ACCEL_REQUIRE_SYMBOLS("cuPointerGetAttribute", "cuMemHostGetDevicePointer_v2",
                        "cuMemHostGetFlags");
  void* h = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemHostAlloc(&h, 64 * 1024, kMemHostAllocDeviceMap));
  const CUdeviceptr p = as_device(h);
  EXPECT_EQ(attribute<unsigned>(cu(), CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p), kMemoryTypeHost);
  EXPECT_EQ(attribute<void*>(cu(), CU_POINTER_ATTRIBUTE_HOST_POINTER, p), h);
  EXPECT_EQ(attribute<CUdeviceptr>(cu(), CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p), p);
  EXPECT_EQ(attribute<CUcontext>(cu(), CU_POINTER_ATTRIBUTE_CONTEXT, p), primary);
  EXPECT_EQ(attribute<int>(cu(), CU_POINTER_ATTRIBUTE_IS_MANAGED, p), 0);
  CUdeviceptr mapped = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemHostGetDevicePointer_v2(&mapped, h, 0));
  EXPECT_EQ(mapped, p);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemHostGetDevicePointer_v2(&mapped, h, 1));
  unsigned flags = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemHostGetFlags(&flags, h));
  EXPECT_EQ(flags & kMemHostAllocDeviceMap, kMemHostAllocDeviceMap);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFreeHost(h));
  // cuMemAllocHost memory reports DEVICEMAP alone (Recording 2).
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocHost_v2(&h, 4096));
  flags = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemHostGetFlags(&flags, h));
  EXPECT_EQ(flags, kMemHostAllocDeviceMap);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFreeHost(h));
}

// A pointer the driver never made: cuPointerGetAttribute refuses it, cuPointerGetAttributes
// answers "default NULL values" (cuda.h); cuMemGetAddressRange does not find it.
TEST_F(MemoryQueries, AForeignPointerHasNoAttributes) {
  ACCEL_REQUIRE_SYMBOLS("cuPointerGetAttribute", "cuPointerGetAttributes",
                        "cuMemGetAddressRange_v2", "cuMemHostGetDevicePointer_v2");
  std::vector<unsigned char> plain(4096);
  const CUdeviceptr p = as_device(plain.data());
  unsigned type = 99;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p));
  CUcontext ctx = primary;
  unsigned long long id = 99;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_CONTEXT,
                                      CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      CU_POINTER_ATTRIBUTE_BUFFER_ID};
  void* data[] = {&ctx, &type, &id};
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuPointerGetAttributes(3, attributes, data, p));
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(type, 0u);
  EXPECT_EQ(id, 0u);
  CUdeviceptr base = 0;
  std::size_t size = 0;
  ACCEL_EXPECT_CU(CUDA_ERROR_NOT_FOUND, cu().cuMemGetAddressRange_v2(&base, &size, p));
  CUdeviceptr mapped = 0;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuMemHostGetDevicePointer_v2(&mapped, plain.data(), 0));
}

// cuPointerGetAttributes answers what cuPointerGetAttribute answers, attribute by attribute;
// cuPointerSetAttribute sets SYNC_MEMOPS.
TEST_F(MemoryQueries, GetAttributesAgreesAndSyncMemopsCanBeSet) {
  ACCEL_REQUIRE_SYMBOLS("cuPointerGetAttributes", "cuPointerSetAttribute");
  CUdeviceptr p = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&p, 2 * kMiB));
  CUcontext ctx = nullptr;
  unsigned type = 0;
  CUdeviceptr dptr = 0;
  int ordinal = -5;
  int sync = 1;  // booleans are written as four bytes (Recording 2)
  CUpointer_attribute attributes[] = {
      CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
      CU_POINTER_ATTRIBUTE_DEVICE_POINTER, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
      CU_POINTER_ATTRIBUTE_SYNC_MEMOPS};
  void* data[] = {&ctx, &type, &dptr, &ordinal, &sync};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuPointerGetAttributes(5, attributes, data, p + 8));
  EXPECT_EQ(ctx, primary);
  EXPECT_EQ(type, kMemoryTypeDevice);
  EXPECT_EQ(dptr, p + 8);
  EXPECT_EQ(ordinal, device);
  EXPECT_EQ(sync, 0);
  const unsigned one = 1;
  ACCEL_EXPECT_CU(CUDA_SUCCESS,
                  cu().cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
  EXPECT_EQ(attribute<int>(cu(), CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p), 1);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(p));
}

// cuMemGetAddressRange: the allocation holding the address; both outputs are optional.
TEST_F(MemoryQueries, AddressRangeOfAnInteriorPointer) {
  ACCEL_REQUIRE_SYMBOLS("cuMemGetAddressRange_v2");
  CUdeviceptr p = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&p, 4 * kMiB));
  CUdeviceptr base = 0;
  std::size_t size = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemGetAddressRange_v2(&base, &size, p + 3 * kMiB));
  EXPECT_EQ(base, p);
  EXPECT_EQ(size, 4 * kMiB);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemGetAddressRange_v2(nullptr, nullptr, p + 1));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(p));
}

// Host memory from cuMemHostAlloc is a device pointer for every copy and memset; a
// synchronous memset of pinned host memory "is fully synchronous" (API synchronization
// behavior).
TEST_F(MemoryQueries, MappedHostMemoryServesAsDeviceMemory) {
  constexpr std::size_t kBytes = 64 * 1024;
  void* h = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemHostAlloc(&h, kBytes, kMemHostAllocDeviceMap));
  auto* bytes = static_cast<unsigned char*>(h);
  const CUdeviceptr mapped = as_device(h);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD8_v2(mapped, 0xab, kBytes));
  EXPECT_EQ(bytes[0], 0xab);
  EXPECT_EQ(bytes[kBytes - 1], 0xab);
  CUdeviceptr d = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&d, kBytes));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyDtoD_v2(d, mapped, kBytes));
  std::vector<unsigned char> back(kBytes);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyDtoH_v2(back.data(), d, kBytes));
  EXPECT_EQ(back[kBytes / 2], 0xab);
  std::memset(h, 0x11, kBytes);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyDtoH_v2(back.data(), mapped, kBytes));
  EXPECT_EQ(back[7], 0x11);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD32Async(mapped, 0x01020304u, kBytes / 4, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  EXPECT_EQ(bytes[0], 0x04);
  EXPECT_EQ(bytes[3], 0x01);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(d));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFreeHost(h));
}

// Registered memory is mapped whatever its flags: its device pointer is its own address,
// and its flags include CU_MEMHOSTREGISTER_DEVICEMAP (Recording 2 for memory registered with
// it; [inferred] for memory registered without it).
TEST_F(MemoryQueries, RegisteredMemoryIsMappedWhateverItsFlags) {
  ACCEL_REQUIRE_SYMBOLS("cuMemHostGetDevicePointer_v2", "cuMemHostGetFlags");
  constexpr std::size_t kBytes = 8192;
  void* plain = std::aligned_alloc(4096, kBytes);
  void* mapped = std::aligned_alloc(4096, kBytes);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemHostRegister_v2(plain, kBytes, 0));
  ACCEL_ASSERT_CU(CUDA_SUCCESS,
                  cu().cuMemHostRegister_v2(mapped, kBytes, kMemHostRegisterDeviceMap));
  CUdeviceptr d = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemHostGetDevicePointer_v2(&d, plain, 0));
  EXPECT_EQ(d, as_device(plain));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemHostGetDevicePointer_v2(&d, mapped, 0));
  EXPECT_EQ(d, as_device(mapped));
  unsigned flags = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemHostGetFlags(&flags, mapped));
  EXPECT_EQ(flags, kMemHostRegisterDeviceMap);
  flags = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemHostGetFlags(&flags, plain));
  EXPECT_EQ(flags, kMemHostRegisterDeviceMap);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemHostUnregister(plain));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemHostUnregister(mapped));
  std::free(plain);
  std::free(mapped);
}

// Managed memory: one address for host and device, IS_MANAGED, freed by cuMemFree; a
// synchronous memset of it "is fully synchronous".
TEST_F(MemoryQueries, ManagedMemoryIsSharedByHostAndDevice) {
  ACCEL_REQUIRE_SYMBOLS("cuMemAllocManaged");
  constexpr std::size_t kBytes = 1 * kMiB;
  CUdeviceptr m = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocManaged(&m, kBytes, CU_MEM_ATTACH_GLOBAL));
  auto* host = reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(m));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD8_v2(m, 0x5c, kBytes));
  EXPECT_EQ(host[kBytes - 1], 0x5c);
  host[10] = 0x77;
  unsigned char back = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyDtoH_v2(&back, m + 10, 1));
  EXPECT_EQ(back, 0x77);
  EXPECT_EQ(attribute<int>(cu(), CU_POINTER_ATTRIBUTE_IS_MANAGED, m), 1);
  EXPECT_EQ(attribute<CUdeviceptr>(cu(), CU_POINTER_ATTRIBUTE_DEVICE_POINTER, m), m);
  EXPECT_EQ(attribute<CUcontext>(cu(), CU_POINTER_ATTRIBUTE_CONTEXT, m), primary);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(m));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemAllocManaged(&m, kBytes, 0));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemAllocManaged(&m, 0, CU_MEM_ATTACH_GLOBAL));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuMemAllocManaged(&m, kBytes, CU_MEM_ATTACH_GLOBAL | CU_MEM_ATTACH_HOST));
}

// Prefetches and advice are recorded and read back through the range attributes; they apply
// to managed memory only.
TEST_F(MemoryQueries, PrefetchAndAdviceOfManagedMemory) {
  ACCEL_REQUIRE_SYMBOLS("cuMemAllocManaged", "cuMemPrefetchAsync", "cuMemPrefetchAsync_v2",
                        "cuMemAdvise", "cuMemAdvise_v2", "cuMemRangeGetAttribute",
                        "cuMemRangeGetAttributes");
  constexpr std::size_t kBytes = 2 * kMiB;
  CUdeviceptr m = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocManaged(&m, kBytes, CU_MEM_ATTACH_GLOBAL));
  int value = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemRangeGetAttribute(
                                    &value, sizeof value,
                                    CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, kBytes));
  EXPECT_EQ(value, kDeviceInvalid);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPrefetchAsync(m, kBytes, device, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemRangeGetAttribute(
                                    &value, sizeof value,
                                    CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, kBytes));
  EXPECT_EQ(value, device);
  const CUmemLocation host{CU_MEM_LOCATION_TYPE_HOST, 0};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPrefetchAsync_v2(m, kBytes, host, 0, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemRangeGetAttribute(
                                    &value, sizeof value,
                                    CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, kBytes));
  EXPECT_EQ(value, kDeviceCpu);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemAdvise(m, kBytes, CU_MEM_ADVISE_SET_READ_MOSTLY, device));
  ACCEL_EXPECT_CU(CUDA_SUCCESS,
                  cu().cuMemAdvise(m, kBytes, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, device));
  const CUmemLocation dev{CU_MEM_LOCATION_TYPE_DEVICE, device};
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemAdvise_v2(m, kBytes, CU_MEM_ADVISE_SET_ACCESSED_BY, dev));
  int read_mostly = 0, preferred = 0;
  int accessed_by[3] = {0, 0, 0};
  void* data[] = {&read_mostly, &preferred, accessed_by};
  std::size_t sizes[] = {sizeof read_mostly, sizeof preferred, sizeof accessed_by};
  CUmem_range_attribute attributes[] = {CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                        CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
                                        CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY};
  ACCEL_EXPECT_CU(CUDA_SUCCESS,
                  cu().cuMemRangeGetAttributes(data, sizes, attributes, 3, m, kBytes));
  EXPECT_EQ(read_mostly, 1);
  EXPECT_EQ(preferred, device);
  EXPECT_EQ(accessed_by[0], device);
  EXPECT_EQ(accessed_by[1], kDeviceInvalid);
  EXPECT_EQ(accessed_by[2], kDeviceInvalid);
  // Wrong sizes, memory that is not managed, devices that do not exist.
  ACCEL_EXPECT_CU(
      CUDA_ERROR_INVALID_VALUE,
      cu().cuMemRangeGetAttribute(&value, 2, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, kBytes));
  CUdeviceptr d = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&d, kBytes));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemPrefetchAsync(d, kBytes, device, nullptr));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuMemAdvise(d, kBytes, CU_MEM_ADVISE_SET_READ_MOSTLY, device));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_DEVICE,
                  cu().cuMemPrefetchAsync(m, kBytes, device_count, nullptr));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_DEVICE,
                  cu().cuMemAdvise(m, kBytes, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, device_count));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(d));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(m));
}

// CUDA Programming Guide, "Implicit Synchronization": freeing device memory synchronises
// the device, so a copy out of it still pending delivers its bytes.
TEST_F(MemoryQueries, FreeingDeviceMemoryCompletesThePendingWork) {
  constexpr std::size_t kBytes = 2 * kMiB;
  CUstream s = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUdeviceptr d = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&d, kBytes));
  void* h = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocHost_v2(&h, kBytes));
  std::memset(h, 0, kBytes);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD8Async(d, 0x3c, kBytes, s));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyDtoHAsync_v2(h, d, kBytes, s));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(d));
  EXPECT_EQ(static_cast<unsigned char*>(h)[kBytes - 1], 0x3c);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuStreamDestroy_v2(s));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFreeHost(h));
}

// Pinned host memory's edge cases (Recording 2): freeing NULL and allocating 0 bytes
// succeed; a registered range is not freed by cuMemFreeHost, nor allocated memory
// unregistered (CUDA_ERROR_INVALID_VALUE both); memory never registered is
// CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED.
TEST_F(MemoryQueries, PinnedHostMemoryEdgeCases) {
  ACCEL_REQUIRE_SYMBOLS("cuMemFreeHost", "cuMemHostUnregister");
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFreeHost(nullptr));
  void* empty = reinterpret_cast<void*>(0x1);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemAllocHost_v2(&empty, 0));
  void* allocated = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocHost_v2(&allocated, 4096));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemHostUnregister(allocated));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFreeHost(allocated));
  void* registered = std::aligned_alloc(4096, 8192);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemHostRegister_v2(registered, 8192, 0));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemFreeHost(registered));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemHostUnregister(registered));
  ACCEL_EXPECT_CU(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, cu().cuMemHostUnregister(registered));
  std::free(registered);
}

// Small allocations share a granule (Recording 2: the second 4 KiB allocation came right
// after the first and cost nothing; a 3 MiB one took 4 MiB); [inferred] the granule goes
// back when its last allocation is freed.
TEST_F(MemoryQueries, SmallAllocationsShareAGranule) {
  ACCEL_REQUIRE_SYMBOLS("cuMemGetInfo_v2");
  auto free_now = [] {
    std::size_t free = 0, total = 0;
    EXPECT_EQ(cu().cuMemGetInfo_v2(&free, &total), CUDA_SUCCESS);
    return free;
  };
  const std::size_t before = free_now();
  CUdeviceptr a = 0, b = 0, c = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&a, 4096));
  const std::size_t after_a = free_now();
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&b, 4096));
  const std::size_t after_b = free_now();
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&c, 3 * kMiB));
  EXPECT_EQ(before - after_a, 2 * kMiB);
  EXPECT_EQ(after_a, after_b);
  EXPECT_EQ(b, a + 4096);
  EXPECT_EQ(after_b - free_now(), 4 * kMiB);
  for (CUdeviceptr p : {a, b, c}) ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(p));
  EXPECT_EQ(free_now(), before);
}

}  // namespace
}  // namespace accel::driver_test
