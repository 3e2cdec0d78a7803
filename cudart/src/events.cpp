// Events (spec cuda_runtime.md §5.2; behaviour: cuda_streams.md §2), each over the driver entry
// point of the same name; cudaEventElapsedTime over cuEventElapsedTime_v2, the entry point
// CUDA 13's cuda.h names (on the simulated machine: virtual milliseconds). The flag values
// are the driver's and pass through.

#include "stream_common.h"

namespace accel::cudart {
namespace {

constexpr unsigned kEventFlags = kEventBlockingSync | kEventDisableTiming | kEventInterprocess;

}  // namespace

namespace impl {

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, kEventDefault);
}

// An interprocess event must also disable timing (driver_types.h's flag text).
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (event == nullptr || (flags & ~kEventFlags) != 0) return cudaErrorInvalidValue;
  if ((flags & kEventInterprocess) != 0 && (flags & kEventDisableTiming) == 0) {
    return cudaErrorInvalidValue;
  }
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuEventCreate, event, flags);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuEventRecord, event, driver_stream(stream));
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  if ((flags & ~kEventRecordExternal) != 0) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuEventRecordWithFlags, event, driver_stream(stream), flags);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuEventQuery, event);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuEventSynchronize, event);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuEventDestroy_v2, event);
}

cudaError_t cudaEventElapsedTime(float* milliseconds, cudaEvent_t start, cudaEvent_t end) {
  if (milliseconds == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = stream_context(&d); e != cudaSuccess) return e;
  return call(d->cuEventElapsedTime_v2, milliseconds, start, end);
}

}  // namespace impl
}  // namespace accel::cudart
