// The CUDA backend's copies and fills (cuda_backend_impl.h): one stream-ordered driver call
// each, under the stream's device's primary context. cuMemcpyAsync takes unified addresses
// and works out the direction from them (device, pinned host or pageable host memory), and
// applies the driver's own rules for when the call returns (CUDA Driver API, "API
// synchronization behavior": a pageable source is staged at the call; a copy into pageable
// memory returns once complete); nothing here adds to them (Note [Copy ordering] in
// accel/copy.h).
#include "backends/cuda/cuda_backend_impl.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUdeviceptr;
using cuda_abi::CUstream;

CUstream as_stream(StreamHandle stream) noexcept {
  return reinterpret_cast<CUstream>(stream.value);
}

// A unified address as the driver's integer type (host pointers included: with unified
// addressing, which every 64-bit CUDA platform has, the driver classifies them).
CUdeviceptr as_address(const void* pointer) noexcept {
  return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(pointer));
}

}  // namespace

Status CudaBackend::copy_async(int index, StreamHandle stream, void* dst, const void* src,
                               std::size_t bytes) noexcept {
  return with_device_context(index, "copy_async", "cuMemcpyAsync", [&](const DriverApi& api) {
    return api.cuMemcpyAsync(as_address(dst), as_address(src), bytes, as_stream(stream));
  });
}

Status CudaBackend::fill_async(int index, StreamHandle stream, void* ptr, unsigned char value,
                               std::size_t bytes) noexcept {
  return with_device_context(index, "fill_async", "cuMemsetD8Async", [&](const DriverApi& api) {
    return api.cuMemsetD8Async(as_address(ptr), value, bytes, as_stream(stream));
  });
}

}  // namespace accel::detail::cuda
