// Pitched memory, 2D and 3D copies of the simulated driver (declared in driver_api.h), and
// the CUDA array entry points, which answer CUDA_ERROR_NOT_SUPPORTED by design (decision
// 198: the simulation models linear memory only).
//
// A 2D/3D copy is one operation on its stream (strided_ops.h) that moves and declares only
// the rows' bytes. Each side is host memory (CU_MEMORYTYPE_HOST: srcHost/dstHost), device
// memory (CU_MEMORYTYPE_DEVICE: srcDevice/dstDevice) or a unified address
// (CU_MEMORYTYPE_UNIFIED: srcDevice/dstDevice, device memory when the address lies in a
// device's range, else host memory). The first byte of a side is
// base + Z * pitch * height + Y * pitch + XInBytes. Arguments, in the order checked
// ([inferred] where docs/HARDWARE.md says so):
//   a null descriptor: CUDA_ERROR_INVALID_VALUE;
//   an array side: CUDA_ERROR_NOT_SUPPORTED; another unknown memory type: INVALID_VALUE;
//   [inferred] 3D: a non-null reserved field or a non-zero LOD: INVALID_VALUE;
//   a pitch above CU_DEVICE_ATTRIBUTE_MAX_PITCH: INVALID_VALUE;
//   [inferred] copying more than one row, XInBytes + WidthInBytes above a side's pitch;
//     3D copying more than one slice, Y + Height above a side's height: INVALID_VALUE;
//   the stream (the async forms): as every stream call;
//   [inferred] an empty box (a zero width, height or depth): success, nothing moves;
//   a device side whose rows do not lie inside one live allocation, a null or wrapping
//     host side: INVALID_VALUE;
//   the sticky error of the stream's device; then the copy.
// cuMemcpy2DUnaligned has cuMemcpy2D's rules: the simulation has no alignment fast path.

#include <optional>

#include "core/engine.h"
#include "core/memory.h"
#include "core/pinned_host.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/strided_ops.h"

namespace mockdev::cuda::impl {
namespace {

// CU_DEVICE_ATTRIBUTE_MAX_PITCH of every simulated device (device_attributes.cpp).
constexpr std::uint64_t kMaxPitch = 2147483647;
// [inferred] cuMemAllocPitch rounds a row up to this many bytes (a multiple of
// CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, what a texture bound to the rows needs).
constexpr std::uint64_t kPitchAlignment = 512;

// One side of a descriptor, as the copy needs it.
struct SideArgs {
  CUmemorytype type = CU_MEMORYTYPE_HOST;
  const void* host = nullptr;
  CUdeviceptr device = 0;
  std::uint64_t x = 0, y = 0, z = 0;
  std::uint64_t pitch = 0;
  std::uint64_t height = 0;  // 3D: rows per slice
};

bool in_device_space(std::uint64_t address) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const std::uint64_t devices = core::engine().machine.devices.size();
  const std::uint64_t first = std::uint64_t{1} << core::kAddressRangeShift;
  return address >= first && (address >> core::kAddressRangeShift) <= devices;
}

// Checks of one side that need no memory lookup.
CUresult check_shape(const SideArgs& side, const StridedBox& box) {
  if (side.pitch > kMaxPitch) return CUDA_ERROR_INVALID_VALUE;
  const bool rows = box.height > 1 || box.depth > 1;
  if (rows && side.x + box.width > side.pitch) return CUDA_ERROR_INVALID_VALUE;
  if (box.depth > 1 && side.y + box.height > side.height) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult check_type(CUmemorytype type) {
  switch (type) {
    case CU_MEMORYTYPE_HOST:
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED:
      return CUDA_SUCCESS;
    case CU_MEMORYTYPE_ARRAY:
      return CUDA_ERROR_NOT_SUPPORTED;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

// The side resolved against memory: nullopt when its rows are not addressable.
std::optional<StridedSide> resolve(const SideArgs& a, const StridedBox& box)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  StridedSide s;
  s.pitch = a.pitch;
  s.slice = a.pitch * a.height;
  bool device = a.type == CU_MEMORYTYPE_DEVICE;
  std::uint64_t base = device ? a.device : reinterpret_cast<std::uintptr_t>(a.host);
  if (a.type == CU_MEMORYTYPE_UNIFIED) {
    base = a.device;
    device = in_device_space(base);
  }
  s.first = base + a.z * s.slice + a.y * a.pitch + a.x;
  if (s.first < base) return std::nullopt;
  const std::uint64_t span = strided_span(s, box);
  if (s.first + span < s.first) return std::nullopt;
  if (device) {
    std::optional<core::Allocation> alloc = core::find_containing(s.first, span, nullptr);
    if (!alloc || alloc->owner != Api::kCuda) return std::nullopt;
    s.device = alloc->device;
    return s;
  }
  if (base == 0) return std::nullopt;
  s.host = true;
  s.pinned = core::is_pinned(s.first, span);
  return s;
}

CUresult copy(CUstream handle, const SideArgs& dst, const SideArgs& src, const StridedBox& box,
              bool sync, const char* name) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  for (CUmemorytype type : {src.type, dst.type}) {
    if (CUresult rc = check_type(type); rc != CUDA_SUCCESS) return rc;
  }
  for (const SideArgs* side : {&src, &dst}) {
    if (CUresult rc = check_shape(*side, box); rc != CUDA_SUCCESS) return rc;
  }
  const ResolvedStream r = resolve_stream(handle);
  if (r.stream == nullptr) return r.error;
  if (box.width == 0 || box.height == 0 || box.depth == 0) return CUDA_SUCCESS;
  std::optional<StridedSide> d = resolve(dst, box);
  std::optional<StridedSide> s = resolve(src, box);
  if (!d || !s) return CUDA_ERROR_INVALID_VALUE;
  if (auto sticky = sticky_error(r.stream->ctx->physical_device)) return *sticky;
  return submit_strided_copy(r.stream, *d, *s, box, sync, name);
}

CUresult copy_2d(const CUDA_MEMCPY2D* c, CUstream stream, bool sync, const char* name)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (c == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const SideArgs src{c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes, c->srcY, 0,
                     c->srcPitch, c->Height};
  const SideArgs dst{c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes, c->dstY, 0,
                     c->dstPitch, c->Height};
  return copy(stream, dst, src, StridedBox{c->WidthInBytes, c->Height, 1}, sync, name);
}

CUresult copy_3d(const CUDA_MEMCPY3D* c, CUstream stream, bool sync, const char* name)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (c == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (c->srcMemoryType == CU_MEMORYTYPE_ARRAY || c->dstMemoryType == CU_MEMORYTYPE_ARRAY) {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (c->reserved0 != nullptr || c->reserved1 != nullptr || c->srcLOD != 0 || c->dstLOD != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const SideArgs src{c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes, c->srcY,
                     c->srcZ, c->srcPitch, c->srcHeight};
  const SideArgs dst{c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes, c->dstY,
                     c->dstZ, c->dstPitch, c->dstHeight};
  return copy(stream, dst, src, StridedBox{c->WidthInBytes, c->Height, c->Depth}, sync, name);
}

}  // namespace

// Documented: ElementSizeBytes is 4, 8 or 16. [inferred] a zero width or height, or a width
// above CU_DEVICE_ATTRIBUTE_MAX_PITCH, is INVALID_VALUE; the pitch is the width rounded up
// to kPitchAlignment and the allocation pitch x height bytes, accounted as cuMemAlloc's.
CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, std::size_t* pitch, std::size_t width_bytes,
                            std::size_t height, unsigned int element_bytes) {
  if (dptr == nullptr || pitch == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (element_bytes != 4 && element_bytes != 8 && element_bytes != 16) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (width_bytes == 0 || height == 0 || width_bytes > kMaxPitch) return CUDA_ERROR_INVALID_VALUE;
  const std::uint64_t row = (width_bytes + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  const std::uint64_t bytes = row * height;
  if (bytes / height != row) return CUDA_ERROR_OUT_OF_MEMORY;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  if (auto sticky = sticky_error(current.ctx->physical_device)) return *sticky;
  std::optional<std::uint64_t> address =
      core::allocate(Api::kCuda, current.ctx->physical_device, bytes, memory_key(current.ctx));
  if (!address) return CUDA_ERROR_OUT_OF_MEMORY;
  *dptr = *address;
  *pitch = row;
  return CUDA_SUCCESS;
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D* copy) {
  return copy_2d(copy, nullptr, true, "cuMemcpy2D_v2");
}

CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D* copy) {
  return copy_2d(copy, nullptr, true, "cuMemcpy2DUnaligned_v2");
}

CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* copy, CUstream stream) {
  return copy_2d(copy, stream, false, "cuMemcpy2DAsync_v2");
}

CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D* copy) {
  return copy_3d(copy, nullptr, true, "cuMemcpy3D_v2");
}

CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* copy, CUstream stream) {
  return copy_3d(copy, stream, false, "cuMemcpy3DAsync_v2");
}

// CUDA arrays: kNotSupportedByDesign (the gates ran; every argument gets NOT_SUPPORTED).
CUresult cuMemcpyAtoH_v2(void*, CUarray, std::size_t, std::size_t) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemcpyHtoA_v2(CUarray, std::size_t, const void*, std::size_t) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemcpyAtoD_v2(CUdeviceptr, CUarray, std::size_t, std::size_t) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemcpyDtoA_v2(CUarray, std::size_t, CUdeviceptr, std::size_t) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemcpyAtoA_v2(CUarray, std::size_t, CUarray, std::size_t, std::size_t) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemcpyHtoAAsync_v2(CUarray, std::size_t, const void*, std::size_t, CUstream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemcpyAtoHAsync_v2(void*, CUarray, std::size_t, std::size_t, CUstream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuArrayCreate_v2(CUarray*, const CUDA_ARRAY_DESCRIPTOR*) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuArray3DCreate_v2(CUarray*, const CUDA_ARRAY3D_DESCRIPTOR*) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuArrayDestroy(CUarray) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR*, CUarray) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR*, CUarray) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace mockdev::cuda::impl
