// Virtual memory management of the simulated driver (Note [Virtual memory] in
// core/virtual_memory.h; driver_vmm.cpp): granularity, reservations, physical handles,
// mappings and access, their accounting, and mapped memory under copies and memsets.

#include <cstring>
#include <vector>

#include "mock_test.h"
#include "mockdev/memory.h"

namespace mockdev::testing {
namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;
constexpr std::uint64_t kPage = 2 * kMiB;

CUmemAllocationProp device_prop(int ordinal) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = ordinal;
  return prop;
}

CUmemAccessDesc read_write(int ordinal) {
  CUmemAccessDesc desc{};
  desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  desc.location.id = ordinal;
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return desc;
}

class MockVmm : public MockTest {
 protected:
  // A handle of `bytes` on device 0 (the current context's).
  static CUmemGenericAllocationHandle create(std::uint64_t bytes) {
    const CUmemAllocationProp prop = device_prop(0);
    CUmemGenericAllocationHandle h = 0;
    EXPECT_EQ(cu().cuMemCreate(&h, bytes, &prop, 0), CUDA_SUCCESS);
    return h;
  }
  static CUdeviceptr reserve(std::uint64_t bytes) {
    CUdeviceptr va = 0;
    EXPECT_EQ(cu().cuMemAddressReserve(&va, bytes, 0, 0, 0), CUDA_SUCCESS);
    return va;
  }
  // Maps `h` at `va` with read-write access for device 0.
  static void map_rw(CUdeviceptr va, std::uint64_t bytes, CUmemGenericAllocationHandle h) {
    ASSERT_EQ(cu().cuMemMap(va, bytes, 0, h, 0), CUDA_SUCCESS);
    const CUmemAccessDesc desc = read_write(0);
    ASSERT_EQ(cu().cuMemSetAccess(va, bytes, &desc, 1), CUDA_SUCCESS);
  }
};

TEST_F(MockVmm, GranularityIsTheDevicesForBothOptions) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  CUmemAllocationProp prop = device_prop(2);
  std::size_t g = 0;
  ASSERT_EQ(cu().cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CUDA_SUCCESS);  // no context needed
  EXPECT_EQ(g, kPage);
  g = 0;
  ASSERT_EQ(cu().cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
            CUDA_SUCCESS);
  EXPECT_EQ(g, kPage);
  EXPECT_EQ(cu().cuMemGetAllocationGranularity(nullptr, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemGetAllocationGranularity(&g, nullptr, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemGetAllocationGranularity(&g, &prop,
                                               static_cast<CUmemAllocationGranularity_flags>(2)),
            CUDA_ERROR_INVALID_VALUE);
  prop.type = CU_MEM_ALLOCATION_TYPE_MANAGED;
  EXPECT_EQ(cu().cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CUDA_ERROR_INVALID_VALUE);
  prop = device_prop(0);
  prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
  EXPECT_EQ(cu().cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CUDA_ERROR_INVALID_VALUE);
  prop = device_prop(4);  // the 4xh100 has ordinals 0-3
  EXPECT_EQ(cu().cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(MockVmm, MachineFileGranularityApplies) {
  use_yaml(
      "name: g\ndevices:\n  - {name: G, memory: 1GiB, compute_capability: '9.0', "
      "multiprocessors: 1, allocation_granularity: 64KiB}\n");
  init_and_make_current(0);
  const CUmemAllocationProp prop = device_prop(0);
  std::size_t g = 0;
  ASSERT_EQ(cu().cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CUDA_SUCCESS);
  EXPECT_EQ(g, 64u << 10);
  CUmemGenericAllocationHandle h = 0;
  EXPECT_EQ(cu().cuMemCreate(&h, 64u << 10, &prop, 0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemCreate(&h, 96u << 10, &prop, 0), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MockVmm, ReserveChecksItsArguments) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  CUdeviceptr va = 0;
  // No current context is no error (Recording 2).
  EXPECT_EQ(cu().cuMemAddressReserve(&va, kPage, 0, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAddressFree(va, kPage), CUDA_SUCCESS);
  va = 0;
  init_and_make_current(1);
  EXPECT_EQ(cu().cuMemAddressReserve(nullptr, kPage, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemAddressReserve(&va, 0, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemAddressReserve(&va, kPage + 4096, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemAddressReserve(&va, kPage, 3 * kMiB, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemAddressReserve(&va, kPage, 0, 0, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(va, 0u);
  // Disjoint from allocations, in the device's window, aligned as asked; the hint is ignored.
  CUdeviceptr alloc = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&alloc, kGiB), CUDA_SUCCESS);
  CUdeviceptr a = 0, b = 0;
  ASSERT_EQ(cu().cuMemAddressReserve(&a, 3 * kPage, 0, alloc, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemAddressReserve(&b, kPage, kGiB, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(a >> 44, 2u);  // device 1's window
  EXPECT_EQ(b >> 44, 2u);
  EXPECT_TRUE(a >= alloc + kGiB || a + 3 * kPage <= alloc);
  EXPECT_EQ(a % kPage, 0u);
  EXPECT_EQ(b % kGiB, 0u);
  EXPECT_GE(b, a + 3 * kPage);
  // A reservation holds no memory.
  EXPECT_EQ(control::used_bytes(1), kGiB);
  // Freed exactly as reserved, once.
  EXPECT_EQ(cu().cuMemAddressFree(a, kPage), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemAddressFree(a + kPage, 2 * kPage), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemAddressFree(a, 3 * kPage), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAddressFree(a, 3 * kPage), CUDA_ERROR_INVALID_VALUE);
  // A freed range is never handed out again.
  CUdeviceptr c = reserve(kPage);
  EXPECT_GT(c, b);
}

TEST_F(MockVmm, CreateAccountsAtCapacityAndReleaseFrees) {
  init_and_make_current(0);
  const CUmemAllocationProp prop = device_prop(0);
  CUmemGenericAllocationHandle h = 0;
  EXPECT_EQ(cu().cuMemCreate(nullptr, kPage, &prop, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemCreate(&h, 0, &prop, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemCreate(&h, kPage + 1, &prop, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemCreate(&h, kPage, &prop, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemCreate(&h, kPage, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemCreate(&h, 81 * kGiB, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(h, 0u);

  const CUmemGenericAllocationHandle big = create(80 * kGiB - kPage);
  const CUmemGenericAllocationHandle last = create(kPage);
  EXPECT_NE(big, last);
  EXPECT_EQ(cu().cuMemCreate(&h, kPage, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);  // full
  std::size_t free_bytes = 1, total = 0;
  ASSERT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes, 0u);
  control::DeviceMemoryUsage u = control::memory_usage(0);
  ASSERT_EQ(u.allocations.size(), 2u);
  EXPECT_EQ(u.allocations[0].kind, "cuMemCreate");
  EXPECT_EQ(u.allocations[0].address, 0u);  // not mapped
  EXPECT_EQ(u.allocations[0].bytes, 80 * kGiB - kPage);
  EXPECT_EQ(u.allocations[0].context, "ctx dev=0");

  EXPECT_EQ(cu().cuMemRelease(big), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemRelease(big), CUDA_ERROR_INVALID_VALUE);  // already released
  EXPECT_EQ(cu().cuMemRelease(12345), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(control::used_bytes(0), kPage);
  EXPECT_EQ(control::memory_usage(0).peak_used_bytes, 80 * kGiB);
}

TEST_F(MockVmm, MappedMemoryHoldsBytesOnlyWithAccess) {
  init_and_make_current(0);
  const CUdeviceptr va = reserve(2 * kPage);
  const CUmemGenericAllocationHandle h = create(kPage);
  std::vector<unsigned char> in(64, 7), out(64, 0);
  // Not mapped yet: outside every allocation.
  EXPECT_EQ(cu().cuMemcpyHtoD_v2(va, in.data(), in.size()), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cu().cuMemMap(va, kPage, 0, h, 0), CUDA_SUCCESS);
  // Mapped but no access granted: still invalid for copies and memsets.
  EXPECT_EQ(cu().cuMemcpyHtoD_v2(va, in.data(), in.size()), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemsetD8_v2(va, 1, 16), CUDA_ERROR_INVALID_VALUE);
  CUmemAccessDesc desc = read_write(0);
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;  // read-only counts as no access here
  ASSERT_EQ(cu().cuMemSetAccess(va, kPage, &desc, 1), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemsetD8_v2(va, 1, 16), CUDA_ERROR_INVALID_VALUE);
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  ASSERT_EQ(cu().cuMemSetAccess(va, kPage, &desc, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemcpyHtoD_v2(va + 100, in.data(), in.size()), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8_v2(va + 100, 9, 8), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(out.data(), va + 100, out.size()), CUDA_SUCCESS);
  std::vector<unsigned char> expected(64, 7);
  std::memset(expected.data(), 9, 8);
  EXPECT_EQ(out, expected);
  // Past the mapping (into the unmapped rest of the reservation): invalid.
  EXPECT_EQ(cu().cuMemcpyDtoH_v2(out.data(), va + kPage - 32, 64), CUDA_ERROR_INVALID_VALUE);
  // Accounting: the handle, once, however it is mapped.
  EXPECT_EQ(control::used_bytes(0), kPage);
  EXPECT_EQ(control::memory_usage(0).allocations[0].address, va);
}

TEST_F(MockVmm, CopiesSpanAdjacentMappingsAndBytesFollowTheHandle) {
  init_and_make_current(0);
  const CUdeviceptr va = reserve(3 * kPage);
  const CUmemGenericAllocationHandle h1 = create(kPage);
  const CUmemGenericAllocationHandle h2 = create(kPage);
  map_rw(va, kPage, h1);
  map_rw(va + kPage, kPage, h2);
  std::vector<unsigned char> in(4096), out(4096, 0);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 7);
  const CUdeviceptr across = va + kPage - 1000;  // 1000 bytes in h1, the rest in h2
  ASSERT_EQ(cu().cuMemcpyHtoD_v2(across, in.data(), in.size()), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(out.data(), across, out.size()), CUDA_SUCCESS);
  EXPECT_EQ(out, in);
  // The third page is not mapped: a range reaching it fails.
  EXPECT_EQ(cu().cuMemsetD8_v2(va + 2 * kPage - 8, 0, 16), CUDA_ERROR_INVALID_VALUE);
  // Unmap both and map h2 first: its bytes come with it.
  ASSERT_EQ(cu().cuMemUnmap(va, 2 * kPage), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemcpyDtoH_v2(out.data(), across, 16), CUDA_ERROR_INVALID_VALUE);
  map_rw(va + 2 * kPage, kPage, h2);
  std::vector<unsigned char> tail(in.size() - 1000, 0);
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(tail.data(), va + 2 * kPage, tail.size()), CUDA_SUCCESS);
  EXPECT_EQ(tail, std::vector<unsigned char>(in.begin() + 1000, in.end()));
}

TEST_F(MockVmm, MapAndUnmapRules) {
  init_and_make_current(0);
  const CUdeviceptr va = reserve(2 * kPage);
  const CUdeviceptr other = reserve(kPage);
  const CUmemGenericAllocationHandle h = create(kPage);
  const CUmemGenericAllocationHandle h2 = create(2 * kPage);
  EXPECT_EQ(cu().cuMemMap(va, kPage, 4096, h, 0), CUDA_ERROR_INVALID_VALUE);            // offset
  EXPECT_EQ(cu().cuMemMap(va, kPage, 0, h, 1), CUDA_ERROR_INVALID_VALUE);               // flags
  EXPECT_EQ(cu().cuMemMap(va, kPage, 0, 999, 0), CUDA_ERROR_INVALID_VALUE);             // handle
  EXPECT_EQ(cu().cuMemMap(va, 2 * kPage, 0, h, 0), CUDA_ERROR_INVALID_VALUE);           // size
  EXPECT_EQ(cu().cuMemMap(va + kPage, 2 * kPage, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);  // past
  EXPECT_EQ(cu().cuMemMap(0x1000, kPage, 0, h, 0), CUDA_ERROR_INVALID_VALUE);  // no reservation
  ASSERT_EQ(cu().cuMemMap(va + kPage, kPage, 0, h, 0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemMap(va, 2 * kPage, 0, h2, 0), CUDA_ERROR_INVALID_VALUE);  // overlaps
  // The same handle may be mapped twice; both mappings show the same bytes.
  ASSERT_EQ(cu().cuMemMap(other, kPage, 0, h, 0), CUDA_SUCCESS);
  const CUmemAccessDesc desc = read_write(0);
  ASSERT_EQ(cu().cuMemSetAccess(va + kPage, kPage, &desc, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemSetAccess(other, kPage, &desc, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD32_v2(va + kPage, 0xdeadbeef, 4), CUDA_SUCCESS);
  unsigned got[4] = {};
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(got, other, sizeof got), CUDA_SUCCESS);
  for (unsigned v : got) EXPECT_EQ(v, 0xdeadbeefu);
  // Set access / unmap need whole mappings.
  EXPECT_EQ(cu().cuMemSetAccess(va, kPage, &desc, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemSetAccess(va + kPage, 4096, &desc, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemSetAccess(va + kPage, kPage, nullptr, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemSetAccess(va + kPage, kPage, &desc, 0), CUDA_ERROR_INVALID_VALUE);
  CUmemAccessDesc bad = read_write(7);
  EXPECT_EQ(cu().cuMemSetAccess(va + kPage, kPage, &bad, 1), CUDA_ERROR_INVALID_DEVICE);
  bad = read_write(0);
  bad.flags = static_cast<CUmemAccess_flags>(2);
  EXPECT_EQ(cu().cuMemSetAccess(va + kPage, kPage, &bad, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemUnmap(va + kPage, 4096), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemUnmap(va, 2 * kPage), CUDA_ERROR_INVALID_VALUE);  // va itself unmapped
  // A reservation with a mapping inside cannot be freed ([inferred]: 1).
  EXPECT_EQ(cu().cuMemAddressFree(va, 2 * kPage), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cu().cuMemUnmap(va + kPage, kPage), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemUnmap(va + kPage, kPage), CUDA_ERROR_INVALID_VALUE);  // no longer mapped
  EXPECT_EQ(cu().cuMemAddressFree(va, 2 * kPage), CUDA_SUCCESS);
  // Release while mapped: the memory stays until its last mapping goes.
  EXPECT_EQ(control::used_bytes(0), 3 * kPage);
  ASSERT_EQ(cu().cuMemRelease(h), CUDA_SUCCESS);
  EXPECT_EQ(control::used_bytes(0), 3 * kPage);
  EXPECT_EQ(cu().cuMemMap(va, kPage, 0, h, 0), CUDA_ERROR_INVALID_VALUE);  // released handle
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(got, other, sizeof got), CUDA_SUCCESS);   // still readable
  EXPECT_EQ(got[0], 0xdeadbeefu);
  ASSERT_EQ(cu().cuMemUnmap(other, kPage), CUDA_SUCCESS);
  EXPECT_EQ(control::used_bytes(0), 2 * kPage);
  EXPECT_EQ(control::memory_usage(0).allocations.size(), 1u);
}

TEST_F(MockVmm, ReleasingTheContextFreesItsHandlesAndMappings) {
  init_and_make_current(0);
  const CUdeviceptr va = reserve(kPage);
  map_rw(va, kPage, create(kPage));
  EXPECT_EQ(control::used_bytes(0), kPage);
  ASSERT_EQ(cu().cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  EXPECT_EQ(control::used_bytes(0), 0u);
  EXPECT_TRUE(control::memory_usage(0).allocations.empty());
  init_and_make_current(0);
  EXPECT_EQ(cu().cuMemsetD8_v2(va, 1, 1), CUDA_ERROR_INVALID_VALUE);  // the mapping is gone
  EXPECT_EQ(cu().cuMemAddressFree(va, kPage), CUDA_SUCCESS);          // the reservation stays
}

TEST_F(MockVmm, MemoryFaultsApplyToCreate) {
  init_and_make_current(0);
  const CUmemAllocationProp prop = device_prop(0);
  control::fail_nth_allocation(0, 2);
  CUmemGenericAllocationHandle h = 0;
  EXPECT_EQ(cu().cuMemCreate(&h, kPage, &prop, 0), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 1), CUDA_ERROR_OUT_OF_MEMORY);  // the 2nd, whichever call
  control::fail_allocations_above(0, kPage);
  EXPECT_EQ(cu().cuMemCreate(&h, 2 * kPage, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
  control::set_capacity(0, 2 * kPage);
  EXPECT_EQ(cu().cuMemCreate(&h, kPage, &prop, 0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemCreate(&h, kPage, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(control::used_bytes(0), 2 * kPage);
}

}  // namespace
}  // namespace mockdev::testing
