#pragma once
// The process-level caching allocator of one RuntimeState: one DeviceCachingAllocator per
// device, the HostCachingAllocator, the settings in force, and the map from every live
// device allocation to its device (raw_delete() gets a bare pointer, as PyTorch's
// caching_allocator_delete does).
//
// Created by ensure_initialized() (core/runtime.cpp) once the device count is known, with
// the settings of ACCEL_ALLOC_CONF (allocator_config_from_environment()), and owned by the
// RuntimeState; never destroyed while the state lives, so references handed out stay
// valid. The per-device allocators are created up front: creating one touches no driver
// (segments come on first allocation), so eager creation costs nothing and needs no lock
// on the lookup path.
//
// Thread safety: every member is thread-safe. Lock order: a device allocator's lock and
// the live-pointer map's lock are never held together (allocate() inserts after the
// device allocator returned; free() erases before calling it).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "accel/memory.h"
#include "allocator/allocator_config.h"
#include "allocator/device_caching_allocator.h"
#include "allocator/host_caching_allocator.h"
#include "spi/backend.h"
#include "core/stream_pool.h"
#include "core/tool_library.h"

namespace accel::detail::alloc {

class CachingAllocator {
 public:
  // `tool`: told each device's bytes after every allocate, free and empty_cache (core/
  // tool_library.h); null for none.
  CachingAllocator(Backend& backend, StreamPools& pools, int device_count, AllocatorConfig config,
                   const ToolHooks* tool = nullptr);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  int device_count() const noexcept { return static_cast<int>(devices_.size()); }
  // Requires 0 <= index < device_count() (the caller checked the ordinal).
  DeviceCachingAllocator& device(int index) noexcept { return *devices_[index]; }
  HostCachingAllocator& host() noexcept { return *host_; }

  // A block on `device` for `stream`; remembered for free(). 0 bytes: 0.
  std::uint64_t allocate(int device, std::size_t bytes, StreamId stream, const HostFrame& site);
  // Frees a pointer allocate() returned: kValue "<operation>: pointer 0x... is not a live
  // allocation of the caching allocator (never allocated by it, or already freed)".
  void free(std::uint64_t address, const HostFrame& site, std::string_view operation);
  // The device whose live block contains `address` (any address inside the block), or -1.
  int device_of(std::uint64_t address) const;

  // Every device: DeviceCachingAllocator::empty_cache().
  void empty_cache();

  // Settings over the ones in force; kConfig naming the token and nothing changed on error.
  void apply_settings(std::string_view text);
  std::string settings() const;

  void record_history(bool enabled, std::size_t max_entries);
  MemorySnapshot snapshot() const;

 private:
  // Tells the tool `device`'s bytes now (no lock of this class held).
  void report_usage(int device) const noexcept;

  std::vector<std::unique_ptr<DeviceCachingAllocator>> devices_;
  const ToolHooks* tool_ = nullptr;
  std::vector<std::string> device_names_;  // "cuda:0", ...: the tool's names
  std::unique_ptr<HostCachingAllocator> host_;

  mutable std::mutex mutex_;  // guards config_ and live_
  AllocatorConfig config_;
  std::unordered_map<std::uint64_t, int> live_;  // block address -> device
};

// "file:line" frame of a call site, for the memory history.
HostFrame host_frame(const char* file, unsigned line, const char* function);


}  // namespace accel::detail::alloc
