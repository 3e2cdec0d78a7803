#pragma once
// The driver entry points the stream, event and graph conformance tests call directly, to
// queue real work (memsets, copies) on the streams the runtime hands out
// (Stream::native_handle()) and to read device memory back. Loaded with the shared loader
// (tests/support/abi_loader.h) from the driver file the runtime was pointed at
// (runtime_driver_file(): ACCEL_CUDA_DRIVER, default libcuda.so.1): on the simulated
// hardware the mock facade, on a GPU machine the real driver. Calls act on the calling
// thread's current context, so a test selects the device through the runtime first.
// Header-only; for use inside run_isolated bodies.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "abi_loader.h"
#include "accel/accelerator.h"
#include "accel_abi/cuda_driver.h"
#include "conformance_test.h"
#include "driver_count.h"
#include "mockdev/control.h"
#include "runtime_work.h"

namespace accel::test {

// Every slot of the table; the tests call only the entry points load_driver_calls()
// checks (a real driver may lack newer rows), so a test that calls another one adds it
// there.
struct DriverCalls : CudaEntryPoints {
  std::string error;  // why something could not be resolved; empty when all were
};

inline DriverCalls load_driver_calls() {
  DriverCalls calls;
  // RTLD_NOW only: the runtime has already opened the same file (same SONAME), so dlopen
  // returns that object.
  const LoadReport report = load_cuda_entry_points(runtime_driver_file(), calls, RTLD_NOW);
  if (!report.opened()) {
    calls.error = report.open_error;
    return calls;
  }
  const std::string missing = report.missing_of(
      {"cuMemAlloc_v2", "cuMemFree_v2", "cuMemsetD8_v2", "cuMemsetD8Async", "cuMemcpyDtoH_v2",
       "cuMemcpyDtoDAsync_v2", "cuDeviceGet", "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent"});
  if (!missing.empty()) calls.error = "unresolved: " + missing;
  return calls;
}

// Makes device `ordinal`'s primary context current on this thread for the test's own
// driver calls. The runtime does not promise that: like PyTorch, set_device_index(0) on a
// thread that is already on device 0 creates no context, and the runtime's own calls
// restore the thread's previous context. The reference taken here is kept (the test's
// child process ends soon): the runtime may not hold one yet, and releasing the last
// reference would destroy the context under the runtime.
inline void use_primary_context(const DriverCalls& calls, int ordinal) {
  cuda_abi::CUdevice device = 0;
  ASSERT_EQ(calls.cuDeviceGet(&device, ordinal), cuda_abi::CUDA_SUCCESS);
  cuda_abi::CUcontext ctx = nullptr;
  ASSERT_EQ(calls.cuDevicePrimaryCtxRetain(&ctx, device), cuda_abi::CUDA_SUCCESS);
  ASSERT_EQ(calls.cuCtxSetCurrent(ctx), cuda_abi::CUDA_SUCCESS);
}

inline cuda_abi::CUstream as_cu_stream(std::uintptr_t handle) {
  return reinterpret_cast<cuda_abi::CUstream>(handle);
}

using cuda_abi::CUDA_SUCCESS;
using cuda_abi::CUdeviceptr;

// `bytes` of device memory on the current device, freed at scope exit.
struct DeviceBuffer {
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  const DriverCalls& driver;
  CUdeviceptr ptr = 0;
  DeviceBuffer(const DriverCalls& d, std::size_t bytes) : driver(d) {
    EXPECT_EQ(driver.cuMemAlloc_v2(&ptr, bytes), CUDA_SUCCESS);
  }
  ~DeviceBuffer() {
    if (ptr != 0) {
      EXPECT_EQ(driver.cuMemFree_v2(ptr), CUDA_SUCCESS);
    }
  }
  std::vector<unsigned char> read(std::size_t bytes) const {
    std::vector<unsigned char> host(bytes, 0xEE);
    EXPECT_EQ(driver.cuMemcpyDtoH_v2(host.data(), ptr, bytes), CUDA_SUCCESS);
    return host;
  }
};

inline DriverCalls require_driver_calls() {
  DriverCalls calls = load_driver_calls();
  if (!calls.error.empty()) fail_in_child("driver entry points: " + calls.error);
  return calls;
}

// The preamble of a test that queues its own driver work, inside a run_isolated body: at
// least `devices` physical devices (else the child skips), on the simulated hardware the
// schedule from the child's environment when `schedule_from_environment`, the driver entry
// points (else the child fails), `device` selected through the runtime and its primary
// context current on this thread. Returns the entry points.
struct DriverWork {
  int devices = 1;
  int device = 0;
  bool schedule_from_environment = false;
};
inline DriverCalls prepare_driver_work(const BackendProfile& profile, const DriverWork& work) {
  require_physical_devices(profile, work.devices);
  if (work.schedule_from_environment) schedule_from_environment(profile);
  DriverCalls driver = require_driver_calls();
  set_device_index(work.device);
  use_primary_context(driver, work.device);
  return driver;
}

}  // namespace accel::test
