// A client written only against the CUDA driver API (the toolkit's cuda.h): a library that
// keeps a context of its own on every device, as older multi-GPU code does. It creates one
// context per device (CUDA 13's cuCtxCreate), fills a buffer in each, switches between them
// with the context stack, asks the driver about its pointers, shares managed and mapped host
// memory with the host, prints a driver error's text, and destroys the contexts.

#include <cuda.h>

#include "client_check.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

using client::check;
using client::g_failures;

}  // namespace

int main() {
  constexpr size_t kBytes = size_t{4} << 20;
  check("cuInit", cuInit(0));
  int count = 0;
  check("cuDeviceGetCount", cuDeviceGetCount(&count));
  std::printf("devices: %d\n", count);
  std::vector<CUcontext> contexts(static_cast<size_t>(count));
  std::vector<CUdeviceptr> buffers(static_cast<size_t>(count));
  for (int d = 0; d < count; ++d) {
    CUdevice dev = 0;
    cuDeviceGet(&dev, d);
    check("cuCtxCreate", cuCtxCreate(&contexts[d], nullptr, CU_CTX_SCHED_BLOCKING_SYNC, dev));
    check("cuMemAlloc", cuMemAlloc(&buffers[d], kBytes));
    check("cuMemsetD32", cuMemsetD32(buffers[d], 0x100u + static_cast<unsigned>(d), kBytes / 4));
    CUcontext popped = nullptr;
    check("cuCtxPopCurrent", cuCtxPopCurrent(&popped));
    std::printf("popped the context just created: %s\n", popped == contexts[d] ? "yes" : "no");
  }
  CUcontext none = reinterpret_cast<CUcontext>(1);
  cuCtxGetCurrent(&none);
  std::printf("current context after the pops: %s\n", none == nullptr ? "none" : "some");

  for (int d = 0; d < count; ++d) {
    check("cuCtxPushCurrent", cuCtxPushCurrent(contexts[d]));
    unsigned value = 0;
    check("cuMemcpyDtoH", cuMemcpyDtoH(&value, buffers[d] + kBytes - 4, sizeof value));
    int ordinal = -1;
    CUcontext owner = nullptr;
    unsigned flags = 0;
    cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, buffers[d] + 8);
    cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, buffers[d]);
    cuCtxGetFlags(&flags);
    std::printf("device %d: last word 0x%x, pointer on device %d, owned by this context: %s, "
                "blocking sync: %s\n",
                d, value, ordinal, owner == contexts[d] ? "yes" : "no",
                (flags & CU_CTX_SCHED_MASK) == CU_CTX_SCHED_BLOCKING_SYNC ? "yes" : "no");
    check("cuCtxPopCurrent", cuCtxPopCurrent(nullptr));
  }

  // Managed and mapped host memory, used from the host and as device memory.
  check("cuCtxPushCurrent", cuCtxPushCurrent(contexts[0]));
  CUdeviceptr managed = 0;
  check("cuMemAllocManaged", cuMemAllocManaged(&managed, 4096, CU_MEM_ATTACH_GLOBAL));
  auto* shared = reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(managed));
  std::memset(shared, 7, 4096);
  check("cuMemcpyDtoD", cuMemcpyDtoD(buffers[0], managed, 4096));
  unsigned char byte = 0;
  check("cuMemcpyDtoH", cuMemcpyDtoH(&byte, buffers[0] + 100, 1));
  int is_managed = 0;
  cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, managed);
  std::printf("managed: host wrote 7, the device copy read %d; is managed: %d\n", byte,
              is_managed);
  void* host = nullptr;
  check("cuMemHostAlloc", cuMemHostAlloc(&host, 4096, CU_MEMHOSTALLOC_DEVICEMAP));
  CUdeviceptr mapped = 0;
  check("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&mapped, host, 0));
  check("cuMemsetD8", cuMemsetD8(mapped, 0x42, 4096));
  std::printf("mapped host memory after a memset through its device pointer: 0x%x\n",
              static_cast<unsigned char*>(host)[4095]);
  CUdeviceptr base = 0;
  size_t size = 0;
  check("cuMemGetAddressRange", cuMemGetAddressRange(&base, &size, buffers[0] + 12345));
  std::printf("address range: starts at the buffer: %s, %zu MiB\n",
              base == buffers[0] ? "yes" : "no", size >> 20);
  check("cuMemFree of managed memory", cuMemFree(managed));
  const char* text = nullptr;
  const CUresult rc =
      check("cuMemsetD8 of a freed address", cuMemsetD8(managed, 0, 1), CUDA_ERROR_INVALID_VALUE);
  cuGetErrorString(rc, &text);
  std::printf("its text: %s\n", text);
  check("cuMemFreeHost", cuMemFreeHost(host));
  check("cuCtxPopCurrent", cuCtxPopCurrent(nullptr));

  for (int d = 0; d < count; ++d) check("cuCtxDestroy", cuCtxDestroy(contexts[d]));
  check("cuCtxPopCurrent on an empty stack", cuCtxPopCurrent(nullptr), CUDA_ERROR_INVALID_CONTEXT);
  std::printf("%s\n", g_failures == 0 ? "PASS" : "FAIL");
  return g_failures == 0 ? 0 : 1;
}
