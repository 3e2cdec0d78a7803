// The Level Zero backend's copies and fills (ze_backend_impl.h): appended on the stream's
// immediate list through QueueState::append, so they wait on the stream's previous command
// and signal the next one (Note [Level Zero streams] in ze_streams.h).
//
// Note [Pageable host memory on Level Zero]
// A Level Zero command reads and writes its memory when it runs, host memory included (the
// specification: "the implementation may not read the buffers before execution";
// zeCommandListAppendMemoryCopy accepts plain host pointers on Intel's driver). CUDA is
// different for pageable memory: it stages a pageable source at the call and returns from
// a copy into pageable memory only once it is complete, so the caller may reuse a pageable
// buffer as soon as the call returns. The runtime promises that on every backend
// (accel/copy.h, Note [Copy ordering]): when either end is memory the driver does not know
// (zeMemGetAllocProperties answers ZE_MEMORY_TYPE_UNKNOWN: not from zeMemAlloc*), the
// backend waits for the stream once the command is appended. Device, shared and host
// (zeMemAllocHost, the runtime's pinned memory) allocations are left to run
// asynchronously. Memory mapped into a reserved range (expandable segments) is UNKNOWN to
// zeMemGetAllocProperties too and is waited for as well: slower, never wrong.
#include "backends/level_zero/ze_status.h"
#include "backends/level_zero/ze_streams.h"

namespace accel::detail::level_zero {

namespace {

// Whether the driver knows nothing of `pointer` (pageable host memory for this runtime).
Result<bool> is_unknown_memory(const LevelZeroBackend& backend, const void* pointer,
                               std::string_view operation, int index) {
  ze_memory_allocation_properties_t properties{};
  properties.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
  ze_device_handle_t owner = nullptr;  // Intel leaves it untouched for foreign pointers
  const ze_result_t rc =
      backend.api().zeMemGetAllocProperties(backend.context(), pointer, &properties, &owner);
  if (rc != ZE_RESULT_SUCCESS) {
    return ze_status(rc, std::string(operation) + ": zeMemGetAllocProperties", index);
  }
  return properties.type == ZE_MEMORY_TYPE_UNKNOWN;
}

// Appends `command` on the stream, then waits for the stream when one of `host_ends` is
// pageable (Note [Pageable host memory on Level Zero]).
Status queue(LevelZeroBackend& backend, int index, StreamHandle stream, std::string_view operation,
             std::string_view entry_point, std::initializer_list<const void*> host_ends,
             const AppendCommand& command) {
  bool wait = false;
  for (const void* end : host_ends) {
    Result<bool> unknown = is_unknown_memory(backend, end, operation, index);
    if (!unknown.ok()) return unknown.status();
    wait = wait || *unknown;
  }
  const Status appended = backend.queues()->append(
      index, stream, std::string(operation) + ": " + std::string(entry_point), command);
  if (!appended.ok() || !wait) return appended;
  Status waited = backend.queues()->synchronize_stream(index, stream);
  if (!waited.ok()) {
    // Note [A failed wait for pageable memory]: the command is appended and may still run,
    // reading or writing memory the caller owns again once this returns (a host buffer it
    // frees on the error). Wait once more: after a failure that passes (a fault sweep's
    // single failed call) the command has run when this returns; after one that lasts
    // (ZE_RESULT_ERROR_DEVICE_LOST) the device runs nothing more. The first error is the
    // caller's either way.
    (void)backend.queues()->synchronize_stream(index, stream);
  }
  return waited;
}

}  // namespace

Status LevelZeroBackend::copy_async(int index, StreamHandle stream, void* dst, const void* src,
                                    std::size_t bytes) noexcept {
  try {
    const ZeApi& ze = api();
    return queue(*this, index, stream, "copy_async", "zeCommandListAppendMemoryCopy", {dst, src},
                 [&](ze_command_list_handle_t list, ze_event_handle_t signal,
                     std::uint32_t wait_count, ze_event_handle_t* waits) {
                   return ze.zeCommandListAppendMemoryCopy(list, dst, src, bytes, signal,
                                                           wait_count, waits);
                 });
  } catch (...) {
    return host_out_of_memory();
  }
}

// A one-byte pattern: every queue group accepts it (the copy engines of Xe-HPC allow only
// one byte; the compute group, which the streams use, any power of two).
Status LevelZeroBackend::fill_async(int index, StreamHandle stream, void* ptr, unsigned char value,
                                    std::size_t bytes) noexcept {
  try {
    const ZeApi& ze = api();
    return queue(*this, index, stream, "fill_async", "zeCommandListAppendMemoryFill", {ptr},
                 [&](ze_command_list_handle_t list, ze_event_handle_t signal,
                     std::uint32_t wait_count, ze_event_handle_t* waits) {
                   return ze.zeCommandListAppendMemoryFill(list, ptr, &value, 1, bytes, signal,
                                                           wait_count, waits);
                 });
  } catch (...) {
    return host_out_of_memory();
  }
}

}  // namespace accel::detail::level_zero
