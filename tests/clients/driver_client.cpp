// A client written only against the CUDA driver API (the toolkit's cuda.h, linked against
// the toolkit's stub libcuda.so): what any CUDA program does first. ctest runs it with the
// simulated driver's folder first on LD_LIBRARY_PATH and compares its output exactly, so
// the simulated libcuda.so.1 must stand in for the real one unchanged (run_client.cmake).
// Prints one line per step; exits 1 at the first unexpected result.

#include <cuda.h>

#include "client_check.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using client::check;
using client::g_failures;

void list_devices(int count) {
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    char name[128] = {};
    size_t total = 0;
    int major = 0, minor = 0, sms = 0;
    cuDeviceGet(&dev, i);
    cuDeviceGetName(name, sizeof name, dev);
    cuDeviceTotalMem(&total, dev);
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    std::printf("device %d: %s, %zu MiB, compute capability %d.%d, %d multiprocessors\n", i, name,
                total >> 20, major, minor, sms);
  }
}

}  // namespace

int main() {
  check("cuInit", cuInit(0));
  int count = 0;
  check("cuDeviceGetCount", cuDeviceGetCount(&count));
  std::printf("devices: %d\n", count);
  list_devices(count);
  if (count == 0) return 1;

  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  cuDeviceGet(&dev, 0);
  check("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));

  CUstream stream = nullptr;
  check("cuStreamCreate", cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUevent start = nullptr, stop = nullptr;
  check("cuEventCreate start", cuEventCreate(&start, CU_EVENT_DEFAULT));
  check("cuEventCreate stop", cuEventCreate(&stop, CU_EVENT_DEFAULT));

  constexpr size_t kBytes = size_t{1} << 20;
  CUdeviceptr a = 0, b = 0;
  check("cuMemAlloc a", cuMemAlloc(&a, kBytes));
  check("cuMemAlloc b", cuMemAlloc(&b, kBytes));

  std::vector<unsigned char> pageable(kBytes);
  for (size_t i = 0; i < kBytes; ++i) pageable[i] = static_cast<unsigned char>(i % 251);
  void* pinned_raw = nullptr;
  check("cuMemAllocHost", cuMemAllocHost(&pinned_raw, kBytes));
  auto* pinned = static_cast<unsigned char*>(pinned_raw);

  check("cuEventRecord start", cuEventRecord(start, stream));
  check("cuMemcpyHtoDAsync pageable", cuMemcpyHtoDAsync(a, pageable.data(), kBytes, stream));
  check("cuMemsetD8Async", cuMemsetD8Async(b, 0x7F, kBytes, stream));
  check("cuMemcpyDtoDAsync", cuMemcpyDtoDAsync(b, a, kBytes / 2, stream));
  check("cuMemcpyDtoHAsync pinned", cuMemcpyDtoHAsync(pinned, b, kBytes, stream));
  check("cuEventRecord stop", cuEventRecord(stop, stream));
  check("cuStreamSynchronize", cuStreamSynchronize(stream));
  check("cuEventQuery stop", cuEventQuery(stop));

  size_t wrong = 0;
  for (size_t i = 0; i < kBytes; ++i) {
    const unsigned char want = i < kBytes / 2 ? static_cast<unsigned char>(i % 251) : 0x7F;
    if (pinned[i] != want) ++wrong;
  }
  std::printf("pinned bytes wrong after the round trip: %zu\n", wrong);
  if (wrong != 0) ++g_failures;

  std::vector<unsigned char> back(16, 0);
  check("cuMemcpyDtoHAsync pageable", cuMemcpyDtoHAsync(back.data(), b + kBytes - 16, 16, stream));
  std::printf("pageable tail: %02x %02x\n", back[0], back[15]);

  float ms = 0;
  check("cuEventElapsedTime", cuEventElapsedTime(&ms, start, stop));
  std::printf("elapsed: %.6f ms\n", static_cast<double>(ms));

  CUdeviceptr huge = 0;
  check("cuMemAlloc 1 TiB", cuMemAlloc(&huge, size_t{1} << 40), CUDA_ERROR_OUT_OF_MEMORY);

  check("cuMemFreeHost", cuMemFreeHost(pinned_raw));
  check("cuMemFree a", cuMemFree(a));
  check("cuMemFree b", cuMemFree(b));
  check("cuEventDestroy start", cuEventDestroy(start));
  check("cuEventDestroy stop", cuEventDestroy(stop));
  check("cuStreamDestroy", cuStreamDestroy(stream));
  check("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease(dev));
  std::printf("%s\n", g_failures == 0 ? "client: all steps as expected" : "client: FAILED");
  return g_failures == 0 ? 0 : 1;
}
