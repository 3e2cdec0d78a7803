#pragma once
// A fragment of the CUDA driver ABI table (accel_abi/cuda_driver.h includes it; include
// that header, never this one). Graphics and external-resource interop, textures, surfaces
// and mipmapped arrays: exported so that programs bind them, NOT_SUPPORTED by design. Also
// cuGetExportTable, through which NVIDIA's own runtime asks for the driver's undocumented
// export tables: NOT_SUPPORTED by design, never served or imitated (issue 19 item 3; the mock
// names the cause and the fix once on stderr). It answers before cuInit and in a forked
// child, as NVIDIA's runtime calls it first.
//
// ACCEL_CUDA_INTEROP_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_driver.h. The
// runtime never resolves them; the simulated libcuda.so.1 implements and exports them.
// ACCEL_CUDA_INTEROP_TYPES(T): every type declared here, by its cuda.h name; abi/check proves
// each the same size and alignment as cuda.h's, and maps it for the PFN checks.
// ACCEL_CUDA_INTEROP_CONSTANTS(C): every enumerator declared here; abi/check proves each the
// same value as cuda.h's.

#ifndef ACCEL_CUDA_DRIVER_FRAGMENT_
#error "include accel_abi/cuda_driver.h, not its fragments"
#endif

namespace accel::cuda_abi {}  // namespace accel::cuda_abi

#define ACCEL_CUDA_INTEROP_TYPES(T)
#define ACCEL_CUDA_INTEROP_CONSTANTS(C)
// clang-format off
#define ACCEL_CUDA_INTEROP_ROWS_(R, P, X, E) \
  R(X, E, cuGetExportTable, 3000, cuGetExportTable, (const void** table, const CUuuid* id), (table, id), kLegalInCapture | kAnswersAfterFork | kNotSupportedByDesign)
// clang-format on
