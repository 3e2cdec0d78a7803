#include "abi_loader.h"

#include <algorithm>

namespace accel::test {
namespace {

// The symbols each load looks up, generated from the same rows as the slots.
#define ACCEL_TEST_CUDA_NAME(name, version, symbol, params) #symbol,
#define ACCEL_TEST_CUDA_PT_NAME(name, version, symbol, variant, pt_version, suffix, params, args, \
                                traits)                                                          \
  #variant,
constexpr std::string_view kCudaSymbols[] = {ACCEL_CUDA_ENTRY_POINTS(ACCEL_TEST_CUDA_NAME)
                                                 ACCEL_CUDA_PER_THREAD_TABLE(ACCEL_TEST_CUDA_PT_NAME)
                                                     "cuGetProcAddress_v2",
                                             "cuGetProcAddress"};
#undef ACCEL_TEST_CUDA_PT_NAME
#undef ACCEL_TEST_CUDA_NAME
#define ACCEL_TEST_NVML_NAME(symbol, ret, params) #symbol,
constexpr std::string_view kNvmlSymbols[] = {ACCEL_NVML_ENTRY_POINTS(ACCEL_TEST_NVML_NAME)};
#undef ACCEL_TEST_NVML_NAME

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

LoadReport open_library(const std::string& file, int flags, void*& handle,
                        std::span<const std::string_view> table) {
  LoadReport report;
  report.file = file;
  report.table = table;
  handle = dlopen(file.c_str(), flags);
  if (handle == nullptr) {
    const char* why = dlerror();
    report.open_error = why != nullptr ? why : "dlopen failed";
  }
  return report;
}

// `symbol` is one of the tables' string literals, so it is NUL-terminated.
template <typename Pfn>
void resolve(void* handle, Pfn& slot, std::string_view symbol, LoadReport& report) {
  slot = reinterpret_cast<Pfn>(dlsym(handle, symbol.data()));
  if (slot == nullptr) report.missing.emplace_back(symbol);
}

}  // namespace

std::string LoadReport::missing_of(std::initializer_list<std::string_view> symbols) const {
  std::vector<std::string> out;
  for (std::string_view symbol : symbols) {
    if (std::find(table.begin(), table.end(), symbol) == table.end()) {
      out.push_back(std::string(symbol) + " (not in the ABI table)");
    } else if (!opened() || std::find(missing.begin(), missing.end(), symbol) != missing.end()) {
      out.emplace_back(symbol);
    }
  }
  return join(out);
}

std::string LoadReport::describe() const {
  if (!opened()) return "cannot dlopen " + file + ": " + open_error;
  if (!missing.empty()) return file + " does not export " + join(missing);
  return "";
}

LoadReport load_cuda_entry_points(const std::string& file, CudaEntryPoints& out, int dlopen_flags) {
  out = CudaEntryPoints();
  LoadReport report = open_library(file, dlopen_flags, out.handle, kCudaSymbols);
  if (out.handle == nullptr) return report;
#define ACCEL_TEST_CUDA_RESOLVE(name, version, symbol, params) \
  resolve(out.handle, out.symbol, #symbol, report);
  ACCEL_CUDA_ENTRY_POINTS(ACCEL_TEST_CUDA_RESOLVE)
#undef ACCEL_TEST_CUDA_RESOLVE
#define ACCEL_TEST_CUDA_PT_RESOLVE(name, version, symbol, variant, pt_version, suffix, params, \
                                   args, traits)                                              \
  resolve(out.handle, out.variant, #variant, report);
  ACCEL_CUDA_PER_THREAD_TABLE(ACCEL_TEST_CUDA_PT_RESOLVE)
#undef ACCEL_TEST_CUDA_PT_RESOLVE
  resolve(out.handle, out.cuGetProcAddress_v2, "cuGetProcAddress_v2", report);
  resolve(out.handle, out.cuGetProcAddress, "cuGetProcAddress", report);
  return report;
}

LoadReport load_nvml_entry_points(const std::string& file, NvmlEntryPoints& out, int dlopen_flags) {
  out = NvmlEntryPoints();
  LoadReport report = open_library(file, dlopen_flags, out.handle, kNvmlSymbols);
  if (out.handle == nullptr) return report;
#define ACCEL_TEST_NVML_RESOLVE(symbol, ret, params) \
  resolve(out.handle, out.symbol, #symbol, report);
  ACCEL_NVML_ENTRY_POINTS(ACCEL_TEST_NVML_RESOLVE)
#undef ACCEL_TEST_NVML_RESOLVE
  return report;
}

}  // namespace accel::test
