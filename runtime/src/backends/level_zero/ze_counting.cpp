// Device choice and the fork-safe count (Note [Fork-safe Level Zero count], ze_counting.h),
// and the backend's counting members (ze_backend_impl.h).
#include "backends/level_zero/ze_counting.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "accel_common/environment_variables.h"
#include "backends/level_zero/ze_backend_impl.h"
#include "backends/level_zero/ze_status.h"
#include "backends/level_zero/ze_visibility.h"
#include "spi/environment.h"

namespace accel::detail::level_zero {

namespace abi_ze = abi::level_zero;

// ---- PyTorch's Sysman algorithm ----------------------------------------------------------

int sysman_logical_count(const std::vector<SysmanDevice>& devices,
                         std::optional<std::string_view> hierarchy,
                         std::optional<std::string_view> mask) {
  const std::vector<int> visible = pytorch_mask_indices(mask);
  if (visible.empty()) return -1;  // not an integer list: PyTorch falls back
  const bool composite = hierarchy && *hierarchy == "COMPOSITE";
  int next_logical = 0;
  int discrete = 0;
  int integrated = 0;
  for (const SysmanDevice& device : devices) {
    // Tiled discrete GPUs are one logical device per tile unless COMPOSITE; integrated and
    // untiled GPUs are one each.
    const int span =
        (!device.integrated && device.sub_devices > 0 && !composite)
            ? static_cast<int>(device.sub_devices)
            : 1;
    for (int i = 0; i < span; ++i, ++next_logical) {
      if (std::find(visible.begin(), visible.end(), next_logical) == visible.end()) continue;
      ++(device.integrated ? integrated : discrete);
    }
  }
  return discrete > 0 ? discrete : integrated;  // discrete preferred
}

// ---- device choice ----------------------------------------------------------------

Result<DeviceChoice> choose_devices(const abi_ze::ZeApi& api) {
  std::uint32_t driver_count = 0;
  ze_result_t rc = api.zeDriverGet(&driver_count, nullptr);
  if (rc != ZE_RESULT_SUCCESS) return ze_status(rc, "zeDriverGet");
  std::vector<ze_driver_handle_t> drivers(driver_count);
  rc = api.zeDriverGet(&driver_count, drivers.data());
  if (rc != ZE_RESULT_SUCCESS) return ze_status(rc, "zeDriverGet");
  drivers.resize(driver_count);
  std::optional<DeviceChoice> first_integrated;
  for (ze_driver_handle_t driver : drivers) {
    std::uint32_t device_count = 0;
    rc = api.zeDeviceGet(driver, &device_count, nullptr);
    if (rc != ZE_RESULT_SUCCESS) return ze_status(rc, "zeDeviceGet");
    std::vector<ze_device_handle_t> devices(device_count);
    rc = api.zeDeviceGet(driver, &device_count, devices.data());
    if (rc != ZE_RESULT_SUCCESS) return ze_status(rc, "zeDeviceGet");
    devices.resize(device_count);
    DeviceChoice discrete{driver, {}, false};
    DeviceChoice integrated{driver, {}, true};
    for (ze_device_handle_t device : devices) {
      ze_device_properties_t properties{};  // zeroed: drivers OR flags in
      properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
      rc = api.zeDeviceGetProperties(device, &properties);
      if (rc != ZE_RESULT_SUCCESS) return ze_status(rc, "zeDeviceGetProperties");
      if (properties.type != ZE_DEVICE_TYPE_GPU) continue;
      ((properties.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) ? integrated : discrete)
          .devices.push_back(device);
    }
    if (!discrete.devices.empty()) return discrete;
    if (!integrated.devices.empty() && !first_integrated) first_integrated = integrated;
  }
  if (first_integrated) return *first_integrated;
  return DeviceChoice{};
}

// ---- Sysman ------------------------------------------------------------------------------

ForkSafeCount sysman_count(const abi_ze::ZeApi& api) {
  ForkSafeCount result;
  result.source = "sysman";
  try {
    if (api.zesInit == nullptr || api.zesDriverGet == nullptr || api.zesDeviceGet == nullptr) {
      result.reason = "the loader does not export zesInit (Sysman needs loader 1.9 or newer)";
      return result;
    }
    const auto mask = environment_value(kAffinityMaskVariable);
    if (pytorch_mask_indices(mask).empty()) {
      result.reason = std::string(kAffinityMaskVariable) + "='" + std::string(*mask) +
                      "' is not a list of device numbers, so Sysman cannot apply it";
      return result;
    }
    ze_result_t rc = api.zesInit(0);
    if (rc != ZE_RESULT_SUCCESS) {
      result.reason = "zesInit failed: " + ze_result_text(rc);
      return result;
    }
    std::uint32_t driver_count = 0;
    rc = api.zesDriverGet(&driver_count, nullptr);
    if (rc != ZE_RESULT_SUCCESS) {
      result.reason = "zesDriverGet failed: " + ze_result_text(rc);
      return result;
    }
    if (driver_count == 0) {
      result.count = 0;
      return result;
    }
    std::vector<zes_driver_handle_t> drivers(driver_count);
    rc = api.zesDriverGet(&driver_count, drivers.data());
    if (rc != ZE_RESULT_SUCCESS || driver_count == 0) {
      result.reason = "zesDriverGet failed: " + ze_result_text(rc);
      return result;
    }
    std::uint32_t device_count = 0;
    rc = api.zesDeviceGet(drivers[0], &device_count, nullptr);  // first driver only
    if (rc != ZE_RESULT_SUCCESS) {
      result.reason = "zesDeviceGet failed: " + ze_result_text(rc);
      return result;
    }
    std::vector<zes_device_handle_t> handles(device_count);
    rc = api.zesDeviceGet(drivers[0], &device_count, handles.data());
    if (rc != ZE_RESULT_SUCCESS) {
      result.reason = "zesDeviceGet failed: " + ze_result_text(rc);
      return result;
    }
    handles.resize(device_count);
    std::vector<SysmanDevice> devices;
    for (zes_device_handle_t handle : handles) {
      abi_ze::zes_device_ext_properties_t ext{};
      ext.stype = abi_ze::kZesStructureTypeDeviceExtProperties;
      zes_device_properties_t properties{};
      properties.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES;
      properties.pNext = &ext;
      rc = api.zesDeviceGetProperties(handle, &properties);
      if (rc != ZE_RESULT_SUCCESS) {
        result.reason = "zesDeviceGetProperties failed: " + ze_result_text(rc);
        return result;
      }
      // Either place may carry it (PyTorch drafts read one or the other).
      const bool integrated = (ext.flags & abi_ze::kZesDevicePropertyFlagIntegrated) != 0 ||
                              (properties.core.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0;
      devices.push_back(SysmanDevice{integrated, properties.numSubdevices});
    }
    result.count =
        sysman_logical_count(devices, environment_value(kHierarchyVariable), mask);
  } catch (...) {
    result.count = -1;
    result.reason = "out of memory";
  }
  return result;
}

// ---- the probe child ---------------------------------------------------------------------

namespace {

// What the probe child writes to the pipe: one fixed-size record.
struct ProbeReport {
  static constexpr std::uint32_t kMagic = 0x5a45434e;  // "ZECN"
  std::uint32_t magic = kMagic;
  std::int32_t count = -1;  // -1: no count (text says why)
  char text[240] = {};      // what zeInit or the device choice reported
};

void copy_text(ProbeReport& report, const std::string& text) {
  std::snprintf(report.text, sizeof(report.text), "%s", text.c_str());
}

[[noreturn]] void run_probe_child(const abi_ze::ZeApi& api, int fd) {
  ProbeReport report;
  try {
    const ze_result_t rc = api.zeInit(0);
    if (rc != ZE_RESULT_SUCCESS) {
      // UNINITIALIZED is "no devices". Another code is a driver that is there and
      // fails: no count (-1), so the caller asks the driver itself, which says so
      // (LevelZeroBackend::init_failure) instead of a quiet "no device".
      report.count = rc == ZE_RESULT_ERROR_UNINITIALIZED ? 0 : -1;
      copy_text(report, "zeInit failed in the probe child: " + ze_result_text(rc));
    } else {
      Result<DeviceChoice> choice = choose_devices(api);
      if (choice.ok()) {
        report.count = static_cast<std::int32_t>(choice->devices.size());
      } else {
        copy_text(report, "the probe child could not count: " + choice.status().message());
      }
    }
  } catch (...) {
    copy_text(report, "the probe child ran out of memory");
  }
  const char* bytes = reinterpret_cast<const char*>(&report);
  std::size_t left = sizeof(report);
  while (left > 0) {
    const ssize_t written = write(fd, bytes, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) break;
    bytes += written;
    left -= static_cast<std::size_t>(written);
  }
  _exit(0);  // no atexit handlers, no static destructors, no stdio flush of the parent's
}

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

// Reaps `pid`, waiting until `deadline` for it to exit on its own, then killing it.
// Returns the wait status, or -1 when the child was not ours to reap (SIGCHLD ignored).
int reap(pid_t pid, std::chrono::steady_clock::time_point deadline, bool* killed) {
  int status = 0;
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) return -1;
    if (remaining_ms(deadline) == 0) break;
    poll(nullptr, 0, 2);
  }
  kill(pid, SIGKILL);
  *killed = true;
  while (true) {
    const pid_t done = waitpid(pid, &status, 0);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) return -1;
  }
}

}  // namespace

ForkSafeCount probe_count(const abi_ze::ZeApi& api, int timeout_ms) {
  ForkSafeCount result;
  result.source = "probe";
  try {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      result.reason = std::string("cannot start the probe child: pipe2: ") + std::strerror(errno);
      return result;
    }
    std::fflush(nullptr);  // a child must not inherit half-written stdio buffers
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      run_probe_child(api, fds[1]);
    }
    const int fork_errno = errno;
    close(fds[1]);
    if (pid < 0) {
      close(fds[0]);
      result.reason = std::string("cannot start the probe child: fork: ") + std::strerror(fork_errno);
      return result;
    }
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    ProbeReport report;
    std::size_t received = 0;
    bool timed_out = false;
    while (received < sizeof(report)) {
      pollfd waiting{fds[0], POLLIN, 0};
      const int ready = poll(&waiting, 1, remaining_ms(deadline));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) {
        timed_out = ready == 0;
        break;
      }
      const ssize_t got =
          read(fds[0], reinterpret_cast<char*>(&report) + received, sizeof(report) - received);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;  // EOF: the child is gone
      received += static_cast<std::size_t>(got);
    }
    close(fds[0]);
    bool killed = false;
    const int status = reap(pid, timed_out ? std::chrono::steady_clock::now() : deadline, &killed);
    if (timed_out) {
      result.reason = "the probe child did not answer within " + std::to_string(timeout_ms) +
                      " ms (" + kProbeTimeoutVariable + "); it was killed";
      return result;
    }
    if (received == sizeof(report) && report.magic == ProbeReport::kMagic) {
      report.text[sizeof(report.text) - 1] = '\0';
      result.count = report.count;
      result.reason = report.text;
      return result;
    }
    if (status != -1 && WIFSIGNALED(status)) {
      result.reason = "the probe child was killed by signal " +
                      std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
                      ")" + (killed ? " after the deadline" : "");
    } else if (status != -1 && WIFEXITED(status)) {
      result.reason = "the probe child exited with status " +
                      std::to_string(WEXITSTATUS(status)) + " without reporting a count";
    } else {
      result.reason = "the probe child ended without reporting a count";
    }
  } catch (...) {
    result.count = -1;
    result.reason = "out of memory";
  }
  return result;
}

// ---- settings and cache ------------------------------------------------------------------

Result<int> probe_timeout_ms() {
  const auto value = environment_value(kProbeTimeoutVariable);
  if (!value) return kDefaultProbeTimeoutMs;
  long long parsed = 0;
  bool valid = value->size() <= 9;
  for (char c : *value) {
    if (c < '0' || c > '9') valid = false;
    parsed = parsed * 10 + (c - '0');
  }
  if (!valid || parsed <= 0) {
    return Status(ErrorKind::kConfig,
                  std::string(kProbeTimeoutVariable) + "='" + std::string(*value) +
                      "' is not a positive number of milliseconds (e.g. '10000')");
  }
  return static_cast<int>(parsed);
}

std::string count_cache_key() {
  std::string key;
  constexpr const char* kAltDriversVariable =
      ::accel::common::environment_variable_name("ZE_ENABLE_ALT_DRIVERS");
  for (const char* variable : {kAffinityMaskVariable, kHierarchyVariable, kAltDriversVariable}) {
    const char* value = ::accel::detail::environment_variable(variable);
    key += value ? "=" + std::string(value) : std::string("-");
    key += '\x1f';
  }
  return key;
}

CountCache::~CountCache() {
  const Entry* entry = head_.load();
  while (entry != nullptr) {
    const Entry* next = entry->next;
    delete entry;
    entry = next;
  }
}

std::optional<ForkSafeCount> CountCache::find(const std::string& key) const noexcept {
  try {
    for (const Entry* entry = head_.load(std::memory_order_acquire); entry != nullptr;
         entry = entry->next) {
      if (entry->key == key) return entry->count;
    }
  } catch (...) {
  }
  return std::nullopt;
}

void CountCache::add(const std::string& key, const ForkSafeCount& count) noexcept {
  try {
    auto* entry = new Entry{key, count, head_.load(std::memory_order_acquire)};
    while (!head_.compare_exchange_weak(entry->next, entry, std::memory_order_acq_rel)) {
    }
  } catch (...) {
  }
}

// ---- the backend's counts (ze_backend_impl.h) --------------------------------------------

int LevelZeroBackend::fork_safe_device_count() noexcept {
  try {
    const ZeApi* api = loaded_api();
    if (api == nullptr) return 0;  // no loader: no device can be used
    const std::string key = count_cache_key();
    if (std::optional<ForkSafeCount> cached = counts_.find(key)) return cached->count;
    // In the process that called zeInit, a probe child's zeInit would reach a driver that
    // refuses forked children, and the driver read the variables at its own init: the count
    // is the driver's (driver_device_count()).
    if (ze_init_done_.load(std::memory_order_acquire) && ze_init_pid_ == getpid()) return -1;
    // Nor while this process's zeInit is under way (Note [Fork gate]): the probe child would
    // inherit the loader initialised half-way. A zeInit that began during the probe makes
    // its answer untrustworthy for the same reason; either way the driver counts.
    const pid_t self = getpid();
    if (ze_init_started_pid_.load() == self) return -1;
    ForkSafeCount count = sysman_count(*api);
    if (count.count < 0) {
      Result<int> timeout = probe_timeout_ms();
      if (!timeout.ok()) return -1;  // configuration_status() reports it
      const std::string sysman_reason = count.reason;
      count = probe_count(*api, *timeout);
      if (ze_init_started_pid_.load() == self) return -1;
      if (count.count < 0) count.reason = "Sysman: " + sysman_reason + "; " + count.reason;
    }
    counts_.add(key, count);
    return count.count;
  } catch (...) {
    return -1;
  }
}

Result<int> LevelZeroBackend::driver_device_count() noexcept {
  try {
    const ZeApi* api = loaded_api();
    if (api == nullptr) return 0;
    const std::string key = count_cache_key();
    const ze_result_t rc = ze_init_once();
    if (rc != ZE_RESULT_SUCCESS) {
      Status failure = init_failure(rc);
      if (failure.kind() != ErrorKind::kUnavailable) return failure;
      return 0;
    }
    Result<DeviceChoice> choice = choose_devices(*api);
    if (!choice.ok()) return choice.status();
    const int count = static_cast<int>(choice->devices.size());
    counts_.add(key, ForkSafeCount{count, "driver", ""});
    return count;
  } catch (...) {
    return host_out_of_memory();
  }
}

std::string LevelZeroBackend::visibility_filter() const {
  std::string filter;
  if (auto mask = environment_value(kAffinityMaskVariable)) {
    filter = std::string(kAffinityMaskVariable) + "='" + std::string(*mask) + "'";
  }
  if (auto hierarchy = environment_value(kHierarchyVariable)) {
    if (!filter.empty()) filter += ", ";
    filter += std::string(kHierarchyVariable) + "='" + std::string(*hierarchy) + "'";
  }
  return filter;
}

}  // namespace accel::detail::level_zero
