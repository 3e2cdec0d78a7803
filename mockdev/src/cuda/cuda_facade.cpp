// The simulated libcuda.so.1: exports exactly the CUDA driver entry points of
// ACCEL_CUDA_ENTRY_POINTS (abi/include/accel_abi/cuda_driver.h) plus cuGetProcAddress_v2 and
// the CUDA 11.3 cuGetProcAddress, and forwards each to the engine (engine/driver_api.h).
// Every body catches everything: no exception crosses the C boundary. The exported list
// is enforced by libcuda.map; the signatures by the static_asserts at the end.

#include <string_view>
#include <type_traits>

#include "cuda/facade_export.h"
#include "engine/driver_api.h"

using namespace accel::cuda_abi;  // NOLINT: the facade speaks the vendor's names
namespace driver = mockdev::driver;

namespace {

template <typename F>
CUresult guarded(F&& body) noexcept {
  return mockdev::facade::guarded<CUDA_ERROR_UNKNOWN>(std::forward<F>(body));
}

}  // namespace

MOCKDEV_EXPORT CUresult cuInit(unsigned int flags) {
  return guarded([&] { return driver::cu_init(flags); });
}
MOCKDEV_EXPORT CUresult cuDriverGetVersion(int* driver_version) {
  return guarded([&] { return driver::cu_driver_get_version(driver_version); });
}
MOCKDEV_EXPORT CUresult cuGetErrorName(CUresult error, const char** str) {
  return guarded([&] { return driver::cu_get_error_name(error, str); });
}
MOCKDEV_EXPORT CUresult cuGetErrorString(CUresult error, const char** str) {
  return guarded([&] { return driver::cu_get_error_string(error, str); });
}
MOCKDEV_EXPORT CUresult cuDeviceGetCount(int* count) {
  return guarded([&] { return driver::cu_device_get_count(count); });
}
MOCKDEV_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  return guarded([&] { return driver::cu_device_get(device, ordinal); });
}
MOCKDEV_EXPORT CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  return guarded([&] { return driver::cu_device_get_name(name, len, dev); });
}
MOCKDEV_EXPORT CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attrib, CUdevice dev) {
  return guarded([&] { return driver::cu_device_get_attribute(value, attrib, dev); });
}
MOCKDEV_EXPORT CUresult cuDeviceTotalMem_v2(std::size_t* bytes, CUdevice dev) {
  return guarded([&] { return driver::cu_device_total_mem(bytes, dev); });
}
MOCKDEV_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
  return guarded([&] { return driver::cu_device_get_uuid(uuid, dev); });
}
MOCKDEV_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
  return guarded([&] { return driver::cu_device_primary_ctx_retain(ctx, dev); });
}
MOCKDEV_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  return guarded([&] { return driver::cu_device_primary_ctx_release(dev); });
}
MOCKDEV_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  return guarded([&] { return driver::cu_device_primary_ctx_get_state(dev, flags, active); });
}
MOCKDEV_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  return guarded([&] { return driver::cu_ctx_set_current(ctx); });
}
MOCKDEV_EXPORT CUresult cuCtxGetCurrent(CUcontext* ctx) {
  return guarded([&] { return driver::cu_ctx_get_current(ctx); });
}
MOCKDEV_EXPORT CUresult cuCtxGetDevice(CUdevice* device) {
  return guarded([&] { return driver::cu_ctx_get_device(device); });
}
MOCKDEV_EXPORT CUresult cuCtxSynchronize() {
  return guarded([&] { return driver::cu_ctx_synchronize(); });
}
MOCKDEV_EXPORT CUresult cuMemGetInfo_v2(std::size_t* free_bytes, std::size_t* total_bytes) {
  return guarded([&] { return driver::cu_mem_get_info(free_bytes, total_bytes); });
}
MOCKDEV_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* dptr, std::size_t bytes) {
  return guarded([&] { return driver::cu_mem_alloc(dptr, bytes); });
}
MOCKDEV_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr) {
  return guarded([&] { return driver::cu_mem_free(dptr); });
}

MOCKDEV_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                            cuuint64_t flags,
                                            CUdriverProcAddressQueryResult* symbol_status);
MOCKDEV_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                         cuuint64_t flags);

namespace {

// The table cuGetProcAddress serves: base name, introducing version, exported function.
// Note [Proc address table]: the same X-macro that declares the ABI builds it, so the
// resolver and the exports can never disagree; the resolver also resolves itself.
struct ProcEntry {
  std::string_view name;
  int version;
  void* function;
};

const ProcEntry kProcTable[] = {
#define MOCKDEV_PROC_ENTRY(name, version, symbol, params) \
  {#name, version, reinterpret_cast<void*>(&::symbol)},
    ACCEL_CUDA_ENTRY_POINTS(MOCKDEV_PROC_ENTRY)
#undef MOCKDEV_PROC_ENTRY
        {"cuGetProcAddress", 12000, reinterpret_cast<void*>(&::cuGetProcAddress_v2)},
    {"cuGetProcAddress", 11030, reinterpret_cast<void*>(&::cuGetProcAddress)},
};

// Looks `symbol` up at `cuda_version` (already checked against the driver version): the
// newest entry of that name introduced at or before it.
CUresult resolve(const char* symbol, void** pfn, int cuda_version,
                 CUdriverProcAddressQueryResult* status) {
  const ProcEntry* best = nullptr;
  bool known = false;
  for (const ProcEntry& e : kProcTable) {
    if (e.name != symbol) continue;
    known = true;
    if (e.version <= cuda_version && (best == nullptr || e.version > best->version)) best = &e;
  }
  *pfn = best != nullptr ? best->function : nullptr;
  if (status != nullptr) {
    *status = best != nullptr ? CU_GET_PROC_ADDRESS_SUCCESS
              : known         ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                              : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  }
  return CUDA_SUCCESS;
}

}  // namespace

MOCKDEV_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                            cuuint64_t flags,
                                            CUdriverProcAddressQueryResult* symbol_status) {
  return guarded([&] {
    CUresult rc =
        driver::cu_get_proc_address_check("cuGetProcAddress_v2", symbol, pfn, cuda_version, flags);
    if (rc != CUDA_SUCCESS) return rc;
    return resolve(symbol, pfn, cuda_version, symbol_status);
  });
}

MOCKDEV_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                         cuuint64_t flags) {
  return guarded([&] {
    CUresult rc =
        driver::cu_get_proc_address_check("cuGetProcAddress", symbol, pfn, cuda_version, flags);
    if (rc != CUDA_SUCCESS) return rc;
    return resolve(symbol, pfn, cuda_version, nullptr);
  });
}

// Each definition has exactly the type the ABI header (checked against cuda.h) declares.
#define MOCKDEV_CHECK_TYPE(name, version, symbol, params)                     \
  static_assert(std::is_same_v<decltype(&::symbol), PFN_##name##_v##version>, \
                #symbol " does not match PFN_" #name "_v" #version);
ACCEL_CUDA_ENTRY_POINTS(MOCKDEV_CHECK_TYPE)
#undef MOCKDEV_CHECK_TYPE
static_assert(std::is_same_v<decltype(&::cuGetProcAddress_v2), PFN_cuGetProcAddress_v12000>);
static_assert(std::is_same_v<decltype(&::cuGetProcAddress), PFN_cuGetProcAddress_v11030>);
