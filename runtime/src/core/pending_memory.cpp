// WORK IN PROGRESS -- deleted before the allocator work lands. The public memory API
// (accel/memory.h) while it is being written: every call throws kUnsupported.

#include "accel/memory.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace accel {
namespace {
[[noreturn]] void pending(const char* what) {
  throw Error(ErrorKind::kUnsupported, std::string(what) + ": not written yet");
}
}  // namespace

DataPtr::DataPtr(DataPtr&& other) noexcept
    : pointer_(other.pointer_), bytes_(other.bytes_), device_(other.device_) {
  other.pointer_ = nullptr;
}
DataPtr& DataPtr::operator=(DataPtr&& other) noexcept {
  std::swap(pointer_, other.pointer_);
  std::swap(bytes_, other.bytes_);
  std::swap(device_, other.device_);
  return *this;
}
DataPtr::~DataPtr() = default;
void DataPtr::reset(std::source_location) { pending("DataPtr::reset"); }
void* DataPtr::release() noexcept {
  void* p = pointer_;
  pointer_ = nullptr;
  return p;
}
DataPtr allocate(std::size_t, std::source_location) { pending("allocate"); }
DataPtr allocate(std::size_t, const Stream&, std::source_location) { pending("allocate"); }
void* raw_alloc(std::size_t, std::source_location) { pending("raw_alloc"); }
void* raw_alloc(std::size_t, const Stream&, std::source_location) { pending("raw_alloc"); }
void raw_delete(void*, std::source_location) { pending("raw_delete"); }
void record_stream(void*, const Stream&) { pending("record_stream"); }
void record_stream(const DataPtr&, const Stream&) { pending("record_stream"); }
bool is_allocator_initialized() { return false; }
void empty_cache() { pending("empty_cache"); }
MemoryStats memory_stats(DeviceArg) { pending("memory_stats"); }
std::int64_t memory_allocated(DeviceArg) { pending("memory_allocated"); }
std::int64_t max_memory_allocated(DeviceArg) { pending("max_memory_allocated"); }
std::int64_t memory_reserved(DeviceArg) { pending("memory_reserved"); }
std::int64_t max_memory_reserved(DeviceArg) { pending("max_memory_reserved"); }
void reset_peak_memory_stats(DeviceArg) { pending("reset_peak_memory_stats"); }
void reset_accumulated_memory_stats(DeviceArg) { pending("reset_accumulated_memory_stats"); }
void set_per_process_memory_fraction(double, DeviceArg) { pending("set_per_process_memory_fraction"); }
double get_per_process_memory_fraction(DeviceArg) { pending("get_per_process_memory_fraction"); }
void set_allocator_settings(std::string_view) { pending("set_allocator_settings"); }
std::string get_allocator_settings() { pending("get_allocator_settings"); }
MemorySnapshot memory_snapshot() { pending("memory_snapshot"); }
void record_memory_history(bool, std::size_t) { pending("record_memory_history"); }
void dump_snapshot(const std::string&) { pending("dump_snapshot"); }

HostPtr::HostPtr(HostPtr&& other) noexcept : pointer_(other.pointer_), bytes_(other.bytes_) {
  other.pointer_ = nullptr;
}
HostPtr& HostPtr::operator=(HostPtr&& other) noexcept {
  std::swap(pointer_, other.pointer_);
  std::swap(bytes_, other.bytes_);
  return *this;
}
HostPtr::~HostPtr() = default;
void HostPtr::reset() { pending("HostPtr::reset"); }
void* HostPtr::release() noexcept {
  void* p = pointer_;
  pointer_ = nullptr;
  return p;
}
HostPtr allocate_host(std::size_t) { pending("allocate_host"); }
void* raw_host_alloc(std::size_t) { pending("raw_host_alloc"); }
void raw_host_delete(void*) { pending("raw_host_delete"); }
void record_host_use(void*, const Stream&) { pending("record_host_use"); }
void empty_host_cache() { pending("empty_host_cache"); }
MemoryStats host_memory_stats() { pending("host_memory_stats"); }
void reset_peak_host_memory_stats() { pending("reset_peak_host_memory_stats"); }
void reset_accumulated_host_memory_stats() { pending("reset_accumulated_host_memory_stats"); }

}  // namespace accel
