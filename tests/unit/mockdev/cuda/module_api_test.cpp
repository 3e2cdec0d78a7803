// Modules, libraries, the linker, function attributes, occupancy and launches through the
// simulated libcuda.so.1 (Notes [Loading modules], [Libraries], [Linking], [Function
// attributes], [Occupancy] and [Launches] in mockdev/src/cuda/), over the images nvcc
// compiles from tests/kernel_images/kernels.cu. Expected numbers come from that source,
// ptxas -v (10 registers per kernel on sm_90) and the H100's attributes (132
// multiprocessors, 2048 threads, 32 blocks, 65536 registers and 233472 bytes of shared
// memory per multiprocessor, 1024 reserved per block, 48 KiB per block or 227 KiB opted in).

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "mockdev/kernels.h"
#include "stream_test.h"

namespace mockdev::testing {
namespace {

std::vector<char> fixture(const std::string& name) {
  const std::string dir = ACCEL_KERNEL_IMAGES_DIR;
  if (dir.empty()) {
    ADD_FAILURE() << "no nvcc at configure time: the images of tests/kernel_images are not built, "
                     "so this test cannot run (install the CUDA toolkit)";
    return {};
  }
  std::ifstream in(dir + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing " << dir << "/" << name;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.push_back('\0');  // text images end at a NUL
  return bytes;
}

std::string fixture_path(const std::string& name) {
  return std::string(ACCEL_KERNEL_IMAGES_DIR) + "/" + name;
}

class ModuleApi : public StreamTest {
 protected:
  void SetUp() override {
    StreamTest::SetUp();
    kernels::clear_kernels();
    start(Schedule::kEager);
    fatbin_ = fixture("kernels.fatbin");
  }
  void TearDown() override {
    kernels::clear_kernels();
    StreamTest::TearDown();
  }
  CUmodule load() {
    CUmodule m = nullptr;
    EXPECT_EQ(cu().cuModuleLoadData(&m, fatbin_.data()), CUDA_SUCCESS);
    return m;
  }
  static CUfunction function(CUmodule m, const char* name) {
    CUfunction f = nullptr;
    EXPECT_EQ(cu().cuModuleGetFunction(&f, m, name), CUDA_SUCCESS) << name;
    return f;
  }
  static int attribute(CUfunction f, CUfunction_attribute a) {
    int value = -7;
    EXPECT_EQ(cu().cuFuncGetAttribute(&value, a, f), CUDA_SUCCESS) << a;
    return value;
  }
  static int occupancy(CUfunction f, int block, std::size_t dynamic = 0) {
    int blocks = -1;
    EXPECT_EQ(cu().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, block, dynamic),
              CUDA_SUCCESS);
    return blocks;
  }
  std::vector<char> fatbin_;
};

TEST_F(ModuleApi, AFatbinaryLoadsWithItsKernelsAndInitialisedGlobals) {
  CUmodule m = load();
  unsigned count = 0;
  ASSERT_EQ(cu().cuModuleGetFunctionCount(&count, m), CUDA_SUCCESS);
  EXPECT_EQ(count, 4u);
  std::vector<CUfunction> all(4);
  ASSERT_EQ(cu().cuModuleEnumerateFunctions(all.data(), 4, m), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuModuleEnumerateFunctions(all.data(), 3, m), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(function(m, "add"), function(m, "add"));
  EXPECT_NE(function(m, "_Z7reverseIfEvPT_"), nullptr);
  CUfunction missing = nullptr;
  EXPECT_EQ(cu().cuModuleGetFunction(&missing, m, "reverse"), CUDA_ERROR_NOT_FOUND);

  CUdeviceptr counter = 0;
  std::size_t bytes = 0;
  ASSERT_EQ(cu().cuModuleGetGlobal_v2(&counter, &bytes, m, "counter"), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 4u);
  int value = 0;
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(&value, counter, 4), CUDA_SUCCESS);
  EXPECT_EQ(value, 7);
  value = 41;
  ASSERT_EQ(cu().cuMemcpyHtoD_v2(counter, &value, 4), CUDA_SUCCESS);
  value = 0;
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(&value, counter, 4), CUDA_SUCCESS);
  EXPECT_EQ(value, 41);
  CUdeviceptr coefficients = 0;
  ASSERT_EQ(cu().cuModuleGetGlobal_v2(&coefficients, nullptr, m, "coefficients"), CUDA_SUCCESS);
  float floats[4] = {};
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(floats, coefficients, 16), CUDA_SUCCESS);
  EXPECT_EQ(floats[2], 3.0F);
  // A __managed__ variable is host memory too.
  CUdeviceptr flag = 0;
  ASSERT_EQ(cu().cuModuleGetGlobal_v2(&flag, &bytes, m, "shared_flag"), CUDA_SUCCESS);
  EXPECT_EQ(*reinterpret_cast<int*>(static_cast<std::uintptr_t>(flag)), 3);
  int managed = 0;
  ASSERT_EQ(cu().cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, flag),
            CUDA_SUCCESS);
  EXPECT_EQ(managed, 1);
  EXPECT_EQ(cu().cuModuleGetGlobal_v2(&flag, &bytes, m, "nothing"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cu().cuModuleGetGlobal_v2(&flag, &bytes, m, nullptr), CUDA_ERROR_INVALID_VALUE);

  ASSERT_EQ(cu().cuModuleUnload(m), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuModuleGetGlobal_v2(&flag, &bytes, m, "counter"), CUDA_ERROR_INVALID_HANDLE);
  // Its globals' memory is freed.
  EXPECT_EQ(cu().cuMemcpyDtoH_v2(&value, counter, 4), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(ModuleApi, EachFormLoadsOrFailsWithTheDriversCode) {
  CUmodule m = nullptr;
  std::vector<char> cubin = fixture("kernels_sm90.cubin");
  EXPECT_EQ(cu().cuModuleLoadData(&m, cubin.data()), CUDA_SUCCESS);
  std::vector<char> ptx = fixture("kernels.ptx");
  EXPECT_EQ(cu().cuModuleLoadData(&m, ptx.data()), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuModuleLoadFatBinary(&m, fatbin_.data()), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuModuleLoad(&m, fixture_path("kernels_sm90.cubin").c_str()), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuModuleLoad(&m, "/nonexistent/k.cubin"), CUDA_ERROR_FILE_NOT_FOUND);
  // A cubin for a newer GPU, and PTX nvcc compressed: neither runs here.
  std::vector<char> sm100 = fixture("kernels_sm100.cubin");
  EXPECT_EQ(cu().cuModuleLoadData(&m, sm100.data()), CUDA_ERROR_NO_BINARY_FOR_GPU);
  std::vector<char> compressed = fixture("kernels_compressed_ptx.fatbin");
  EXPECT_EQ(cu().cuModuleLoadData(&m, compressed.data()), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(cu().cuModuleLoadData(&m, "not PTX at all"), CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(cu().cuModuleLoadData(&m, ".version 9.9\n.target sm_90\n"),
            CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
  const unsigned char x86[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 62};
  EXPECT_EQ(cu().cuModuleLoadData(&m, x86), CUDA_ERROR_INVALID_IMAGE);
  // cuModuleLoadDataEx writes the reason into the error log it is given.
  char log[256] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log, reinterpret_cast<void*>(std::uintptr_t{sizeof log})};
  EXPECT_EQ(cu().cuModuleLoadDataEx(&m, sm100.data(), 2, options, values),
            CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_STREQ(log, "no code for sm_90 in an image holding cubin sm_100");
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(values[1]), std::strlen(log));
  EXPECT_EQ(cu().cuModuleLoadDataEx(&m, cubin.data(), 2, nullptr, values),
            CUDA_ERROR_INVALID_VALUE);
}

TEST_F(ModuleApi, FunctionAttributesComeFromTheImage) {
  CUmodule m = load();
  CUfunction add = function(m, "add");
  CUfunction reverse = function(m, "_Z7reverseIfEvPT_");
  CUfunction bounded = function(m, "bounded");
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_NUM_REGS), 10);
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES), 16);
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), 0);
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_BINARY_VERSION), 90);
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_PTX_VERSION), 90);
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT), -1);
  EXPECT_EQ(attribute(reverse, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), 256);
  EXPECT_EQ(attribute(reverse, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 49152 - 256);
  EXPECT_EQ(attribute(bounded, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 256);
  // Opting in to more dynamic shared memory, up to 227 KiB less the static bytes.
  EXPECT_EQ(cu().cuFuncSetAttribute(reverse, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    232448 - 256),
            CUDA_SUCCESS);
  EXPECT_EQ(attribute(reverse, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 232448 - 256);
  EXPECT_EQ(cu().cuFuncSetAttribute(reverse, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    232448 - 255),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuFuncSetAttribute(add, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 101),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuFuncSetAttribute(add, CU_FUNC_ATTRIBUTE_NUM_REGS, 5), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuFuncSetAttribute(add, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 9),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuFuncSetAttribute(add, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 4),
            CUDA_SUCCESS);
  EXPECT_EQ(cu().cuFuncSetAttribute(add, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, 4),
            CUDA_ERROR_INVALID_VALUE);
  int value = 0;
  EXPECT_EQ(cu().cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX, add), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_NUM_REGS, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  std::size_t offset = 0;
  std::size_t size = 0;
  ASSERT_EQ(cu().cuFuncGetParamInfo(bounded, 2, &offset, &size), CUDA_SUCCESS);
  EXPECT_EQ(offset, 50u);
  EXPECT_EQ(size, 2u);
  EXPECT_EQ(cu().cuFuncGetParamInfo(bounded, 4, &offset, &size), CUDA_ERROR_INVALID_VALUE);
  const char* name = nullptr;
  ASSERT_EQ(cu().cuFuncGetName(&name, reverse), CUDA_SUCCESS);
  EXPECT_STREQ(name, "_Z7reverseIfEvPT_");
  CUmodule owner = nullptr;
  ASSERT_EQ(cu().cuFuncGetModule(&owner, reverse), CUDA_SUCCESS);
  EXPECT_EQ(owner, m);
  CUfunctionLoadingState state = CU_FUNCTION_LOADING_STATE_MAX;
  ASSERT_EQ(cu().cuFuncIsLoaded(&state, add), CUDA_SUCCESS);
  EXPECT_EQ(state, CU_FUNCTION_LOADING_STATE_LOADED);
  EXPECT_EQ(cu().cuFuncSetCacheConfig(add, CU_FUNC_CACHE_PREFER_SHARED), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuFuncSetCacheConfig(add, static_cast<CUfunc_cache>(4)), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(ModuleApi, OccupancyFollowsTheCalculator) {
  CUmodule m = load();
  CUfunction add = function(m, "add");
  CUfunction reverse = function(m, "_Z7reverseIfEvPT_");
  CUfunction bounded = function(m, "bounded");
  EXPECT_EQ(occupancy(add, 32), 32);   // the block limit
  EXPECT_EQ(occupancy(add, 256), 8);   // 64 warps / 8
  EXPECT_EQ(occupancy(add, 1024), 2);  // 64 warps / 32
  // 256 + 40000 + 1024 reserved, in 128-byte steps: 41344 bytes, 5 per 233472.
  EXPECT_EQ(occupancy(reverse, 256, 40000), 5);
  EXPECT_EQ(occupancy(reverse, 256, 48897), 0);  // above its dynamic maximum
  EXPECT_EQ(occupancy(bounded, 512), 0);         // above its launch bounds
  int grid = 0;
  int block = 0;
  ASSERT_EQ(cu().cuOccupancyMaxPotentialBlockSize(&grid, &block, add, nullptr, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(block, 1024);  // every size from 64 up fills 64 warps: the largest wins
  EXPECT_EQ(grid, 2 * 132);
  ASSERT_EQ(cu().cuOccupancyMaxPotentialBlockSize(&grid, &block, bounded, nullptr, 0, 0),
            CUDA_SUCCESS);
  EXPECT_EQ(block, 256);
  EXPECT_EQ(grid, 8 * 132);
  ASSERT_EQ(cu().cuOccupancyMaxPotentialBlockSize(&grid, &block, add, nullptr, 0, 100),
            CUDA_SUCCESS);
  EXPECT_EQ(block, 64);  // 2 warps: 32 blocks fill 64 warps; 96 threads fit 21 blocks, 63 warps
  std::size_t dynamic = 0;
  ASSERT_EQ(cu().cuOccupancyAvailableDynamicSMemPerBlock(&dynamic, reverse, 4, 256), CUDA_SUCCESS);
  EXPECT_EQ(dynamic, 48896u);  // 58368 per block would fit, capped at its 48 KiB - 256 maximum
  ASSERT_EQ(cu().cuOccupancyAvailableDynamicSMemPerBlock(&dynamic, reverse, 8, 256), CUDA_SUCCESS);
  EXPECT_EQ(dynamic, 29184u - 1024 - 256);
  ASSERT_EQ(cu().cuOccupancyAvailableDynamicSMemPerBlock(&dynamic, reverse, 9, 256), CUDA_SUCCESS);
  EXPECT_EQ(dynamic, 0u);  // 9 blocks of 8 warps never fit 64 warps
  int blocks = 0;
  EXPECT_EQ(cu().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add, 0, 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, add, 32, 0, 2),
            CUDA_ERROR_INVALID_VALUE);
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 256;
  config.blockDimY = config.blockDimZ = 1;
  CUlaunchAttribute cluster{};
  cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim = {4, 1, 1};
  config.attrs = &cluster;
  config.numAttrs = 1;
  int clusters = 0;
  ASSERT_EQ(cu().cuOccupancyMaxActiveClusters(&clusters, add, &config), CUDA_SUCCESS);
  EXPECT_EQ(clusters, 8 * 132 / 4);
  ASSERT_EQ(cu().cuOccupancyMaxPotentialClusterSize(&clusters, add, &config), CUDA_SUCCESS);
  EXPECT_EQ(clusters, 8);
}

// A kernel of 100 registers per thread: a warp takes 3200, allocated as 3328 (13 units of
// 256), so 19 warps fit the 65536 registers of a block (608 threads, not 640) and a
// multiprocessor holds 9 blocks of 64 threads (not 10).
TEST_F(ModuleApi, RegistersAreAllocatedInUnitsOf256PerWarp) {
  CUmodule m = nullptr;
  ASSERT_EQ(cu().cuModuleLoadData(&m,
                                  ".version 8.0\n.target sm_90\n.address_size 64\n"
                                  ".visible .entry heavy()\n{\n.reg .b32 %r<100>;\nret;\n}\n"),
            CUDA_SUCCESS);
  CUfunction heavy = function(m, "heavy");
  EXPECT_EQ(attribute(heavy, CU_FUNC_ATTRIBUTE_NUM_REGS), 100);
  EXPECT_EQ(attribute(heavy, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 608);
  EXPECT_EQ(occupancy(heavy, 64), 9);
}

TEST_F(ModuleApi, LaunchesReadParametersAsTheImageLaysThemOut) {
  CUmodule m = load();
  CUfunction copy = function(m, "copy_bytes");
  CUfunction bounded = function(m, "bounded");
  // copy_bytes runs a host body once registered (registration is looked up per launch).
  kernels::KernelSpec spec;
  spec.name = "copy_bytes";
  spec.param_sizes = {8, 8, 8};
  spec.body = [](const kernels::Launch& l, kernels::DeviceMemory& memory) {
    std::vector<unsigned char> bytes(l.arg<std::uint64_t>(2));
    memory.read(l.arg<CUdeviceptr>(0), bytes.data(), bytes.size());
    memory.write(l.arg<CUdeviceptr>(1), bytes.data(), bytes.size());
  };
  kernels::register_kernel(spec);
  const CUdeviceptr from = alloc(64);
  const CUdeviceptr to = alloc(64);
  ASSERT_EQ(cu().cuMemsetD8_v2(from, 0x5A, 64), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8_v2(to, 0, 64), CUDA_SUCCESS);
  // The `extra` form: one buffer at the image's offsets.
  struct {
    CUdeviceptr from, to;
    std::uint64_t n;
  } buffer{from, to, 64};
  std::size_t buffer_size = sizeof buffer;
  void* extra[] = {reinterpret_cast<void*>(1), &buffer, reinterpret_cast<void*>(2), &buffer_size,
                   nullptr};
  ASSERT_EQ(cu().cuLaunchKernel(copy, 1, 1, 1, 64, 1, 1, 0, nullptr, nullptr, extra), CUDA_SUCCESS);
  EXPECT_EQ(byte_at(to + 63), 0x5A);
  buffer_size = 16;  // shorter than the 24 bytes of parameters
  EXPECT_EQ(cu().cuLaunchKernel(copy, 1, 1, 1, 64, 1, 1, 0, nullptr, nullptr, extra),
            CUDA_ERROR_INVALID_VALUE);
  // A registration that contradicts the image is refused.
  spec.param_sizes = {8, 8};
  kernels::register_kernel(spec);
  void* params[] = {&buffer.from, &buffer.to, &buffer.n};
  EXPECT_EQ(cu().cuLaunchKernel(copy, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  kernels::unregister_kernel("copy_bytes");
  // Opaque now: still its parameters are needed.
  EXPECT_EQ(cu().cuLaunchKernel(copy, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cu().cuLaunchKernel(copy, 1, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  // Launch bounds and dynamic shared memory.
  struct {
    double d[6];
  } wide{};
  char c = 1;
  short s = 2;
  void* bounded_params[] = {&wide, &c, &s, &buffer.to};
  EXPECT_EQ(cu().cuLaunchKernel(bounded, 1, 1, 1, 256, 1, 1, 0, nullptr, bounded_params, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cu().cuLaunchKernel(bounded, 1, 1, 1, 257, 1, 1, 0, nullptr, bounded_params, nullptr),
            CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
  EXPECT_EQ(
      cu().cuLaunchKernel(bounded, 1, 1, 1, 32, 1, 1, 49153, nullptr, bounded_params, nullptr),
      CUDA_ERROR_INVALID_VALUE);
}

TEST_F(ModuleApi, CooperativeAndClusterLaunchesCheckTheirShape) {
  CUmodule m = load();
  CUfunction add = function(m, "add");
  CUdeviceptr p = alloc(64);
  float f = 1;
  int n = 4;
  void* params[] = {&p, &f, &n};
  // 256 threads: 8 blocks per multiprocessor, 1056 at once.
  EXPECT_EQ(cu().cuLaunchCooperativeKernel(add, 1056, 1, 1, 256, 1, 1, 0, nullptr, params),
            CUDA_SUCCESS);
  EXPECT_EQ(cu().cuLaunchCooperativeKernel(add, 1057, 1, 1, 256, 1, 1, 0, nullptr, params),
            CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
  CUlaunchConfig config{};
  config.gridDimX = 6;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 128;
  config.blockDimY = config.blockDimZ = 1;
  CUlaunchAttribute attrs[2] = {};
  attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attrs[0].value.clusterDim = {2, 1, 1};
  attrs[1].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
  config.attrs = attrs;
  config.numAttrs = 2;
  EXPECT_EQ(cu().cuLaunchKernelEx(&config, add, params, nullptr), CUDA_SUCCESS);
  attrs[0].value.clusterDim = {4, 1, 1};  // 6 blocks are not whole clusters of 4
  EXPECT_EQ(cu().cuLaunchKernelEx(&config, add, params, nullptr), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  attrs[0].value.clusterDim = {3, 1, 1};
  config.gridDimX = 9;
  EXPECT_EQ(cu().cuLaunchKernelEx(&config, add, params, nullptr), CUDA_SUCCESS);
  attrs[1].id = static_cast<CUlaunchAttributeID>(99);
  EXPECT_EQ(cu().cuLaunchKernelEx(&config, add, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  attrs[1].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attrs[1].value.cooperative = 1;
  EXPECT_EQ(cu().cuLaunchKernelEx(&config, add, params, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuLaunchKernelEx(nullptr, add, params, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(ModuleApi, ALibraryLoadsIntoEachContextWhereItIsUsed) {
  CUlibrary library = nullptr;
  ASSERT_EQ(
      cu().cuLibraryLoadData(&library, fatbin_.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
      CUDA_SUCCESS);
  unsigned count = 0;
  ASSERT_EQ(cu().cuLibraryGetKernelCount(&count, library), CUDA_SUCCESS);
  EXPECT_EQ(count, 4u);
  CUkernel kernel = nullptr;
  ASSERT_EQ(cu().cuLibraryGetKernel(&kernel, library, "add"), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuLibraryGetKernel(&kernel, library, "nothing"), CUDA_ERROR_NOT_FOUND);
  ASSERT_EQ(cu().cuLibraryGetKernel(&kernel, library, "add"), CUDA_SUCCESS);
  const char* name = nullptr;
  ASSERT_EQ(cu().cuKernelGetName(&name, kernel), CUDA_SUCCESS);
  EXPECT_STREQ(name, "add");
  CUlibrary owner = nullptr;
  ASSERT_EQ(cu().cuKernelGetLibrary(&owner, kernel), CUDA_SUCCESS);
  EXPECT_EQ(owner, library);
  int value = 0;
  ASSERT_EQ(cu().cuKernelGetAttribute(&value, CU_FUNC_ATTRIBUTE_NUM_REGS, kernel, 0), CUDA_SUCCESS);
  EXPECT_EQ(value, 10);
  ASSERT_EQ(
      cu().cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000, kernel, 0),
      CUDA_SUCCESS);
  std::size_t offset = 0;
  ASSERT_EQ(cu().cuKernelGetParamInfo(kernel, 1, &offset, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(offset, 8u);
  // The function in the current context shares device 0's settings.
  CUfunction f = nullptr;
  ASSERT_EQ(cu().cuKernelGetFunction(&f, kernel), CUDA_SUCCESS);
  EXPECT_EQ(attribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 100000);
  CUmodule module = nullptr;
  ASSERT_EQ(cu().cuLibraryGetModule(&module, library), CUDA_SUCCESS);
  CUmodule of_f = nullptr;
  ASSERT_EQ(cu().cuFuncGetModule(&of_f, f), CUDA_SUCCESS);
  EXPECT_EQ(of_f, module);
  CUdeviceptr counter = 0;
  std::size_t bytes = 0;
  ASSERT_EQ(cu().cuLibraryGetGlobal(&counter, &bytes, library, "counter"), CUDA_SUCCESS);
  int counted = 0;
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(&counted, counter, 4), CUDA_SUCCESS);
  EXPECT_EQ(counted, 7);
  EXPECT_EQ(cu().cuLibraryGetManaged(&counter, &bytes, library, "counter"), CUDA_ERROR_NOT_FOUND);
  ASSERT_EQ(cu().cuLibraryGetManaged(&counter, &bytes, library, "shared_flag"), CUDA_SUCCESS);
  // A CUkernel launches as a function (cuda.h: "f may also be a CUkernel").
  CUdeviceptr p = alloc(64);
  float fl = 1;
  int n = 4;
  void* params[] = {&p, &fl, &n};
  EXPECT_EQ(cu().cuLaunchKernel(reinterpret_cast<CUfunction>(kernel), 1, 1, 1, 32, 1, 1, 0, nullptr,
                                params, nullptr),
            CUDA_SUCCESS);
  // Device 1's context gets its own copy.
  init_and_make_current(1);
  CUmodule other = nullptr;
  ASSERT_EQ(cu().cuLibraryGetModule(&other, library), CUDA_SUCCESS);
  EXPECT_NE(other, module);
  ASSERT_EQ(cu().cuLibraryUnload(library), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuKernelGetName(&name, kernel), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuModuleGetGlobal_v2(&counter, &bytes, other, "counter"),
            CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuLibraryUnload(library), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuLibraryLoadFromFile(&library, "/nonexistent.fatbin", nullptr, nullptr, 0,
                                       nullptr, nullptr, 0),
            CUDA_ERROR_FILE_NOT_FOUND);
  EXPECT_EQ(cu().cuLibraryLoadFromFile(&library, fixture_path("kernels_sm90.cubin").c_str(),
                                       nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_SUCCESS);
}

TEST_F(ModuleApi, TheLinkerJoinsPtxAndCubinsIntoOneLoadableImage) {
  char error_log[256] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log, reinterpret_cast<void*>(std::uintptr_t{sizeof error_log})};
  CUlinkState link = nullptr;
  ASSERT_EQ(cu().cuLinkCreate_v2(2, options, values, &link), CUDA_SUCCESS);
  std::vector<char> cubin = fixture("kernels_sm90.cubin");
  ASSERT_EQ(cu().cuLinkAddData_v2(link, CU_JIT_INPUT_CUBIN, cubin.data(), cubin.size() - 1,
                                  "kernels.cubin", 0, nullptr, nullptr),
            CUDA_SUCCESS);
  std::string extra =
      ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry more(.param .u32 n)\n{ ret; "
      "}\n";
  ASSERT_EQ(cu().cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, extra.data(), extra.size(), "more.ptx", 0,
                                  nullptr, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cu().cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, const_cast<char*>("garbage"), 7,
                                  "bad.ptx", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_PTX);
  EXPECT_STREQ(error_log,
               "bad.ptx: cannot link text that is not PTX (no .version and .target directives)");
  EXPECT_EQ(cu().cuLinkAddData_v2(link, CU_JIT_INPUT_OBJECT, cubin.data(), 10, "host.o", 0, nullptr,
                                  nullptr),
            CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(cu().cuLinkAddFile_v2(link, CU_JIT_INPUT_CUBIN,
                                  fixture_path("kernels_sm100.cubin").c_str(), 0, nullptr, nullptr),
            CUDA_ERROR_NO_BINARY_FOR_GPU);
  void* image = nullptr;
  std::size_t size = 0;
  ASSERT_EQ(cu().cuLinkComplete(link, &image, &size), CUDA_SUCCESS);
  CUmodule m = nullptr;
  ASSERT_EQ(cu().cuModuleLoadData(&m, image), CUDA_SUCCESS);
  EXPECT_NE(function(m, "add"), nullptr);
  EXPECT_NE(function(m, "more"), nullptr);
  CUdeviceptr counter = 0;
  EXPECT_EQ(cu().cuModuleGetGlobal_v2(&counter, nullptr, m, "counter"), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuLinkDestroy(link), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuLinkDestroy(link), CUDA_ERROR_INVALID_HANDLE);
  // The same cubin twice defines everything twice.
  ASSERT_EQ(cu().cuLinkCreate_v2(0, nullptr, nullptr, &link), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuLinkAddFile_v2(link, CU_JIT_INPUT_CUBIN,
                                  fixture_path("kernels_sm90.cubin").c_str(), 0, nullptr, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cu().cuLinkAddFile_v2(link, CU_JIT_INPUT_FATBINARY,
                                  fixture_path("kernels.fatbin").c_str(), 0, nullptr, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cu().cuLinkComplete(link, &image, &size), CUDA_ERROR_INVALID_IMAGE);
  EXPECT_EQ(cu().cuLinkDestroy(link), CUDA_SUCCESS);
}

}  // namespace
}  // namespace mockdev::testing
