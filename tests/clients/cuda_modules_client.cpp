// A client written only against the CUDA driver API (the toolkit's cuda.h): a program that
// ships its kernels as an nvcc fatbinary file (tests/kernel_images/kernels.cu, compiled at
// build time; ACCEL_KERNEL_IMAGES names the folder). It loads the file as a module and as a
// library, reads the kernels' attributes, sizes a launch with the occupancy API, reads an
// initialised __device__ variable and a __managed__ one, launches, and links the fatbinary
// into a new image. The simulated machine is 2xa100, so the sm_80 cubin is the one loaded.

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "client_check.h"

namespace {

using client::check;
using client::g_failures;

int attribute(CUfunction f, CUfunction_attribute a) {
  int value = -1;
  cuFuncGetAttribute(&value, a, f);
  return value;
}

}  // namespace

int main() {
  const char* dir = std::getenv("ACCEL_KERNEL_IMAGES");
  if (dir == nullptr) {
    std::fprintf(stderr, "ACCEL_KERNEL_IMAGES is not set\n");
    return 2;
  }
  const std::string fatbin = std::string(dir) + "/kernels.fatbin";
  check("cuInit", cuInit(0));
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  check("cuDeviceGet", cuDeviceGet(&dev, 0));
  check("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, dev));
  check("cuCtxSetCurrent", cuCtxSetCurrent(ctx));
  int major = 0, minor = 0, sms = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
  std::printf("device 0: compute capability %d.%d, %d multiprocessors\n", major, minor, sms);

  CUmodule module = nullptr;
  check("cuModuleLoad kernels.fatbin", cuModuleLoad(&module, fatbin.c_str()));
  unsigned count = 0;
  check("cuModuleGetFunctionCount", cuModuleGetFunctionCount(&count, module));
  std::printf("kernels in the module: %u\n", count);
  CUfunction add = nullptr, copy = nullptr, reverse = nullptr;
  check("cuModuleGetFunction add", cuModuleGetFunction(&add, module, "add"));
  check("cuModuleGetFunction copy_bytes", cuModuleGetFunction(&copy, module, "copy_bytes"));
  check("cuModuleGetFunction reverse<float>",
        cuModuleGetFunction(&reverse, module, "_Z7reverseIfEvPT_"));
  CUfunction missing = nullptr;
  check("cuModuleGetFunction reverse (unmangled)", cuModuleGetFunction(&missing, module, "reverse"),
        CUDA_ERROR_NOT_FOUND);
  std::printf("add: %d registers, binary version %d, max %d threads\n",
              attribute(add, CU_FUNC_ATTRIBUTE_NUM_REGS),
              attribute(add, CU_FUNC_ATTRIBUTE_BINARY_VERSION),
              attribute(add, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  std::printf("reverse<float>: %d bytes of static shared memory, %d bytes of dynamic at most\n",
              attribute(reverse, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
              attribute(reverse, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));

  int grid = 0, block = 0, blocks = 0;
  check("cuOccupancyMaxPotentialBlockSize copy_bytes",
        cuOccupancyMaxPotentialBlockSize(&grid, &block, copy, nullptr, 0, 0));
  check("cuOccupancyMaxActiveBlocksPerMultiprocessor reverse, 256 threads, 32 KiB",
        cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse, 256, 32768));
  std::printf(
      "copy_bytes: block %d, minimum grid %d; reverse<float>: %d blocks per multiprocessor\n",
      block, grid, blocks);

  CUdeviceptr counter = 0;
  size_t bytes = 0;
  check("cuModuleGetGlobal counter", cuModuleGetGlobal(&counter, &bytes, module, "counter"));
  int value = 0;
  check("cuMemcpyDtoH counter", cuMemcpyDtoH(&value, counter, sizeof value));
  std::printf("counter: %zu bytes, value %d\n", bytes, value);

  CUdeviceptr from = 0, to = 0;
  const unsigned long long n = 1 << 20;
  check("cuMemAlloc from", cuMemAlloc(&from, n));
  check("cuMemAlloc to", cuMemAlloc(&to, n));
  check("cuMemsetD8 from", cuMemsetD8(from, 0x11, n));
  void* params[] = {&from, &to, const_cast<unsigned long long*>(&n)};
  check("cuLaunchKernel copy_bytes",
        cuLaunchKernel(copy, static_cast<unsigned>(grid), 1, 1, static_cast<unsigned>(block), 1, 1,
                       0, nullptr, params, nullptr));
  check("cuLaunchKernel copy_bytes, 2048 threads per block",
        cuLaunchKernel(copy, 1, 1, 1, 2048, 1, 1, 0, nullptr, params, nullptr),
        CUDA_ERROR_INVALID_VALUE);
  check("cuCtxSynchronize", cuCtxSynchronize());

  CUlibrary library = nullptr;
  check("cuLibraryLoadFromFile kernels.fatbin",
        cuLibraryLoadFromFile(&library, fatbin.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel = nullptr;
  check("cuLibraryGetKernel add", cuLibraryGetKernel(&kernel, library, "add"));
  int threads = 0;
  check("cuKernelGetAttribute max threads",
        cuKernelGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernel, dev));
  CUdeviceptr flag = 0;
  check("cuLibraryGetManaged shared_flag",
        cuLibraryGetManaged(&flag, &bytes, library, "shared_flag"));
  std::printf("library kernel add: max %d threads; shared_flag reads %d from the host\n", threads,
              *reinterpret_cast<int*>(flag));
  check("cuLibraryUnload", cuLibraryUnload(library));

  CUlinkState link = nullptr;
  check("cuLinkCreate", cuLinkCreate(0, nullptr, nullptr, &link));
  check("cuLinkAddFile kernels.fatbin",
        cuLinkAddFile(link, CU_JIT_INPUT_FATBINARY, fatbin.c_str(), 0, nullptr, nullptr));
  void* image = nullptr;
  size_t size = 0;
  check("cuLinkComplete", cuLinkComplete(link, &image, &size));
  CUmodule linked = nullptr;
  check("cuModuleLoadData linked image", cuModuleLoadData(&linked, image));
  check("cuModuleGetFunctionCount linked", cuModuleGetFunctionCount(&count, linked));
  std::printf("kernels in the linked module: %u\n", count);
  check("cuLinkDestroy", cuLinkDestroy(link));

  check("cuModuleUnload linked", cuModuleUnload(linked));
  check("cuMemFree from", cuMemFree(from));
  check("cuMemFree to", cuMemFree(to));
  check("cuModuleUnload", cuModuleUnload(module));
  check("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease(dev));
  std::printf("%s\n", g_failures == 0 ? "all results as expected" : "UNEXPECTED RESULTS");
  return g_failures == 0 ? 0 : 1;
}
