// Pitched memory, 2D and 3D copies, the 16-bit and 2D memsets (CUDA Driver API, "Memory
// Management": cuMemAllocPitch, cuMemcpy2D, cuMemcpy3D, cuMemsetD2D*). Exact bytes: a copy
// or a memset writes the rows and never the pitch gaps between them.

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "driver_test.h"

namespace accel::driver_test {
namespace {

using Copies = DriverTest;

constexpr unsigned char kGap = 0xEE;  // what the pitch gaps hold before and after

// A device buffer of `bytes` filled with kGap, freed at scope exit.
struct DeviceBuffer {
  CUdeviceptr address = 0;
  std::size_t bytes = 0;
  const test::CudaEntryPoints* cu = nullptr;
  ~DeviceBuffer() {
    if (address != 0) cu->cuMemFree_v2(address);
  }
};

void fill_gap(const test::CudaEntryPoints& cu, CUdeviceptr address, std::size_t bytes) {
  ASSERT_EQ(cu.cuMemsetD8_v2(address, kGap, bytes), CUDA_SUCCESS);
}

std::vector<unsigned char> read_back(const test::CudaEntryPoints& cu, CUdeviceptr address,
                                     std::size_t bytes) {
  std::vector<unsigned char> out(bytes, 0);
  EXPECT_EQ(cu.cuMemcpyDtoH_v2(out.data(), address, bytes), CUDA_SUCCESS);
  return out;
}

CUDA_MEMCPY2D host_to_device(const void* src, std::size_t src_pitch, CUdeviceptr dst,
                             std::size_t dst_pitch, std::size_t width, std::size_t height) {
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = src;
  c.srcPitch = src_pitch;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = dst;
  c.dstPitch = dst_pitch;
  c.WidthInBytes = width;
  c.Height = height;
  return c;
}

// cuMemAllocPitch: documented ElementSizeBytes 4, 8 or 16; the pitch holds a row and suits
// texture binding (a multiple of CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT).
TEST_F(Copies, AllocPitchGivesAnAlignedPitchThatHoldsARow) {
  ACCEL_REQUIRE_SYMBOLS("cuMemAllocPitch_v2");
  int alignment = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetAttribute(
                                    &alignment, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, device));
  CUdeviceptr dptr = 0;
  std::size_t pitch = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocPitch_v2(&dptr, &pitch, 100, 7, 4));
  EXPECT_GE(pitch, 100u);
  EXPECT_EQ(pitch % static_cast<std::size_t>(alignment), 0u);
  // The whole pitch x height is addressable.
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemsetD8_v2(dptr, 1, pitch * 7));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(dptr));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemAllocPitch_v2(&dptr, &pitch, 100, 7, 3));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemAllocPitch_v2(nullptr, &pitch, 100, 7, 4));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemAllocPitch_v2(&dptr, nullptr, 100, 7, 4));
}

// Host rows into pitched device rows and back: the rows land at Y * pitch + XInBytes, the
// gaps keep their bytes.
TEST_F(Copies, Copy2DWritesTheRowsAndLeavesThePitchGaps) {
  ACCEL_REQUIRE_SYMBOLS("cuMemcpy2D_v2");
  constexpr std::size_t kPitch = 16, kRows = 4, kWidth = 5, kX = 3, kY = 1, kHeight = 2;
  DeviceBuffer buf{0, kPitch * kRows, &cu()};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&buf.address, buf.bytes));
  fill_gap(cu(), buf.address, buf.bytes);
  // Host source with a pitch of 8: rows "ABCDE..." and "FGHIJ...".
  const unsigned char src[16] = {'A', 'B', 'C', 'D', 'E', 'x', 'x', 'x',
                                 'F', 'G', 'H', 'I', 'J', 'y', 'y', 'y'};
  CUDA_MEMCPY2D c = host_to_device(src, 8, buf.address, kPitch, kWidth, kHeight);
  c.dstXInBytes = kX;
  c.dstY = kY;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpy2D_v2(&c));
  const std::vector<unsigned char> out = read_back(cu(), buf.address, buf.bytes);
  std::vector<unsigned char> expected(buf.bytes, kGap);
  std::memcpy(&expected[kY * kPitch + kX], "ABCDE", 5);
  std::memcpy(&expected[(kY + 1) * kPitch + kX], "FGHIJ", 5);
  EXPECT_EQ(out, expected);

  // Device rows back into a host buffer with its own pitch, from an X/Y offset.
  unsigned char host[3 * 6];
  std::memset(host, '.', sizeof host);
  CUDA_MEMCPY2D back{};
  back.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  back.srcDevice = buf.address;
  back.srcPitch = kPitch;
  back.srcXInBytes = kX + 1;
  back.srcY = kY;
  back.dstMemoryType = CU_MEMORYTYPE_HOST;
  back.dstHost = host;
  back.dstPitch = 6;
  back.WidthInBytes = 3;
  back.Height = 2;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpy2D_v2(&back));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(host), sizeof host), "BCD...GHI.........");
}

// Device to device between two pitches, unified addresses on both sides, async on a stream.
TEST_F(Copies, Copy2DAsyncDeviceToDeviceWithUnifiedAddresses) {
  ACCEL_REQUIRE_SYMBOLS("cuMemcpy2DAsync_v2");
  DeviceBuffer a{0, 4 * 8, &cu()}, b{0, 4 * 12, &cu()};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&a.address, a.bytes));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&b.address, b.bytes));
  std::vector<unsigned char> pattern(a.bytes);
  for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<unsigned char>(i);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyHtoD_v2(a.address, pattern.data(), a.bytes));
  fill_gap(cu(), b.address, b.bytes);
  // The setup ran on the legacy stream, which a non-blocking stream does not wait for.
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  CUstream stream = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  c.srcDevice = a.address;
  c.srcPitch = 8;
  c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  c.dstDevice = b.address;
  c.dstPitch = 12;
  c.WidthInBytes = 6;
  c.Height = 4;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpy2DAsync_v2(&c, stream));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamSynchronize(stream));
  const std::vector<unsigned char> out = read_back(cu(), b.address, b.bytes);
  std::vector<unsigned char> expected(b.bytes, kGap);
  for (std::size_t y = 0; y < 4; ++y) {
    for (std::size_t x = 0; x < 6; ++x) expected[y * 12 + x] = pattern[y * 8 + x];
  }
  EXPECT_EQ(out, expected);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuStreamDestroy_v2(stream));
}

// A 3D copy: slices at Z * pitch * height; only the box's rows move.
TEST_F(Copies, Copy3DMovesTheBoxAndNothingElse) {
  ACCEL_REQUIRE_SYMBOLS("cuMemcpy3D_v2");
  constexpr std::size_t kPitch = 8, kHeight = 3, kDepth = 2;
  DeviceBuffer buf{0, kPitch * kHeight * kDepth, &cu()};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&buf.address, buf.bytes));
  fill_gap(cu(), buf.address, buf.bytes);
  std::vector<unsigned char> src(4 * 2 * 2);  // width 4 (pitch 4), 2 rows, 2 slices
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(0x10 + i);
  CUDA_MEMCPY3D c{};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = src.data();
  c.srcPitch = 4;
  c.srcHeight = 2;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = buf.address;
  c.dstPitch = kPitch;
  c.dstHeight = kHeight;
  c.dstXInBytes = 2;
  c.dstY = 1;
  c.WidthInBytes = 4;
  c.Height = 2;
  c.Depth = 2;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpy3D_v2(&c));
  const std::vector<unsigned char> out = read_back(cu(), buf.address, buf.bytes);
  std::vector<unsigned char> expected(buf.bytes, kGap);
  for (std::size_t z = 0; z < 2; ++z) {
    for (std::size_t y = 0; y < 2; ++y) {
      for (std::size_t x = 0; x < 4; ++x) {
        expected[z * kPitch * kHeight + (y + 1) * kPitch + 2 + x] = src[z * 8 + y * 4 + x];
      }
    }
  }
  EXPECT_EQ(out, expected);
}

// A 3D copy back to the host, async on the legacy stream.
TEST_F(Copies, Copy3DAsyncDeviceToHost) {
  ACCEL_REQUIRE_SYMBOLS("cuMemcpy3DAsync_v2");
  DeviceBuffer buf{0, 32, &cu()};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&buf.address, buf.bytes));
  std::vector<unsigned char> pattern(32);
  for (std::size_t i = 0; i < 32; ++i) pattern[i] = static_cast<unsigned char>(i);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyHtoD_v2(buf.address, pattern.data(), 32));
  unsigned char host[2 * 2 * 2];
  CUDA_MEMCPY3D c{};
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = buf.address;
  c.srcPitch = 4;
  c.srcHeight = 4;  // slices of 16 bytes
  c.dstMemoryType = CU_MEMORYTYPE_HOST;
  c.dstHost = host;
  c.dstPitch = 2;
  c.dstHeight = 2;
  c.WidthInBytes = 2;
  c.Height = 2;
  c.Depth = 2;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpy3DAsync_v2(&c, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  const unsigned char expected[8] = {0, 1, 4, 5, 16, 17, 20, 21};
  EXPECT_EQ(std::memcmp(host, expected, 8), 0);
}

// Documented: a pitch above CU_DEVICE_ATTRIBUTE_MAX_PITCH fails. [inferred] with more than
// one row, a row (XInBytes + WidthInBytes) wider than a pitch is INVALID_VALUE; rows
// outside the allocation are INVALID_VALUE; a null descriptor is INVALID_VALUE.
TEST_F(Copies, Copy2DRejectsBadPitchesAndRanges) {
  ACCEL_REQUIRE_SYMBOLS("cuMemcpy2D_v2");
  DeviceBuffer buf{0, 64, &cu()};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&buf.address, buf.bytes));
  unsigned char host[64] = {};
  CUDA_MEMCPY2D wide = host_to_device(host, 16, buf.address, 8, 9, 2);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemcpy2D_v2(&wide));
  CUDA_MEMCPY2D offset = host_to_device(host, 16, buf.address, 8, 8, 2);
  offset.dstXInBytes = 1;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemcpy2D_v2(&offset));
  int max_pitch = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS,
                  cu().cuDeviceGetAttribute(&max_pitch, CU_DEVICE_ATTRIBUTE_MAX_PITCH, device));
  CUDA_MEMCPY2D huge = host_to_device(host, 16, buf.address,
                                      static_cast<std::size_t>(max_pitch) + 1, 4, 2);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemcpy2D_v2(&huge));
  CUDA_MEMCPY2D outside = host_to_device(host, 16, buf.address, 16, 16, 5);  // 80 > 64 bytes
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemcpy2D_v2(&outside));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemcpy2D_v2(nullptr));
  // The same rules for the unaligned form.
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemcpy2DUnaligned_v2(&wide));
  CUDA_MEMCPY2D fine = host_to_device(host, 16, buf.address, 16, 16, 4);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemcpy2DUnaligned_v2(&fine));
}

// 2D memsets of 8-, 16- and 32-bit values: Width values per row, the gaps untouched.
TEST_F(Copies, Memset2DFillsTheRowsOnly) {
  ACCEL_REQUIRE_SYMBOLS("cuMemsetD2D8_v2", "cuMemsetD2D16_v2", "cuMemsetD2D32_v2",
                        "cuMemsetD2D32Async");
  constexpr std::size_t kPitch = 16, kRows = 3;
  DeviceBuffer buf{0, kPitch * kRows, &cu()};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&buf.address, buf.bytes));
  std::vector<unsigned char> expected(buf.bytes, kGap);

  fill_gap(cu(), buf.address, buf.bytes);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD2D8_v2(buf.address + 1, kPitch, 0x5A, 3, kRows));
  for (std::size_t y = 0; y < kRows; ++y) {
    for (std::size_t x = 1; x < 4; ++x) expected[y * kPitch + x] = 0x5A;
  }
  EXPECT_EQ(read_back(cu(), buf.address, buf.bytes), expected);

  fill_gap(cu(), buf.address, buf.bytes);
  expected.assign(buf.bytes, kGap);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD2D16_v2(buf.address, kPitch, 0x1234, 3, 2));
  for (std::size_t y = 0; y < 2; ++y) {
    for (std::size_t x = 0; x < 3; ++x) {
      expected[y * kPitch + 2 * x] = 0x34;
      expected[y * kPitch + 2 * x + 1] = 0x12;
    }
  }
  EXPECT_EQ(read_back(cu(), buf.address, buf.bytes), expected);

  fill_gap(cu(), buf.address, buf.bytes);
  expected.assign(buf.bytes, kGap);
  ACCEL_ASSERT_CU(CUDA_SUCCESS,
                  cu().cuMemsetD2D32Async(buf.address + 4, kPitch, 0xA1B2C3D4u, 2, kRows, nullptr));
  for (std::size_t y = 0; y < kRows; ++y) {
    const unsigned char v[4] = {0xD4, 0xC3, 0xB2, 0xA1};
    std::memcpy(&expected[y * kPitch + 4], v, 4);
    std::memcpy(&expected[y * kPitch + 8], v, 4);
  }
  EXPECT_EQ(read_back(cu(), buf.address, buf.bytes), expected);
}

// cuMemsetD16: N 16-bit values; documented: the destination is 2-byte aligned, and for the
// 2D forms the pitch too.
TEST_F(Copies, Memset16AndItsAlignmentRules) {
  ACCEL_REQUIRE_SYMBOLS("cuMemsetD16_v2", "cuMemsetD16Async", "cuMemsetD2D16_v2");
  DeviceBuffer buf{0, 16, &cu()};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&buf.address, buf.bytes));
  fill_gap(cu(), buf.address, buf.bytes);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD16_v2(buf.address + 2, 0xBEEF, 3));
  std::vector<unsigned char> expected(16, kGap);
  for (std::size_t i = 0; i < 3; ++i) {
    expected[2 + 2 * i] = 0xEF;
    expected[3 + 2 * i] = 0xBE;
  }
  EXPECT_EQ(read_back(cu(), buf.address, buf.bytes), expected);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemsetD16_v2(buf.address + 1, 0xBEEF, 2));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuMemsetD16Async(buf.address + 1, 0xBEEF, 2, nullptr));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemsetD2D16_v2(buf.address, 7, 1, 2, 2));
  // [inferred] a row wider than the pitch, over more than one row.
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemsetD2D8_v2(buf.address, 4, 1, 5, 2));
  // Past the allocation.
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemsetD16_v2(buf.address, 1, 9));
}

// The simulation does not model CUDA arrays (decision 198): the array entry points are
// exported and answer NOT_SUPPORTED; a real driver creates arrays, so this runs on the
// simulated driver only.
TEST_F(Copies, ArraysAreNotSupportedByTheSimulation) {
  ACCEL_REQUIRE_SYMBOLS("cuArrayCreate_v2", "cuMemcpyHtoA_v2", "cuMemcpyAtoHAsync_v2_ptsz");
  if (!on_mock()) GTEST_SKIP() << "a simulation choice: a real driver supports CUDA arrays";
  CUDA_ARRAY_DESCRIPTOR desc{};
  desc.Width = 16;
  desc.Height = 16;
  desc.Format = CU_AD_FORMAT_UNSIGNED_INT8;
  desc.NumChannels = 1;
  CUarray array = nullptr;
  ACCEL_EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cu().cuArrayCreate_v2(&array, &desc));
  unsigned char host[4] = {};
  ACCEL_EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cu().cuMemcpyHtoA_v2(array, 0, host, 4));
  ACCEL_EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED,
                  cu().cuMemcpyAtoHAsync_v2_ptsz(host, array, 0, 4, nullptr));
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  c.dstMemoryType = CU_MEMORYTYPE_HOST;
  c.dstHost = host;
  c.WidthInBytes = 4;
  c.Height = 1;
  ACCEL_EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cu().cuMemcpy2D_v2(&c));
}

// The per-thread variants run the same copy on the calling thread's default stream.
TEST_F(Copies, PerThreadVariantsCopyTheSame) {
  ACCEL_REQUIRE_SYMBOLS("cuMemcpy2D_v2_ptds", "cuMemsetD2D8_v2_ptds");
  DeviceBuffer buf{0, 8, &cu()};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&buf.address, buf.bytes));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD2D8_v2_ptds(buf.address, 4, 0x11, 4, 2));
  const unsigned char src[4] = {1, 2, 3, 4};
  CUDA_MEMCPY2D c = host_to_device(src, 2, buf.address, 4, 2, 2);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpy2D_v2_ptds(&c));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  const std::vector<unsigned char> expected = {1, 2, 0x11, 0x11, 3, 4, 0x11, 0x11};
  EXPECT_EQ(read_back(cu(), buf.address, buf.bytes), expected);
}

// A synchronous copy from pageable memory to the device first waits for the stream's earlier
// work ("a stream sync is performed before the copy is initiated": API synchronization
// behavior; Recording 2 saw the H100 wait): a host function queued before it has run when
// the call returns, and the device gets the bytes the buffer held at the call.
TEST_F(Copies, SynchronousPageableCopyToTheDeviceWaitsForTheStream) {
  ACCEL_REQUIRE_SYMBOLS("cuLaunchHostFunc");
  DeviceBuffer buf{0, 4, &cu()};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&buf.address, buf.bytes));
  static std::atomic<int> ran{0};
  ran = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuLaunchHostFunc(
                                    nullptr, [](void*) { ran = 1; }, nullptr));
  std::vector<unsigned char> pageable = {5, 6, 7, 8};
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyHtoD_v2(buf.address, pageable.data(), 4));
  EXPECT_EQ(ran.load(), 1);
  pageable.assign(4, 0);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  EXPECT_EQ(read_back(cu(), buf.address, buf.bytes), std::vector<unsigned char>({5, 6, 7, 8}));
}

}  // namespace
}  // namespace accel::driver_test
