// A client written only against the CUDA driver API (the toolkit's cuda.h): an image
// program's pitched copies. It uploads an 8x4 image of bytes into pitched device memory,
// clears a border with a 2D memset, copies a sub-rectangle on a stream, stacks two images
// with a 3D copy, and prints what comes back. Exits 1 at the first unexpected result.

#include <cuda.h>

#include "client_check.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

using client::check;
using client::g_failures;

void print_image(const char* title, const unsigned char* bytes, size_t width, size_t height,
                 size_t pitch) {
  std::printf("%s\n", title);
  for (size_t y = 0; y < height; ++y) {
    std::printf("  ");
    for (size_t x = 0; x < width; ++x) std::printf("%c", bytes[y * pitch + x]);
    std::printf("\n");
  }
}

}  // namespace

int main() {
  constexpr size_t kWidth = 8, kHeight = 4;
  check("cuInit", cuInit(0));
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  check("cuDeviceGet", cuDeviceGet(&dev, 0));
  check("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));

  CUdeviceptr image = 0;
  size_t pitch = 0;
  check("cuMemAllocPitch", cuMemAllocPitch(&image, &pitch, kWidth, kHeight, 4));
  std::printf("pitch holds a row: %s\n", pitch >= kWidth ? "yes" : "no");

  // Upload: host rows are tightly packed (pitch = width).
  unsigned char host[kWidth * kHeight];
  for (size_t i = 0; i < sizeof host; ++i) host[i] = static_cast<unsigned char>('a' + i % 26);
  CUDA_MEMCPY2D up{};
  up.srcMemoryType = CU_MEMORYTYPE_HOST;
  up.srcHost = host;
  up.srcPitch = kWidth;
  up.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  up.dstDevice = image;
  up.dstPitch = pitch;
  up.WidthInBytes = kWidth;
  up.Height = kHeight;
  check("cuMemcpy2D upload", cuMemcpy2D(&up));

  // Clear the left and right columns with 2D memsets ('#').
  check("cuMemsetD2D8 left column", cuMemsetD2D8(image, pitch, '#', 1, kHeight));
  check("cuMemsetD2D8 right column", cuMemsetD2D8(image + kWidth - 1, pitch, '#', 1, kHeight));

  // Copy the 4x2 centre into a second pitched image on a stream.
  CUdeviceptr centre = 0;
  size_t centre_pitch = 0;
  check("cuMemAllocPitch centre", cuMemAllocPitch(&centre, &centre_pitch, 4, 2, 4));
  check("cuMemsetD8 centre", cuMemsetD8(centre, '.', centre_pitch * 2));
  CUstream stream = nullptr;
  check("cuStreamCreate", cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUDA_MEMCPY2D mid{};
  mid.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  mid.srcDevice = image;
  mid.srcPitch = pitch;
  mid.srcXInBytes = 2;
  mid.srcY = 1;
  mid.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  mid.dstDevice = centre;
  mid.dstPitch = centre_pitch;
  mid.WidthInBytes = 4;
  mid.Height = 2;
  check("cuCtxSynchronize before the stream copy", cuCtxSynchronize());
  check("cuMemcpy2DAsync centre", cuMemcpy2DAsync(&mid, stream));
  check("cuStreamSynchronize", cuStreamSynchronize(stream));

  // Download both into one host buffer with a pitch of 10 (the gaps stay '-').
  unsigned char back[10 * kHeight];
  std::memset(back, '-', sizeof back);
  CUDA_MEMCPY2D down{};
  down.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  down.srcDevice = image;
  down.srcPitch = pitch;
  down.dstMemoryType = CU_MEMORYTYPE_HOST;
  down.dstHost = back;
  down.dstPitch = 10;
  down.WidthInBytes = kWidth;
  down.Height = kHeight;
  check("cuMemcpy2D download", cuMemcpy2D(&down));
  print_image("image:", back, 10, kHeight, 10);
  unsigned char small[4 * 2];
  CUDA_MEMCPY2D down_centre = down;
  down_centre.srcDevice = centre;
  down_centre.srcPitch = centre_pitch;
  down_centre.dstHost = small;
  down_centre.dstPitch = 4;
  down_centre.WidthInBytes = 4;
  down_centre.Height = 2;
  check("cuMemcpy2D download centre", cuMemcpy2D(&down_centre));
  print_image("centre:", small, 4, 2, 4);

  // Two 4x2 slices stacked in one 3D copy from host memory, back to the host flat.
  CUdeviceptr volume = 0;
  check("cuMemAlloc volume", cuMemAlloc(&volume, 4 * 2 * 2));
  const char slices[] = "ABCDEFGHijklmnop";
  CUDA_MEMCPY3D v{};
  v.srcMemoryType = CU_MEMORYTYPE_HOST;
  v.srcHost = slices;
  v.srcPitch = 4;
  v.srcHeight = 2;
  v.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  v.dstDevice = volume;
  v.dstPitch = 4;
  v.dstHeight = 2;
  v.WidthInBytes = 4;
  v.Height = 2;
  v.Depth = 2;
  check("cuMemcpy3D", cuMemcpy3D(&v));
  char flat[17] = {};
  check("cuMemcpyDtoH volume", cuMemcpyDtoH(flat, volume, 16));
  std::printf("volume: %s\n", flat);

  // A row wider than its pitch is an invalid value.
  CUDA_MEMCPY2D bad = up;
  bad.WidthInBytes = pitch + 1;
  check("cuMemcpy2D wider than the pitch", cuMemcpy2D(&bad), CUDA_ERROR_INVALID_VALUE);

  check("cuStreamDestroy", cuStreamDestroy(stream));
  check("cuMemFree image", cuMemFree(image));
  check("cuMemFree centre", cuMemFree(centre));
  check("cuMemFree volume", cuMemFree(volume));
  check("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease(dev));
  std::printf("%s\n", g_failures == 0 ? "ok" : "FAILED");
  return g_failures == 0 ? 0 : 1;
}
