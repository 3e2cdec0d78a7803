#pragma once
// A fragment of the CUDA runtime ABI table (accel_abi/cuda_runtime.h includes it; include
// that header, never this one). Streams (legacy and per-thread default streams, callbacks, host
// functions), events, and graphs from stream capture.
//
// ACCEL_CUDART_STREAM_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_runtime.h;
// cudart/src/streams.cpp (streams, callbacks, host functions), events.cpp (events) and
// graphs.cpp (capture, instantiation, launch) implement them.
// ACCEL_CUDART_STREAM_TYPES(T): every type declared here, by its cuda_runtime_api.h name;
// ACCEL_CUDART_STREAM_CONSTANTS(C): every enumerator declared here (abi/check proves both);
// ACCEL_CUDART_STREAM_MACRO_CONSTANTS(M): the flags the toolkit spells as macros, M(ours, the
// toolkit's macro) (abi/check proves each value). Every value equals the driver's (CU_STREAM_*,
// CU_EVENT_*, CUstreamCapture*), so the runtime passes them through unchanged.

#ifndef ACCEL_CUDART_FRAGMENT_
#error "include accel_abi/cuda_runtime.h, not its fragments"
#endif

namespace accel::cudart_abi {

enum cudaStreamCaptureStatus : int {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
enum cudaStreamCaptureMode : int {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
enum cudaGraphInstantiateFlags : int {
  cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
  cudaGraphInstantiateFlagUpload = 2,
  cudaGraphInstantiateFlagDeviceLaunch = 4,
  cudaGraphInstantiateFlagUseNodePriority = 8,
};

// An edge's annotation (the driver's CUgraphEdgeData, same layout).
struct cudaGraphEdgeData {
  unsigned char from_port;
  unsigned char to_port;
  unsigned char type;
  unsigned char reserved[5];
};

// A callback of cudaStreamAddCallback receives the runtime's code; a host function of
// cudaLaunchHostFunc only its data.
using cudaStreamCallback_t = void (*)(cudaStream_t stream, cudaError_t status, void* user_data);
using cudaHostFn_t = void (*)(void* user_data);

// The special streams (driver_types.h spells them as casts of 0x1 and 0x2: CU_STREAM_LEGACY
// and CU_STREAM_PER_THREAD; a cast is no constant expression, so the tests compare them).
inline constexpr std::uintptr_t kStreamLegacy = 0x1;     // cudaStreamLegacy
inline constexpr std::uintptr_t kStreamPerThread = 0x2;  // cudaStreamPerThread

inline constexpr unsigned kStreamDefault = 0x00;        // cudaStreamDefault
inline constexpr unsigned kStreamNonBlocking = 0x01;    // cudaStreamNonBlocking
inline constexpr unsigned kEventDefault = 0x00;         // cudaEventDefault
inline constexpr unsigned kEventBlockingSync = 0x01;    // cudaEventBlockingSync
inline constexpr unsigned kEventDisableTiming = 0x02;   // cudaEventDisableTiming
inline constexpr unsigned kEventInterprocess = 0x04;    // cudaEventInterprocess
inline constexpr unsigned kEventRecordDefault = 0x00;   // cudaEventRecordDefault
inline constexpr unsigned kEventRecordExternal = 0x01;  // cudaEventRecordExternal
inline constexpr unsigned kEventWaitDefault = 0x00;     // cudaEventWaitDefault
inline constexpr unsigned kEventWaitExternal = 0x01;    // cudaEventWaitExternal

}  // namespace accel::cudart_abi

#define ACCEL_CUDART_STREAM_TYPES(T) \
  T(cudaStreamCaptureStatus)         \
  T(cudaStreamCaptureMode)           \
  T(cudaGraphInstantiateFlags)       \
  T(cudaGraphEdgeData)
#define ACCEL_CUDART_STREAM_CONSTANTS(C)      \
  C(cudaStreamCaptureStatusNone)              \
  C(cudaStreamCaptureStatusActive)            \
  C(cudaStreamCaptureStatusInvalidated)       \
  C(cudaStreamCaptureModeGlobal)              \
  C(cudaStreamCaptureModeThreadLocal)         \
  C(cudaStreamCaptureModeRelaxed)             \
  C(cudaGraphInstantiateFlagAutoFreeOnLaunch) \
  C(cudaGraphInstantiateFlagUpload)           \
  C(cudaGraphInstantiateFlagDeviceLaunch)     \
  C(cudaGraphInstantiateFlagUseNodePriority)
#define ACCEL_CUDART_STREAM_MACRO_CONSTANTS(M)     \
  M(kStreamDefault, cudaStreamDefault)             \
  M(kStreamNonBlocking, cudaStreamNonBlocking)     \
  M(kEventDefault, cudaEventDefault)               \
  M(kEventBlockingSync, cudaEventBlockingSync)     \
  M(kEventDisableTiming, cudaEventDisableTiming)   \
  M(kEventInterprocess, cudaEventInterprocess)     \
  M(kEventRecordDefault, cudaEventRecordDefault)   \
  M(kEventRecordExternal, cudaEventRecordExternal) \
  M(kEventWaitDefault, cudaEventWaitDefault)       \
  M(kEventWaitExternal, cudaEventWaitExternal)

// clang-format off
#define ACCEL_CUDART_STREAM_ROWS_(R, P, X, E) \
  R(X, E, cudaError_t, cudaStreamCreate, (cudaStream_t* stream), (stream), kNoTraits) \
  R(X, E, cudaError_t, cudaStreamCreateWithFlags, (cudaStream_t* stream, unsigned int flags), (stream, flags), kNoTraits) \
  R(X, E, cudaError_t, cudaStreamCreateWithPriority, (cudaStream_t* stream, unsigned int flags, int priority), (stream, flags, priority), kNoTraits) \
  P(X, E, cudaError_t, cudaStreamGetPriority, (cudaStream_t stream, int* priority), (stream, priority), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaStreamGetFlags, (cudaStream_t stream, unsigned int* flags), (stream, flags), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaStreamGetId, (cudaStream_t stream, unsigned long long* stream_id), (stream, stream_id), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaStreamGetDevice, (cudaStream_t stream, int* device), (stream, device), kNoTraits, _ptsz) \
  R(X, E, cudaError_t, cudaStreamDestroy, (cudaStream_t stream), (stream), kNoTraits) \
  P(X, E, cudaError_t, cudaStreamWaitEvent, (cudaStream_t stream, cudaEvent_t event, unsigned int flags), (stream, event, flags), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaStreamAddCallback, (cudaStream_t stream, cudaStreamCallback_t callback, void* user_data, unsigned int flags), (stream, callback, user_data, flags), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaStreamSynchronize, (cudaStream_t stream), (stream), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaStreamQuery, (cudaStream_t stream), (stream), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaLaunchHostFunc, (cudaStream_t stream, cudaHostFn_t fn, void* user_data), (stream, fn, user_data), kNoTraits, _ptsz) \
  R(X, E, cudaError_t, cudaEventCreate, (cudaEvent_t* event), (event), kNoTraits) \
  R(X, E, cudaError_t, cudaEventCreateWithFlags, (cudaEvent_t* event, unsigned int flags), (event, flags), kNoTraits) \
  P(X, E, cudaError_t, cudaEventRecord, (cudaEvent_t event, cudaStream_t stream), (event, stream), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaEventRecordWithFlags, (cudaEvent_t event, cudaStream_t stream, unsigned int flags), (event, stream, flags), kNoTraits, _ptsz) \
  R(X, E, cudaError_t, cudaEventQuery, (cudaEvent_t event), (event), kNoTraits) \
  R(X, E, cudaError_t, cudaEventSynchronize, (cudaEvent_t event), (event), kNoTraits) \
  R(X, E, cudaError_t, cudaEventDestroy, (cudaEvent_t event), (event), kNoTraits) \
  R(X, E, cudaError_t, cudaEventElapsedTime, (float* milliseconds, cudaEvent_t start, cudaEvent_t end), (milliseconds, start, end), kNoTraits) \
  P(X, E, cudaError_t, cudaStreamBeginCapture, (cudaStream_t stream, cudaStreamCaptureMode mode), (stream, mode), kNoTraits, _ptsz) \
  R(X, E, cudaError_t, cudaThreadExchangeStreamCaptureMode, (cudaStreamCaptureMode* mode), (mode), kNoTraits) \
  P(X, E, cudaError_t, cudaStreamEndCapture, (cudaStream_t stream, cudaGraph_t* graph), (stream, graph), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaStreamIsCapturing, (cudaStream_t stream, cudaStreamCaptureStatus* status), (stream, status), kNoTraits, _ptsz) \
  P(X, E, cudaError_t, cudaStreamGetCaptureInfo, (cudaStream_t stream, cudaStreamCaptureStatus* status, unsigned long long* id, cudaGraph_t* graph, const cudaGraphNode_t** dependencies, const cudaGraphEdgeData** edge_data, std::size_t* dependency_count), (stream, status, id, graph, dependencies, edge_data, dependency_count), kNoTraits, _ptsz) \
  R(X, E, cudaError_t, cudaGraphInstantiate, (cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags), (exec, graph, flags), kNoTraits) \
  R(X, E, cudaError_t, cudaGraphInstantiateWithFlags, (cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags), (exec, graph, flags), kNoTraits) \
  P(X, E, cudaError_t, cudaGraphLaunch, (cudaGraphExec_t exec, cudaStream_t stream), (exec, stream), kNoTraits, _ptsz) \
  R(X, E, cudaError_t, cudaGraphExecDestroy, (cudaGraphExec_t exec), (exec), kNoTraits) \
  R(X, E, cudaError_t, cudaGraphDestroy, (cudaGraph_t graph), (graph), kNoTraits)
// clang-format on
