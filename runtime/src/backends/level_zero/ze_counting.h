#pragma once
// Counting Level Zero devices: which driver and devices the backend uses, and the
// fork-safe count (Backend::fork_safe_device_count) that never initialises the core API in
// the calling process.
//
// Note [Fork-safe Level Zero count]
// A process that called zeInit cannot use Level Zero in a fork()ed child (the Level Zero
// specification requires zeInit again there; Intel's driver refuses a child of an
// initialised parent), so device_count() must answer without zeInit, as PyTorch's does:
//  1. Sysman, when the loader exports zesInit (loader >= 1.9, spec 1.5; never Debian's
//     1.8.12) and zesInit succeeds: PyTorch's algorithm (torch/xpu/__init__.py,
//     _device_count_zes) over zesDriverGet's FIRST driver: logical numbering (tiled discrete GPUs
// count
//     numSubdevices unless ZE_FLAT_DEVICE_HIERARCHY is COMPOSITE), only the logical indices
//     in PyTorch's reading of ZE_AFFINITY_MASK, discrete preferred over integrated.
//     zesInit is allowed before zeInit and in a child; the backend never sets
//     ZES_ENABLE_SYSMAN on this route (the two Sysman routes exclude each other). PyTorch gives up
// (-1) when the mask is not an
//     integer list; so does this step, and step 2 answers instead.
//  2. Otherwise a probe child: fflush, fork, and in the child zeInit(0),
//     choose the devices exactly as initialize() does (choose_devices), write the count to
//     a pipe and _exit. The parent waits at most ACCEL_LEVEL_ZERO_PROBE_TIMEOUT_MS (default
//     10 s) with poll(), then kills the child; it always reaps it (never a zombie, never a
//     hang). A child that dies, is killed or says nothing gives -1 (the core then counts
//     through the driver) and the reason is kept for report(). The count is what the
//     driver itself shows, so the mask and hierarchy are applied exactly, all of them.
// Results are cached per (ZE_AFFINITY_MASK, ZE_FLAT_DEVICE_HIERARCHY,
// ZE_ENABLE_ALT_DRIVERS) value, since a probe costs a process; initialize() and
// driver_device_count() add what the driver said for the current values, so a poisoned
// child (whose own probe child could not re-initialise a driver its parent had
// initialised: loader 1.8.12 forwards zeInit to a driver that refuses forked children)
// still answers from the parent's count for the same environment.
// The fork runs outside every lock of the backend, and the runtime's atfork handlers never
// wait for a lock held across initialisation (Note [Fork safety] in core/lazy_init_state.h).
// The probe child calls into the loader after fork() in a possibly multi-threaded parent;
// glibc keeps malloc usable there, and anything worse is caught by the bounded wait.

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "accel_abi/level_zero.h"
#include "accel_common/environment_variables.h"
#include "spi/status.h"

namespace accel::detail::level_zero {

// ---- PyTorch's Sysman algorithm (pure) -------------------------------------------------

// One device as zesDeviceGetProperties describes it.
struct SysmanDevice {
  bool integrated = false;       // ZES_DEVICE_PROPERTY_FLAG_INTEGRATED (ext or core flags)
  std::uint32_t sub_devices = 0;  // numSubdevices (0: untiled)
};

// The count PyTorch's _device_count_zes computes from `devices` (Sysman order), the
// hierarchy variable and the mask variable (nullopt: unset); -1 when the mask is not an
// integer list (PyTorch then falls back to the runtime count).
int sysman_logical_count(const std::vector<SysmanDevice>& devices,
                         std::optional<std::string_view> hierarchy,
                         std::optional<std::string_view> mask);

// ---- the devices the backend uses -----------------------------------------------

struct DeviceChoice {
  ze_driver_handle_t driver = nullptr;       // null when no driver has a GPU
  std::vector<ze_device_handle_t> devices;   // zeDeviceGet order, GPUs of the kind chosen
  bool integrated = false;                   // the devices are integrated GPUs
};

// After a successful zeInit: the first driver that has a discrete GPU and its discrete GPUs;
// if none, the first driver with an integrated GPU and its integrated GPUs; else
// none. Non-GPU devices never count. Errors name the call. Throws only std::bad_alloc.
Result<DeviceChoice> choose_devices(const abi::level_zero::ZeApi& api);

// ---- the fork-safe count ---------------------------------------------------------------

struct ForkSafeCount {
  int count = -1;          // -1: could not tell
  std::string source;      // "sysman", "probe", "driver" (learned by initialising here)
  std::string reason;      // why -1, or what the probe child reported (zeInit failed: ...)
};

inline constexpr const char* kProbeTimeoutVariable =
    ::accel::common::environment_variable_name("ACCEL_LEVEL_ZERO_PROBE_TIMEOUT_MS");
inline constexpr int kDefaultProbeTimeoutMs = 10'000;

// ACCEL_LEVEL_ZERO_PROBE_TIMEOUT_MS: a positive decimal number of milliseconds, or unset
// (kDefaultProbeTimeoutMs). A malformed value is kConfig naming it.
Result<int> probe_timeout_ms();

// The environment values a count depends on, as one cache key.
std::string count_cache_key();

// Step 1 of the Note: the Sysman count, or -1 with the reason.
ForkSafeCount sysman_count(const abi::level_zero::ZeApi& api);

// Step 2 of the Note: the probe child's count, or -1 with the reason.
ForkSafeCount probe_count(const abi::level_zero::ZeApi& api, int timeout_ms);

// A lock-free, append-only cache of counts per count_cache_key() (no lock for a fork to
// catch: it is read in forked children). Entries live until the cache is destroyed.
class CountCache {
 public:
  CountCache() = default;
  CountCache(const CountCache&) = delete;
  CountCache& operator=(const CountCache&) = delete;
  ~CountCache();

  // The latest entry for `key`, if any.
  std::optional<ForkSafeCount> find(const std::string& key) const noexcept;
  // Adds (or, for a later lookup, supersedes) the entry for `key`. Never throws.
  void add(const std::string& key, const ForkSafeCount& count) noexcept;

 private:
  struct Entry {
    std::string key;
    ForkSafeCount count;
    const Entry* next = nullptr;
  };
  std::atomic<const Entry*> head_{nullptr};
};

}  // namespace accel::detail::level_zero
