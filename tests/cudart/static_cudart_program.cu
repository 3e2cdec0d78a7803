// A runtime-API program built by nvcc with its default, NVIDIA's static runtime
// (libcudart_static.a), run on the simulated machine: the runtime asks the driver for its
// undocumented export tables first, and the simulated driver refuses them with one stderr line
// naming the cause and the fix (Note [Export tables] in mockdev/src/cuda/driver_init.cpp). The
// test (tests/cudart/CMakeLists.txt) expects that line and the refusal's code here.

#include <cuda_runtime_api.h>

#include <cstdio>

int main() {
  int count = -1;
  const cudaError_t e = cudaGetDeviceCount(&count);
  std::printf("cudaGetDeviceCount: %d (%s), count %d\n", static_cast<int>(e),
              cudaGetErrorName(e), count);
  return e == cudaSuccess ? 1 : 0;  // success would mean the tables were served
}
