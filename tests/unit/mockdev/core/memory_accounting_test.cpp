// Device memory as a driver has it (Note [Allocation granularity] in core/memory.h): the
// granularity, the per-context reserve, the machine-file keys that set them, the control
// API's usage report and peak, the run-time memory faults, and pinned host bytes.

#include <stdexcept>
#include <string>

#include "mock_test.h"
#include "mockdev/memory.h"

namespace mockdev::testing {
namespace {

constexpr std::uint64_t kKiB = 1ULL << 10;
constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;

using MockMemoryAccounting = MockTest;

std::uint64_t free_now() {
  std::size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cuda().cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);
  return free_bytes;
}

std::string machine_error(std::string_view yaml) {
  try {
    parse_machine(yaml, "m.yaml");
  } catch (const MachineFileError& e) {
    return e.what();
  }
  return "(no error)";
}

// One device of 1 GiB with the given extra keys.
std::string one_device(std::string_view keys) {
  return "name: small\ndevices:\n  - name: Small\n    memory: 1GiB\n"
         "    compute_capability: '9.0'\n    multiprocessors: 1\n" +
         std::string(keys);
}

TEST_F(MockMemoryAccounting, AllocationsTakeWholeGranules) {
  init_and_make_current(0);
  CUdeviceptr a = 0, b = 0, c = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&a, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemAlloc_v2(&b, 2 * kMiB), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemAlloc_v2(&c, 2 * kMiB + 1), CUDA_SUCCESS);
  EXPECT_EQ(control::used_bytes(0), 2 * kMiB + 2 * kMiB + 4 * kMiB);
  EXPECT_EQ(free_now(), 80 * kGiB - 8 * kMiB);
  // Placed a granule apart, in order, never overlapping.
  EXPECT_EQ(a % (2 * kMiB), 0u);
  EXPECT_EQ(b, a + 2 * kMiB);
  EXPECT_EQ(c, b + 2 * kMiB);
  // The bounds stay what was asked for: a copy past the first byte of `a` fails.
  unsigned char bytes[2] = {1, 2};
  EXPECT_EQ(cu().cuMemcpyHtoD_v2(a, bytes, 1), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemcpyHtoD_v2(a, bytes, 2), CUDA_ERROR_INVALID_VALUE);
  // Freed addresses are never handed out again.
  ASSERT_EQ(cu().cuMemFree_v2(a), CUDA_SUCCESS);
  CUdeviceptr d = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&d, 1), CUDA_SUCCESS);
  EXPECT_EQ(d, c + 4 * kMiB);
  EXPECT_EQ(control::used_bytes(0), 10 * kMiB - 2 * kMiB);
}

TEST_F(MockMemoryAccounting, MachineFileSetsGranularityAndContextReserve) {
  use_yaml(one_device("    allocation_granularity: 64KiB\n    context_reserve: 100MiB\n"));
  EXPECT_EQ(control::memory_usage(0).used_bytes, 0u);  // no context yet
  init_and_make_current(0);
  control::DeviceMemoryUsage u = control::memory_usage(0);
  EXPECT_EQ(u.granularity_bytes, 64 * kKiB);
  EXPECT_EQ(u.context_reserve_bytes, 100 * kMiB);
  EXPECT_EQ(u.used_bytes, 100 * kMiB);
  EXPECT_EQ(free_now(), kGiB - 100 * kMiB);
  CUdeviceptr p = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&p, 1000), CUDA_SUCCESS);
  EXPECT_EQ(free_now(), kGiB - 100 * kMiB - 64 * kKiB);
  // OOM at capacity, counting the reserve.
  CUdeviceptr q = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&q, kGiB - 100 * kMiB), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_EQ(cu().cuMemAlloc_v2(&q, kGiB - 100 * kMiB - 64 * kKiB), CUDA_SUCCESS);
  EXPECT_EQ(free_now(), 0u);
  // A second retain of the same context takes nothing more; the last release gives the
  // reserve back along with the context's allocations.
  CUcontext again = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&again, 0), CUDA_SUCCESS);
  EXPECT_EQ(control::memory_usage(0).context_reserve_bytes, 100 * kMiB);
  ASSERT_EQ(cu().cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  u = control::memory_usage(0);
  EXPECT_EQ(u.used_bytes, 0u);
  EXPECT_EQ(u.context_reserve_bytes, 0u);
  EXPECT_TRUE(u.allocations.empty());
  EXPECT_EQ(u.peak_used_bytes, kGiB);
}

TEST_F(MockMemoryAccounting, AContextWhoseReserveDoesNotFitIsOutOfMemory) {
  use_yaml(one_device("    context_reserve: 2GiB\n"));
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  CUcontext ctx = nullptr;
  EXPECT_EQ(cu().cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_ERROR_OUT_OF_MEMORY);
  unsigned flags = 0;
  int active = 1;
  ASSERT_EQ(cu().cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(active, 0);
  EXPECT_EQ(control::memory_usage(0).used_bytes, 0u);
}

TEST_F(MockMemoryAccounting, DefaultsAreTwoMiBAndNoReserve) {
  const MachineSpec m = load_machine("4xh100");
  EXPECT_EQ(m.devices[0].allocation_granularity, 2 * kMiB);
  EXPECT_EQ(m.devices[0].context_reserve_bytes, 0u);
  EXPECT_EQ(parse_machine(one_device("    context_reserve: 0\n"), "m.yaml")
                .devices[0]
                .context_reserve_bytes,
            0u);
}

TEST_F(MockMemoryAccounting, BadGranularityIsAnErrorNamingTheValue) {
  const std::string what =
      "devices[0].allocation_granularity: expected a power of two of at least 4 KiB (e.g. "
      "2MiB), got '";
  for (const char* bad : {"3MiB", "2KiB", "0", "1000", "lots"}) {
    std::string expected = "m.yaml:7: " + what + bad + "'";
    if (std::string(bad) == "lots") {
      expected =
          "m.yaml:7: devices[0].allocation_granularity: expected a size in bytes or with a unit "
          "(B, KiB, MiB, GiB, TiB, KB, MB, GB, TB), got 'lots'";
    }
    EXPECT_EQ(machine_error(one_device(std::string("    allocation_granularity: ") + bad + "\n")),
              expected)
        << bad;
  }
  EXPECT_EQ(machine_error(one_device("    context_reserve: -5\n")),
            "m.yaml:7: devices[0].context_reserve: expected a size in bytes or with a unit (B, "
            "KiB, MiB, GiB, TiB, KB, MB, GB, TB), got '-5'");
}

TEST_F(MockMemoryAccounting, UsageListsLiveAllocationsWithContextAndPeak) {
  init_and_make_current(1);
  CUdeviceptr a = 0, b = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&a, 3 * kMiB), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemAlloc_v2(&b, 100), CUDA_SUCCESS);
  control::DeviceMemoryUsage u = control::memory_usage(1);
  EXPECT_EQ(u.capacity_bytes, 80 * kGiB);
  EXPECT_EQ(u.granularity_bytes, 2 * kMiB);
  EXPECT_EQ(u.allocation_bytes, 6 * kMiB);
  EXPECT_EQ(u.context_reserve_bytes, 0u);
  EXPECT_EQ(u.used_bytes, 6 * kMiB);
  EXPECT_EQ(u.peak_used_bytes, 6 * kMiB);
  ASSERT_EQ(u.allocations.size(), 2u);
  EXPECT_EQ(u.allocations[0].address, a);
  EXPECT_EQ(u.allocations[0].bytes, 4 * kMiB);
  EXPECT_EQ(u.allocations[0].requested_bytes, 3 * kMiB);
  EXPECT_EQ(u.allocations[0].kind, "cuMemAlloc");
  EXPECT_EQ(u.allocations[0].context, "ctx dev=1");
  EXPECT_EQ(u.allocations[1].address, b);
  EXPECT_EQ(u.allocations[1].bytes, 0u);  // its shared granule holds the charge
  EXPECT_EQ(u.allocations[1].requested_bytes, 100u);
  EXPECT_TRUE(control::memory_usage(0).allocations.empty());

  ASSERT_EQ(cu().cuMemFree_v2(a), CUDA_SUCCESS);
  u = control::memory_usage(1);
  EXPECT_EQ(u.used_bytes, 2 * kMiB);
  EXPECT_EQ(u.peak_used_bytes, 6 * kMiB);  // the peak stays
  control::reset_memory_peak(1);
  EXPECT_EQ(control::memory_usage(1).peak_used_bytes, 2 * kMiB);
  ASSERT_EQ(cu().cuMemAlloc_v2(&a, 1), CUDA_SUCCESS);  // into b's granule: no new charge
  EXPECT_EQ(control::memory_usage(1).peak_used_bytes, 2 * kMiB);
  ASSERT_EQ(cu().cuMemAlloc_v2(&a, 2 * kMiB), CUDA_SUCCESS);
  EXPECT_EQ(control::memory_usage(1).peak_used_bytes, 4 * kMiB);
}

TEST_F(MockMemoryAccounting, UnknownDevicesAndBadFaultArgumentsThrow) {
  EXPECT_THROW(control::memory_usage(4), std::out_of_range);
  EXPECT_THROW(control::reset_memory_peak(-1), std::out_of_range);
  EXPECT_THROW(control::fail_allocations_above(9, 1), std::out_of_range);
  try {
    control::memory_usage(7);
    ADD_FAILURE() << "no throw";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "mockdev::control::memory_usage: no device 7 (the machine has 4)");
  }
  try {
    control::fail_nth_allocation(0, 0);
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "mockdev::control::fail_nth_allocation: expected nth >= 1 (1-based), got 0");
  }
  try {
    control::set_capacity(0, 81 * kGiB);
    ADD_FAILURE() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "mockdev::control::set_capacity: expected at most the device's 85899345920 "
                 "bytes, got 86973087744");
  }
}

TEST_F(MockMemoryAccounting, FailTheNthAllocationOnce) {
  init_and_make_current(0);
  control::fail_nth_allocation(0, 3);
  control::fail_nth_allocation(1, 1);  // another device: no effect here
  CUdeviceptr p[4] = {};
  EXPECT_EQ(cu().cuMemAlloc_v2(&p[0], 10), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p[1], 10), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p[2], 10), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(p[2], 0u);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p[3], 10), CUDA_SUCCESS);
  // The three small allocations share one granule (Note [Small allocations]).
  EXPECT_EQ(control::memory_usage(0).used_bytes, 2 * kMiB);
  EXPECT_EQ(control::memory_usage(0).allocations.size(), 3u);
}

TEST_F(MockMemoryAccounting, FailAllocationsAboveASize) {
  init_and_make_current(0);
  control::fail_allocations_above(0, kMiB);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, kMiB + 1), CUDA_ERROR_OUT_OF_MEMORY);  // as asked for
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, kMiB), CUDA_SUCCESS);  // rounds to 2 MiB, still allowed
  EXPECT_EQ(control::used_bytes(0), 2 * kMiB);
  control::clear_faults();
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, kGiB), CUDA_SUCCESS);
}

TEST_F(MockMemoryAccounting, ShrinkCapacityAtRunTime) {
  init_and_make_current(0);
  CUdeviceptr a = 0, b = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&a, 6 * kMiB), CUDA_SUCCESS);
  control::set_capacity(0, 4 * kMiB);  // below what is in use: live allocations stay
  std::size_t free_bytes = 1, total = 0;
  ASSERT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);
  EXPECT_EQ(total, 4 * kMiB);
  EXPECT_EQ(free_bytes, 0u);
  EXPECT_EQ(cu().cuMemAlloc_v2(&b, 1), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_EQ(cu().cuMemFree_v2(a), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAlloc_v2(&b, 4 * kMiB + 1), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(cu().cuMemAlloc_v2(&b, 4 * kMiB), CUDA_SUCCESS);
  EXPECT_EQ(control::memory_usage(0).capacity_bytes, 4 * kMiB);
  // clear_faults restores the machine's capacity; reset() does too.
  control::clear_faults();
  ASSERT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);
  EXPECT_EQ(total, 80 * kGiB);
  EXPECT_EQ(free_bytes, 80 * kGiB - 4 * kMiB);
  control::set_capacity(0, kMiB);
  use_machine("4xh100");
  EXPECT_EQ(control::memory_usage(0).capacity_bytes, 80 * kGiB);
}

TEST_F(MockMemoryAccounting, PinnedHostBytesCountDriverAllocationsOnly) {
  init_and_make_current(0);
  EXPECT_EQ(control::pinned_host_bytes(), 0u);
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(cu().cuMemAllocHost_v2(&a, 1000), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemHostAlloc(&b, 5000, 0), CUDA_SUCCESS);
  EXPECT_EQ(control::pinned_host_bytes(), 6000u);
  alignas(4096) static unsigned char user[8192];
  ASSERT_EQ(cu().cuMemHostRegister_v2(user, sizeof user, 0), CUDA_SUCCESS);
  EXPECT_EQ(control::pinned_host_bytes(), 6000u);  // registered memory is the process's own
  ASSERT_EQ(cu().cuMemFreeHost(a), CUDA_SUCCESS);
  EXPECT_EQ(control::pinned_host_bytes(), 5000u);
  ASSERT_EQ(cu().cuMemFreeHost(b), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemHostUnregister(user), CUDA_SUCCESS);
  EXPECT_EQ(control::pinned_host_bytes(), 0u);
}

}  // namespace
}  // namespace mockdev::testing

namespace mockdev::testing {
namespace {

TEST_F(MockMemoryAccounting, MachineFileMemoryFaultsApplyFromInstallation) {
  use_yaml(
      one_device("faults:\n  memory:\n    - {device: 0, fail_nth_allocation: 2}\n"
                 "    - {device: 0, fail_allocations_above: 8MiB, capacity: 10MiB}\n"));
  init_and_make_current(0);
  EXPECT_EQ(control::memory_usage(0).capacity_bytes, 10 * kMiB);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 1), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 1), CUDA_ERROR_OUT_OF_MEMORY);             // the 2nd
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 8 * kMiB + 1), CUDA_ERROR_OUT_OF_MEMORY);  // above 8 MiB
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 8 * kMiB), CUDA_SUCCESS);  // 2 + 8 = 10 MiB: full
  // A small allocation still fits in the first one's granule (Note [Small allocations]);
  // one that needs a granule of its own does not.
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 1), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 2 * kMiB), CUDA_ERROR_OUT_OF_MEMORY);
  control::clear_faults();
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 100 * kMiB), CUDA_SUCCESS);
}

TEST_F(MockMemoryAccounting, MachineFileMemoryFaultsAreChecked) {
  EXPECT_EQ(machine_error(one_device("faults:\n  memory:\n    - {device: 1, capacity: 1MiB}\n")),
            "m.yaml:9: faults.memory[0].device: expected an integer from 0 to 0, got '1'");
  EXPECT_EQ(machine_error(one_device("faults:\n  memory:\n    - {device: 0}\n")),
            "m.yaml:9: faults.memory[0]: expected a mapping with keys device and "
            "fail_nth_allocation, fail_allocations_above or capacity, got '{...}'");
  EXPECT_EQ(machine_error(one_device("faults:\n  memory:\n    - {device: 0, capacity: 2GiB}\n")),
            "m.yaml:9: faults.memory[0].capacity: expected a size of at most the device's memory "
            "(1073741824 bytes), got '2GiB'");
  EXPECT_EQ(
      machine_error(one_device("faults:\n  memory:\n    - {device: 0, fail_nth_allocation: 0}\n")),
      "m.yaml:9: faults.memory[0].fail_nth_allocation: expected an integer from 1 to "
      "18446744073709551615, got '0'");
}

}  // namespace
}  // namespace mockdev::testing
