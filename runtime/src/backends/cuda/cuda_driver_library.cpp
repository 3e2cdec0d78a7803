// dlopen + cuGetProcAddress resolution of the CUDA driver.
#include "backends/cuda/cuda_driver_library.h"

#include <dlfcn.h>

#include "backends/common/shared_object.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUresult;

std::string code_text(int code) {
  const char* name = cuda_abi::result_name(code);
  return std::string(name ? name : "unknown CUresult") + " (" + std::to_string(code) + ")";
}

std::string status_text(cuda_abi::CUdriverProcAddressQueryResult status) {
  switch (status) {
    case cuda_abi::CU_GET_PROC_ADDRESS_SUCCESS:
      return "CU_GET_PROC_ADDRESS_SUCCESS";
    case cuda_abi::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND:
      return "CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND";
    case cuda_abi::CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT:
      return "CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT";
  }
  return "status " + std::to_string(static_cast<int>(status));
}

std::string stub_reason(const std::string& path) {
  return "stub driver, no NVIDIA driver installed (" + path + ")";
}

}  // namespace

DriverLibrary::LoadResult DriverLibrary::load(const std::string& path) noexcept {
  LoadResult result;
  try {
    void* handle = open_shared_object(path, "the CUDA driver",
                                      "set ACCEL_CUDA_DRIVER to the driver file to use another one",
                                      &result.reason);
    if (handle == nullptr) {
      result.not_loaded = true;
      return result;
    }
    std::shared_ptr<DriverLibrary> library(new DriverLibrary());
    library->path_ = path;

    // Prefer the CUDA 12 resolver (it reports why a symbol is missing); fall back to 11.3's.
    auto* resolver_v2 = reinterpret_cast<cuda_abi::PFN_cuGetProcAddress_v12000>(
        dlsym(handle, "cuGetProcAddress_v2"));
    auto* resolver_v1 =
        reinterpret_cast<cuda_abi::PFN_cuGetProcAddress_v11030>(dlsym(handle, "cuGetProcAddress"));
    if (resolver_v2 == nullptr && resolver_v1 == nullptr) {
      result.reason = "the CUDA driver '" + path +
                      "' exports neither cuGetProcAddress_v2 nor cuGetProcAddress "
                      "(not a CUDA 11.3+ driver)";
      return result;
    }
    library->resolver_ = resolver_v2 ? "cuGetProcAddress_v2" : "cuGetProcAddress";

    auto resolve = [&](const char* name, int version, void** pfn) -> bool {
      *pfn = nullptr;
      cuda_abi::CUdriverProcAddressQueryResult status = cuda_abi::CU_GET_PROC_ADDRESS_SUCCESS;
      CUresult rc =
          resolver_v2
              ? resolver_v2(name, pfn, version, cuda_abi::CU_GET_PROC_ADDRESS_DEFAULT, &status)
              : resolver_v1(name, pfn, version, cuda_abi::CU_GET_PROC_ADDRESS_DEFAULT);
      if (rc == cuda_abi::CUDA_ERROR_STUB_LIBRARY) {
        result.reason = stub_reason(path);
        result.is_stub = true;
        return false;
      }
      if (rc != cuda_abi::CUDA_SUCCESS) {
        result.reason = "the CUDA driver '" + path + "' failed to resolve " + name +
                        " at version " + std::to_string(version) + ": " + library->resolver_ +
                        " returned " + code_text(rc);
        return false;
      }
      if (status != cuda_abi::CU_GET_PROC_ADDRESS_SUCCESS || *pfn == nullptr) {
        result.reason = "the CUDA driver '" + path + "' lacks " + name + " at version " +
                        std::to_string(version) + " (" + status_text(status) + ")";
        return false;
      }
      return true;
    };
#define ACCEL_CUDA_RESOLVE(name, version, symbol, params) \
  if (!resolve(#name, version, reinterpret_cast<void**>(&library->api_.name))) return result;
    ACCEL_CUDA_RUNTIME_ENTRY_POINTS(ACCEL_CUDA_RESOLVE)
#undef ACCEL_CUDA_RESOLVE

    CUresult rc = library->api_.cuDriverGetVersion(&library->driver_version_);
    if (rc == cuda_abi::CUDA_ERROR_STUB_LIBRARY) {
      result.reason = stub_reason(path);
      result.is_stub = true;
      return result;
    }
    if (rc != cuda_abi::CUDA_SUCCESS) {
      result.reason =
          "cuDriverGetVersion failed for the CUDA driver '" + path + "': " + code_text(rc);
      return result;
    }
    result.library = std::move(library);
  } catch (...) {
    result.library.reset();
    result.reason = "out of memory";  // short enough to need no allocation
  }
  return result;
}

std::string DriverLibrary::error_string(int code) const noexcept {
  try {
    const char* text = nullptr;
    if (api_.cuGetErrorString(static_cast<CUresult>(code), &text) == cuda_abi::CUDA_SUCCESS &&
        text != nullptr) {
      return text;
    }
    return "unknown error " + std::to_string(code);
  } catch (...) {
    return {};
  }
}

std::string DriverLibrary::error_name(int code) const noexcept {
  try {
    const char* text = nullptr;
    if (api_.cuGetErrorName(static_cast<CUresult>(code), &text) == cuda_abi::CUDA_SUCCESS &&
        text != nullptr) {
      return text;
    }
    const char* name = cuda_abi::result_name(code);
    return name ? name : "CUDA_ERROR_" + std::to_string(code);
  } catch (...) {
    return {};
  }
}

}  // namespace accel::detail::cuda
