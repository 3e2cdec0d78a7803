#pragma once
// The names of the entry points the simulated drivers export, from the ABI X-macros, so the
// machine-file parser can reject a fault on a name no facade has. Header-only; constexpr.

#include <array>
#include <string_view>

#include "accel_abi/cuda_driver.h"
#include "accel_abi/nvml.h"

namespace mockdev::engine {

inline constexpr std::array kCudaEntryPoints = {
#define MOCKDEV_CUDA_SYMBOL(name, version, symbol, params) std::string_view(#symbol),
    ACCEL_CUDA_ENTRY_POINTS(MOCKDEV_CUDA_SYMBOL)
#undef MOCKDEV_CUDA_SYMBOL
        std::string_view("cuGetProcAddress"),
    std::string_view("cuGetProcAddress_v2"),
};

inline constexpr std::array kNvmlEntryPoints = {
#define MOCKDEV_NVML_SYMBOL(symbol, ret, params) std::string_view(#symbol),
    ACCEL_NVML_ENTRY_POINTS(MOCKDEV_NVML_SYMBOL)
#undef MOCKDEV_NVML_SYMBOL
};

constexpr bool is_cuda_entry_point(std::string_view name) {
  for (std::string_view e : kCudaEntryPoints) {
    if (e == name) return true;
  }
  return false;
}

constexpr bool is_nvml_entry_point(std::string_view name) {
  for (std::string_view e : kNvmlEntryPoints) {
    if (e == name) return true;
  }
  return false;
}

}  // namespace mockdev::engine
