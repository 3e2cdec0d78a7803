#pragma once
// A fragment of the CUDA driver ABI table (accel_abi/cuda_driver.h includes it; include
// that header, never this one). Pitched, 2D and 3D copies, the wider memsets, and the array copies.
//
// ACCEL_CUDA_COPY_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_driver.h. The
// runtime never resolves them; the simulated libcuda.so.1 implements and exports them.
// ACCEL_CUDA_COPY_TYPES(T): every type declared here, by its cuda.h name; abi/check proves
// each the same size and alignment as cuda.h's, and maps it for the PFN checks.
// ACCEL_CUDA_COPY_CONSTANTS(C): every enumerator declared here; abi/check proves each the
// same value as cuda.h's.
//
// CUDA arrays (opaque, texture-layout memory) are exported so that programs and runtime
// libraries bind them, and answer CUDA_ERROR_NOT_SUPPORTED (kNotSupportedByDesign): the
// simulation models linear memory only (decision 198).

#ifndef ACCEL_CUDA_DRIVER_FRAGMENT_
#error "include accel_abi/cuda_driver.h, not its fragments"
#endif

namespace accel::cuda_abi {

struct CUarray_st;  // opaque; never created by the simulation
using CUarray = CUarray_st*;

// What a CUDA_MEMCPY2D / CUDA_MEMCPY3D side names.
enum CUmemorytype : int {
  CU_MEMORYTYPE_HOST = 0x01,
  CU_MEMORYTYPE_DEVICE = 0x02,
  CU_MEMORYTYPE_ARRAY = 0x03,
  CU_MEMORYTYPE_UNIFIED = 0x04,
};

enum CUarray_format : int {
  CU_AD_FORMAT_UNSIGNED_INT8 = 0x01,
  CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
  CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
  CU_AD_FORMAT_SIGNED_INT8 = 0x08,
  CU_AD_FORMAT_SIGNED_INT16 = 0x09,
  CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
  CU_AD_FORMAT_HALF = 0x10,
  CU_AD_FORMAT_FLOAT = 0x20,
  CU_AD_FORMAT_NV12 = 0xb0,
  CU_AD_FORMAT_UNORM_INT8X1 = 0xc0,
  CU_AD_FORMAT_UNORM_INT8X2 = 0xc1,
  CU_AD_FORMAT_UNORM_INT8X4 = 0xc2,
  CU_AD_FORMAT_UNORM_INT16X1 = 0xc3,
  CU_AD_FORMAT_UNORM_INT16X2 = 0xc4,
  CU_AD_FORMAT_UNORM_INT16X4 = 0xc5,
  CU_AD_FORMAT_SNORM_INT8X1 = 0xc6,
  CU_AD_FORMAT_SNORM_INT8X2 = 0xc7,
  CU_AD_FORMAT_SNORM_INT8X4 = 0xc8,
  CU_AD_FORMAT_SNORM_INT16X1 = 0xc9,
  CU_AD_FORMAT_SNORM_INT16X2 = 0xca,
  CU_AD_FORMAT_SNORM_INT16X4 = 0xcb,
  CU_AD_FORMAT_BC1_UNORM = 0x91,
  CU_AD_FORMAT_BC1_UNORM_SRGB = 0x92,
  CU_AD_FORMAT_BC2_UNORM = 0x93,
  CU_AD_FORMAT_BC2_UNORM_SRGB = 0x94,
  CU_AD_FORMAT_BC3_UNORM = 0x95,
  CU_AD_FORMAT_BC3_UNORM_SRGB = 0x96,
  CU_AD_FORMAT_BC4_UNORM = 0x97,
  CU_AD_FORMAT_BC4_SNORM = 0x98,
  CU_AD_FORMAT_BC5_UNORM = 0x99,
  CU_AD_FORMAT_BC5_SNORM = 0x9a,
  CU_AD_FORMAT_BC6H_UF16 = 0x9b,
  CU_AD_FORMAT_BC6H_SF16 = 0x9c,
  CU_AD_FORMAT_BC7_UNORM = 0x9d,
  CU_AD_FORMAT_BC7_UNORM_SRGB = 0x9e,
  CU_AD_FORMAT_P010 = 0x9f,
  CU_AD_FORMAT_P016 = 0xa1,
  CU_AD_FORMAT_NV16 = 0xa2,
  CU_AD_FORMAT_P210 = 0xa3,
  CU_AD_FORMAT_P216 = 0xa4,
  CU_AD_FORMAT_YUY2 = 0xa5,
  CU_AD_FORMAT_Y210 = 0xa6,
  CU_AD_FORMAT_Y216 = 0xa7,
  CU_AD_FORMAT_AYUV = 0xa8,
  CU_AD_FORMAT_Y410 = 0xa9,
  CU_AD_FORMAT_Y416 = 0xb1,
  CU_AD_FORMAT_Y444_PLANAR8 = 0xb2,
  CU_AD_FORMAT_Y444_PLANAR10 = 0xb3,
  CU_AD_FORMAT_UNORM_INT_101010_2 = 0x50,
  CU_AD_FORMAT_MAX = 0x7FFFFFFF,
};

// Layouts as cuda.h's (the _v2 structs the unsuffixed names stand for).
struct CUDA_MEMCPY2D {
  std::size_t srcXInBytes;
  std::size_t srcY;
  CUmemorytype srcMemoryType;
  const void* srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  std::size_t srcPitch;
  std::size_t dstXInBytes;
  std::size_t dstY;
  CUmemorytype dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  std::size_t dstPitch;
  std::size_t WidthInBytes;
  std::size_t Height;
};

struct CUDA_MEMCPY3D {
  std::size_t srcXInBytes;
  std::size_t srcY;
  std::size_t srcZ;
  std::size_t srcLOD;
  CUmemorytype srcMemoryType;
  const void* srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  void* reserved0;
  std::size_t srcPitch;
  std::size_t srcHeight;
  std::size_t dstXInBytes;
  std::size_t dstY;
  std::size_t dstZ;
  std::size_t dstLOD;
  CUmemorytype dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  void* reserved1;
  std::size_t dstPitch;
  std::size_t dstHeight;
  std::size_t WidthInBytes;
  std::size_t Height;
  std::size_t Depth;
};

struct CUDA_ARRAY_DESCRIPTOR {
  std::size_t Width;
  std::size_t Height;
  CUarray_format Format;
  unsigned int NumChannels;
};

struct CUDA_ARRAY3D_DESCRIPTOR {
  std::size_t Width;
  std::size_t Height;
  std::size_t Depth;
  CUarray_format Format;
  unsigned int NumChannels;
  unsigned int Flags;
};

}  // namespace accel::cuda_abi

#define ACCEL_CUDA_COPY_TYPES(T) \
  T(CUmemorytype) \
  T(CUarray_format) \
  T(CUDA_MEMCPY2D) \
  T(CUDA_MEMCPY3D) \
  T(CUDA_ARRAY_DESCRIPTOR) \
  T(CUDA_ARRAY3D_DESCRIPTOR)

#define ACCEL_CUDA_COPY_CONSTANTS(C) \
  C(CU_MEMORYTYPE_HOST) \
  C(CU_MEMORYTYPE_DEVICE) \
  C(CU_MEMORYTYPE_ARRAY) \
  C(CU_MEMORYTYPE_UNIFIED) \
  C(CU_AD_FORMAT_UNSIGNED_INT8) \
  C(CU_AD_FORMAT_UNSIGNED_INT16) \
  C(CU_AD_FORMAT_UNSIGNED_INT32) \
  C(CU_AD_FORMAT_SIGNED_INT8) \
  C(CU_AD_FORMAT_SIGNED_INT16) \
  C(CU_AD_FORMAT_SIGNED_INT32) \
  C(CU_AD_FORMAT_HALF) \
  C(CU_AD_FORMAT_FLOAT) \
  C(CU_AD_FORMAT_NV12) \
  C(CU_AD_FORMAT_UNORM_INT8X1) \
  C(CU_AD_FORMAT_UNORM_INT8X2) \
  C(CU_AD_FORMAT_UNORM_INT8X4) \
  C(CU_AD_FORMAT_UNORM_INT16X1) \
  C(CU_AD_FORMAT_UNORM_INT16X2) \
  C(CU_AD_FORMAT_UNORM_INT16X4) \
  C(CU_AD_FORMAT_SNORM_INT8X1) \
  C(CU_AD_FORMAT_SNORM_INT8X2) \
  C(CU_AD_FORMAT_SNORM_INT8X4) \
  C(CU_AD_FORMAT_SNORM_INT16X1) \
  C(CU_AD_FORMAT_SNORM_INT16X2) \
  C(CU_AD_FORMAT_SNORM_INT16X4) \
  C(CU_AD_FORMAT_BC1_UNORM) \
  C(CU_AD_FORMAT_BC1_UNORM_SRGB) \
  C(CU_AD_FORMAT_BC2_UNORM) \
  C(CU_AD_FORMAT_BC2_UNORM_SRGB) \
  C(CU_AD_FORMAT_BC3_UNORM) \
  C(CU_AD_FORMAT_BC3_UNORM_SRGB) \
  C(CU_AD_FORMAT_BC4_UNORM) \
  C(CU_AD_FORMAT_BC4_SNORM) \
  C(CU_AD_FORMAT_BC5_UNORM) \
  C(CU_AD_FORMAT_BC5_SNORM) \
  C(CU_AD_FORMAT_BC6H_UF16) \
  C(CU_AD_FORMAT_BC6H_SF16) \
  C(CU_AD_FORMAT_BC7_UNORM) \
  C(CU_AD_FORMAT_BC7_UNORM_SRGB) \
  C(CU_AD_FORMAT_P010) \
  C(CU_AD_FORMAT_P016) \
  C(CU_AD_FORMAT_NV16) \
  C(CU_AD_FORMAT_P210) \
  C(CU_AD_FORMAT_P216) \
  C(CU_AD_FORMAT_YUY2) \
  C(CU_AD_FORMAT_Y210) \
  C(CU_AD_FORMAT_Y216) \
  C(CU_AD_FORMAT_AYUV) \
  C(CU_AD_FORMAT_Y410) \
  C(CU_AD_FORMAT_Y416) \
  C(CU_AD_FORMAT_Y444_PLANAR8) \
  C(CU_AD_FORMAT_Y444_PLANAR10) \
  C(CU_AD_FORMAT_UNORM_INT_101010_2) \
  C(CU_AD_FORMAT_MAX)

// Every 2D/3D copy and memset runs on its stream like the 1D forms (the synchronous ones on
// the default stream); the array entry points are exported and answer NOT_SUPPORTED.
#define ACCEL_CUDA_COPY_ROWS_(R, P, X, E) \
  R(X, E, cuMemAllocPitch, 3020, cuMemAllocPitch_v2, (CUdeviceptr * dptr, std::size_t * pitch, std::size_t width_bytes, std::size_t height, unsigned int element_bytes), (dptr, pitch, width_bytes, height, element_bytes), kNeedsInit | kTouchesDevice) \
  P(X, E, cuMemcpy2D, 3020, cuMemcpy2D_v2, (const CUDA_MEMCPY2D* copy), (copy), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemcpy2DUnaligned, 3020, cuMemcpy2DUnaligned_v2, (const CUDA_MEMCPY2D* copy), (copy), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemcpy2DAsync, 3020, cuMemcpy2DAsync_v2, (const CUDA_MEMCPY2D* copy, CUstream stream), (copy, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemcpy3D, 3020, cuMemcpy3D_v2, (const CUDA_MEMCPY3D* copy), (copy), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemcpy3DAsync, 3020, cuMemcpy3DAsync_v2, (const CUDA_MEMCPY3D* copy, CUstream stream), (copy, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemsetD16, 3020, cuMemsetD16_v2, (CUdeviceptr dst, unsigned short value, std::size_t count), (dst, value, count), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemsetD16Async, 3020, cuMemsetD16Async, (CUdeviceptr dst, unsigned short value, std::size_t count, CUstream stream), (dst, value, count, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemsetD2D8, 3020, cuMemsetD2D8_v2, (CUdeviceptr dst, std::size_t pitch, unsigned char value, std::size_t width, std::size_t height), (dst, pitch, value, width, height), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemsetD2D8Async, 3020, cuMemsetD2D8Async, (CUdeviceptr dst, std::size_t pitch, unsigned char value, std::size_t width, std::size_t height, CUstream stream), (dst, pitch, value, width, height, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemsetD2D16, 3020, cuMemsetD2D16_v2, (CUdeviceptr dst, std::size_t pitch, unsigned short value, std::size_t width, std::size_t height), (dst, pitch, value, width, height), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemsetD2D16Async, 3020, cuMemsetD2D16Async, (CUdeviceptr dst, std::size_t pitch, unsigned short value, std::size_t width, std::size_t height, CUstream stream), (dst, pitch, value, width, height, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemsetD2D32, 3020, cuMemsetD2D32_v2, (CUdeviceptr dst, std::size_t pitch, unsigned int value, std::size_t width, std::size_t height), (dst, pitch, value, width, height), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptds) \
  P(X, E, cuMemsetD2D32Async, 3020, cuMemsetD2D32Async, (CUdeviceptr dst, std::size_t pitch, unsigned int value, std::size_t width, std::size_t height, CUstream stream), (dst, pitch, value, width, height, stream), kNeedsInit | kTouchesDevice | kLegalInCapture, 7000, _ptsz) \
  P(X, E, cuMemcpyAtoH, 3020, cuMemcpyAtoH_v2, (void* dst, CUarray src, std::size_t src_offset, std::size_t bytes), (dst, src, src_offset, bytes), kNeedsInit | kTouchesDevice | kLegalInCapture | kNotSupportedByDesign, 7000, _ptds) \
  P(X, E, cuMemcpyHtoA, 3020, cuMemcpyHtoA_v2, (CUarray dst, std::size_t dst_offset, const void* src, std::size_t bytes), (dst, dst_offset, src, bytes), kNeedsInit | kTouchesDevice | kLegalInCapture | kNotSupportedByDesign, 7000, _ptds) \
  P(X, E, cuMemcpyAtoD, 3020, cuMemcpyAtoD_v2, (CUdeviceptr dst, CUarray src, std::size_t src_offset, std::size_t bytes), (dst, src, src_offset, bytes), kNeedsInit | kTouchesDevice | kLegalInCapture | kNotSupportedByDesign, 7000, _ptds) \
  P(X, E, cuMemcpyDtoA, 3020, cuMemcpyDtoA_v2, (CUarray dst, std::size_t dst_offset, CUdeviceptr src, std::size_t bytes), (dst, dst_offset, src, bytes), kNeedsInit | kTouchesDevice | kLegalInCapture | kNotSupportedByDesign, 7000, _ptds) \
  P(X, E, cuMemcpyAtoA, 3020, cuMemcpyAtoA_v2, (CUarray dst, std::size_t dst_offset, CUarray src, std::size_t src_offset, std::size_t bytes), (dst, dst_offset, src, src_offset, bytes), kNeedsInit | kTouchesDevice | kLegalInCapture | kNotSupportedByDesign, 7000, _ptds) \
  P(X, E, cuMemcpyHtoAAsync, 3020, cuMemcpyHtoAAsync_v2, (CUarray dst, std::size_t dst_offset, const void* src, std::size_t bytes, CUstream stream), (dst, dst_offset, src, bytes, stream), kNeedsInit | kTouchesDevice | kLegalInCapture | kNotSupportedByDesign, 7000, _ptsz) \
  P(X, E, cuMemcpyAtoHAsync, 3020, cuMemcpyAtoHAsync_v2, (void* dst, CUarray src, std::size_t src_offset, std::size_t bytes, CUstream stream), (dst, src, src_offset, bytes, stream), kNeedsInit | kTouchesDevice | kLegalInCapture | kNotSupportedByDesign, 7000, _ptsz) \
  R(X, E, cuArrayCreate, 3020, cuArrayCreate_v2, (CUarray * handle, const CUDA_ARRAY_DESCRIPTOR* desc), (handle, desc), kNeedsInit | kLegalInCapture | kNotSupportedByDesign) \
  R(X, E, cuArray3DCreate, 3020, cuArray3DCreate_v2, (CUarray * handle, const CUDA_ARRAY3D_DESCRIPTOR* desc), (handle, desc), kNeedsInit | kLegalInCapture | kNotSupportedByDesign) \
  R(X, E, cuArrayDestroy, 2000, cuArrayDestroy, (CUarray handle), (handle), kNeedsInit | kLegalInCapture | kNotSupportedByDesign) \
  R(X, E, cuArrayGetDescriptor, 3020, cuArrayGetDescriptor_v2, (CUDA_ARRAY_DESCRIPTOR * desc, CUarray handle), (desc, handle), kNeedsInit | kLegalInCapture | kNotSupportedByDesign) \
  R(X, E, cuArray3DGetDescriptor, 3020, cuArray3DGetDescriptor_v2, (CUDA_ARRAY3D_DESCRIPTOR * desc, CUarray handle), (desc, handle), kNeedsInit | kLegalInCapture | kNotSupportedByDesign)
