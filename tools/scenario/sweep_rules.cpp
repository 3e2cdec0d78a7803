#include "sweep_rules.h"

#include <cstdio>

namespace accel::scenario {

namespace {

bool level_zero_entry(const std::string& entry) { return entry.rfind("ze", 0) == 0; }

}  // namespace

int representative_code(const std::string& entry) {
  if (level_zero_entry(entry)) {
    if (entry.rfind("zeMemAlloc", 0) == 0) return 0x70000003;  // ..._OUT_OF_DEVICE_MEMORY
    return 0x7ffffffe;                                         // ZE_RESULT_ERROR_UNKNOWN
  }
  if (entry.rfind("cuMemAlloc", 0) == 0) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  if (entry == "cuInit") return 100;                // CUDA_ERROR_NO_DEVICE
  return 999;                                       // CUDA_ERROR_UNKNOWN / NVML_ERROR_UNKNOWN
}

std::string code_text(const std::string& entry, int code) {
  if (!level_zero_entry(entry)) return std::to_string(code);
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", static_cast<unsigned>(code));
  return text;
}

// Note [Unswept calls]
// A swept run must leave the runtime usable once the fault is cleared, except where a
// failure is final by design:
// - CUDA: the calls the runtime makes while loading the driver file. A failure there makes
//   the file unusable for the life of the process (a misconfiguration,
//   docs/decisions/036-misconfiguration-is-an-error.md).
// - Level Zero: the initialisation calls. The loader calls the driver's zeInit only inside
//   its own zeInit, which runs once per process and returns its first result ever after
//   (the loader's zeInit is a std::call_once; zesInit likewise), so both of the driver's
//   zeInit calls (the loader's check of the driver, then its initialisation) decide the
//   process's answer, and the runtime keeps it (zeInit once per process). A driver that
//   fails to initialise is an error for the whole run, never retried (decision 036 again).
//   Every call after initialisation is swept, the loader's own included.
bool sweepable(const std::string& entry) {
  if (entry == "zeInit" || entry == "zeInitDrivers" || entry == "zesInit") return false;
  return entry.rfind("cuGetProcAddress", 0) != 0 && entry != "cuDriverGetVersion";
}

}  // namespace accel::scenario
