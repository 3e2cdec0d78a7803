#pragma once
// The NVML entry points the simulated libnvidia-ml.so.1 exports, as data: one Entry per
// row of ACCEL_NVML_TABLE (abi/include/accel_abi/nvml.h). Header-only; constexpr.

#include <array>
#include <string_view>

#include "accel_abi/nvml.h"

namespace mockdev::nvml {

enum class Entry : int {
#define MOCKDEV_NVML_ENUMERATOR(symbol, ret, params, args, traits) symbol,
  ACCEL_NVML_TABLE(MOCKDEV_NVML_ENUMERATOR)
#undef MOCKDEV_NVML_ENUMERATOR
};

struct EntryInfo {
  std::string_view symbol;
  unsigned traits;  // accel::nvml_abi::NvmlEntryTraits
};

namespace entry_table {
using namespace accel::nvml_abi;  // NOLINT: the traits column is written unqualified

inline constexpr std::array kEntries = {
#define MOCKDEV_NVML_INFO(symbol, ret, params, args, traits) \
  EntryInfo{#symbol, static_cast<unsigned>(traits)},
    ACCEL_NVML_TABLE(MOCKDEV_NVML_INFO)
#undef MOCKDEV_NVML_INFO
};
}  // namespace entry_table

using entry_table::kEntries;

constexpr const EntryInfo& info(Entry e) { return kEntries[static_cast<std::size_t>(e)]; }

constexpr bool is_entry_point(std::string_view symbol) {
  for (const EntryInfo& e : kEntries) {
    if (e.symbol == symbol) return true;
  }
  return false;
}

}  // namespace mockdev::nvml
