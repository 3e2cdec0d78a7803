// dlopen + dlsym of the Level Zero loader (ze_loader_library.h).
#include "backends/level_zero/ze_loader_library.h"

#include <dlfcn.h>

#include <cstdlib>

#include "backends/common/shared_object.h"
#include "spi/environment.h"

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

}  // namespace

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
