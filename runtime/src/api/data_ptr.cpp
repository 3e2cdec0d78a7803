// Device allocation through the caching allocator: DataPtr, allocate, raw_alloc,
// raw_delete, record_stream (accel/memory.h).
#include <cstdio>
#include <exception>
#include <limits>
#include <utility>

#include "accel/memory.h"
#include "accel_common/units.h"
#include "api/current_stream.h"
#include "api/memory_common.h"

namespace accel {

namespace {

using detail::RuntimeState;

void* allocate_on(const Stream& stream, std::size_t bytes, const CallSite& site) {
  RuntimeState& state = detail::checked_stream(stream);
  const std::uint64_t address = detail::allocator_of(state).allocate(
      stream.device_index(), bytes, stream.id(), detail::frame_of(site));
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address));
}

void free_pointer(void* pointer, const CallSite& site, std::string_view operation) {
  if (pointer == nullptr) return;
  RuntimeState& state = detail::current_state();
  detail::alloc::CachingAllocator* allocator = detail::allocator_if_initialized(state);
  const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pointer));
  if (allocator == nullptr) {
    throw Error(ErrorKind::kValue, std::string(operation) + ": pointer " +
                                       common::hex_address(address) +
                                       " is not a live allocation of the caching allocator "
                                       "(nothing was allocated: the runtime is not initialised)");
  }
  allocator->free(address, detail::frame_of(site), operation);
}

}  // namespace

DataPtr::DataPtr(DataPtr&& other) noexcept
    : pointer_(std::exchange(other.pointer_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      device_(std::exchange(other.device_, -1)) {}

DataPtr& DataPtr::operator=(DataPtr&& other) noexcept {
  // The old block goes back as the destructor would free it (swap, then the moved-from
  // temporary frees it).
  DataPtr old(std::move(*this));
  pointer_ = std::exchange(other.pointer_, nullptr);
  bytes_ = std::exchange(other.bytes_, 0);
  device_ = std::exchange(other.device_, -1);
  return *this;
}

// A destructor cannot report: a failure (a forked child, a pointer freed behind our back
// with raw_delete) is one warning line on stderr, never an exception.
DataPtr::~DataPtr() {
  if (pointer_ == nullptr) return;
  try {
    reset();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accel: warning: DataPtr destructor: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "accel: warning: DataPtr destructor: unknown exception\n");
  }
}

void DataPtr::reset(CallSite site) {
  void* pointer = std::exchange(pointer_, nullptr);
  bytes_ = 0;
  device_ = -1;
  free_pointer(pointer, site, "DataPtr::reset");
}

void* DataPtr::release() noexcept {
  bytes_ = 0;
  device_ = -1;
  return std::exchange(pointer_, nullptr);
}

DataPtr allocate(std::size_t bytes, CallSite site) {
  return allocate(bytes, current_stream(), site);
}

DataPtr allocate(std::size_t bytes, const Stream& stream, CallSite site) {
  void* pointer = allocate_on(stream, bytes, site);
  if (pointer == nullptr) return DataPtr();
  return DataPtr(pointer, bytes, stream.device_index());
}

void* raw_alloc(std::size_t bytes, CallSite site) {
  return raw_alloc(bytes, current_stream(), site);
}

void* raw_alloc(std::size_t bytes, const Stream& stream, CallSite site) {
  return allocate_on(stream, bytes, site);
}

void raw_delete(void* pointer, CallSite site) {
  free_pointer(pointer, site, "raw_delete");
}

void record_stream(void* pointer, const Stream& stream) {
  RuntimeState& state = detail::checked_stream(stream);
  const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pointer));
  detail::alloc::CachingAllocator& allocator = detail::allocator_of(state);
  const int owner = pointer == nullptr ? -1 : allocator.device_of(address);
  if (owner < 0) {
    throw Error(ErrorKind::kValue, "record_stream: pointer " +
                                       common::hex_address(address) +
                                       " is not inside a live block of the caching allocator");
  }
  if (owner != stream.device_index()) {
    ErrorDetail detail;
    detail.device = stream.device_index();
    throw Error(ErrorKind::kValue,
                "record_stream: stream " + std::to_string(stream.id()) + " belongs to device " +
                    std::to_string(stream.device_index()) + " but pointer " +
                    common::hex_address(address) + " is memory of device " +
                    std::to_string(owner),
                detail);
  }
  allocator.device(owner).record_stream(address, stream.id());
}

void record_stream(const DataPtr& data, const Stream& stream) {
  if (!data) throw Error(ErrorKind::kValue, "record_stream: the DataPtr is null (owns no memory)");
  record_stream(data.get(), stream);
}

}  // namespace accel
