#pragma once
// Vendor facts the CUDA backend reports, as pure functions: the dtypes a compute
// capability supports (Note [Supported dtypes]), CUDA's UUID and PCI bus id text and its
// driver version text. Stateless; thread-safe.

#include <string>
#include <vector>

#include "accel/scalar_type.h"
#include "accel_abi/cuda_driver.h"

namespace accel::detail::cuda {

// Every scalar type the device supports, in ScalarType order.
std::vector<ScalarType> supported_dtypes(int major, int minor);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lower-case hex), as nvidia-smi prints it.
std::string format_uuid(const cuda_abi::CUuuid& uuid);

// The driver's PCI bus id ("0000:1b:00.0", cuDeviceGetPCIBusId) as nvidia-smi prints it:
// the domain widened to eight digits, hex in upper case ("00000000:1B:00.0"). Text that is
// not "<domain>:<rest>" is returned upper-cased, unchanged otherwise.
std::string format_pci_bus_id(const std::string& driver_text);

// "13.0" for 13000: CUDA's driver version encoding (1000 * major + 10 * minor); "" for 0.
std::string format_driver_version(int version);

}  // namespace accel::detail::cuda
