#pragma once
// A fragment of the CUDA runtime ABI table (accel_abi/cuda_runtime.h includes it; include
// that header, never this one). Streams (legacy and per-thread default streams, callbacks, host
// functions), events, and graphs from stream capture.
//
// ACCEL_CUDART_STREAM_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_runtime.h;
// cudart/src/streams.cpp implements them.
// ACCEL_CUDART_STREAM_TYPES(T): every type declared here, by its cuda_runtime_api.h name;
// ACCEL_CUDART_STREAM_CONSTANTS(C): every enumerator declared here (abi/check proves both).
// Empty so far: the placeholders are wired into accel_abi/cuda_runtime.h's lists.

#ifndef ACCEL_CUDART_FRAGMENT_
#error "include accel_abi/cuda_runtime.h, not its fragments"
#endif

namespace accel::cudart_abi {}  // namespace accel::cudart_abi

#define ACCEL_CUDART_STREAM_TYPES(T)
#define ACCEL_CUDART_STREAM_CONSTANTS(C)
#define ACCEL_CUDART_STREAM_ROWS_(R, P, X, E)
