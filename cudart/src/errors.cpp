#include "errors.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "api.h"
#include "driver.h"

namespace accel::cudart {
namespace {

thread_local cudaError_t t_last_error = cudaSuccess;
std::atomic<int> g_sticky_error{cudaSuccess};

constexpr const char* kUnrecognized = "unrecognized error code";

}  // namespace

bool is_sticky(cudaError_t code) noexcept {
  switch (code) {
    case cudaErrorContained:
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice:
      return true;
    default:
      return false;
  }
}

cudaError_t record(cudaError_t code) noexcept {
  if (code == cudaSuccess || code == cudaErrorNotReady) return code;
  if (is_sticky(code)) {
    int none = cudaSuccess;
    g_sticky_error.compare_exchange_strong(none, code, std::memory_order_acq_rel);
  }
  t_last_error = code;
  return code;
}

cudaError_t stuck_error() noexcept {
  if (const cudaError_t init = initialisation_error(); init != cudaSuccess) return init;
  return static_cast<cudaError_t>(g_sticky_error.load(std::memory_order_acquire));
}

cudaError_t not_implemented(const char* name) noexcept {
  static std::mutex mutex;
  static std::set<std::string>* printed = new std::set<std::string>();  // never destroyed
  bool first = false;
  try {
    std::lock_guard<std::mutex> lock(mutex);
    first = printed->insert(name).second;
  } catch (...) {
    first = false;
  }
  if (first) {
    std::fprintf(stderr, "accel cudart: %s is not implemented (cudaErrorNotSupported)\n", name);
  }
  return cudaErrorNotSupported;
}

const char* error_name(int code) noexcept {
  switch (code) {
#define ACCEL_CUDART_ERROR_NAME(name, value) \
  case value:                                \
    return #name;
    ACCEL_CUDART_ERRORS(ACCEL_CUDART_ERROR_NAME)
#undef ACCEL_CUDART_ERROR_NAME
  }
  return kUnrecognized;
}

// The texts NVIDIA's libcudart.so.13 returns (spec cuda_runtime.md §2.4, "String column").
const char* error_string(int code) noexcept {
  switch (code) {
    case 0:
      return "no error";
    case 1:
      return "invalid argument";
    case 2:
      return "out of memory";
    case 3:
      return "initialization error";
    case 4:
      return "driver shutting down";
    case 5:
      return "profiler disabled while using external profiling tool";
    case 6:
      return "profiler not initialized: call cudaProfilerInitialize()";
    case 7:
      return "profiler already started";
    case 8:
      return "profiler already stopped";
    case 9:
      return "invalid configuration argument";
    case 12:
      return "invalid pitch argument";
    case 13:
      return "invalid device symbol";
    case 16:
      return "invalid host pointer";
    case 17:
      return "invalid device pointer";
    case 18:
      return "invalid texture reference";
    case 19:
      return "texture is not bound to a pointer";
    case 20:
      return "invalid channel descriptor";
    case 21:
      return "invalid copy direction for memcpy";
    case 22:
      return "invalid address of constant";
    case 23:
      return "fetch from texture failed";
    case 24:
      return "cannot fetch from a texture that is not bound";
    case 25:
      return "incorrect use of __syncthreads()";
    case 26:
      return "linear filtering not supported for non-float type";
    case 27:
      return "read as normalized float not supported for data type";
    case 28:
      return "device emulation mode and device execution mode cannot be mixed";
    case 31:
      return "feature not yet implemented";
    case 32:
      return "memory size or pointer value too large to fit in 32 bit";
    case 34:
      return "CUDA driver is a stub library";
    case 35:
      return "CUDA driver version is insufficient for CUDA runtime version";
    case 36:
      return "API call is not supported in the installed CUDA driver";
    case 37:
      return "invalid surface reference";
    case 43:
      return "duplicate global variable looked up by string name";
    case 44:
      return "duplicate texture looked up by string name";
    case 45:
      return "duplicate surface looked up by string name";
    case 46:
      return "CUDA-capable device(s) is/are busy or unavailable";
    case 49:
      return "incompatible driver context";
    case 52:
      return "__global__ function call is not configured";
    case 53:
      return "unspecified launch failure in prior launch";
    case 65:
      return "launch would exceed maximum depth of nested launches";
    case 66:
      return "launch failed because kernel uses unsupported, file-scoped textures (texture objects "
             "are supported)";
    case 67:
      return "launch failed because kernel uses unsupported, file-scoped surfaces (surface objects "
             "are supported)";
    case 68:
      return "cudaDeviceSynchronize failed because caller's grid depth exceeds "
             "cudaLimitDevRuntimeSyncDepth";
    case 69:
      return "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount";
    case 98:
      return "invalid device function";
    case 100:
      return "no CUDA-capable device is detected";
    case 101:
      return "invalid device ordinal";
    case 102:
      return "device doesn't have valid Grid license";
    case 103:
      return "integrity checks failed";
    case 127:
      return "startup failure in cuda runtime";
    case 200:
      return "device kernel image is invalid";
    case 201:
      return "invalid device context";
    case 205:
      return "mapping of buffer object failed";
    case 206:
      return "unmapping of buffer object failed";
    case 207:
      return "array is mapped";
    case 208:
      return "resource already mapped";
    case 209:
      return "no kernel image is available for execution on the device";
    case 210:
      return "resource already acquired";
    case 211:
      return "resource not mapped";
    case 212:
      return "resource not mapped as array";
    case 213:
      return "resource not mapped as pointer";
    case 214:
      return "uncorrectable ECC error encountered";
    case 215:
      return "limit is not supported on this architecture";
    case 216:
      return "exclusive-thread device already in use by a different thread";
    case 217:
      return "peer access is not supported between these two devices";
    case 218:
      return "a PTX JIT compilation failed";
    case 219:
      return "invalid OpenGL or DirectX context";
    case 220:
      return "uncorrectable NVLink error detected during the execution";
    case 221:
      return "PTX JIT compiler library not found";
    case 222:
      return "the provided PTX was compiled with an unsupported toolchain.";
    case 223:
      return "PTX JIT compilation was disabled";
    case 224:
      return "the provided execution affinity is not supported";
    case 225:
      return "the provided PTX contains unsupported call to cudaDeviceSynchronize";
    case 226:
      return "Invalid access of peer GPU memory over nvlink or a hardware error";
    case 300:
      return "device kernel image is invalid";
    case 301:
      return "file not found";
    case 302:
      return "shared object symbol not found";
    case 303:
      return "shared object initialization failed";
    case 304:
      return "OS call failed or operation not supported on this OS";
    case 400:
      return "invalid resource handle";
    case 401:
      return "the operation cannot be performed in the present state";
    case 402:
      return "attempted introspection would be semantically lossy";
    case 500:
      return "named symbol not found";
    case 600:
      return "device not ready";
    case 700:
      return "an illegal memory access was encountered";
    case 701:
      return "too many resources requested for launch";
    case 702:
      return "the launch timed out and was terminated";
    case 703:
      return "launch uses incompatible texturing mode";
    case 704:
      return "peer access is already enabled";
    case 705:
      return "peer access has not been enabled";
    case 708:
      return "cannot set while device is active in this process";
    case 709:
      return "context is destroyed";
    case 710:
      return "device-side assert triggered";
    case 711:
      return "peer mapping resources exhausted";
    case 712:
      return "part or all of the requested memory range is already mapped";
    case 713:
      return "pointer does not correspond to a registered memory region";
    case 714:
      return "hardware stack error";
    case 715:
      return "an illegal instruction was encountered";
    case 716:
      return "misaligned address";
    case 717:
      return "operation not supported on global/shared address space";
    case 718:
      return "invalid program counter";
    case 719:
      return "unspecified launch failure";
    case 720:
      return "too many blocks in cooperative launch";
    case 721:
      return "tensor memory not completely freed";
    case 800:
      return "operation not permitted";
    case 801:
      return "operation not supported";
    case 802:
      return "system not yet initialized";
    case 803:
      return "system has unsupported display driver / cuda driver combination";
    case 804:
      return "forward compatibility was attempted on non supported HW";
    case 805:
      return "MPS client failed to connect to the MPS control daemon or the MPS server";
    case 806:
      return "the remote procedural call between the MPS server and the MPS client failed";
    case 807:
      return "MPS server is not ready to accept new MPS client requests";
    case 808:
      return "the hardware resources required to create MPS client have been exhausted";
    case 809:
      return "the hardware resources required to support device connections have been exhausted";
    case 810:
      return "the MPS client has been terminated by the server";
    case 811:
      return "is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not "
             "support it";
    case 812:
      return "unsupported interaction between different versions of CUDA Dynamic Parallelism";
    case 900:
      return "operation not permitted when stream is capturing";
    case 901:
      return "operation failed due to a previous error during capture";
    case 902:
      return "operation would result in a merge of separate capture sequences";
    case 903:
      return "capture was not ended in the same stream as it began";
    case 904:
      return "capturing stream has unjoined work";
    case 905:
      return "dependency created on uncaptured work in another stream";
    case 906:
      return "operation would make the legacy stream depend on a capturing blocking stream";
    case 907:
      return "operation not permitted on an event last recorded in a capturing stream";
    case 908:
      return "attempt to terminate a thread-local capture sequence from another thread";
    case 909:
      return "wait operation timed out";
    case 910:
      return "the graph update was not performed because it included changes which violated "
             "constraints specific to instantiated graph update";
    case 911:
      return "an async error has occured in external entity outside of CUDA";
    case 912:
      return "a kernel launch error has occurred due to cluster misconfiguration";
    case 913:
      return "the function handle is not loaded when calling an API that requires a loaded "
             "function";
    case 914:
      return "one or more resources passed in are not valid resource types for the operation";
    case 915:
      return "one or more resources are insufficient or non-applicable for the operation";
    case 999:
      return "unknown error";
    case 10000:
      return "api failure base";
  }
  return kUnrecognized;
}

namespace impl {

cudaError_t cudaGetLastError() {
  if (const cudaError_t stuck = stuck_error(); stuck != cudaSuccess) return stuck;
  const cudaError_t last = t_last_error;
  t_last_error = cudaSuccess;
  return last;
}

cudaError_t cudaPeekAtLastError() {
  if (const cudaError_t stuck = stuck_error(); stuck != cudaSuccess) return stuck;
  return t_last_error;
}

const char* cudaGetErrorName(cudaError_t error) { return error_name(error); }

const char* cudaGetErrorString(cudaError_t error) { return error_string(error); }

}  // namespace impl
}  // namespace accel::cudart
