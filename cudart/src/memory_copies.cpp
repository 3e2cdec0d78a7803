// Copies and memsets (spec cuda_runtime.md §4.4): every cudaMemcpyKind, 2D copies with
// pitches, peer copies and byte memsets, each over the driver entry point of its direction.
//
// Note [Copy kinds]
// A kind outside cudaMemcpyKind is cudaErrorInvalidMemcpyDirection (21) before anything else.
// An explicit direction goes to the driver call of that direction (cuMemcpyHtoD_v2,
// cuMemcpyDtoH_v2, cuMemcpyDtoD_v2 and their Async forms), which checks the pointers against
// it: a host address where the driver expects device memory is cudaErrorInvalidValue.
// HostToHost and Default go through unified addressing (cuMemcpy / cuMemcpyAsync), where the
// driver infers each side from its address. When a synchronous call returns (host pageable
// copies synchronous to the host, device-to-device not) is the driver's rule for that call.
//
// A synchronous copy or memset has no stream argument: its per-thread variant (_ptds) calls
// the driver's _ptds entry point; the Async forms convert their stream with driver_stream()
// (stream_handle.h), so the NULL stream of a _ptsz call is the per-thread stream.

#include "memory_common.h"
#include "stream_handle.h"

namespace accel::cudart {
namespace {

// The driver's synchronous entry point, or its _ptds variant inside a per-thread call.
template <class F>
F sync_entry(F legacy, F per_thread) noexcept {
  return per_thread_default_stream() ? per_thread : legacy;
}

cudaError_t copy(const DriverTable& d, void* dst, const void* src, std::size_t count,
                 cudaMemcpyKind kind) {
  const drv::CUdeviceptr to = device_address(dst);
  const drv::CUdeviceptr from = device_address(src);
  switch (kind) {
    case cudaMemcpyHostToDevice:
      return call(sync_entry(d.cuMemcpyHtoD_v2, d.cuMemcpyHtoD_v2_ptds), to, src, count);
    case cudaMemcpyDeviceToHost:
      return call(sync_entry(d.cuMemcpyDtoH_v2, d.cuMemcpyDtoH_v2_ptds), dst, from, count);
    case cudaMemcpyDeviceToDevice:
      return call(sync_entry(d.cuMemcpyDtoD_v2, d.cuMemcpyDtoD_v2_ptds), to, from, count);
    default:  // HostToHost, Default: unified addressing
      return call(sync_entry(d.cuMemcpy, d.cuMemcpy_ptds), to, from, count);
  }
}

cudaError_t copy_async(const DriverTable& d, void* dst, const void* src, std::size_t count,
                       cudaMemcpyKind kind, drv::CUstream stream) {
  const drv::CUdeviceptr to = device_address(dst);
  const drv::CUdeviceptr from = device_address(src);
  switch (kind) {
    case cudaMemcpyHostToDevice:
      return call(d.cuMemcpyHtoDAsync_v2, to, src, count, stream);
    case cudaMemcpyDeviceToHost:
      return call(d.cuMemcpyDtoHAsync_v2, dst, from, count, stream);
    case cudaMemcpyDeviceToDevice:
      return call(d.cuMemcpyDtoDAsync_v2, to, from, count, stream);
    default:
      return call(d.cuMemcpyAsync, to, from, count, stream);
  }
}

// The side of a 2D copy the kind names: host, device, or unified (the driver infers it).
void set_side(drv::CUmemorytype type, const void* p, drv::CUmemorytype* out_type,
              drv::CUdeviceptr* device, const void** host) {
  *out_type = type;
  if (type == drv::CU_MEMORYTYPE_HOST) {
    *host = p;
  } else {
    *device = device_address(p);
  }
}

// The 2D rules (spec §4.4): the kind, then the width against both pitches and the pitches
// against the device's maximum (cudaErrorInvalidPitchValue, 12); then the driver's copy.
cudaError_t describe_2d(const DriverTable& d, void* dst, std::size_t dpitch, const void* src,
                        std::size_t spitch, std::size_t width, std::size_t height,
                        cudaMemcpyKind kind, drv::CUDA_MEMCPY2D* copy2d) {
  if (!valid_kind(kind)) return cudaErrorInvalidMemcpyDirection;
  int device = 0;
  if (const cudaError_t e = require_context(d, &device); e != cudaSuccess) return e;
  if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
  drv::CUdevice dev = 0;
  if (const cudaError_t e = device_handle(d, device, &dev); e != cudaSuccess) return e;
  int max_pitch = 0;
  if (const cudaError_t e =
          call(d.cuDeviceGetAttribute, &max_pitch, drv::CU_DEVICE_ATTRIBUTE_MAX_PITCH, dev);
      e != cudaSuccess) {
    return e;
  }
  const auto limit = static_cast<std::size_t>(max_pitch);
  if (dpitch > limit || spitch > limit) return cudaErrorInvalidPitchValue;
  drv::CUmemorytype src_type = drv::CU_MEMORYTYPE_UNIFIED;
  drv::CUmemorytype dst_type = drv::CU_MEMORYTYPE_UNIFIED;
  switch (kind) {
    case cudaMemcpyHostToHost:
      src_type = dst_type = drv::CU_MEMORYTYPE_HOST;
      break;
    case cudaMemcpyHostToDevice:
      src_type = drv::CU_MEMORYTYPE_HOST;
      dst_type = drv::CU_MEMORYTYPE_DEVICE;
      break;
    case cudaMemcpyDeviceToHost:
      src_type = drv::CU_MEMORYTYPE_DEVICE;
      dst_type = drv::CU_MEMORYTYPE_HOST;
      break;
    case cudaMemcpyDeviceToDevice:
      src_type = dst_type = drv::CU_MEMORYTYPE_DEVICE;
      break;
    default:
      break;
  }
  *copy2d = drv::CUDA_MEMCPY2D{};
  set_side(src_type, src, &copy2d->srcMemoryType, &copy2d->srcDevice, &copy2d->srcHost);
  const void* dst_host = nullptr;
  set_side(dst_type, dst, &copy2d->dstMemoryType, &copy2d->dstDevice, &dst_host);
  copy2d->dstHost = const_cast<void*>(dst_host);
  copy2d->srcPitch = spitch;
  copy2d->dstPitch = dpitch;
  copy2d->WidthInBytes = width;
  copy2d->Height = height;
  return cudaSuccess;
}

// The primary contexts of a peer copy's two devices (cudaErrorInvalidDevice for either
// outside the machine), after the caller's own context.
cudaError_t peer_contexts(const DriverTable& d, int dst_device, int src_device,
                          drv::CUcontext* dst_ctx, drv::CUcontext* src_ctx) {
  int current = 0;
  if (const cudaError_t e = require_context(d, &current); e != cudaSuccess) return e;
  if (const cudaError_t e = primary_context(d, dst_device, dst_ctx); e != cudaSuccess) return e;
  return primary_context(d, src_device, src_ctx);
}

}  // namespace

namespace impl {

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  if (!valid_kind(kind)) return cudaErrorInvalidMemcpyDirection;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return copy(*d, dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (!valid_kind(kind)) return cudaErrorInvalidMemcpyDirection;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return copy_async(*d, dst, src, count, kind, driver_stream(stream));
}

cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                         std::size_t width, std::size_t height, cudaMemcpyKind kind) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  drv::CUDA_MEMCPY2D copy2d{};
  if (const cudaError_t e = describe_2d(*d, dst, dpitch, src, spitch, width, height, kind, &copy2d);
      e != cudaSuccess) {
    return e;
  }
  return call(sync_entry(d->cuMemcpy2DUnaligned_v2, d->cuMemcpy2DUnaligned_v2_ptds), &copy2d);
}

cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                              std::size_t width, std::size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  drv::CUDA_MEMCPY2D copy2d{};
  if (const cudaError_t e = describe_2d(*d, dst, dpitch, src, spitch, width, height, kind, &copy2d);
      e != cudaSuccess) {
    return e;
  }
  return call(d->cuMemcpy2DAsync_v2, &copy2d, driver_stream(stream));
}

cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                           std::size_t count) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  drv::CUcontext dst_ctx = nullptr, src_ctx = nullptr;
  if (const cudaError_t e = peer_contexts(*d, dst_device, src_device, &dst_ctx, &src_ctx);
      e != cudaSuccess) {
    return e;
  }
  return call(d->cuMemcpyPeer, device_address(dst), dst_ctx, device_address(src), src_ctx, count);
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                std::size_t count, cudaStream_t stream) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  drv::CUcontext dst_ctx = nullptr, src_ctx = nullptr;
  if (const cudaError_t e = peer_contexts(*d, dst_device, src_device, &dst_ctx, &src_ctx);
      e != cudaSuccess) {
    return e;
  }
  return call(d->cuMemcpyPeerAsync, device_address(dst), dst_ctx, device_address(src), src_ctx,
              count, driver_stream(stream));
}

// Memsets write bytes: the value's low eight bits (cudaMemset's documented conversion).
cudaError_t cudaMemset(void* dev_ptr, int value, std::size_t count) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(sync_entry(d->cuMemsetD8_v2, d->cuMemsetD8_v2_ptds), device_address(dev_ptr),
              static_cast<unsigned char>(value), count);
}

cudaError_t cudaMemsetAsync(void* dev_ptr, int value, std::size_t count, cudaStream_t stream) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  return call(d->cuMemsetD8Async, device_address(dev_ptr), static_cast<unsigned char>(value), count,
              driver_stream(stream));
}

cudaError_t cudaMemset2D(void* dev_ptr, std::size_t pitch, int value, std::size_t width,
                         std::size_t height) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  if (width > pitch) return cudaErrorInvalidPitchValue;
  return call(sync_entry(d->cuMemsetD2D8_v2, d->cuMemsetD2D8_v2_ptds), device_address(dev_ptr),
              pitch, static_cast<unsigned char>(value), width, height);
}

cudaError_t cudaMemset2DAsync(void* dev_ptr, std::size_t pitch, int value, std::size_t width,
                              std::size_t height, cudaStream_t stream) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = memory_context(&d); e != cudaSuccess) return e;
  if (width > pitch) return cudaErrorInvalidPitchValue;
  return call(d->cuMemsetD2D8Async, device_address(dev_ptr), pitch,
              static_cast<unsigned char>(value), width, height, driver_stream(stream));
}

}  // namespace impl
}  // namespace accel::cudart
