// Cache control, statistics, the memory fraction, settings, snapshots and the memory
// history (accel/memory.h) over the installed runtime's caching allocator.
#include "accel/memory.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include "accel_common/bounded_file.h"
#include "allocator/allocator_config.h"
#include "allocator/device_stats.h"
#include "core/device_resolution.h"
#include "api/memory_common.h"

namespace accel {

namespace {

using detail::RuntimeState;
using detail::alloc::CachingAllocator;
using detail::alloc::DeviceCachingAllocator;
using detail::alloc::DeviceStats;

// The stats of `device` when the allocator is up, else nothing (no resolution, no init).
std::optional<DeviceStats> stats_if_initialized(const DeviceArg& device, std::string_view op) {
  RuntimeState& state = detail::current_state();
  CachingAllocator* allocator = detail::allocator_if_initialized(state);
  if (allocator == nullptr) return std::nullopt;
  const int index = detail::memory_device_index(state, device, op);
  return allocator->device(index).stats();
}

// As torch.cuda.memory's: an explicit index before initialisation is CUDA's "Invalid device
// argument <d>: did you call init?"; no index resolves the current device, which initialises.
DeviceCachingAllocator& resettable_device(const DeviceArg& device, std::string_view op) {
  RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  const std::optional<int> explicit_index = detail::resolve_explicit_device_index(device);
  if (explicit_index && detail::allocator_if_initialized(state) == nullptr) {
    ErrorDetail detail;
    detail.device = *explicit_index;
    throw Error(ErrorKind::kRuntime,
                "Invalid device argument " + std::to_string(*explicit_index) +
                    ": did you call init?",
                detail);
  }
  detail::ensure_initialized(state);
  const int index = detail::memory_device_index(state, device, op);
  return detail::allocator_of(state).device(index);
}

// Python's repr of a float, as PyTorch's message prints it ("-0.1", "2.0", "nan").
std::string float_text(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[64];
  auto [end, error] = std::to_chars(text, text + sizeof text, value);
  std::string out(text, error == std::errc() ? end : text);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

}  // namespace

bool is_allocator_initialized() {
  RuntimeState& state = detail::current_state();
  if (state.lazy().in_bad_fork()) return false;
  return state.lazy().initialized() && state.allocator() != nullptr;
}

void empty_cache() {
  RuntimeState& state = detail::current_state();
  if (CachingAllocator* allocator = detail::allocator_if_initialized(state)) {
    allocator->empty_cache();
  }
}

MemoryStats memory_stats(DeviceArg device) {
  std::optional<DeviceStats> stats = stats_if_initialized(device, "memory_stats");
  if (!stats) return {};
  return detail::alloc::flatten(*stats);
}

std::int64_t memory_allocated(DeviceArg device) {
  std::optional<DeviceStats> stats = stats_if_initialized(device, "memory_allocated");
  return stats ? stats->allocated_bytes.all().current : 0;
}

std::int64_t max_memory_allocated(DeviceArg device) {
  std::optional<DeviceStats> stats = stats_if_initialized(device, "max_memory_allocated");
  return stats ? stats->allocated_bytes.all().peak : 0;
}

std::int64_t memory_reserved(DeviceArg device) {
  std::optional<DeviceStats> stats = stats_if_initialized(device, "memory_reserved");
  return stats ? stats->reserved_bytes.all().current : 0;
}

std::int64_t max_memory_reserved(DeviceArg device) {
  std::optional<DeviceStats> stats = stats_if_initialized(device, "max_memory_reserved");
  return stats ? stats->reserved_bytes.all().peak : 0;
}

void reset_peak_memory_stats(DeviceArg device) {
  resettable_device(device, "reset_peak_memory_stats").reset_peak_stats();
}

void reset_accumulated_memory_stats(DeviceArg device) {
  resettable_device(device, "reset_accumulated_memory_stats").reset_accumulated_stats();
}

void set_per_process_memory_fraction(double fraction, DeviceArg device) {
  // Checked before anything is initialised: a bad value has no side effect.
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    throw Error(ErrorKind::kValue,
                "Invalid fraction value: " + float_text(fraction) + ". Allowed range: 0~1");
  }
  RuntimeState& state = detail::initialized_memory_state();
  const int index = detail::memory_device_index(state, device, "set_per_process_memory_fraction");
  detail::allocator_of(state).device(index).set_memory_fraction(fraction);
}

double get_per_process_memory_fraction(DeviceArg device) {
  RuntimeState& state = detail::initialized_memory_state();
  const int index = detail::memory_device_index(state, device, "get_per_process_memory_fraction");
  return detail::allocator_of(state).device(index).memory_fraction();
}

void set_allocator_settings(std::string_view settings) {
  RuntimeState& state = detail::initialized_memory_state();
  detail::allocator_of(state).apply_settings(settings);
}

std::string get_allocator_settings() {
  RuntimeState& state = detail::current_state();
  if (CachingAllocator* allocator = detail::allocator_if_initialized(state)) {
    return allocator->settings();
  }
  // Before initialisation: what initialisation would apply (its error, if malformed).
  return detail::alloc::to_string(detail::check(detail::alloc::allocator_config_from_environment()));
}

MemorySnapshot memory_snapshot() {
  RuntimeState& state = detail::current_state();
  CachingAllocator* allocator = detail::allocator_if_initialized(state);
  if (allocator == nullptr) return {};
  return allocator->snapshot();
}

void record_memory_history(bool enabled, std::size_t max_entries) {
  RuntimeState& state = detail::initialized_memory_state();
  detail::allocator_of(state).record_history(enabled, max_entries);
}

void dump_snapshot(const std::string& path) {
  const std::string json = memory_snapshot_json(memory_snapshot());
  // Note [Bounded readers]: never waits on a FIFO nobody reads, never writes a directory.
  common::OpenedFile file = common::open_for_writing(path, "dump_snapshot");
  if (!file.ok()) throw Error(ErrorKind::kRuntime, file.error);
  std::size_t written = 0;
  while (written < json.size()) {
    const ssize_t n = ::write(file.fd.get(), json.data() + written, json.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      throw Error(ErrorKind::kRuntime, "dump_snapshot '" + path + "': cannot write: " +
                                           std::strerror(n < 0 ? errno : EIO));
    }
    written += static_cast<std::size_t>(n);
  }
  if (::close(file.fd.release()) != 0) {
    throw Error(ErrorKind::kRuntime,
                "dump_snapshot '" + path + "': cannot write: " + std::strerror(errno));
  }
}

}  // namespace accel
