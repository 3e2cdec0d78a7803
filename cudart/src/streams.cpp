// Streams (spec cuda_runtime.md §5.1-5.3; behaviour: cuda_streams.md §1, §3.6): creation with
// flags and priorities, queries, synchronisation, event waits, callbacks and host functions,
// each over the driver entry point of the same name. The flag values are the driver's, so
// they pass through; the driver checks them and clamps priorities.
//
// Note [Stream callbacks]
// cudaStreamAddCallback's callback receives a cudaError_t, the driver's a CUresult: the
// runtime enqueues a trampoline (cuStreamAddCallback) with a heap record of the caller's
// callback, data and stream argument; the trampoline translates the status (to_runtime, the
// same number for every code a stream can report), calls the callback with the stream exactly
// as the caller named it (NULL stays NULL) [inferred], and frees the record. The driver runs
// it exactly once, after a device error too; a record whose enqueue failed is freed at once.

#include <memory>

#include "stream_common.h"

namespace accel::cudart {
namespace {

constexpr unsigned kStreamFlags = kStreamDefault | kStreamNonBlocking;

struct PendingCallback {
  cudaStreamCallback_t callback;
  void* user_data;
  cudaStream_t stream;
};

void run_callback(drv::CUstream /*stream*/, drv::CUresult status, void* record) {
  const std::unique_ptr<PendingCallback> pending(static_cast<PendingCallback*>(record));
  pending->callback(pending->stream, to_runtime(status), pending->user_data);
}

}  // namespace

namespace impl {

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return cudaStreamCreateWithFlags(stream, kStreamDefault);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (stream == nullptr || (flags & ~kStreamFlags) != 0) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuStreamCreate, stream, flags);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  if (stream == nullptr || (flags & ~kStreamFlags) != 0) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuStreamCreateWithPriority, stream, flags, priority);
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  if (priority == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuStreamGetPriority, driver_stream(stream), priority);
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  if (flags == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuStreamGetFlags, driver_stream(stream), flags);
}

cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* stream_id) {
  if (stream_id == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuStreamGetId, driver_stream(stream), stream_id);
}

// The device of the stream's context (cuStreamGetCtx, then cuCtxGetDevice_v2 on it).
cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
  if (device == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  drv::CUcontext ctx = nullptr;
  if (const cudaError_t e = call(d->cuStreamGetCtx, driver_stream(stream), &ctx);
      e != cudaSuccess) {
    return e;
  }
  drv::CUdevice dev = 0;
  const cudaError_t e = call(d->cuCtxGetDevice_v2, &dev, ctx);
  if (e == cudaSuccess) *device = static_cast<int>(dev);
  return e;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuStreamDestroy_v2, driver_stream(stream));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  if ((flags & ~kEventWaitExternal) != 0) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuStreamWaitEvent, driver_stream(stream), event, flags);
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void* user_data, unsigned int flags) {
  if (callback == nullptr || flags != 0) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  auto pending = std::make_unique<PendingCallback>(PendingCallback{callback, user_data, stream});
  const cudaError_t e =
      call(d->cuStreamAddCallback, driver_stream(stream), &run_callback, pending.get(), 0u);
  if (e == cudaSuccess) pending.release();  // the trampoline frees it (Note [Stream callbacks])
  return e;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuStreamSynchronize, driver_stream(stream));
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuStreamQuery, driver_stream(stream));
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  if (fn == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuLaunchHostFunc, driver_stream(stream), fn, user_data);
}

}  // namespace impl
}  // namespace accel::cudart
