// A client written only against the CUDA driver API (the toolkit's cuda.h): a producer that
// shares a buffer and an event with a consumer process through IPC handles, as a data
// loader hands batches to a trainer. The producer exports the handles and starts itself
// again as the consumer (a new process, as IPC requires), passing the handles' bytes on the
// command line; the consumer opens them. Each side prints what the driver answered: the
// codes of opening a handle in its own process, in another process, with bad flags, of an
// event that is not interprocess, and of closing an address no handle opened.

#include <cuda.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "client_check.h"

namespace {

using client::check;
using client::g_failures;

std::string to_hex(const char* bytes, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

bool from_hex(const char* text, char* bytes, size_t n) {
  if (std::strlen(text) != 2 * n) return false;
  for (size_t i = 0; i < n; ++i) {
    unsigned value = 0;
    if (std::sscanf(text + 2 * i, "%2x", &value) != 1) return false;
    bytes[i] = static_cast<char>(value);
  }
  return true;
}

void make_current(CUdevice* dev, CUcontext* ctx) {
  check("cuInit", cuInit(0));
  check("cuDeviceGet", cuDeviceGet(dev, 0));
  check("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(ctx, *dev));
  check("cuCtxSetCurrent", cuCtxSetCurrent(*ctx));
}

int consumer(const char* mem_hex, const char* event_hex) {
  std::printf("-- consumer process\n");
  CUipcMemHandle mem_handle;
  CUipcEventHandle event_handle;
  if (!from_hex(mem_hex, mem_handle.reserved, sizeof mem_handle.reserved) ||
      !from_hex(event_hex, event_handle.reserved, sizeof event_handle.reserved)) {
    std::printf("consumer: malformed handle arguments\n");
    return 2;
  }
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  make_current(&dev, &ctx);
  CUdeviceptr ptr = 0;
  check("cuIpcOpenMemHandle of the producer's buffer",
        cuIpcOpenMemHandle(&ptr, mem_handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
        CUDA_ERROR_INVALID_VALUE);
  CUevent event = nullptr;
  check("cuIpcOpenEventHandle of the producer's event", cuIpcOpenEventHandle(&event, event_handle),
        CUDA_ERROR_MAP_FAILED);
  CUipcMemHandle zeros;
  std::memset(&zeros, 0, sizeof zeros);
  check("cuIpcOpenMemHandle of an all-zero handle",
        cuIpcOpenMemHandle(&ptr, zeros, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
        CUDA_ERROR_INVALID_VALUE);
  check("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease(dev));
  std::printf("consumer unexpected results: %d\n", g_failures);
  std::fflush(stdout);
  return g_failures == 0 ? 0 : 1;
}

int producer(const char* self) {
  std::printf("-- producer process\n");
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  make_current(&dev, &ctx);
  CUdeviceptr buffer = 0;
  check("cuMemAlloc", cuMemAlloc(&buffer, size_t{4} << 20));
  check("cuMemsetD32", cuMemsetD32(buffer, 0x01020304, (size_t{4} << 20) / 4));

  CUipcMemHandle mem_handle, interior_handle;
  check("cuIpcGetMemHandle", cuIpcGetMemHandle(&mem_handle, buffer));
  check("cuIpcGetMemHandle of base + 256", cuIpcGetMemHandle(&interior_handle, buffer + 256));
  std::printf("base + 256 exports the same allocation: %s\n",
              std::memcmp(&mem_handle, &interior_handle, sizeof mem_handle) == 0 ? "yes" : "no");

  CUevent timed = nullptr, shared = nullptr;
  check("cuEventCreate(DEFAULT)", cuEventCreate(&timed, CU_EVENT_DEFAULT));
  CUipcEventHandle event_handle;
  check("cuIpcGetEventHandle of a timing event", cuIpcGetEventHandle(&event_handle, timed),
        CUDA_ERROR_INVALID_HANDLE);
  check("cuEventCreate(INTERPROCESS | DISABLE_TIMING)",
        cuEventCreate(&shared, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
  check("cuEventRecord", cuEventRecord(shared, nullptr));
  check("cuIpcGetEventHandle", cuIpcGetEventHandle(&event_handle, shared));

  CUdeviceptr opened = 0;
  check("cuIpcOpenMemHandle in the exporting process",
        cuIpcOpenMemHandle(&opened, mem_handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
        CUDA_ERROR_INVALID_CONTEXT);
  check("cuIpcOpenMemHandle with unknown flags", cuIpcOpenMemHandle(&opened, mem_handle, 0x10),
        CUDA_ERROR_INVALID_VALUE);
  CUevent opened_event = nullptr;
  check("cuIpcOpenEventHandle in the exporting process",
        cuIpcOpenEventHandle(&opened_event, event_handle), CUDA_ERROR_INVALID_CONTEXT);
  check("cuIpcCloseMemHandle of an address no handle opened", cuIpcCloseMemHandle(buffer),
        CUDA_ERROR_INVALID_VALUE);

  const std::string mem_hex = to_hex(mem_handle.reserved, sizeof mem_handle.reserved);
  const std::string event_hex = to_hex(event_handle.reserved, sizeof event_handle.reserved);
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    execl(self, self, "consumer", mem_hex.c_str(), event_hex.c_str(), static_cast<char*>(nullptr));
    std::perror("execl");
    _exit(127);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child) {
    std::printf("could not run the consumer\n");
    return 1;
  }
  std::printf("-- producer again\n");
  std::printf("consumer exit status: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++g_failures;

  check("cuEventDestroy", cuEventDestroy(shared));
  check("cuEventDestroy", cuEventDestroy(timed));
  check("cuMemFree", cuMemFree(buffer));
  check("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease(dev));
  std::printf("producer unexpected results: %d\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "consumer") == 0) return consumer(argv[2], argv[3]);
  // The consumer is this program again, started by path: /proc/self/exe names it on Linux.
  return producer("/proc/self/exe");
}
