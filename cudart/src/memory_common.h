#pragma once
// What the memory files (memory.cpp, memory_copies.cpp, memory_pools.cpp) share: the driver
// and context every memory call runs on, and the check of a cudaMemcpyKind (spec
// cuda_runtime.md §4). Thread-safe; never throws.

#include "api.h"
#include "context.h"
#include "driver.h"

namespace accel::cudart {

// The driver, loaded, and the context the calling thread's runtime calls use (Note [Implicit
// primary contexts] in context.h): cudaSuccess with `*d` (and `*device`, the ordinal), or
// the error that keeps the call from running.
[[nodiscard]] inline cudaError_t memory_context(const DriverTable** d, int* device = nullptr) {
  if (const cudaError_t e = load_driver(d); e != cudaSuccess) return e;
  int ordinal = 0;
  if (const cudaError_t e = require_context(**d, &ordinal); e != cudaSuccess) return e;
  if (device != nullptr) *device = ordinal;
  return cudaSuccess;
}

// A kind outside the enum is cudaErrorInvalidMemcpyDirection (21), whatever the pointers.
[[nodiscard]] inline bool valid_kind(cudaMemcpyKind kind) noexcept {
  const int value = static_cast<int>(kind);
  return value >= cudaMemcpyHostToHost && value <= cudaMemcpyDefault;
}

[[nodiscard]] inline drv::CUdeviceptr device_address(const void* p) noexcept {
  return static_cast<drv::CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p));
}

[[nodiscard]] inline void* host_address(drv::CUdeviceptr p) noexcept {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p));
}

}  // namespace accel::cudart
