// The simulated libcuda.so.1: exports exactly the entry points of ACCEL_CUDA_DRIVER_TABLE
// (abi/include/accel_abi/cuda_driver.h) plus cuGetProcAddress_v2 and the CUDA 11.3
// cuGetProcAddress, and forwards each to the engine (cuda/driver_api.h). Everything here
// is generated from the table rows; only the resolver is written by hand. Every body
// catches everything: no exception crosses the C boundary. The export list (libcuda.map)
// is generated from the same table (facade/export_map.cpp); the signatures are checked by
// the static_asserts at the end.

#include <string_view>
#include <type_traits>

#include "core/race_call_site.h"
#include "cuda/driver_api.h"
#include "cuda/entry_points.h"
#include "facade/facade_export.h"

using namespace accel::cuda_abi;  // NOLINT: the facade speaks the vendor's names
namespace api = mockdev::cuda::api;

namespace {

template <typename F>
CUresult guarded(F&& body) noexcept {
  return mockdev::facade::guarded<CUDA_ERROR_UNKNOWN>(std::forward<F>(body));
}

}  // namespace

// One forwarder per row: MOCKDEV_EXPORT CUresult <symbol>(<params>) -> api::<name>(<args>).
// Each records its caller for the operations it enqueues (Note [Call sites of operations]
// in core/race_call_site.h): one thread-local pointer.
#define MOCKDEV_CUDA_FORWARDER(name, version, symbol, params, args, traits) \
  MOCKDEV_EXPORT CUresult symbol params {                                   \
    const mockdev::core::CallerScope caller(__builtin_return_address(0));   \
    return guarded([&] { return api::symbol args; });                       \
  }
ACCEL_CUDA_DRIVER_TABLE(MOCKDEV_CUDA_FORWARDER)
#undef MOCKDEV_CUDA_FORWARDER
// And one per per-thread default-stream variant: <variant>(<params>) -> api::<variant>.
#define MOCKDEV_CUDA_PT_FORWARDER(name, version, symbol, variant, pt_version, suffix, params, \
                                  args, traits)                                               \
  MOCKDEV_EXPORT CUresult variant params {                                                    \
    const mockdev::core::CallerScope caller(__builtin_return_address(0));                     \
    return guarded([&] { return api::variant args; });                                        \
  }
ACCEL_CUDA_PER_THREAD_TABLE(MOCKDEV_CUDA_PT_FORWARDER)
#undef MOCKDEV_CUDA_PT_FORWARDER

MOCKDEV_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                            cuuint64_t flags,
                                            CUdriverProcAddressQueryResult* symbol_status);
MOCKDEV_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                         cuuint64_t flags);

namespace {

// The table cuGetProcAddress serves: base name, introducing version, exported function.
// Note [Proc address table]: the same table that declares the ABI builds it, so the
// resolver and the exports can never disagree; the resolver also resolves itself.
// Note [Constant driver tables]: the table is constant-initialised data (constexpr; each
// function is reached through a captureless thunk, because a function pointer cast to
// void* is not a constant expression). A table built by a load-time constructor is empty
// in a child forked while another thread was inside the dlopen() that loads this library:
// the child inherits the library as "constructors run" with the table half-written, and
// every lookup answers CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND.
// A per-thread entry (per_thread true) is the variant of the row of the same name whose
// version it names in `row_version`; the others have row_version == version.
// The surface this facade serves (mockdev_add_facade's MAX_VERSION): the rows introduced at
// or before it. drivers/libcuda.so.1 serves every row; drivers/cuda12/libcuda.so.1 those of
// CUDA 12.x, as a 12.x driver has no later entry point (its export list leaves them out too).
#ifndef MOCKDEV_FACADE_MAX_VERSION
#define MOCKDEV_FACADE_MAX_VERSION 2147483647
#endif
constexpr int kSurfaceVersion = MOCKDEV_FACADE_MAX_VERSION;

struct ProcEntry {
  std::string_view name;
  int version;
  void* (*function)();
  bool per_thread = false;
  int row_version = 0;
};

constexpr ProcEntry kProcTable[] = {
#define MOCKDEV_PROC_ENTRY(name, version, symbol, params, args, traits) \
  {#name, version, [] { return reinterpret_cast<void*>(&::symbol); }, false, version},
    ACCEL_CUDA_DRIVER_TABLE(MOCKDEV_PROC_ENTRY)
#undef MOCKDEV_PROC_ENTRY
#define MOCKDEV_PT_PROC_ENTRY(name, version, symbol, variant, pt_version, suffix, params, args, \
                              traits)                                                          \
  {#name, pt_version, [] { return reinterpret_cast<void*>(&::variant); }, true, version},
        ACCEL_CUDA_PER_THREAD_TABLE(MOCKDEV_PT_PROC_ENTRY)
#undef MOCKDEV_PT_PROC_ENTRY
            {"cuGetProcAddress", 12000,
             [] { return reinterpret_cast<void*>(&::cuGetProcAddress_v2); }, false, 12000},
    {"cuGetProcAddress", 11030, [] { return reinterpret_cast<void*>(&::cuGetProcAddress); },
     false, 11030},
};

// Looks `symbol` up at `cuda_version` (already checked against the driver version): the
// newest row of that name introduced at or before it; under
// CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, that row's per-thread variant where it has
// one (cuda.h: the variants exist for the entry points that use the default stream), else
// the row itself. CU_GET_PROC_ADDRESS_DEFAULT and _LEGACY_STREAM serve the rows (the
// driver's default stream is the legacy one).
CUresult resolve(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                 CUdriverProcAddressQueryResult* status) {
  const ProcEntry* best = nullptr;
  bool known = false;
  for (const ProcEntry& e : kProcTable) {
    if (e.name != symbol || e.per_thread || e.version > kSurfaceVersion) continue;
    known = true;
    if (e.version <= cuda_version && (best == nullptr || e.version > best->version)) best = &e;
  }
  if (best != nullptr && (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0) {
    for (const ProcEntry& e : kProcTable) {
      if (e.per_thread && e.name == symbol && e.row_version == best->version) best = &e;
    }
  }
  *pfn = best != nullptr ? best->function() : nullptr;
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
    CUresult rc = api::get_proc_address_check(true, symbol, pfn, cuda_version, flags);
    if (rc != CUDA_SUCCESS) return rc;
    return resolve(symbol, pfn, cuda_version, flags, symbol_status);
  });
}

MOCKDEV_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                         cuuint64_t flags) {
  return guarded([&] {
    CUresult rc = api::get_proc_address_check(false, symbol, pfn, cuda_version, flags);
    if (rc != CUDA_SUCCESS) return rc;
    return resolve(symbol, pfn, cuda_version, flags, nullptr);
  });
}

// Each definition has exactly the type the ABI header (checked against cuda.h) declares.
#define MOCKDEV_CHECK_TYPE(name, version, symbol, params, args, traits)       \
  static_assert(std::is_same_v<decltype(&::symbol), PFN_##name##_v##version>, \
                #symbol " does not match PFN_" #name "_v" #version);
ACCEL_CUDA_DRIVER_TABLE(MOCKDEV_CHECK_TYPE)
#undef MOCKDEV_CHECK_TYPE
#define MOCKDEV_CHECK_PT_TYPE(name, version, symbol, variant, pt_version, suffix, params, args, \
                              traits)                                                          \
  static_assert(std::is_same_v<decltype(&::variant), PFN_##name##_v##pt_version##suffix>,       \
                #variant " does not match PFN_" #name "_v" #pt_version #suffix);
ACCEL_CUDA_PER_THREAD_TABLE(MOCKDEV_CHECK_PT_TYPE)
#undef MOCKDEV_CHECK_PT_TYPE
static_assert(std::is_same_v<decltype(&::cuGetProcAddress_v2), PFN_cuGetProcAddress_v12000>);
static_assert(std::is_same_v<decltype(&::cuGetProcAddress), PFN_cuGetProcAddress_v11030>);
// The resolver rows of cuda/entry_points.h follow the table rows and the per-thread
// variants, in this order.
static_assert(mockdev::cuda::kEntries.size() == std::size(kProcTable));
