// Pinned host memory through the pinned host caching allocator (accel/memory.h).
#include <cstdio>
#include <exception>
#include <utility>

#include "accel/memory.h"
#include "accel_common/units.h"
#include "api/memory_common.h"

namespace accel {

namespace {

using detail::RuntimeState;
using detail::alloc::CachingAllocator;

std::uint64_t address_of(void* pointer) {
  return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pointer));
}

}  // namespace

HostPtr::HostPtr(HostPtr&& other) noexcept
    : pointer_(std::exchange(other.pointer_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

HostPtr& HostPtr::operator=(HostPtr&& other) noexcept {
  HostPtr old(std::move(*this));  // freed when `old` goes
  pointer_ = std::exchange(other.pointer_, nullptr);
  bytes_ = std::exchange(other.bytes_, 0);
  return *this;
}

// As DataPtr's: a failure is one warning line on stderr, never an exception.
HostPtr::~HostPtr() {
  if (pointer_ == nullptr) return;
  try {
    reset();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accel: warning: HostPtr destructor: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "accel: warning: HostPtr destructor: unknown exception\n");
  }
}

void HostPtr::reset() {
  void* pointer = std::exchange(pointer_, nullptr);
  bytes_ = 0;
  if (pointer != nullptr) raw_host_delete(pointer);
}

void* HostPtr::release() noexcept {
  bytes_ = 0;
  return std::exchange(pointer_, nullptr);
}

HostPtr allocate_host(std::size_t bytes) {
  void* pointer = raw_host_alloc(bytes);
  if (pointer == nullptr) return HostPtr();
  return HostPtr(pointer, bytes);
}

void* raw_host_alloc(std::size_t bytes) {
  RuntimeState& state = detail::initialized_memory_state();
  return detail::allocator_of(state).host().allocate(bytes);
}

void raw_host_delete(void* pointer) {
  if (pointer == nullptr) return;
  RuntimeState& state = detail::current_state();
  CachingAllocator* allocator = detail::allocator_if_initialized(state);
  if (allocator == nullptr) {
    throw Error(ErrorKind::kValue, "raw_host_delete: pointer " +
                                       common::hex_address(address_of(pointer)) +
                                       " is not a pinned block (the runtime is not initialised)");
  }
  allocator->host().free(pointer);
}

void record_host_use(void* pointer, const Stream& stream) {
  RuntimeState& state = detail::checked_stream(stream);
  detail::allocator_of(state).host().record_use(pointer, stream.device_index(), stream.id());
}

void empty_host_cache() {
  RuntimeState& state = detail::current_state();
  if (CachingAllocator* allocator = detail::allocator_if_initialized(state)) {
    allocator->host().empty_cache();
  }
}

MemoryStats host_memory_stats() {
  RuntimeState& state = detail::current_state();
  CachingAllocator* allocator = detail::allocator_if_initialized(state);
  if (allocator == nullptr) return {};
  return allocator->host().stats();
}

void reset_peak_host_memory_stats() {
  RuntimeState& state = detail::current_state();
  if (CachingAllocator* allocator = detail::allocator_if_initialized(state)) {
    allocator->host().reset_peak_stats();
  }
}

void reset_accumulated_host_memory_stats() {
  RuntimeState& state = detail::current_state();
  if (CachingAllocator* allocator = detail::allocator_if_initialized(state)) {
    allocator->host().reset_accumulated_stats();
  }
}

}  // namespace accel
