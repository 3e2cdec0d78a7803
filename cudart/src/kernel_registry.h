#pragma once
// What nvcc's generated code registers with the runtime (spec cuda_runtime.md §6): each
// fatbinary wrapper, the host stub of each kernel with its device name, each __device__ /
// __constant__ / __managed__ variable's host shadow with its name and size; and each host
// thread's stack of <<<...>>> call configurations.
//
// Note [Lazy loading]
// Registration runs in the program's static constructors (and in dlopen), before main: it
// records pointers and names and never loads the driver. A fatbinary becomes one CUlibrary
// (cuLibraryLoadData of the wrapper's fatbinary) at the first use of one of its kernels or
// variables in the process: __cudaGetKernel, a launch, a function or occupancy query, a
// symbol copy, __cudaInitModule. A library is context-independent; the driver loads it into
// each context where it is first used, so one CUlibrary serves every device and survives
// cudaDeviceReset. A failed load is not remembered (the next use tries again and answers the
// driver's error). __cudaRegisterFatBinaryEnd loads nothing, even under
// CUDA_MODULE_LOADING=EAGER: the driver applies that setting to cuLibraryLoadData itself.
// __cudaUnregisterFatBinary (at exit, or at dlclose) forgets the handle's registrations but
// never unloads its library: at exit the driver may already be going away, and a library
// left loaded costs nothing then.
//
// Thread-safe (one shared mutex for the tables; the call-configuration stack is per thread).
// Never throws except std::bad_alloc.

#include <cstddef>
#include <string>

#include "api.h"
#include "driver.h"

namespace accel::cudart {

// What a registered kernel is: its device name and its fatbinary's handle.
struct RegisteredFunction;
// What a registered variable is.
struct RegisteredVariable {
  std::string name;
  std::size_t bytes = 0;
  bool constant = false;
  bool managed = false;
};

// Registration (the __cudaRegister* rows). Unknown handles are ignored.
void** register_fat_binary(void* wrapper);
void unregister_fat_binary(void** handle) noexcept;
void register_function(void** handle, const void* host_stub, const char* device_name);
void register_variable(void** handle, const void* host_shadow, const char* name, std::size_t bytes,
                       bool constant);
void register_managed_variable(void** handle, void** slot, const char* name, std::size_t bytes);

// The driver's kernel of host stub `host_stub`, its fatbinary loaded first:
// cudaErrorInvalidDeviceFunction (98) for a pointer nobody registered, else the driver's
// error of loading or finding it (cudaErrorSymbolNotFound when the image lacks the name).
[[nodiscard]] cudaError_t kernel_of(const DriverTable& d, const void* host_stub,
                                    drv::CUkernel* kernel);

// The device address and size of the variable whose host shadow is `host_shadow` in the
// current context (which the caller made current): cudaErrorInvalidSymbol (13) for an
// address nobody registered.
[[nodiscard]] cudaError_t symbol_of(const DriverTable& d, const void* host_shadow,
                                    drv::CUdeviceptr* address, std::size_t* bytes);

// Loads `handle`'s fatbinary and fills its managed variables' slots (__cudaInitModule).
[[nodiscard]] cudaError_t init_module(const DriverTable& d, void** handle);

// The calling thread's <<<...>>> configurations: push always succeeds; pop answers
// cudaErrorMissingConfiguration (52) when nothing was pushed.
struct CallConfiguration {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
};
void push_configuration(const CallConfiguration& configuration);
[[nodiscard]] cudaError_t pop_configuration(CallConfiguration* configuration) noexcept;

}  // namespace accel::cudart
