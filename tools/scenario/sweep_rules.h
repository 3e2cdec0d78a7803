#pragma once
// Which driver calls a fault sweep fails, and how (docs/SCENARIOS.md, "Fault sweeps"): the
// runner runs a scenario once per call its steps made, that call failing with the code
// below. Entry points are exported symbols as the simulated driver counts them; the prefix
// names the API (cu* CUDA, nvml* NVML, ze* and zes* Level Zero). Pure; thread-safe.

#include <string>

namespace accel::scenario {

// The code a swept call fails with: what that call would most plausibly return.
// CUDA: cuMemAlloc* CUDA_ERROR_OUT_OF_MEMORY (2), cuInit CUDA_ERROR_NO_DEVICE (100), others
// CUDA_ERROR_UNKNOWN (999; NVML_ERROR_UNKNOWN is 999 too). Level Zero: zeMemAlloc*
// ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY (0x70000003), others ZE_RESULT_ERROR_UNKNOWN
// (0x7ffffffe).
int representative_code(const std::string& entry);

// `code` as the entry point's API writes it in the sweep's report: ze_result_t values in hex
// ("0x7ffffffe"), CUDA's and NVML's in decimal ("999").
std::string code_text(const std::string& entry, int code);

// Whether the sweep fails this call. Not the calls whose failure leaves the driver unusable
// for the life of the process by design (so "usable once the fault is cleared" does not
// apply): CUDA's made while loading the driver file (cuGetProcAddress*, cuDriverGetVersion)
// and Level Zero's initialisation (zeInit, zeInitDrivers, zesInit). Note [Unswept calls].
bool sweepable(const std::string& entry);

}  // namespace accel::scenario
