#pragma once
// Device memory of the simulated machine as a driver has it, for tests and tools in the
// same process (the control API's memory part; see control.h for the common rules:
// thread-safe, usable in a forked child, never throws except where stated).
//
// What the simulated driver does (docs/MACHINE_FILES.md, "Memory"): every allocation is
// rounded up to the device's allocation granularity (2 MiB unless the machine file says
// otherwise); creating a context takes a per-context reserve from free memory; an
// allocation that does not fit in capacity minus what is in use fails with
// CUDA_ERROR_OUT_OF_MEMORY. Virtual-memory allocations (cuMemCreate) count as allocations
// when created, whether mapped or not. Pinned host memory is accounted per process.
//
// Devices are physical (the machine file's order; CUDA_VISIBLE_DEVICES does not apply).
// An unknown device throws std::out_of_range naming it.

#include <cstdint>
#include <string>
#include <vector>

namespace mockdev::control {

struct LiveAllocation {
  std::uint64_t address = 0;  // device address (cuMemCreate: its first mapping's, 0 while unmapped)
  std::uint64_t bytes = 0;    // as accounted: rounded to the granularity
  std::uint64_t requested_bytes = 0;  // as asked for
  std::string kind;           // "cuMemAlloc", "cuMemCreate"
  std::string context;        // the owning context: "ctx dev=<physical device>" (primary),
                              // "ctx dev=<physical device> id=<cuCtxGetId>" (from cuCtxCreate)
};

struct DeviceMemoryUsage {
  std::uint64_t capacity_bytes = 0;         // now (set_capacity may have shrunk it)
  std::uint64_t granularity_bytes = 0;
  std::uint64_t allocation_bytes = 0;       // sum of live allocations' bytes
  std::uint64_t context_reserve_bytes = 0;  // taken by live contexts
  std::uint64_t used_bytes = 0;             // allocation_bytes + context_reserve_bytes
  std::uint64_t peak_used_bytes = 0;        // max of used_bytes since reset / reset_memory_peak
  std::vector<LiveAllocation> allocations;  // by address (cuMemCreate handles last)
};

DeviceMemoryUsage memory_usage(int device);
// peak_used_bytes = used_bytes now.
void reset_memory_peak(int device);

// Pinned host memory this process holds through the driver (cuMemAllocHost,
// cuMemHostAlloc; registered memory is not counted: the process already owns it).
std::uint64_t pinned_host_bytes();

// Run-time memory faults (cleared by clear_faults() and reset(); a machine file's
// `faults.memory` sets the same at installation). An unknown device throws
// std::out_of_range; nth == 0, or a capacity above the device's memory, throws
// std::invalid_argument naming the value.
// the nth device allocation from now on `device` (cuMemAlloc or cuMemCreate; 1-based)
// fails with CUDA_ERROR_OUT_OF_MEMORY;
void fail_nth_allocation(int device, std::uint64_t nth);
// every device allocation on `device` above `bytes` (as asked for) fails with
// CUDA_ERROR_OUT_OF_MEMORY;
void fail_allocations_above(int device, std::uint64_t bytes);
// the device's capacity becomes `bytes` (live allocations stay; later ones fail while
// used_bytes would exceed it; cuMemGetInfo reports the new total).
void set_capacity(int device, std::uint64_t bytes);

}  // namespace mockdev::control
