// CUresult -> Status.
#include "backends/cuda/cuda_status.h"

#include <string>

namespace accel::detail::cuda {

Status driver_status(const DriverLibrary& driver, int code, std::string_view operation,
                     std::optional<int> device) {
  ErrorDetail detail;
  detail.device = device;
  detail.driver_code = code;
  detail.driver_error_name = driver.error_name(code);
  std::string message =
      std::string(operation) + ": CUDA error: " + driver.error_string(code) + " (";
  if (device) message += "device=" + std::to_string(*device) + ", ";
  message += "driver=" + detail.driver_error_name + ")";
  ErrorKind kind = ErrorKind::kDriver;
  if (code == cuda_abi::CUDA_ERROR_OUT_OF_MEMORY) kind = ErrorKind::kOutOfMemory;
  if (code == cuda_abi::CUDA_ERROR_NO_DEVICE) kind = ErrorKind::kUnavailable;
  return Status(kind, std::move(message), std::move(detail));
}

}  // namespace accel::detail::cuda
