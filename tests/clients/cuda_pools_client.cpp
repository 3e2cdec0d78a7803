// A client written only against the CUDA driver API (the toolkit's cuda.h): a training
// loop's stream-ordered allocations. Each step allocates a workspace from the device's
// current pool on a stream, fills it, reads a value back and frees it in stream order; the
// pool keeps the memory between steps (release threshold), and is trimmed at the end. It
// prints the pool's reserved and used bytes, current and high, after each phase.

#include <cuda.h>

#include "client_check.h"

#include <cstdint>
#include <cstdio>

namespace {

using client::check;
using client::g_failures;

void print_pool(const char* when, CUmemoryPool pool) {
  cuuint64_t reserved = 0, reserved_high = 0, used = 0, used_high = 0;
  cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved);
  cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &reserved_high);
  cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used);
  cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &used_high);
  std::printf("%s: reserved %llu MiB (high %llu), used %llu MiB (high %llu)\n", when,
              static_cast<unsigned long long>(reserved >> 20),
              static_cast<unsigned long long>(reserved_high >> 20),
              static_cast<unsigned long long>(used >> 20),
              static_cast<unsigned long long>(used_high >> 20));
}

}  // namespace

int main() {
  constexpr size_t kMiB = size_t{1} << 20;
  check("cuInit", cuInit(0));
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  check("cuDeviceGet", cuDeviceGet(&dev, 0));
  check("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
  int supported = 0;
  cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev);
  std::printf("memory pools supported: %d\n", supported);

  CUmemoryPool pool = nullptr, current = nullptr;
  check("cuDeviceGetDefaultMemPool", cuDeviceGetDefaultMemPool(&pool, dev));
  check("cuDeviceGetMemPool", cuDeviceGetMemPool(&current, dev));
  std::printf("the current pool is the default pool: %s\n", current == pool ? "yes" : "no");
  cuuint64_t threshold = 64 * kMiB;
  check("cuMemPoolSetAttribute release threshold",
        cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));

  CUstream stream = nullptr;
  check("cuStreamCreate", cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  unsigned sum = 0;
  for (unsigned step = 1; step <= 3; ++step) {
    CUdeviceptr workspace = 0, scratch = 0;
    cuMemAllocAsync(&workspace, 16 * kMiB, stream);
    cuMemAllocAsync(&scratch, 4 * kMiB, stream);
    cuMemsetD32Async(workspace, step, 16 * kMiB / 4, stream);
    cuMemcpyDtoDAsync(scratch, workspace + 8 * kMiB, 4, stream);
    unsigned value = 0;
    cuMemcpyDtoHAsync(&value, scratch, sizeof value, stream);
    cuMemFreeAsync(scratch, stream);
    cuMemFreeAsync(workspace, stream);
    check("cuStreamSynchronize", cuStreamSynchronize(stream));
    std::printf("step %u read %u\n", step, value);
    sum += value;
  }
  std::printf("sum %u\n", sum);
  print_pool("after the loop (kept under the threshold)", pool);

  check("cuMemPoolTrimTo", cuMemPoolTrimTo(pool, 0));
  print_pool("after trimming", pool);

  // A pool of its own for a second phase, made the device's current pool.
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = dev;
  CUmemoryPool own = nullptr;
  check("cuMemPoolCreate", cuMemPoolCreate(&own, &props));
  check("cuDeviceSetMemPool", cuDeviceSetMemPool(dev, own));
  CUdeviceptr big = 0;
  check("cuMemAllocAsync", cuMemAllocAsync(&big, 32 * kMiB, stream));
  print_pool("own pool while allocated", own);
  check("cuMemFreeAsync", cuMemFreeAsync(big, stream));
  check("cuStreamSynchronize", cuStreamSynchronize(stream));
  print_pool("own pool after the sync (threshold 0)", own);
  check("cuMemPoolDestroy", cuMemPoolDestroy(own));
  check("cuDeviceGetMemPool", cuDeviceGetMemPool(&current, dev));
  std::printf("the current pool is the default pool again: %s\n", current == pool ? "yes" : "no");
  check("cuMemPoolDestroy default pool", cuMemPoolDestroy(pool), CUDA_ERROR_INVALID_VALUE);

  check("cuStreamDestroy", cuStreamDestroy(stream));
  check("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease(dev));
  std::printf("%s\n", g_failures == 0 ? "ok" : "FAILED");
  return g_failures == 0 ? 0 : 1;
}
