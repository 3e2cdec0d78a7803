// The fault schedule: nth-call faults (run-time and machine-file), every-call faults,
// driver and NVML initialisation failures, sticky device errors, and call counters.

#include <stdexcept>

#include "mock_test.h"

namespace mockdev::testing {
namespace {

using MockFaults = MockTest;

TEST_F(MockFaults, NthCallFailsOnceAndFailingCallsAreCounted) {
  init_and_make_current(0);
  control::fail_call("cuMemAlloc_v2", 2, CUDA_ERROR_OUT_OF_MEMORY);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_SUCCESS);
  EXPECT_EQ(control::call_count("cuMemAlloc_v2"), 3u);
  EXPECT_EQ(control::live_objects().allocations, 2u);  // the failed call allocated nothing
}

TEST_F(MockFaults, NthCountsFromTheMomentOfScripting) {
  init_and_make_current(0);
  int count = 0;
  EXPECT_EQ(cu().cuDeviceGetCount(&count), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuDeviceGetCount(&count), CUDA_SUCCESS);
  control::fail_call("cuDeviceGetCount", 1, CUDA_ERROR_UNKNOWN);
  EXPECT_EQ(cu().cuDeviceGetCount(&count), CUDA_ERROR_UNKNOWN);
  EXPECT_EQ(cu().cuDeviceGetCount(&count), CUDA_SUCCESS);
}

TEST_F(MockFaults, NthZeroFailsEveryCallUntilCleared) {
  init_and_make_current(0);
  control::fail_call("cuCtxSynchronize", 0, CUDA_ERROR_LAUNCH_FAILED);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
  control::clear_faults();
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(control::call_count("cuCtxSynchronize"), 6u);
}

TEST_F(MockFaults, AFaultComesBeforeTheInitGate) {
  // Note [Driver call order]: the scheduled code wins over CUDA_ERROR_NOT_INITIALIZED.
  control::fail_call("cuDeviceGetCount", 1, CUDA_ERROR_UNKNOWN);
  int count = 0;
  EXPECT_EQ(cu().cuDeviceGetCount(&count), CUDA_ERROR_UNKNOWN);
  EXPECT_EQ(cu().cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
}

TEST_F(MockFaults, FaultOnCuInitLeavesTheDriverUninitialised) {
  control::fail_call("cuInit", 1, CUDA_ERROR_SYSTEM_NOT_READY);
  EXPECT_EQ(cu().cuInit(0), CUDA_ERROR_SYSTEM_NOT_READY);
  EXPECT_FALSE(control::driver_initialized());
  EXPECT_EQ(cu().cuInit(0), CUDA_SUCCESS);
}

TEST_F(MockFaults, MachineFileCallFaultsCountFromReset) {
  use_machine(std::string(MOCKDEV_TEST_MACHINES_DIR) + "/4xh100_faults.yaml");
  init_and_make_current(0);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_SUCCESS);
}

TEST_F(MockFaults, MachineFileStickyErrorAfterCalls) {
  use_machine(std::string(MOCKDEV_TEST_MACHINES_DIR) + "/4xh100_faults.yaml");
  init_and_make_current(1);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);     // touching call 1
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_SUCCESS);  // touching call 2
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(cu().cuMemFree_v2(p), CUDA_ERROR_ILLEGAL_ADDRESS);
  std::size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_ERROR_ILLEGAL_ADDRESS);
  // Queries that do not run on the device keep working.
  CUdevice dev = -1;
  EXPECT_EQ(cu().cuCtxGetDevice(&dev), CUDA_SUCCESS);
  char name[64];
  EXPECT_EQ(cu().cuDeviceGetName(name, 64, 1), CUDA_SUCCESS);
  // Device 3 is broken from the start; device 0 is fine.
  CUcontext c3 = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&c3, 3), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(c3), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_ECC_UNCORRECTABLE);
  CUcontext c0 = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&c0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(c0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(MockFaults, RunTimeStickyErrorIsPhysical) {
  setenv("CUDA_VISIBLE_DEVICES", "2", 1);
  init_and_make_current(0);  // physical device 2
  control::set_sticky_error(2, CUDA_ERROR_ILLEGAL_ADDRESS);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  control::clear_faults();
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(MockFaults, DriverInitFailure) {
  use_machine(std::string(MOCKDEV_TEST_MACHINES_DIR) + "/broken_driver.yaml");
  EXPECT_EQ(cu().cuInit(0), CUDA_ERROR_UNKNOWN);
  EXPECT_EQ(cu().cuInit(0), CUDA_ERROR_UNKNOWN);
  EXPECT_FALSE(control::driver_initialized());
  EXPECT_EQ(control::call_count("cuInit"), 2u);
  int count = 0;
  EXPECT_EQ(cu().cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(nv().nvmlInit(), NVML_ERROR_DRIVER_NOT_LOADED);
  EXPECT_EQ(nv().nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
  unsigned n = 0;
  EXPECT_EQ(nv().nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
  control::clear_faults();  // also clears the initialisation faults
  EXPECT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(nv().nvmlInit(), NVML_SUCCESS);
}

TEST_F(MockFaults, NvmlCallFaults) {
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  control::fail_call("nvmlDeviceGetCount_v2", 1, NVML_ERROR_GPU_IS_LOST);
  unsigned n = 0;
  EXPECT_EQ(nv().nvmlDeviceGetCount_v2(&n), NVML_ERROR_GPU_IS_LOST);
  EXPECT_EQ(nv().nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
  EXPECT_EQ(n, 4u);
  EXPECT_EQ(control::call_count("nvmlDeviceGetCount_v2"), 2u);
}

TEST_F(MockFaults, CountersCoverEveryCallAndReset) {
  int v = 0;
  cu().cuDriverGetVersion(&v);
  cu().cuDeviceGetCount(&v);
  cu().cuInit(0);
  cu().cuDeviceGetCount(&v);
  nv().nvmlInit();
  std::map<std::string, std::uint64_t> expected = {
      {"cuDriverGetVersion", 1}, {"cuDeviceGetCount", 2}, {"cuInit", 1}, {"nvmlInit", 1}};
  EXPECT_EQ(control::call_counts(), expected);
  control::reset_call_counts();
  EXPECT_TRUE(control::call_counts().empty());
  EXPECT_EQ(control::call_count("cuInit"), 0u);
  EXPECT_TRUE(control::driver_initialized());  // only the counters were reset
  // Counting starts afresh for entry points counted before the reset (each keeps the address
  // of its count: Note [Counted calls] in core/engine.h).
  cu().cuDeviceGetCount(&v);
  cu().cuDeviceGetCount(&v);
  nv().nvmlInit();
  expected = {{"cuDeviceGetCount", 2}, {"nvmlInit", 1}};
  EXPECT_EQ(control::call_counts(), expected);
}

// Fault entries accept the name a user sees in error messages (the base name) as well as
// the exported symbol; both name the same entry point and count the same calls.
TEST_F(MockFaults, BaseNamesAndSymbolsNameTheSameEntryPoint) {
  use_yaml(
      "name: x\ndevices:\n  - {name: a, memory: 1GiB, compute_capability: '9.0', "
      "multiprocessors: 1}\nfaults:\n  calls:\n"
      "    - {entry: cuMemGetInfo, nth: 1, code: CUDA_ERROR_UNKNOWN}\n"
      "    - {entry: cuMemGetInfo_v2, nth: 2, code: CUDA_ERROR_LAUNCH_FAILED}\n");
  ASSERT_EQ(control::machine().faults.calls.size(), 2u);
  EXPECT_EQ(control::machine().faults.calls[0].entry_point, "cuMemGetInfo_v2");
  init_and_make_current(0);
  std::size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_ERROR_UNKNOWN);
  EXPECT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);
  control::fail_call("cuMemAlloc", 1, CUDA_ERROR_OUT_OF_MEMORY);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(control::call_count("cuMemAlloc"), 1u);
  EXPECT_EQ(control::call_count("cuMemAlloc_v2"), 1u);
  EXPECT_EQ(control::call_count("cuMemGetInfo"), 3u);
  EXPECT_EQ(control::call_count("noSuchEntry"), 0u);
}

TEST_F(MockFaults, AnUnknownRunTimeFaultNameListsTheClosestNames) {
  try {
    control::fail_call("cuMemAloc", 1, CUDA_ERROR_OUT_OF_MEMORY);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "mockdev::control::fail_call: expected an entry point of the mock's APIs "
                 "(closest: cuMemAlloc, cuMemAlloc_v2), got 'cuMemAloc'");
  }
  EXPECT_THROW(control::fail_call("", 1, 1), std::invalid_argument);
}

// Note [Driver call order], steps 3-6: the calls that count toward a sticky error's
// after_calls are the calls of a device-touching entry point that reach step 6 on that
// device. A call failed by a call fault (step 3), by the init gate (step 4) or by its
// argument checks (step 5) does not count; a call that fails in step 7 (out of memory)
// does.
TEST_F(MockFaults, WhichCallsCountTowardAfterCalls) {
  use_yaml(
      "name: x\ndevices:\n  - {name: a, memory: 1KiB, compute_capability: '9.0', "
      "multiprocessors: 1}\nfaults:\n  sticky:\n"
      "    - {device: 0, code: CUDA_ERROR_ILLEGAL_ADDRESS, after_calls: 3}\n");
  std::size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_ERROR_NOT_INITIALIZED);  // step 4
  init_and_make_current(0);
  control::fail_call("cuCtxSynchronize", 1, CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);  // step 3: not counted
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(nullptr, 16), CUDA_ERROR_INVALID_VALUE);  // step 5
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 0), CUDA_ERROR_INVALID_VALUE);        // step 5
  EXPECT_EQ(cu().cuMemFree_v2(0x1234), CUDA_ERROR_INVALID_VALUE);        // step 5
  EXPECT_EQ(cu().cuMemFree_v2(0), CUDA_SUCCESS);     // frees nothing, touches no device
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);  // counted: 1
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 4096), CUDA_ERROR_OUT_OF_MEMORY);   // counted: 2
  EXPECT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);  // counted: 3
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);      // the 4th
}

// A call with no current context names no device, so it counts toward no sticky error.
TEST_F(MockFaults, ACallWithoutAContextCountsTowardNoStickyError) {
  use_yaml(
      "name: x\ndevices:\n  - {name: a, memory: 1KiB, compute_capability: '9.0', "
      "multiprocessors: 1}\nfaults:\n  sticky:\n"
      "    - {device: 0, code: CUDA_ERROR_ILLEGAL_ADDRESS, after_calls: 1}\n");
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
  init_and_make_current(0);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
}

}  // namespace
}  // namespace mockdev::testing
