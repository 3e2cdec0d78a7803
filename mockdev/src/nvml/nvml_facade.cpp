// The simulated libnvidia-ml.so.1: exports exactly the entry points of ACCEL_NVML_TABLE
// (abi/include/accel_abi/nvml.h) and forwards each to the engine (nvml/nvml_api.h); the
// forwarders are generated from the table rows. Every body catches everything: no
// exception crosses the C boundary. The export list (libnvidia-ml.map) is generated from
// the same table (facade/export_map.cpp); the signatures are checked at the end.

#include <type_traits>

#include "facade/facade_export.h"
#include "nvml/nvml_api.h"

using namespace accel::nvml_abi;  // NOLINT: the facade speaks the vendor's names
namespace api = mockdev::nvml::api;

namespace {

// What an entry point returns when its body throws: NVML's catch-all code, or for
// nvmlErrorString the text of that code.
template <typename Ret>
Ret on_exception() noexcept;
template <>
nvmlReturn_t on_exception<nvmlReturn_t>() noexcept {
  return NVML_ERROR_UNKNOWN;
}
template <>
const char* on_exception<const char*>() noexcept {
  return "Unknown Error";
}

template <typename Ret, typename F>
Ret guarded(F&& body) noexcept {
  try {
    return std::forward<F>(body)();
  } catch (...) {
    return on_exception<Ret>();
  }
}

}  // namespace

#define MOCKDEV_NVML_FORWARDER(symbol, ret, params, args, traits) \
  MOCKDEV_EXPORT ret symbol params {                              \
    return guarded<ret>([&] { return api::symbol args; });        \
  }
ACCEL_NVML_TABLE(MOCKDEV_NVML_FORWARDER)
#undef MOCKDEV_NVML_FORWARDER

#define MOCKDEV_CHECK_TYPE(symbol, ret, params, args, traits) \
  static_assert(std::is_same_v<decltype(&::symbol), PFN_##symbol>, #symbol " has the wrong type");
ACCEL_NVML_TABLE(MOCKDEV_CHECK_TYPE)
#undef MOCKDEV_CHECK_TYPE
