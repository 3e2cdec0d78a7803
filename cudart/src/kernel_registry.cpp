#include "kernel_registry.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace accel::cudart {

struct RegisteredFunction {
  void** handle = nullptr;
  std::string device_name;
  std::atomic<drv::CUkernel> kernel{nullptr};  // found once, then read without the lock
};

namespace {

// nvcc's __fatBinC_Wrapper_t (fatbinary_section.h, in our words): magic 0x466243B1, version 1
// (one object's code) or 2 (a device-linked program's; spec §6.4), the fatbinary, and for
// version 2 the prelinked fatbinaries.
struct FatBinaryWrapper {
  int magic;
  int version;
  const unsigned long long* data;  // NOLINT(runtime/int): the wrapper's own type
  void* filename_or_fatbins;
};
constexpr int kWrapperMagic = 0x466243B1;

struct FatBinary {
  const void* image = nullptr;  // what cuLibraryLoadData gets
  drv::CUlibrary library = nullptr;
  std::mutex load_mutex;  // one load at a time per fatbinary
  std::vector<std::pair<void**, RegisteredVariable>> managed;
};

struct Tables {
  std::shared_mutex mutex;
  std::unordered_map<void**, std::unique_ptr<FatBinary>> binaries;                   // by handle
  std::unordered_map<const void*, std::unique_ptr<RegisteredFunction>> functions;    // by stub
  std::unordered_map<const void*, std::pair<void**, RegisteredVariable>> variables;  // by shadow
};

Tables& tables() {
  static auto* t = new Tables();  // never destroyed: stubs may run during exit
  return *t;
}

// The loaded library of `binary` (Note [Lazy loading]).
cudaError_t library_of(const DriverTable& d, FatBinary& binary, drv::CUlibrary* library) {
  std::lock_guard<std::mutex> lock(binary.load_mutex);
  if (binary.library == nullptr) {
    drv::CUlibrary loaded = nullptr;
    if (const cudaError_t e = call(d.cuLibraryLoadData, &loaded, binary.image, nullptr, nullptr, 0u,
                                   nullptr, nullptr, 0u);
        e != cudaSuccess) {
      return e;
    }
    binary.library = loaded;
  }
  *library = binary.library;
  return cudaSuccess;
}

FatBinary* binary_of(void** handle) {
  Tables& t = tables();
  std::shared_lock lock(t.mutex);
  const auto found = t.binaries.find(handle);
  return found == t.binaries.end() ? nullptr : found->second.get();
}

thread_local std::vector<CallConfiguration> t_configurations;

}  // namespace

void** register_fat_binary(void* wrapper) {
  auto binary = std::make_unique<FatBinary>();
  const auto* w = static_cast<const FatBinaryWrapper*>(wrapper);
  // The fatbinary itself when the wrapper is nvcc's; anything else goes to the driver as it
  // came (the driver reads or refuses it at first use).
  binary->image =
      (w != nullptr && w->magic == kWrapperMagic) ? static_cast<const void*>(w->data) : wrapper;
  // The handle is the FatBinary's own address: unique while it is registered.
  void** handle = reinterpret_cast<void**>(binary.get());
  Tables& t = tables();
  std::unique_lock lock(t.mutex);
  t.binaries.emplace(handle, std::move(binary));
  return handle;
}

void unregister_fat_binary(void** handle) noexcept {
  Tables& t = tables();
  std::unique_lock lock(t.mutex);
  const auto found = t.binaries.find(handle);
  if (found == t.binaries.end()) return;
  std::erase_if(t.functions, [&](const auto& f) { return f.second->handle == handle; });
  std::erase_if(t.variables, [&](const auto& v) { return v.second.first == handle; });
  // The FatBinary stays allocated (a stub's cached kernel may still name its library).
  static_cast<void>(found->second.release());
  t.binaries.erase(found);
}

void register_function(void** handle, const void* host_stub, const char* device_name) {
  if (host_stub == nullptr || device_name == nullptr) return;
  auto f = std::make_unique<RegisteredFunction>();
  f->handle = handle;
  f->device_name = device_name;
  Tables& t = tables();
  std::unique_lock lock(t.mutex);
  if (t.binaries.count(handle) == 0) return;
  t.functions.insert_or_assign(host_stub, std::move(f));
}

void register_variable(void** handle, const void* host_shadow, const char* name, std::size_t bytes,
                       bool constant) {
  if (host_shadow == nullptr || name == nullptr) return;
  Tables& t = tables();
  std::unique_lock lock(t.mutex);
  if (t.binaries.count(handle) == 0) return;
  t.variables.insert_or_assign(
      host_shadow, std::make_pair(handle, RegisteredVariable{name, bytes, constant, false}));
}

void register_managed_variable(void** handle, void** slot, const char* name, std::size_t bytes) {
  if (slot == nullptr || name == nullptr) return;
  Tables& t = tables();
  std::unique_lock lock(t.mutex);
  const auto found = t.binaries.find(handle);
  if (found == t.binaries.end()) return;
  RegisteredVariable v{name, bytes, false, true};
  found->second->managed.emplace_back(slot, v);
  // The slot's address is what the program names the variable by (&var in host code reads
  // *slot; cudaMemcpyToSymbol(var, ...) passes the slot's target, which is filled later).
  t.variables.insert_or_assign(static_cast<const void*>(slot), std::make_pair(handle, v));
}

cudaError_t kernel_of(const DriverTable& d, const void* host_stub, drv::CUkernel* kernel) {
  RegisteredFunction* f = nullptr;
  {
    Tables& t = tables();
    std::shared_lock lock(t.mutex);
    const auto found = t.functions.find(host_stub);
    if (found == t.functions.end()) return cudaErrorInvalidDeviceFunction;
    f = found->second.get();
  }
  if (drv::CUkernel k = f->kernel.load(std::memory_order_acquire); k != nullptr) {
    *kernel = k;
    return cudaSuccess;
  }
  FatBinary* binary = binary_of(f->handle);
  if (binary == nullptr) return cudaErrorInvalidDeviceFunction;
  drv::CUlibrary library = nullptr;
  if (const cudaError_t e = library_of(d, *binary, &library); e != cudaSuccess) return e;
  drv::CUkernel k = nullptr;
  if (const cudaError_t e = call(d.cuLibraryGetKernel, &k, library, f->device_name.c_str());
      e != cudaSuccess) {
    return e;
  }
  f->kernel.store(k, std::memory_order_release);
  *kernel = k;
  return cudaSuccess;
}

cudaError_t symbol_of(const DriverTable& d, const void* host_shadow, drv::CUdeviceptr* address,
                      std::size_t* bytes) {
  void** handle = nullptr;
  RegisteredVariable v;
  {
    Tables& t = tables();
    std::shared_lock lock(t.mutex);
    const auto found = t.variables.find(host_shadow);
    if (found == t.variables.end()) return cudaErrorInvalidSymbol;
    handle = found->second.first;
    v = found->second.second;
  }
  FatBinary* binary = binary_of(handle);
  if (binary == nullptr) return cudaErrorInvalidSymbol;
  drv::CUlibrary library = nullptr;
  if (const cudaError_t e = library_of(d, *binary, &library); e != cudaSuccess) return e;
  return call(v.managed ? d.cuLibraryGetManaged : d.cuLibraryGetGlobal, address, bytes, library,
              v.name.c_str());
}

cudaError_t init_module(const DriverTable& d, void** handle) {
  FatBinary* binary = binary_of(handle);
  if (binary == nullptr) return cudaErrorInvalidResourceHandle;
  drv::CUlibrary library = nullptr;
  if (const cudaError_t e = library_of(d, *binary, &library); e != cudaSuccess) return e;
  for (auto& [slot, v] : binary->managed) {
    drv::CUdeviceptr address = 0;
    std::size_t bytes = 0;
    if (const cudaError_t e =
            call(d.cuLibraryGetManaged, &address, &bytes, library, v.name.c_str());
        e != cudaSuccess) {
      return e;
    }
    *slot = reinterpret_cast<void*>(address);
  }
  return cudaSuccess;
}

void push_configuration(const CallConfiguration& configuration) {
  t_configurations.push_back(configuration);
}

cudaError_t pop_configuration(CallConfiguration* configuration) noexcept {
  if (t_configurations.empty()) return cudaErrorMissingConfiguration;
  *configuration = t_configurations.back();
  t_configurations.pop_back();
  return cudaSuccess;
}

}  // namespace accel::cudart
