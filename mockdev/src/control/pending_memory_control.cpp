// WORK IN PROGRESS -- deleted before the allocator work lands. The memory control API
// (mockdev/memory.h) while it is being written: every call throws std::logic_error.

#include <stdexcept>

#include "mockdev/memory.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace mockdev::control {
namespace {
[[noreturn]] void pending(const char* what) {
  throw std::logic_error(std::string(what) + ": not written yet");
}
}  // namespace

DeviceMemoryUsage memory_usage(int device) { pending("memory_usage"); }
void reset_memory_peak(int device) { pending("reset_memory_peak"); }
std::uint64_t pinned_host_bytes() { pending("pinned_host_bytes"); }
void fail_nth_allocation(int device, std::uint64_t nth) { pending("fail_nth_allocation"); }
void fail_allocations_above(int device, std::uint64_t bytes) { pending("fail_allocations_above"); }
void set_capacity(int device, std::uint64_t bytes) { pending("set_capacity"); }

}  // namespace mockdev::control
