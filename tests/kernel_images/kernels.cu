// Kernels whose compiled images the tests read (tests/kernel_images/CMakeLists.txt builds
// them with the toolkit's nvcc). The simulation never runs this code: the tests check what
// the images declare (kernels, parameter offsets and sizes, launch bounds, static shared
// memory, variables and their initial bytes) against what is written here, and launch the
// kernels as opaque operations or through host bodies registered under the same names.

__device__ int counter = 7;  // 4 bytes, initialised
__device__ float table[16];  // 64 bytes, zero
__constant__ float coefficients[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__managed__ int shared_flag = 3;

// Parameters at offsets 0 (8 bytes), 8 (4) and 12 (4).
extern "C" __global__ void add(int* p, float f, int n) {
  if (threadIdx.x < n) p[threadIdx.x] += static_cast<int>(f) + counter + coefficients[1];
}

// A template kernel (a mangled name: _Z7reverseIfEvPT_) with 256 bytes of static shared
// memory.
template <class T>
__global__ void reverse(T* p) {
  __shared__ T s[64];
  s[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[63 - threadIdx.x];
}
template __global__ void reverse<float>(float*);

// A 48-byte struct passed by value, then char, short and a pointer: offsets 0, 48, 50, 56.
struct Wide {
  double d[5];
  char c;
};
extern "C" __global__ void __launch_bounds__(256) bounded(Wide w, char c, short s, double* out) {
  out[0] = w.d[0] + c + s;
}

// Copies n bytes; no parameters are read by the simulation unless a test registers a body.
extern "C" __global__ void copy_bytes(const char* from, char* to, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    to[i] = from[i];
  }
}
