#pragma once
// A fragment of the CUDA driver ABI table (accel_abi/cuda_driver.h includes it; include
// that header, never this one). Interprocess memory and event handles.
//
// ACCEL_CUDA_IPC_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_driver.h. The
// runtime never resolves them; the simulated libcuda.so.1 implements and exports them.
// ACCEL_CUDA_IPC_TYPES(T): every type declared here, by its cuda.h name; abi/check proves
// each the same size and alignment as cuda.h's, and maps it for the PFN checks.
// ACCEL_CUDA_IPC_CONSTANTS(C): every enumerator declared here; abi/check proves each the
// same value as cuda.h's.

#ifndef ACCEL_CUDA_DRIVER_FRAGMENT_
#error "include accel_abi/cuda_driver.h, not its fragments"
#endif

namespace accel::cuda_abi {

// cuda.h's CU_IPC_HANDLE_SIZE (a macro, so named differently here).
inline constexpr std::size_t kIpcHandleSize = 64;

// Opaque to the program; the driver fills them (layout: CUipcMemHandle_v1 / _v1 of cuda.h).
struct CUipcMemHandle {
  char reserved[kIpcHandleSize];
};
struct CUipcEventHandle {
  char reserved[kIpcHandleSize];
};

enum CUipcMem_flags : int {
  CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1,
};

}  // namespace accel::cuda_abi

#define ACCEL_CUDA_IPC_TYPES(T) \
  T(CUipcMemHandle)             \
  T(CUipcEventHandle)           \
  T(CUipcMem_flags)

#define ACCEL_CUDA_IPC_CONSTANTS(C) C(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)

// cuIpcOpenMemHandle is served as _v2 (CUDA 11.0), the form cuda.h declares; the handles
// travel by value, as cuda.h passes them.
#define ACCEL_CUDA_IPC_ROWS_(R, P, X, E) \
  R(X, E, cuIpcGetMemHandle, 4010, cuIpcGetMemHandle, (CUipcMemHandle * handle, CUdeviceptr dptr), (handle, dptr), kNeedsInit | kLegalInCapture) \
  R(X, E, cuIpcOpenMemHandle, 11000, cuIpcOpenMemHandle_v2, (CUdeviceptr * pdptr, CUipcMemHandle handle, unsigned int flags), (pdptr, handle, flags), kNeedsInit) \
  R(X, E, cuIpcCloseMemHandle, 4010, cuIpcCloseMemHandle, (CUdeviceptr dptr), (dptr), kNeedsInit) \
  R(X, E, cuIpcGetEventHandle, 4010, cuIpcGetEventHandle, (CUipcEventHandle * handle, CUevent event), (handle, event), kNeedsInit | kLegalInCapture) \
  R(X, E, cuIpcOpenEventHandle, 4010, cuIpcOpenEventHandle, (CUevent * event, CUipcEventHandle handle), (event, handle), kNeedsInit)
