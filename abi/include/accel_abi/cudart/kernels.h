#pragma once
// A fragment of the CUDA runtime ABI table (accel_abi/cuda_runtime.h includes it; include
// that header, never this one). Kernels: what nvcc's host stubs import (__cudaRegisterFatBinary ..
// __cudaLaunchKernel), launches, function attributes, occupancy and symbols.
//
// ACCEL_CUDART_KERNEL_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_runtime.h;
// cudart/src/kernels.cpp implements them.
// ACCEL_CUDART_KERNEL_TYPES(T): every type declared here, by its cuda_runtime_api.h name;
// ACCEL_CUDART_KERNEL_CONSTANTS(C): every enumerator declared here (abi/check proves both).
// Empty so far: the placeholders are wired into accel_abi/cuda_runtime.h's lists.

#ifndef ACCEL_CUDART_FRAGMENT_
#error "include accel_abi/cuda_runtime.h, not its fragments"
#endif

namespace accel::cudart_abi {}  // namespace accel::cudart_abi

#define ACCEL_CUDART_KERNEL_TYPES(T)
#define ACCEL_CUDART_KERNEL_CONSTANTS(C)
#define ACCEL_CUDART_KERNEL_ROWS_(R, P, X, E)
