// The entry-point tables that drive the facades: the traits the engine applies (Note
// [Driver call order]) are the ones docs/MACHINE_FILES.md documents, and the generated
// export lists name exactly the table's symbols.

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <algorithm>

#include "cuda/entry_points.h"
#include "driver_loader.h"
#include "nvml/entry_points.h"

namespace mockdev::testing {
namespace {

// The runtime's rows (ACCEL_CUDA_RUNTIME_ENTRY_POINTS) and the two resolvers: the rows whose
// traits docs/MACHINE_FILES.md lists. The fragments' rows state theirs in their groups' tests.
bool is_runtime_row(std::string_view symbol) {
#define MOCKDEV_TEST_RUNTIME_ROW(name, version, row_symbol, params) \
  if (symbol == #row_symbol) return true;
  ACCEL_CUDA_RUNTIME_ENTRY_POINTS(MOCKDEV_TEST_RUNTIME_ROW)
#undef MOCKDEV_TEST_RUNTIME_ROW
  return symbol == "cuGetProcAddress_v2" || symbol == "cuGetProcAddress";
}

std::set<std::string> cuda_symbols_with(unsigned trait, bool present) {
  std::set<std::string> out;
  for (const cuda::EntryInfo& e : cuda::kEntries) {
    if (is_runtime_row(e.symbol) && ((e.traits & trait) != 0) == present) out.emplace(e.symbol);
  }
  return out;
}

// A per-thread default-stream variant (cuMemcpyAsync_ptsz) has its row's name and traits.
TEST(MockEntryTable, PerThreadVariantsHaveTheirRowsTraits) {
  int variants = 0;
  for (const cuda::EntryInfo& v : cuda::kEntries) {
    if (v.per_thread_of.empty()) continue;
    ++variants;
    int rows = 0;
    for (const cuda::EntryInfo& row : cuda::kEntries) {
      if (row.symbol != v.per_thread_of) continue;
      ++rows;
      EXPECT_EQ(row.traits, v.traits) << v.symbol;
      EXPECT_EQ(row.name, v.name) << v.symbol;
      EXPECT_TRUE(row.per_thread_of.empty()) << v.symbol;
      EXPECT_TRUE(v.symbol.starts_with(row.symbol)) << v.symbol;
      EXPECT_GE(v.version, std::max(row.version, 7000)) << v.symbol;
    }
    EXPECT_EQ(rows, 1) << v.symbol;
  }
  EXPECT_GE(variants, 31);
}

TEST(MockEntryTable, CudaTraitsAreTheDocumentedOnes) {
  EXPECT_EQ(cuda_symbols_with(accel::cuda_abi::kNeedsInit, false),
            (std::set<std::string>{"cuInit", "cuDriverGetVersion", "cuGetErrorName",
                                   "cuGetErrorString", "cuGetProcAddress_v2", "cuGetProcAddress"}));
  EXPECT_EQ(cuda_symbols_with(accel::cuda_abi::kTouchesDevice, true),
            (std::set<std::string>{
                "cuCtxSynchronize", "cuMemGetInfo_v2", "cuMemAlloc_v2", "cuMemFree_v2",
                "cuStreamCreate", "cuStreamCreateWithPriority", "cuStreamQuery",
                "cuStreamSynchronize", "cuStreamWaitEvent", "cuStreamAddCallback",
                "cuLaunchHostFunc", "cuEventRecord", "cuEventRecordWithFlags", "cuEventQuery",
                "cuEventSynchronize", "cuMemAllocHost_v2", "cuMemHostAlloc",
                "cuMemHostRegister_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemcpyDtoD_v2",
                "cuMemcpy", "cuMemcpyPeer", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2",
                "cuMemcpyDtoDAsync_v2", "cuMemcpyAsync", "cuMemcpyPeerAsync", "cuMemsetD8_v2",
                "cuMemsetD32_v2", "cuMemsetD8Async", "cuMemsetD32Async", "cuLaunchKernel",
                "cuGraphLaunch", "cuMemCreate"}));
  // The "potentially unsafe" calls of cuThreadExchangeStreamCaptureMode (900 + invalidation
  // in a prohibiting capture mode).
  EXPECT_EQ(cuda_symbols_with(accel::cuda_abi::kLegalInCapture, false),
            (std::set<std::string>{"cuDevicePrimaryCtxRelease_v2", "cuCtxSynchronize",
                                   "cuMemAlloc_v2", "cuMemFree_v2", "cuStreamQuery",
                                   "cuStreamSynchronize", "cuStreamAddCallback", "cuEventQuery",
                                   "cuEventSynchronize", "cuMemAllocHost_v2", "cuMemHostAlloc",
                                   "cuMemFreeHost", "cuMemHostRegister_v2",
                                   "cuMemHostUnregister",
                                   // virtual memory: all but cuMemGetAllocationGranularity
                                   "cuMemAddressReserve", "cuMemAddressFree", "cuMemCreate",
                                   "cuMemRelease", "cuMemMap", "cuMemUnmap", "cuMemSetAccess"}));
  EXPECT_TRUE(cuda::is_entry_point("cuMemAlloc_v2"));
  EXPECT_FALSE(cuda::is_entry_point("cuMemAlloc"));
}

TEST(MockEntryTable, NvmlTraits) {
  std::set<std::string> without_init;
  for (const nvml::EntryInfo& e : nvml::kEntries) {
    if ((e.traits & accel::nvml_abi::kNvmlNeedsInit) == 0) without_init.emplace(e.symbol);
  }
  EXPECT_EQ(without_init, (std::set<std::string>{"nvmlInit", "nvmlInit_v2", "nvmlErrorString"}));
}

// The facades export exactly the table's symbols (read from the ELF files): the generated
// version scripts neither drop nor add a name.
TEST(MockEntryTable, FacadesExportExactlyTheTables) {
  std::set<std::string> cuda_expected, nvml_expected;
  for (const cuda::EntryInfo& e : cuda::kEntries) cuda_expected.emplace(e.symbol);
  for (const nvml::EntryInfo& e : nvml::kEntries) nvml_expected.emplace(e.symbol);
  EXPECT_EQ(defined_dynamic_symbols(cuda_driver_path()), cuda_expected);
  EXPECT_EQ(defined_dynamic_symbols(nvml_library_path()), nvml_expected);
}

}  // namespace
}  // namespace mockdev::testing
