// WORK IN PROGRESS -- deleted before the allocator work lands. Bodies of the pinned host
// allocator's contract (host_caching_allocator.h) and of memory_snapshot_json
// (accel/memory.h) that are being written; each throws kUnsupported meanwhile.

#include "accel/memory.h"
#include "allocator/host_caching_allocator.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace accel {
std::string memory_snapshot_json(const MemorySnapshot&) {
  throw Error(ErrorKind::kUnsupported, "memory_snapshot_json: not written yet");
}
}  // namespace accel

namespace accel::detail::alloc {
namespace {
[[noreturn]] void pending(const char* what) {
  throw Error(ErrorKind::kUnsupported, std::string(what) + ": not written yet");
}
}  // namespace

struct HostCachingAllocator::Impl {};
HostCachingAllocator::HostCachingAllocator(std::unique_ptr<HostMemoryProvider>, AllocatorConfig) {}
HostCachingAllocator::~HostCachingAllocator() = default;
void* HostCachingAllocator::allocate(std::size_t) { pending("allocate_host"); }
void HostCachingAllocator::free(void*) { pending("free_host"); }
void HostCachingAllocator::record_use(void*, int, StreamId) { pending("record_host_use"); }
void HostCachingAllocator::empty_cache() { pending("empty_host_cache"); }
std::map<std::string, std::int64_t> HostCachingAllocator::stats() const { return {}; }
void HostCachingAllocator::reset_peak_stats() {}
void HostCachingAllocator::reset_accumulated_stats() {}
void HostCachingAllocator::begin_capture() {}
void HostCachingAllocator::end_capture() {}

}  // namespace accel::detail::alloc
