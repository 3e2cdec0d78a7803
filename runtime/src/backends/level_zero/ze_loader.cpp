// dlopen + dlsym of the Level Zero loader (ze_loader.h).
#include "backends/level_zero/ze_loader.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <string_view>

#include "accel_common/bounded_file.h"
#include "backends/common/shared_object.h"
#include "core/fork_gate.h"
#include "core/environment.h"

namespace accel::detail::level_zero {

namespace {

// Resolves `name` on `handle` into `*slot`; false when the loader does not export it.
template <class Pointer>
bool resolve(void* handle, const char* name, Pointer* slot) {
  dlerror();
  void* symbol = dlsym(handle, name);
  *slot = reinterpret_cast<Pointer>(symbol);
  return symbol != nullptr;
}

// Loads each file ZE_ENABLE_ALT_DRIVERS names (gated_loader_init in ze_loader.h), once per
// process; racing first callers may both load, which dlopen makes harmless. Only paths
// that are regular files are opened (Note [Bounded readers]): a FIFO would block inside
// the gate. Handles are kept, so the files stay loaded for the loader.
void load_alt_drivers_once() noexcept {
  constinit static std::atomic<bool> loaded{false};
  if (loaded.load(std::memory_order_acquire)) return;
  try {
    const char* value = ::accel::detail::environment_variable("ZE_ENABLE_ALT_DRIVERS");
    std::string_view rest = value != nullptr ? value : "";
    ForkGateSection gate;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string path(rest.substr(0, comma));
      if (path.find('/') != std::string::npos &&
          common::check_library_file(path, common::kMaxLibraryBytes, "the Level Zero driver")
              .empty()) {
        (void)dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  } catch (...) {  // std::bad_alloc: the loader loads them itself
  }
  loaded.store(true, std::memory_order_release);
}

}  // namespace

ze_result_t first_loader_init(ze_result_t (*init)(std::uint32_t), std::uint32_t flags) noexcept {
  load_alt_drivers_once();
  return init(flags);
}

Status ZeLoaderLoad::status() const {
  if (loader != nullptr) return Status();
  if (variable != nullptr) {
    return Status(ErrorKind::kConfig, std::string(variable) + "='" + path +
                                          "' names no usable Level Zero loader: " + reason);
  }
  if (not_loaded) {
    return Status(ErrorKind::kUnavailable, "Level Zero loader " + path +
                                               " not found (install libze1): " + reason);
  }
  return Status(ErrorKind::kDriver,
                "the Level Zero loader '" + path + "' cannot be used: " + reason);
}

ZeLoaderLoad load_ze_loader(const std::optional<std::string>& given) noexcept {
  ZeLoaderLoad load;
  try {
    if (given) {
      load.path = *given;
    } else if (const char* value = ::accel::detail::environment_variable(kLoaderVariable);
               value != nullptr && *value != '\0') {
      load.path = value;
      load.variable = kLoaderVariable;
    } else {
      load.path = kDefaultLoader;
    }
    void* handle = open_shared_object(load.path, "the Level Zero loader",
                                      "set ACCEL_LEVEL_ZERO_LOADER to the loader file to use "
                                      "another one",
                                      &load.reason);
    if (handle == nullptr) {
      load.not_loaded = true;
      return load;
    }
    auto loader = std::make_unique<ZeLoader>();
    loader->path = load.path;
    loader->handle = handle;
#define ACCEL_ZE_RESOLVE_REQUIRED(name)                                                  \
  if (!resolve(handle, #name, &loader->api.name)) {                                      \
    load.reason = "the Level Zero loader '" + load.path + "' lacks " #name               \
                  " (a loader older than 1.8, or not the Level Zero loader)";            \
    return load;                                                                         \
  }
    ACCEL_ZE_REQUIRED_TABLE(ACCEL_ZE_RESOLVE_REQUIRED)
#undef ACCEL_ZE_RESOLVE_REQUIRED
#define ACCEL_ZE_RESOLVE_OPTIONAL(name, type) resolve(handle, #name, &loader->api.name);
    ACCEL_ZE_OPTIONAL_TABLE(ACCEL_ZE_RESOLVE_OPTIONAL)
#undef ACCEL_ZE_RESOLVE_OPTIONAL
    load.loader = std::move(loader);
  } catch (...) {
    load.loader.reset();
    load.reason = "out of memory";
  }
  return load;
}

}  // namespace accel::detail::level_zero
