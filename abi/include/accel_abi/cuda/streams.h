#pragma once
// A fragment of the CUDA driver ABI table (accel_abi/cuda_driver.h includes it; include
// that header, never this one). Stream attributes and memory operations (wait and write
// value, batches), the device queries and calls beyond the runtime's, batch and peer 3D
// copies, profiler and log controls.
//
// ACCEL_CUDA_STREAM_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_driver.h. The
// runtime never resolves them; the simulated libcuda.so.1 implements and exports them.
// ACCEL_CUDA_STREAM_TYPES(T): every type declared here, by its cuda.h name; abi/check proves
// each the same size and alignment as cuda.h's, and maps it for the PFN checks.
// ACCEL_CUDA_STREAM_CONSTANTS(C): every enumerator declared here; abi/check proves each the
// same value as cuda.h's.

#ifndef ACCEL_CUDA_DRIVER_FRAGMENT_
#error "include accel_abi/cuda_driver.h, not its fragments"
#endif

namespace accel::cuda_abi {}  // namespace accel::cuda_abi

#define ACCEL_CUDA_STREAM_TYPES(T)
#define ACCEL_CUDA_STREAM_CONSTANTS(C)
#define ACCEL_CUDA_STREAM_ROWS_(R, P, X, E)
