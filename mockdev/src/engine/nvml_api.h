#pragma once
// The simulated NVML: one function per entry point of the mock libnvidia-ml.so.1. NVML
// lists every physical device of the machine (it ignores CUDA_VISIBLE_DEVICES; the caller
// applies the mask) and never touches CUDA driver state, so it works in a forked child once
// that child has called nvmlInit itself (initialisation is per process).
// Every call is counted and may be failed by a scheduled call fault (after counting).
// Thread-safe; never throws except std::bad_alloc, which the facade turns into
// NVML_ERROR_UNKNOWN.

#include "accel_abi/nvml.h"

namespace mockdev::nvml {

using namespace accel::nvml_abi;  // NOLINT: vendor names read best unqualified here

nvmlReturn_t nvml_init(const char* entry_point);  // nvmlInit and nvmlInit_v2
nvmlReturn_t nvml_shutdown();
const char* nvml_error_string(nvmlReturn_t result);
nvmlReturn_t nvml_device_get_count(unsigned int* count);
nvmlReturn_t nvml_device_get_handle_by_index(unsigned int index, nvmlDevice_t* device);
nvmlReturn_t nvml_device_get_uuid(nvmlDevice_t device, char* uuid, unsigned int length);
nvmlReturn_t nvml_device_get_name(nvmlDevice_t device, char* name, unsigned int length);
nvmlReturn_t nvml_device_get_memory_info(nvmlDevice_t device, nvmlMemory_t* memory);

}  // namespace mockdev::nvml
