// A client written only against the CUDA driver API (the toolkit's cuda.h): what a memory
// debugging tool asks the driver about the pointers a program holds. It classifies device,
// mapped host, managed and pageable pointers with cuPointerGetAttribute(s), finds the
// allocation around an interior pointer, follows a host mapping to its device address and
// writes through it, advises and prefetches managed memory and reads the range attributes
// back, on the first and the last device of the machine.

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "client_check.h"

namespace {

using client::check;
using client::g_failures;

const char* memory_type_name(unsigned type) {
  switch (type) {
    case CU_MEMORYTYPE_HOST:
      return "host";
    case CU_MEMORYTYPE_DEVICE:
      return "device";
    case CU_MEMORYTYPE_ARRAY:
      return "array";
    case CU_MEMORYTYPE_UNIFIED:
      return "unified";
    default:
      return "(none)";
  }
}

// One line per pointer: its kind, device ordinal, whether managed and mapped, and where its
// range starts relative to the pointer.
void describe(const char* what, CUdeviceptr ptr) {
  CUpointer_attribute attributes[] = {
      CU_POINTER_ATTRIBUTE_MEMORY_TYPE,      CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
      CU_POINTER_ATTRIBUTE_IS_MANAGED,       CU_POINTER_ATTRIBUTE_MAPPED,
      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  unsigned type = 0;
  int ordinal = -1, managed = 0, mapped = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  void* data[] = {&type, &ordinal, &managed, &mapped, &start, &size};
  const CUresult rc = cuPointerGetAttributes(6, attributes, data, ptr);
  if (rc != CUDA_SUCCESS) {
    check(what, rc);
    return;
  }
  std::printf(
      "%s: %s memory, device %d, managed %d, mapped %d, range starts %lld bytes before, "
      "%zu bytes\n",
      what, memory_type_name(type), ordinal, managed, mapped, static_cast<long long>(ptr - start),
      size);
}

void on_device(CUdevice dev) {
  constexpr size_t kBytes = size_t{1} << 20;
  char name[128] = {};
  cuDeviceGetName(name, sizeof name, dev);
  std::printf("== device %d: %s\n", static_cast<int>(dev), name);
  CUcontext ctx = nullptr;
  check("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));

  // Device memory: an interior pointer belongs to its allocation.
  CUdeviceptr device = 0;
  check("cuMemAlloc", cuMemAlloc(&device, kBytes));
  describe("device allocation + 4096", device + 4096);
  CUdeviceptr base = 0;
  size_t size = 0;
  check("cuMemGetAddressRange", cuMemGetAddressRange(&base, &size, device + 1000));
  std::printf("address range of base + 1000: base %s, %zu bytes\n",
              base == device ? "is the allocation" : "DIFFERS", size);
  CUcontext owner = nullptr;
  check("cuPointerGetAttribute(CONTEXT)",
        cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, device));
  std::printf("its context is the primary context: %s\n", owner == ctx ? "yes" : "no");
  unsigned long long buffer_id = 0, other_id = 0;
  CUdeviceptr other = 0;
  check("cuMemAlloc", cuMemAlloc(&other, 4096));
  cuPointerGetAttribute(&buffer_id, CU_POINTER_ATTRIBUTE_BUFFER_ID, device);
  cuPointerGetAttribute(&other_id, CU_POINTER_ATTRIBUTE_BUFFER_ID, other);
  std::printf("two allocations have distinct buffer ids: %s\n",
              buffer_id != 0 && other_id != 0 && buffer_id != other_id ? "yes" : "no");
  int sync_memops = 1;
  check("cuPointerSetAttribute(SYNC_MEMOPS)",
        cuPointerSetAttribute(&sync_memops, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, device));
  int read_back = 0;
  cuPointerGetAttribute(&read_back, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, device);
  std::printf("sync memops after setting it: %d\n", read_back);
  check("cuMemGetAddressRange past the end",
        cuMemGetAddressRange(&base, &size, device + kBytes + (size_t{64} << 20)),
        CUDA_ERROR_NOT_FOUND);

  // Mapped host memory: the device address writes the host's bytes.
  void* host = nullptr;
  check("cuMemHostAlloc(DEVICEMAP)", cuMemHostAlloc(&host, 4096, CU_MEMHOSTALLOC_DEVICEMAP));
  std::memset(host, 0, 4096);  // the driver leaves its contents undefined
  unsigned flags = 0;
  check("cuMemHostGetFlags", cuMemHostGetFlags(&flags, host));
  std::printf("host allocation flags: devicemap %s\n",
              (flags & CU_MEMHOSTALLOC_DEVICEMAP) != 0 ? "yes" : "no");
  CUdeviceptr mapped = 0;
  check("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(&mapped, host, 0));
  describe("mapped host allocation", reinterpret_cast<CUdeviceptr>(host));
  check("cuMemsetD8 through the mapping", cuMemsetD8(mapped + 16, 0x5a, 16));
  const auto* bytes = static_cast<const unsigned char*>(host);
  std::printf("host bytes 15..16 after the device wrote 16..31: %02x %02x\n", bytes[15], bytes[16]);

  // Pageable memory the driver never saw.
  std::vector<char> pageable(4096);
  unsigned type = 0;
  check("cuPointerGetAttribute(MEMORY_TYPE) of pageable memory",
        cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                              reinterpret_cast<CUdeviceptr>(pageable.data())),
        CUDA_ERROR_INVALID_VALUE);

  // Managed memory: advice and a prefetch, read back as range attributes.
  CUdeviceptr managed = 0;
  check("cuMemAllocManaged", cuMemAllocManaged(&managed, 65536, CU_MEM_ATTACH_GLOBAL));
  describe("managed allocation", managed);
  std::memset(reinterpret_cast<void*>(managed), 0x11, 65536);
  CUmemLocation location = {};
  location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  location.id = static_cast<int>(dev);
  check("cuMemAdvise(SET_PREFERRED_LOCATION)",
        cuMemAdvise(managed, 65536, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, location));
  check("cuMemAdvise(SET_READ_MOSTLY)",
        cuMemAdvise(managed, 65536, CU_MEM_ADVISE_SET_READ_MOSTLY, location));
  CUstream stream = nullptr;
  check("cuStreamCreate", cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  check("cuMemPrefetchAsync", cuMemPrefetchAsync(managed, 65536, location, 0, stream));
  check("cuMemsetD32Async on the managed range", cuMemsetD32Async(managed, 0x22222222, 4, stream));
  check("cuStreamSynchronize", cuStreamSynchronize(stream));
  int preferred = -2, last_prefetch = -2, read_mostly = -1;
  check("cuMemRangeGetAttribute(PREFERRED_LOCATION)",
        cuMemRangeGetAttribute(&preferred, sizeof preferred,
                               CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, managed, 65536));
  check("cuMemRangeGetAttribute(LAST_PREFETCH_LOCATION)",
        cuMemRangeGetAttribute(&last_prefetch, sizeof last_prefetch,
                               CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, managed, 65536));
  check("cuMemRangeGetAttribute(READ_MOSTLY)",
        cuMemRangeGetAttribute(&read_mostly, sizeof read_mostly, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                               managed, 65536));
  std::printf("range attributes: preferred location %d, last prefetch %d, read mostly %d\n",
              preferred, last_prefetch, read_mostly);
  const auto* words = reinterpret_cast<const unsigned*>(managed);
  std::printf("managed words 3..4 seen by the host: %08x %08x\n", words[3], words[4]);

  check("cuStreamDestroy", cuStreamDestroy(stream));
  check("cuMemFree(managed)", cuMemFree(managed));
  check("cuMemFreeHost", cuMemFreeHost(host));
  check("cuMemFree", cuMemFree(other));
  check("cuMemFree", cuMemFree(device));
  check("cuPointerGetAttribute(MEMORY_TYPE) after the free",
        cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, device),
        CUDA_ERROR_INVALID_VALUE);
  check("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease(dev));
}

}  // namespace

int main() {
  check("cuInit", cuInit(0));
  int count = 0;
  check("cuDeviceGetCount", cuDeviceGetCount(&count));
  std::printf("devices: %d\n", count);
  if (count == 0) return 1;
  CUdevice first = 0, last = 0;
  check("cuDeviceGet", cuDeviceGet(&first, 0));
  check("cuDeviceGet", cuDeviceGet(&last, count - 1));
  on_device(first);
  if (count > 1) on_device(last);
  std::printf("unexpected results: %d\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
