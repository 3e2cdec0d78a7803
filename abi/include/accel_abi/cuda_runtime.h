#pragma once
// The CUDA runtime C ABI (libcudart.so.13, CUDA 13.0) that accel's clean-room runtime
// (cudart/) exports, declared once, in the project's own words.
//
// Who uses it: cudart/ generates its exported wrappers, its export list and its
// declarations of the implementations from the rows below; tests declare the entry points
// through it where the toolkit is absent. Nothing here includes the toolkit's headers; where
// CMake finds the toolkit, abi/check/cudart_abi_check.cpp proves every row's function type,
// every type's size and alignment (cudaDeviceProp's field offsets too), every constant and
// every row's per-thread default-stream variant identical to cuda_runtime_api.h.
//
// Everything lives in namespace accel::cudart_abi and keeps the vendor's spelling. The
// handle types the runtime shares with the driver are accel::cuda_abi's (cudaStream_t is
// CUstream_st*, cudaEvent_t CUevent_st*, ...), as the runtime API documents them castable.
//
// Rows live in fragments, one per subject (accel_abi/cudart/*.h: device, memory, streams,
// kernels); each defines ACCEL_CUDART_<GROUP>_ROWS_(R, P, X, E), _TYPES(T) and
// _CONSTANTS(C). A row is
//   R(X, E, return type, name, (parameters), (arguments), traits)
// for an entry point without a per-thread default-stream variant, and
//   P(X, E, return type, name, (parameters), (arguments), traits, suffix)
// for one with: nvcc's `--default-stream per-thread` (CUDA_API_PER_THREAD_DEFAULT_STREAM)
// compiles a call of `name` to the symbol name##suffix (_ptds for the synchronous copies and
// memsets, _ptsz for the rest; cuda_runtime_api.h's __CUDART_API_PTDS / __CUDART_API_PTSZ).
// `name` is the exported symbol. Adding an entry point: add its row to its subject's
// fragment (kNotImplemented while it has no implementation), declare the types it needs
// there and list them in the fragment's TYPES / CONSTANTS, then define
// accel::cudart::impl::<name> in that subject's cudart/src/<subject>.cpp and drop the
// kNotImplemented trait. Nothing else changes: wrappers, exports and checks follow the rows.

#include <cstddef>
#include <cstdint>

#include "accel_abi/cuda_driver.h"

namespace accel::cudart_abi {

// The runtime version these rows describe (CUDART_VERSION; cudaRuntimeGetVersion's answer).
inline constexpr int kCudartVersion = 13000;

// The handles the runtime shares with the driver (castable both ways, CUDA Runtime API,
// "Interactions with the CUDA Driver API"): the driver's own types.
using cudaStream_t = cuda_abi::CUstream;
using cudaEvent_t = cuda_abi::CUevent;
using cudaGraph_t = cuda_abi::CUgraph;
using cudaGraphExec_t = cuda_abi::CUgraphExec;
using cudaGraphNode_t = cuda_abi::CUgraphNode;
using cudaMemPool_t = cuda_abi::CUmemoryPool;
using cudaFunction_t = cuda_abi::CUfunction;
using cudaUUID_t = cuda_abi::CUuuid;

// Traits of an entry point: the traits column of a row (bit flags, or-ed).
enum EntryTraits : unsigned {
  kNoTraits = 0,
  // Never loads the driver and answers in a forked child and after a failed
  // initialisation (cudaGetErrorName, cudaRuntimeGetVersion, ...): no gate before it.
  kDriverFree = 1u << 0,
  // Its result is not recorded as the thread's last error (cudaGetLastError itself).
  kKeepsLastError = 1u << 1,
  // Declared and exported so that programs load, but not implemented yet: answers
  // cudaErrorNotSupported and names itself once on stderr.
  kNotImplemented = 1u << 2,
};

}  // namespace accel::cudart_abi

// The fragments, one per subject.
#define ACCEL_CUDART_FRAGMENT_
#include "accel_abi/cudart/device.h"
#include "accel_abi/cudart/kernels.h"
#include "accel_abi/cudart/memory.h"
#include "accel_abi/cudart/streams.h"
#undef ACCEL_CUDART_FRAGMENT_

namespace accel::cudart_abi {

// The rows cuda_runtime_api.h declares, then those only nvcc's generated code calls
// (declared by the toolkit for nvcc's compilation alone: kernels.h).
#define ACCEL_CUDART_API_ROWS_(R, P, X, E) \
  ACCEL_CUDART_DEVICE_ROWS_(R, P, X, E)    \
  ACCEL_CUDART_MEMORY_ROWS_(R, P, X, E)    \
  ACCEL_CUDART_STREAM_ROWS_(R, P, X, E)    \
  ACCEL_CUDART_KERNEL_ROWS_(R, P, X, E)
#define ACCEL_CUDART_ALL_ROWS_(R, P, X, E) \
  ACCEL_CUDART_API_ROWS_(R, P, X, E)       \
  ACCEL_CUDART_NVCC_ROWS_(R, P, X, E)

// The fragments' types (their cuda_runtime_api.h names; abi/check proves size, alignment
// and maps them for the function-type checks) and enumerators (abi/check proves values).
#define ACCEL_CUDART_TYPES(T)  \
  ACCEL_CUDART_DEVICE_TYPES(T) \
  ACCEL_CUDART_MEMORY_TYPES(T) \
  ACCEL_CUDART_STREAM_TYPES(T) \
  ACCEL_CUDART_KERNEL_TYPES(T)
#define ACCEL_CUDART_CONSTANTS(C)  \
  ACCEL_CUDART_DEVICE_CONSTANTS(C) \
  ACCEL_CUDART_MEMORY_CONSTANTS(C) \
  ACCEL_CUDART_STREAM_CONSTANTS(C) \
  ACCEL_CUDART_KERNEL_CONSTANTS(C)

// E is always empty: pasted onto a name, it keeps the preprocessor from expanding the name
// on its way to X (where cuda_runtime_api.h is included with per-thread default streams,
// cudaMemcpyAsync is a macro for cudaMemcpyAsync_ptsz).
#define ACCEL_CUDART_APPLY_ROW_(X, E, ret, name, params, args, traits) \
  X(ret, E##name, params, args, traits)
#define ACCEL_CUDART_APPLY_P_ROW_(X, E, ret, name, params, args, traits, suffix) \
  X(ret, E##name, params, args, traits)
#define ACCEL_CUDART_SKIP_ROW_(X, E, ret, name, params, args, traits)
#define ACCEL_CUDART_PER_THREAD_ROW_(X, E, ret, name, params, args, traits, suffix) \
  X(ret, E##name, E##name##suffix, params, args, traits)
#define ACCEL_CUDART_NO_VARIANT_ROW_(X, E, ret, name, params, args, traits) X(E##name, E##name)
#define ACCEL_CUDART_VARIANT_ROW_(X, E, ret, name, params, args, traits, suffix) \
  X(E##name, E##name##suffix)

// Every row: X(return type, name, (parameters), (arguments), traits).
#define ACCEL_CUDART_TABLE(X) \
  ACCEL_CUDART_ALL_ROWS_(ACCEL_CUDART_APPLY_ROW_, ACCEL_CUDART_APPLY_P_ROW_, X, )

// The rows of cuda_runtime_api.h alone, and those of nvcc's generated code alone (the
// checks in abi/check prove each against the header that declares it).
#define ACCEL_CUDART_API_TABLE(X) \
  ACCEL_CUDART_API_ROWS_(ACCEL_CUDART_APPLY_ROW_, ACCEL_CUDART_APPLY_P_ROW_, X, )
#define ACCEL_CUDART_NVCC_TABLE(X) \
  ACCEL_CUDART_NVCC_ROWS_(ACCEL_CUDART_APPLY_ROW_, ACCEL_CUDART_APPLY_P_ROW_, X, )

// The per-thread default-stream variants: X(return type, name, variant symbol,
// (parameters), (arguments), traits).
#define ACCEL_CUDART_PER_THREAD_TABLE(X) \
  ACCEL_CUDART_ALL_ROWS_(ACCEL_CUDART_SKIP_ROW_, ACCEL_CUDART_PER_THREAD_ROW_, X, )

// Every row with the symbol a per-thread build calls: X(name, name or its variant).
#define ACCEL_CUDART_PER_THREAD_NAMES(X) \
  ACCEL_CUDART_ALL_ROWS_(ACCEL_CUDART_NO_VARIANT_ROW_, ACCEL_CUDART_VARIANT_ROW_, X, )

// PFN_cudart_<name>: each row's function type (type checks, the tests' loaders).
#define ACCEL_CUDART_DECLARE_PFN(ret, name, params, args, traits) \
  using PFN_cudart_##name = ret(*) params;
ACCEL_CUDART_TABLE(ACCEL_CUDART_DECLARE_PFN)
#undef ACCEL_CUDART_DECLARE_PFN

}  // namespace accel::cudart_abi
