#pragma once
// The CUDA entry points the simulated libcuda.so.1 exports, as data: one Entry per row of
// ACCEL_CUDA_DRIVER_TABLE (abi/include/accel_abi/cuda_driver.h), named by its exported
// symbol, one per per-thread default-stream variant of ACCEL_CUDA_PER_THREAD_TABLE, plus
// the two resolvers
// (cuGetProcAddress_v2 and the CUDA 11.3 cuGetProcAddress, which the runtime finds with
// dlsym and the table therefore leaves out). The engine counts calls and applies the
// init gate from here; the machine-file reader and the export-list generator read the
// names. Header-only; constexpr.

#include <array>
#include <optional>
#include <string_view>

#include "accel_abi/cuda_driver.h"

namespace mockdev::cuda {

enum class Entry : int {
#define MOCKDEV_CUDA_ENUMERATOR(name, version, symbol, params, args, traits) symbol,
  ACCEL_CUDA_DRIVER_TABLE(MOCKDEV_CUDA_ENUMERATOR)
#undef MOCKDEV_CUDA_ENUMERATOR
#define MOCKDEV_CUDA_PT_ENUMERATOR(name, version, symbol, variant, pt_version, suffix, params, \
                                   args, traits)                                              \
  variant,
      ACCEL_CUDA_PER_THREAD_TABLE(MOCKDEV_CUDA_PT_ENUMERATOR)
#undef MOCKDEV_CUDA_PT_ENUMERATOR
      cuGetProcAddress_v2,
  cuGetProcAddress,
};

struct EntryInfo {
  std::string_view symbol;  // the exported name, under which calls are counted
  std::string_view name;    // the base name cuGetProcAddress takes
  int version;              // the cudaVersion that introduced it
  unsigned traits;          // accel::cuda_abi::EntryTraits
  // For a per-thread default-stream variant (cuMemcpyAsync_ptsz), the row it varies
  // (cuMemcpyAsync); empty for every other entry.
  std::string_view per_thread_of = {};
};

namespace entry_table {
// The traits column names accel::cuda_abi's EntryTraits unqualified.
using namespace accel::cuda_abi;  // NOLINT

// The size is spelled out: deducing it from this many initialisers makes clang instantiate
// a fold expression deeper than its default nesting limit of 256.
inline constexpr std::size_t kEntryCount = static_cast<std::size_t>(Entry::cuGetProcAddress) + 1;
inline constexpr std::array<EntryInfo, kEntryCount> kEntries = {
#define MOCKDEV_CUDA_INFO(name, version, symbol, params, args, traits) \
  EntryInfo{#symbol, #name, version, static_cast<unsigned>(traits)},
    ACCEL_CUDA_DRIVER_TABLE(MOCKDEV_CUDA_INFO)
#undef MOCKDEV_CUDA_INFO
#define MOCKDEV_CUDA_PT_INFO(name, version, symbol, variant, pt_version, suffix, params, args, \
                             traits)                                                          \
  EntryInfo{#variant, #name, pt_version, static_cast<unsigned>(traits), #symbol},
        ACCEL_CUDA_PER_THREAD_TABLE(MOCKDEV_CUDA_PT_INFO)
#undef MOCKDEV_CUDA_PT_INFO
        EntryInfo{"cuGetProcAddress_v2", "cuGetProcAddress", 12000, kLegalInCapture},
    EntryInfo{"cuGetProcAddress", "cuGetProcAddress", 11030, kLegalInCapture},
};

}  // namespace entry_table

using entry_table::kEntries;

constexpr const EntryInfo& info(Entry e) { return kEntries[static_cast<std::size_t>(e)]; }

constexpr bool has_trait(Entry e, accel::cuda_abi::EntryTraits trait) {
  return (info(e).traits & trait) != 0;
}

// True for an exported symbol of the mock libcuda.so.1 ("cuMemAlloc_v2", not "cuMemAlloc").
constexpr bool is_entry_point(std::string_view symbol) {
  for (const EntryInfo& e : kEntries) {
    if (e.symbol == symbol) return true;
  }
  return false;
}

}  // namespace mockdev::cuda
