// The Level Zero backend's construction, loader loading, zeInit, initialisation,
// configuration, fork hooks and report (ze_backend_impl.h lists where the other members live).
#include "backends/level_zero/ze_backend.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "accel_common/bounded_file.h"
#include "accel_common/environment_variables.h"
#include "backends/level_zero/ze_backend_impl.h"
#include "backends/level_zero/ze_device_facts.h"
#include "backends/level_zero/ze_streams.h"
#include "backends/level_zero/ze_status.h"
#include "backends/level_zero/ze_visibility.h"
#include "spi/device_limits.h"
#include "spi/environment.h"

namespace accel::detail::level_zero {

namespace {

std::atomic<std::uint64_t> g_next_backend_id{1};

constexpr const char* kAltDriversVariable =
    ::accel::common::environment_variable_name("ZE_ENABLE_ALT_DRIVERS");
constexpr const char* kSysmanVariable =
    ::accel::common::environment_variable_name("ZES_ENABLE_SYSMAN");

// What a load reports when even its failure could not be recorded. Built when the library
// loads (no function-local static guard a fork could catch).
const ZeLoaderLoad kOutOfMemoryLoad{nullptr, {}, nullptr, false, "out of memory"};

}  // namespace

LevelZeroBackend::LevelZeroBackend(LevelZeroBackendPaths paths)
    : paths_(std::move(paths)), id_(g_next_backend_id.fetch_add(1)) {}

LevelZeroBackend::~LevelZeroBackend() {
  delete loader_load_.load();
  delete init_failure_.load();
}

// ---- loader ------------------------------------------------------------------------------

const ZeLoaderLoad& LevelZeroBackend::loader_load() noexcept {
  const ZeLoaderLoad* loaded = loader_load_.load(std::memory_order_acquire);
  if (loaded != nullptr) return *loaded;
  try {
    auto* fresh = new ZeLoaderLoad(load_ze_loader(paths_.loader));
    if (loader_load_.compare_exchange_strong(loaded, fresh, std::memory_order_acq_rel)) {
      return *fresh;
    }
    delete fresh;  // another thread published first; `loaded` is its result
    return *loaded;
  } catch (...) {
    return kOutOfMemoryLoad;
  }
}

const ZeApi* LevelZeroBackend::loaded_api() noexcept {
  const ZeLoaderLoad& load = loader_load();
  return load.loader != nullptr ? &load.loader->api : nullptr;
}

ze_result_t LevelZeroBackend::ze_init_once() noexcept {
  if (ze_init_done_.load(std::memory_order_acquire)) return ze_init_result_;
  std::lock_guard lock(ze_init_mutex_);
  if (ze_init_done_.load()) return ze_init_result_;
  const ZeApi* api = loaded_api();
  // Without zesInit, memory_info's free bytes come from the legacy Sysman route, which
  // the driver enables only if ZES_ENABLE_SYSMAN=1 is set when zeInit runs. A value
  // the user set (even "0") is theirs. With zesInit the backend never sets it.
  if (api->zesInit == nullptr &&
      ::accel::detail::environment_variable(kSysmanVariable) == nullptr) {
    set_environment_default(kSysmanVariable, "1");  // Note [Environment reads]
  }
  ze_init_started_pid_.store(getpid());
  ze_init_result_ = api->zeInit(0);  // all driver types, once per process
  ze_init_pid_ = getpid();
  ze_init_done_.store(true, std::memory_order_release);
  return ze_init_result_;
}

// ---- identity and lifetime ---------------------------------------------------------------

namespace {

// Every driver file ZE_ENABLE_ALT_DRIVERS names must be there and be a regular file: the
// loader skips a missing one quietly (zeInit then answers "no device", a CPU run the user
// did not ask for) and would block in dlopen on a FIFO (Note [Bounded readers]). Bare
// names are the dynamic linker's search and are left to the loader.
Status check_alt_drivers(std::optional<std::string_view> value) {
  if (!value) return Status();
  std::string_view rest = *value;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string path(rest.substr(0, comma));
    std::string problem;
    if (path.find('/') != std::string::npos) {
      common::OpenedFile file =
          common::open_for_reading(path, common::kMaxLibraryBytes, "the Level Zero driver");
      problem = std::move(file.error);
    }
    if (!problem.empty()) {
      return Status(ErrorKind::kConfig, std::string(kAltDriversVariable) + "='" +
                                            std::string(*value) +
                                            "' names no usable Level Zero driver: " + problem);
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return Status();
}

}  // namespace

Status LevelZeroBackend::configuration_status() noexcept {
  try {
    const ZeLoaderLoad& load = loader_load();
    if (load.loader == nullptr && load.variable != nullptr) return load.status();
    Status alt_drivers = check_alt_drivers(environment_value(kAltDriversVariable));
    if (!alt_drivers.ok()) return alt_drivers;
    Status mask = check_affinity_mask(environment_value(kAffinityMaskVariable));
    if (!mask.ok()) return mask;
    Status hierarchy = check_flat_device_hierarchy(environment_value(kHierarchyVariable));
    if (!hierarchy.ok()) return hierarchy;
    Result<int> timeout = probe_timeout_ms();
    if (!timeout.ok()) return timeout.status();
    if (load.loader == nullptr) {
      Status status = load.status();
      if (status.kind() != ErrorKind::kUnavailable) return status;  // installed, unusable
    }
    return Status();
  } catch (...) {
    return host_out_of_memory();
  }
}

Status LevelZeroBackend::no_device_status(const std::string& why) {
  std::string message = "No XPU devices are available (" + why + ")";
  const std::string filter = visibility_filter();
  if (!filter.empty()) message += " with " + filter;
  return Status(ErrorKind::kUnavailable, std::move(message));
}

Status LevelZeroBackend::init_failure(ze_result_t rc) {
  const ZeLoaderLoad& load = loader_load();
  const auto alt_drivers = environment_value(kAltDriversVariable);
  Status failure;
  // zeInit answers UNINITIALIZED when no driver is usable or no GPU is visible (none
  // installed, none of this vendor, or a mask that hides every device): "no device", as
  // CUDA_VISIBLE_DEVICES hiding everything is. Any other code (INSUFFICIENT_PERMISSIONS:
  // devices that cannot be opened; a driver that fails, the simulated one given a machine it
  // refuses) comes from a driver that is there and does not work: an error, never a CPU
  // fallback (Note [Misconfiguration is an error]), whoever installed it.
  if (rc != ZE_RESULT_ERROR_UNINITIALIZED) {
    Status base = ze_status(rc, "zeInit");
    std::string which = alt_drivers ? "the Level Zero driver named by " +
                                          std::string(kAltDriversVariable) + "='" +
                                          std::string(*alt_drivers) + "'"
                        : load.variable != nullptr
                            ? "the Level Zero loader named by " + std::string(load.variable) +
                                  "='" + load.path + "'"
                            : "a Level Zero driver installed for the loader '" + load.path + "'";
    failure = Status(ErrorKind::kDriver, base.message() + ": " + which + " failed to initialise",
                     base.detail());
  } else {
    failure = no_device_status("zeInit returned " + ze_result_text(rc));
    // What the driver says for these values is the count from now on (fork-safe callers
    // and report() included).
    counts_.add(count_cache_key(), ForkSafeCount{0, "driver", failure.message()});
  }
  remember_failure(failure);
  return failure;
}

Status LevelZeroBackend::initialize() noexcept {
  try {
    std::lock_guard lock(init_mutex_);
    if (initialized_.load()) return Status();
    Status configuration = configuration_status();
    if (!configuration.ok()) return configuration;
    const ZeApi* api = loaded_api();
    if (api == nullptr) return loader_load().status();  // nothing installed
    const ze_result_t rc = ze_init_once();
    if (rc != ZE_RESULT_SUCCESS) return init_failure(rc);
    Status devices = initialize_devices(*api);
    if (!devices.ok()) remember_failure(devices);
    return devices;
  } catch (...) {
    return host_out_of_memory();
  }
}

void LevelZeroBackend::remember_failure(const Status& failure) {
  if (init_failure_.load(std::memory_order_acquire) != nullptr) return;
  auto* fresh = new Status(failure);
  const Status* expected = nullptr;
  if (!init_failure_.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
    delete fresh;
  }
}

Status LevelZeroBackend::initialize_devices(const ZeApi& api) {
  Result<DeviceChoice> choice = choose_devices(api);
  if (!choice.ok()) return choice.status();
  const int count = static_cast<int>(choice->devices.size());
  counts_.add(count_cache_key(), ForkSafeCount{count, "driver", ""});
  if (count == 0) return no_device_status("no Level Zero driver lists a GPU");
  if (count > kMaxDeviceIndex + 1) {
    return Status(ErrorKind::kDriver, "Too many XPU devices, DeviceIndex overflowed (count=" +
                                          std::to_string(count) + ")");
  }
  ze_api_version_t version = ZE_API_VERSION_1_0;
  ze_result_t version_rc = api.zeDriverGetApiVersion(choice->driver, &version);
  if (version_rc != ZE_RESULT_SUCCESS) {
    return ze_status(version_rc, "initialize: zeDriverGetApiVersion");
  }
  std::vector<ZeDevice> devices(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    Status described = describe_device(i, choice->devices[static_cast<std::size_t>(i)],
                                       &devices[static_cast<std::size_t>(i)]);
    if (!described.ok()) return described;
  }
  // One context for every device of the driver.
  ze_context_desc_t context_desc{};
  context_desc.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
  ze_context_handle_t context = nullptr;
  ze_result_t context_rc = api.zeContextCreate(choice->driver, &context_desc, &context);
  if (context_rc != ZE_RESULT_SUCCESS) {
    return ze_status(context_rc, "initialize: zeContextCreate");
  }
  driver_ = choice->driver;
  api_version_ = version;
  context_ = context;
  devices_ = std::move(devices);
  api_.store(&api, std::memory_order_release);
  queues_ = QueueState::create(*this);
  if (queues_ == nullptr) {
    return Status(ErrorKind::kDriver, "initialize: the stream and event state could not be "
                                      "created");
  }
  initialized_.store(true, std::memory_order_release);
  return Status();
}

int LevelZeroBackend::device_count() const noexcept {
  return initialized_.load(std::memory_order_acquire) ? static_cast<int>(devices_.size()) : 0;
}

// ---- fork hooks, diagnostics -------------------------------------------------------------

// Nothing to do: no lock of this backend is reachable in a forked child
// (ze_backend.h).
void LevelZeroBackend::prepare_fork() noexcept {}
void LevelZeroBackend::after_fork_parent() noexcept {}
void LevelZeroBackend::after_fork_child() noexcept {}

BackendReport LevelZeroBackend::report() noexcept {
  BackendReport report;
  try {
    const ZeLoaderLoad& load = loader_load();
    BackendComponent loader_component{"loader", load.path, load.loader != nullptr, ""};
    Status configuration = configuration_status();
    if (!configuration.ok()) {
      report.config_error = configuration.message();
      report.config_error_kind = configuration.kind();
    } else if (const Status* failure = init_failure_.load(std::memory_order_acquire);
               failure != nullptr && failure->kind() != ErrorKind::kUnavailable &&
               !initialized_.load(std::memory_order_acquire)) {  // a later retry succeeded
      report.config_error = failure->message();
      report.config_error_kind = failure->kind();
    }
    // The loader lists its components (itself, layers, drivers) only after zeInit.
    if (load.loader != nullptr && ze_init_done_.load(std::memory_order_acquire) &&
        ze_init_result_ == ZE_RESULT_SUCCESS) {
      std::size_t n = 0;
      const ZeApi& api = load.loader->api;
      if (api.zelLoaderGetVersions(&n, nullptr) == ZE_RESULT_SUCCESS && n > 0) {
        std::vector<zel_component_version_t> versions(n);
        if (api.zelLoaderGetVersions(&n, versions.data()) == ZE_RESULT_SUCCESS) {
          for (std::size_t i = 0; i < n && i < versions.size(); ++i) {
            if (std::strncmp(versions[i].component_name, "loader", 6) == 0) {
              const auto& v = versions[i].component_lib_version;
              loader_component.version = format_version(v.major, v.minor, v.patch);
            }
          }
        }
      }
    }
    report.components.push_back(loader_component);
    // The drivers the user named; "loaded" says whether the file is mapped in this process.
    if (auto alt = environment_value(kAltDriversVariable)) {
      std::string_view rest = *alt;
      while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        const std::string path(rest.substr(0, comma));
        if (!path.empty()) {
          // Even RTLD_NOLOAD opens the file, which blocks on a FIFO (Note [Bounded readers]):
          // only a file dlopen may be given is asked about.
          void* mapped = nullptr;
          if (common::check_library_file(path, common::kMaxLibraryBytes, "driver").empty()) {
            mapped = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
          }
          if (mapped != nullptr) dlclose(mapped);  // drops only NOLOAD's own reference
          report.components.push_back(BackendComponent{"driver", path, mapped != nullptr, ""});
        }
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
    if (load.loader == nullptr || !configuration.ok()) {
      // Nothing to count with, or a setting no count could honour: say why, probe nothing.
      report.count_source = "none";
      report.unavailable_reason =
          load.loader == nullptr ? load.status().message() : configuration.message();
      return report;
    }
    int count = 0;
    if (initialized_.load(std::memory_order_acquire)) {
      report.count_source = "driver";
      count = static_cast<int>(devices_.size());
    } else if (const Status* failure = init_failure_.load(std::memory_order_acquire)) {
      report.count_source = "driver";  // zeInit ran here and failed: no device
      report.unavailable_reason = failure->message();
    } else {
      count = fork_safe_device_count();
      std::optional<ForkSafeCount> found = counts_.find(count_cache_key());
      if (count >= 0) {
        report.count_source = found ? found->source : "none";
        if (count == 0 && found && !found->reason.empty()) {
          report.unavailable_reason = found->reason;
        }
      } else {
        report.count_source = "none";
        count = 0;
        report.unavailable_reason =
            found ? "the fork-safe count failed (" + found->reason + ")"
                  : "the driver is initialised in this process but the backend is not";
      }
    }
    report.device_count = count;
    report.available = count > 0;
    if (count == 0 && report.unavailable_reason.empty()) {
      const std::string filter = visibility_filter();
      report.unavailable_reason = filter.empty() ? "no Level Zero GPU found"
                                                 : "no Level Zero GPU is visible (" + filter + ")";
    }
  } catch (...) {
  }
  return report;
}

std::unique_ptr<Backend> create_level_zero_backend(LevelZeroBackendPaths paths) {
  return std::make_unique<LevelZeroBackend>(std::move(paths));
}

std::unique_ptr<Backend> make_backend() { return create_level_zero_backend(); }

}  // namespace accel::detail::level_zero
