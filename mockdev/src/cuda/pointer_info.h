#pragma once
// What the simulated driver knows about an address (driver_pointer.cpp, driver_managed.cpp):
// the kind of memory it lies in, that memory's bounds, device, owning context and identity.
// Caller holds the engine lock.

#include <cstdint>

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"
#include "cuda/cuda_state.h"

namespace mockdev::cuda {

struct PointerInfo {
  enum class Kind {
    kNone,     // not memory the driver allocated, mapped or registered
    kDevice,   // cuMemAlloc / cuMemAllocPitch / a memory pool's allocation
    kMapped,   // mapped virtual memory (cuMemMap)
    kHost,     // pinned host memory: allocated (cuMemAllocHost, cuMemHostAlloc) or registered
    kManaged,  // cuMemAllocManaged
  };
  Kind kind = Kind::kNone;
  std::uint64_t base = 0;        // the allocation, mapping or host range holding the address
  std::uint64_t bytes = 0;       // its size (as asked for)
  std::uint64_t range_base = 0;  // RANGE_START_ADDR: the reservation for mapped memory
  std::uint64_t range_bytes = 0;
  int physical = 0;                // the device it is on (host memory: its context's device)
  std::uint64_t context_key = 0;   // core::Allocation::context
  std::uint64_t buffer_id = 0;     // unique for the machine, never reused
  std::uint64_t block_id = 0;      // the physical allocation's identity
  bool device_accessible = false;  // device work may use it at its own address
  bool host_accessible = false;    // the host may use it at its own address
  bool allocated = false;          // kHost: the driver allocated it (not registered)
  bool read_write = true;          // kMapped: cuMemSetAccess granted read-write access
  unsigned host_flags = 0;         // kHost: the flags it was allocated or registered with
  accel::cuda_abi::CUmemoryPool pool = nullptr;  // kDevice: the pool it came from
};

// The memory holding `address` (PointerInfo::Kind::kNone when none holds it).
PointerInfo pointer_info(std::uint64_t address) MOCKDEV_REQUIRES(core::g_engine_mutex);

// The context handle a context key names on physical device `physical` (0: the device's
// primary context), or nullptr.
CUctx_st* context_of(int physical, std::uint64_t key) MOCKDEV_REQUIRES(core::g_engine_mutex);

// The visible ordinal of physical device `physical`, or kDeviceInvalid when it is hidden.
int ordinal_of(int physical) MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda
