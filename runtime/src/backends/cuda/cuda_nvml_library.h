#pragma once
// NvmlLibrary: NVML (libnvidia-ml.so.1, or the file ACCEL_NVML_LIBRARY names), loaded with
// dlopen, for counting and identifying GPUs without initialising the CUDA driver.
//
// Note [Fork-safe device count]
// cuInit (and anything that counts devices through the CUDA driver) initialises the
// driver, and a process whose driver is initialised cannot hand CUDA to a fork()ed child.
// PyTorch therefore counts devices through NVML, which is not poisoned by fork: NVML
// lists every physical GPU and ignores CUDA_VISIBLE_DEVICES, so the caller applies the
// variable itself (cuda_visibility.h): an empty list gives 0; a "MIG-" list cannot be
// resolved through NVML (answer -1: fall back to the driver); a "GPU-" list is matched
// by prefix against NVML's UUIDs; a numeric list is truncated at the first ordinal NVML
// does not have. When NVML cannot answer (library missing, no kernel driver, MIG UUIDs)
// the answer is -1 and the caller falls back to the driver's count, which does poison
// fork (Note [Fork safety] in core/lazy_init_state.h); an NVML that is there but fails is
// a broken configuration instead (Note [A broken NVML is not "nothing installed"]).
// NVML is initialised once per process id (a forked child must call nvmlInit_v2 again,
// the safe pattern for real NVML and the one the mock enforces) and never shut down, as
// PyTorch does: shutting down would race with other users of NVML in the process. The
// per-pid check is a lock-free atomic, so the count path never blocks on a lock a
// vanished parent thread may have held across fork().
//
// Ownership: load() returns an immutable object shared by all users; entry points stay
// valid for the life of the process (RTLD_NODELETE, never closed).
// Thread safety: all methods may be called concurrently.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accel_abi/nvml.h"
#include "spi/status.h"

namespace accel::detail::cuda {

class NvmlLibrary {
 public:
  struct LoadResult {
    std::shared_ptr<NvmlLibrary> library;  // null when unusable
    std::string reason;                    // why unusable; empty when usable
  };

  // Loads `path` and resolves the entry points it needs. Never throws.
  static LoadResult load(const std::string& path) noexcept;

  const std::string& path() const noexcept { return path_; }

  // Number of physical GPUs (nvmlDeviceGetCount_v2), initialising NVML for this pid.
  // Failures are kUnavailable for NVML_ERROR_DRIVER_NOT_LOADED (no kernel driver: nothing
  // installed), else kDriver (Note [A broken NVML is not "nothing installed"]).
  Result<int> device_count() noexcept;
  // OK when NVML initialises (nvmlInit_v2, once per pid); else its failure, classified as
  // device_count()'s are. Cheap after the first success: no NVML call.
  Status check_usable() noexcept;
  // UUID of every physical GPU in NVML order ("GPU-..."), initialising NVML for this pid.
  Result<std::vector<std::string>> device_uuids() noexcept;
  // Whether the GPU with this UUID ("GPU-...") is in MIG mode (its current mode), found by
  // nvmlDeviceGetHandleByUUID (NVML order is not CUDA's). nullopt whenever NVML cannot
  // say: entry point missing, init or query failing, device not found or not supported.
  std::optional<bool> mig_enabled(const std::string& uuid) noexcept;
  // The driver's release as the vendor prints it ("580.159.04"); empty when NVML cannot
  // say (nvmlSystemGetDriverVersion missing or failing).
  std::string driver_release() noexcept;

 private:
  NvmlLibrary() = default;
  Status ensure_initialized() noexcept;
  Status failure(const char* operation, nvml_abi::nvmlReturn_t code) const;

#define ACCEL_NVML_MEMBER(symbol, ret, params) nvml_abi::PFN_##symbol symbol##_ = nullptr;
  ACCEL_NVML_ENTRY_POINTS(ACCEL_NVML_MEMBER)
#undef ACCEL_NVML_MEMBER

  std::string path_;
  std::atomic<long> initialized_pid_{0};
};

}  // namespace accel::detail::cuda
