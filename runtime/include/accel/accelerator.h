#pragma once
// The device-level API of torch.accelerator: which accelerator, how many devices, which
// one is current on this thread, and what each device is.
//
// Initialisation: functions marked "initialises" bring the runtime up on first use
// (lazy_init.h); the others never touch the driver, so calling them before fork() keeps
// the child usable. Thread safety: every function may be called from any thread; the
// current device is per thread and starts at 0 on every new thread.
// Errors: accel::Error (error.h); in a child forked after initialisation, ForkError.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "accel/detail/thread_device_cache.h"
#include "accel/device.h"
#include "accel/error.h"
#include "accel/scalar_type.h"

namespace accel {

// Note [Misconfiguration is an error]
// "Nothing is installed" and "the user configured something that does not work" are told
// apart. Nothing installed (ACCEL_CUDA_DRIVER / ACCEL_NVML_LIBRARY unset and the default
// libcuda.so.1 absent, or only the toolkit's stub) is the legitimate CPU fallback:
// is_available() is false, device_count() 0, silently; device calls throw kUnavailable
// with PyTorch's "Found no NVIDIA driver on your system. ...". A misconfiguration is an
// error: an unknown ACCEL_BACKEND, an explicitly set ACCEL_CUDA_DRIVER or
// ACCEL_NVML_LIBRARY naming a file that is missing or not a usable library, a malformed
// ACCEL_REQUIRE_DEVICES, or fewer visible devices than ACCEL_REQUIRE_DEVICES asks for
// (kConfig, naming the variable and its value); and a driver that is there but does not
// work, whoever installed it (kDriver, with the driver's code): an NVML that loads but
// fails (anything but NVML_ERROR_DRIVER_NOT_LOADED, "no kernel driver"), a cuInit failing
// with anything but CUDA_ERROR_NO_DEVICE (remembered: the driver stays failed), a zeInit
// failing with anything but ZE_RESULT_ERROR_UNINITIALIZED; the simulated drivers given a
// bad machine file do all three. Every call that needs the device throws it; is_available() and
// device_count() stay non-throwing, print it once per process on stderr
// ("accel: warning: <message>", as PyTorch warns when CUDA initialisation fails) and
// answer false / 0; current_accelerator(true) throws it; backend_report() carries it in
// `config_error`.

// Note [Which accelerator]
// With several backends compiled in (cuda, xpu), one accelerator serves the process, as
// in PyTorch: ACCEL_BACKEND when set ("cuda", "xpu", or "none"; another value is a
// configuration error); otherwise a compiled backend whose configuration is broken (a
// driver file the user named that does not work), so that its error surfaces instead of
// a quiet switch to another backend; otherwise the first compiled backend (cuda before
// xpu) with a visible device, counted fork-safely without initialising any driver;
// otherwise the first compiled backend. The choice is made once, on the first runtime
// call, and never changes (backend_registry.h in the runtime sources has the details).

// The accelerator this build selected (Note [Which accelerator]), as a
// Device without an index; nullopt when there is none. Throws kConfig for an unknown
// ACCEL_BACKEND or a malformed ACCEL_REQUIRE_DEVICES. With check_available=true, also
// nullopt when nothing is installed or no device is visible, and throws the
// misconfiguration when there is one (Note [Misconfiguration is an error]): this is the
// "accelerator, else CPU" choice, which must not fall back to the CPU quietly. Never
// initialises the runtime (check_available=true counts devices as device_count() does).
std::optional<Device> current_accelerator(bool check_available = false);

// True when the accelerator's driver is usable and at least one device is visible.
// Fork-safe: answers like device_count() > 0 and never initialises the driver while
// NVML can answer (Note [Fork-safe device count]). Unlike PyTorch's default, which asks
// the CUDA runtime (unless PYTORCH_NVML_BASED_CUDA_CHECK=1), this asks NVML: a machine
// whose NVML works but whose driver fails to initialise answers true here and fails at
// first device use (ACCEL_REQUIRE_DEVICES makes that failure come early). Never throws;
// prints a misconfiguration once on stderr and answers false.
bool is_available() noexcept;

// Number of visible devices; 0 with no accelerator, no driver, or no device. Fork-safe:
// answered through NVML with CUDA_VISIBLE_DEVICES applied, without initialising the
// driver; falls back to the driver's count (which initialises the driver) only when
// NVML cannot answer. Not cached before initialisation, so a changed
// CUDA_VISIBLE_DEVICES is honoured until the runtime is up. Never throws; on a
// misconfiguration (including fewer devices than ACCEL_REQUIRE_DEVICES) prints the
// message once on stderr and answers 0.
int device_count() noexcept;

// Makes `device` current on this thread. A negative index is a no-op that initialises
// nothing. Otherwise initialises; an index >= device_count() throws kDriver with
// "CUDA error: invalid device ordinal". Argument errors as in device.h.
void set_device_index(DeviceArg device);

namespace detail {
int current_device_index_uncached();  // accelerator.cpp: the checks, init, the backend
}  // namespace detail

// The current device index of this thread (0 on a new thread). Initialises.
// Inline for a thread whose cached device is valid (Note [Thread-local current device]):
// a valid entry exists only while an initialised runtime of the published generation is
// installed, so the out-of-line checks (bad fork, initialisation) have nothing to add.
inline int current_device_index() {
  int index;
  if (detail::cached_thread_device_index(&index)) [[likely]]
    return index;
  return detail::current_device_index_uncached();
}

// Makes `device_index` current and returns the previous index; a no-op returning the
// same index when it is already current. Initialises; creates the device's context.
// Negative or >= 128: kIndex, "Device index -1 is out of range for DeviceIndex [0, 127]".
int exchange_device(int device_index);

// Restores a previous index without creating a context on it when it has none (the
// switch is then recorded and applied on the next device use). Returns the index that was
// current before. Used by DeviceIndexGuard on scope exit. Initialises.
int maybe_exchange_device(int device_index);

struct DeviceCapability {
  int major = 0;  // compute capability
  int minor = 0;
  // Dtypes whose tensors can be allocated and converted on this device, in ScalarType order.
  std::vector<ScalarType> supported_dtypes;
};

// Capability of `device` (the current device when none). Initialises.
DeviceCapability get_device_capability(DeviceArg device = {});

struct MemoryInfo {
  std::size_t free_bytes = 0;   // device-wide free memory, as the driver reports it
  std::size_t total_bytes = 0;  // physical capacity
};

// Free and total memory of `device` (the current device when none), from the driver.
// Initialises and creates a context on that device, as PyTorch does.
MemoryInfo get_memory_info(DeviceArg device = {});

struct DeviceProperties {
  std::string name;
  int major = 0;
  int minor = 0;
  std::size_t total_memory_bytes = 0;
  int multi_processor_count = 0;
  std::string uuid;  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  // PCI address as nvidia-smi prints it: "00000000:1B:00.0" (eight-digit domain, upper-case
  // hex); empty when the backend has none.
  std::string pci_bus_id;
  // Whether the device is in MIG mode (its current mode; a pending change is not shown);
  // nullopt when unknown (no NVML, or NVML cannot say for this device).
  std::optional<bool> mig_enabled;
};

// Static properties of `device` (the current device when none). Initialises.
DeviceProperties get_device_properties(DeviceArg device = {});

// One library (or other file) a backend loads, for diagnostics. Backend-neutral: the
// backend names the role and formats the version the way its vendor writes it.
struct BackendComponent {
  std::string role;  // what the backend uses it for: "driver", "nvml", "loader", ...
  std::string path;  // the file loaded, or tried
  bool loaded = false;
  std::string version;  // e.g. "13.0"; empty when unknown or not applicable
};

// What the runtime found, for diagnostics (`accel info`). Never initialises the runtime
// and never throws; it may load the backend's libraries (CUDA: the driver and NVML,
// without calling cuInit). Renderable for any backend without knowing which one.
struct BackendReport {
  std::string backend;  // "cuda", or "none" when no accelerator is selected
  std::vector<std::string> compiled_backends;
  bool available = false;
  std::string unavailable_reason;            // empty when available
  std::vector<BackendComponent> components;  // in the order the backend loads them
  std::string count_source;  // how device_count was learned ("nvml", "driver"), or "none"
  int device_count = 0;

  // The driver's own release as the vendor prints it ("580.159.04", from NVML); empty
  // when unknown (no NVML, or it cannot say).
  std::string driver_release;

  // Note [Misconfiguration is an error]: non-empty when the accelerator is configured but
  // unusable, with the text device calls throw: an unknown ACCEL_BACKEND, an explicitly
  // named driver/NVML file that does not work, ACCEL_REQUIRE_DEVICES malformed or not met
  // (kind kConfig), or a driver that failed to initialise when the runtime tried (kDriver).
  // Empty when nothing is installed (a legitimate CPU fallback) or all is well.
  std::string config_error;
  ErrorKind config_error_kind = ErrorKind::kConfig;  // meaningful when config_error is set
  int required_devices = 0;  // ACCEL_REQUIRE_DEVICES (0: unset or no requirement)

  // backend_reports(): true for the backend serving this process (Note [Which
  // accelerator]). backend_report() sets it when a backend serves the process.
  bool selected = false;
};
// The report of the accelerator serving this process; `backend` is "none" when there is
// none (ACCEL_BACKEND=none, no backend compiled, or a configuration error).
BackendReport backend_report() noexcept;

// One report per compiled backend, in ACCEL_BACKENDS order (cuda, then xpu), each with
// `backend` and `compiled_backends` set. The backend serving the process has
// `selected` true and is exactly backend_report()'s answer; the others come from fresh
// backend instances, so their `required_devices` is 0 and their count is the fork-safe
// one. None is selected when no accelerator serves the process (ACCEL_BACKEND=none or a
// configuration error: backend_report() says which). A test override whose backend is
// not compiled in is appended, selected. Never initialises the runtime or a driver (it
// may load the backends' libraries, and xpu may count in a probe child); never throws:
// empty when memory runs out.
std::vector<BackendReport> backend_reports() noexcept;

// Whether `device` can access the memory of `peer` directly (torch.cuda's
// can_device_access_peer): the driver's peer matrix. False when device == peer, as the
// CUDA driver (and so PyTorch) answers. Initialises; creates no context. An index outside
// [0, device_count()): accel::Error kIndex "Invalid device id: <i>" / "Invalid peer device
// id: <i>" (PyTorch's AssertionError texts, with the value). Argument errors as in
// device.h; `device` may be empty (the current device), `peer` may not.
bool can_device_access_peer(DeviceArg device, DeviceArg peer);

}  // namespace accel
