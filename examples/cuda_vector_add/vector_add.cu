// A CUDA runtime-API program as anyone writes it: one kernel, cudaMalloc, cudaMemcpy,
// <<<...>>>. Nothing here knows about the simulation. Build it with `-cudart shared` (the
// runtime must be a shared library so that `accel run` can give the program accel's
// libcudart.so.13), then run it on simulated GPUs:
//   nvcc -cudart shared vector_add.cu simulated_bodies.cpp -lmockdev -o vector_add
//   accel run --machine 2xa100 -- ./vector_add
// simulated_bodies.cpp tells the simulated GPU what the kernel does (it cannot run device
// code); without it the launch still runs, as an opaque timed operation, and `c` keeps
// whatever it held.

#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

#define CHECK(call)                                                               \
  do {                                                                            \
    const cudaError_t err_ = (call);                                              \
    if (err_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s failed: %s (%s)\n", #call, cudaGetErrorName(err_), \
                   cudaGetErrorString(err_));                                     \
      return 1;                                                                   \
    }                                                                             \
  } while (false)

int main() {
  constexpr int n = 1 << 16;
  std::vector<float> a(n), b(n), c(n, 0.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(2 * i);
  }
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%d device(s); device 0: %s\n", devices, prop.name);

  float *da = nullptr, *db = nullptr, *dc = nullptr;
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const int block = 256;
  vector_add<<<(n + block - 1) / block, block>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));

  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += c[i] != a[i] + b[i];
  std::printf("vector_add of %d elements: %s\n", n, wrong == 0 ? "correct" : "WRONG");
  return wrong == 0 ? 0 : 1;
}
