// Modules, libraries, the linker, function attributes, occupancy and launches (CUDA Driver
// API, "Module Management", "Library Management", "Execution Control", "Occupancy"), over
// the images nvcc builds from tests/kernel_images/kernels.cu (ACCEL_KERNEL_IMAGES names
// their folder on a machine without the build tree). The numbers are kernels.cu's own and
// ptxas -v's for sm_90 (10 registers per kernel); the occupancy answers are the CUDA
// occupancy calculator's for a 9.0 device, so a run on an H100 or H200 checks the
// simulation's model. On another architecture the rules that depend on it skip, saying so.
// Kernels run on a real GPU and are opaque on the simulated one: no test reads what a
// kernel wrote.

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "driver_test.h"

namespace accel::driver_test {
namespace {

class Modules : public DriverTest {
 protected:
  void SetUp() override {
    DriverTest::SetUp();
    if (HasFatalFailure() || IsSkipped()) return;
    ACCEL_ASSERT_CU(
        CUDA_SUCCESS,
        cu().cuDeviceGetAttribute(&major_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    ACCEL_ASSERT_CU(
        CUDA_SUCCESS,
        cu().cuDeviceGetAttribute(&minor_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  }

  static std::string path(const std::string& name) {
    const char* dir = std::getenv("ACCEL_KERNEL_IMAGES");
    return std::string(dir != nullptr ? dir : ACCEL_KERNEL_IMAGES_DIR) + "/" + name;
  }
  // The file's bytes with a NUL after them (text images end at one), or a failure saying why.
  static std::vector<char> image(const std::string& name) {
    if (std::getenv("ACCEL_KERNEL_IMAGES") == nullptr &&
        std::string(ACCEL_KERNEL_IMAGES_DIR).empty()) {
      ADD_FAILURE() << "no nvcc at configure time: the images of tests/kernel_images are not "
                       "built, so this test cannot run (install the CUDA toolkit)";
      return {};
    }
    std::ifstream in(path(name), std::ios::binary);
    EXPECT_TRUE(in.good()) << "missing " << path(name);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes.push_back('\0');
    return bytes;
  }
  bool is_sm90() const { return major_ == 9 && minor_ == 0; }
  CUfunction function(CUmodule m, const char* name) {
    CUfunction f = nullptr;
    ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuModuleGetFunction(&f, m, name));
    return f;
  }
  int attribute(CUfunction f, CUfunction_attribute a) {
    int value = -7;
    ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuFuncGetAttribute(&value, a, f));
    return value;
  }

  int major_ = 0;
  int minor_ = 0;
};

// cuModuleLoadData takes "a pointer to ... a cubin or PTX or fatbin file"; cuModuleGetGlobal
// returns "the base pointer and size of the global of name name"; a name the module lacks
// is CUDA_ERROR_NOT_FOUND.
TEST_F(Modules, AFatbinaryLoadsItsKernelsAndItsVariablesWithTheirInitialValues) {
  ACCEL_REQUIRE_SYMBOLS("cuModuleLoadData", "cuModuleGetGlobal_v2", "cuModuleUnload");
  std::vector<char> fatbin = image("kernels.fatbin");
  ASSERT_FALSE(fatbin.empty());
  CUmodule m = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuModuleLoadData(&m, fatbin.data()));
  EXPECT_NE(function(m, "add"), nullptr);
  EXPECT_NE(function(m, "_Z7reverseIfEvPT_"), nullptr);
  CUfunction f = nullptr;
  ACCEL_EXPECT_CU(CUDA_ERROR_NOT_FOUND, cu().cuModuleGetFunction(&f, m, "reverse"));
  CUdeviceptr counter = 0;
  std::size_t bytes = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuModuleGetGlobal_v2(&counter, &bytes, m, "counter"));
  EXPECT_EQ(bytes, 4u);
  int value = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyDtoH_v2(&value, counter, 4));
  EXPECT_EQ(value, 7);
  CUdeviceptr coefficients = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS,
                  cu().cuModuleGetGlobal_v2(&coefficients, &bytes, m, "coefficients"));
  EXPECT_EQ(bytes, 16u);
  ACCEL_EXPECT_CU(CUDA_ERROR_NOT_FOUND, cu().cuModuleGetGlobal_v2(&counter, &bytes, m, "nothing"));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuModuleUnload(m));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_HANDLE, cu().cuModuleUnload(m));
}

// A cubin runs on devices of its major architecture and an equal or higher minor one
// (CUDA C++ Programming Guide, "Binary Compatibility"): on any other device the load is
// CUDA_ERROR_NO_BINARY_FOR_GPU.
TEST_F(Modules, ACubinForAnotherArchitectureDoesNotLoad) {
  ACCEL_REQUIRE_SYMBOLS("cuModuleLoadData");
  std::vector<char> sm100 = image("kernels_sm100.cubin");
  ASSERT_FALSE(sm100.empty());
  CUmodule m = nullptr;
  if (major_ == 10) {
    ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuModuleLoadData(&m, sm100.data()));
  } else {
    ACCEL_EXPECT_CU(CUDA_ERROR_NO_BINARY_FOR_GPU, cu().cuModuleLoadData(&m, sm100.data()));
  }
}

// Function attributes of the sm_90 code (ptxas -v: 10 registers; __launch_bounds__(256);
// __shared__ float[64]; __constant__ float[4]).
TEST_F(Modules, FunctionAttributesAreTheCompiledCodes) {
  ACCEL_REQUIRE_SYMBOLS("cuModuleLoadData", "cuFuncGetAttribute", "cuFuncGetParamInfo");
  if (!is_sm90())
    GTEST_SKIP() << "the expected numbers are sm_90's; this device is " << major_ << "." << minor_;
  std::vector<char> fatbin = image("kernels.fatbin");
  ASSERT_FALSE(fatbin.empty());
  CUmodule m = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuModuleLoadData(&m, fatbin.data()));
  CUfunction add = function(m, "add");
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_NUM_REGS), 10);
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_BINARY_VERSION), 90);
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES), 16);
  EXPECT_EQ(attribute(add, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), 0);
  EXPECT_EQ(attribute(function(m, "bounded"), CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 256);
  CUfunction reverse = function(m, "_Z7reverseIfEvPT_");
  EXPECT_EQ(attribute(reverse, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), 256);
  EXPECT_EQ(attribute(reverse, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 49152 - 256);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuFuncSetAttribute(add, CU_FUNC_ATTRIBUTE_NUM_REGS, 5));  // read-only
  std::size_t offset = 0;
  std::size_t size = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuFuncGetParamInfo(function(m, "bounded"), 3, &offset, &size));
  EXPECT_EQ(offset, 56u);
  EXPECT_EQ(size, 8u);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuModuleUnload(m));
}

// The occupancy calculator's answers on a 9.0 device for kernels of 10 registers.
TEST_F(Modules, OccupancyOnANinePointZeroDevice) {
  ACCEL_REQUIRE_SYMBOLS("cuOccupancyMaxActiveBlocksPerMultiprocessor",
                        "cuOccupancyMaxPotentialBlockSize");
  if (!is_sm90())
    GTEST_SKIP() << "the expected numbers are sm_90's; this device is " << major_ << "." << minor_;
  std::vector<char> fatbin = image("kernels.fatbin");
  ASSERT_FALSE(fatbin.empty());
  CUmodule m = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuModuleLoadData(&m, fatbin.data()));
  CUfunction add = function(m, "add");
  int blocks = -1;
  ACCEL_EXPECT_CU(CUDA_SUCCESS,
                  cu().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add, 256, 0));
  EXPECT_EQ(blocks, 8);
  ACCEL_EXPECT_CU(CUDA_SUCCESS,
                  cu().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add, 32, 0));
  EXPECT_EQ(blocks, 32);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuOccupancyMaxActiveBlocksPerMultiprocessor(
                                    &blocks, function(m, "_Z7reverseIfEvPT_"), 256, 40000));
  EXPECT_EQ(blocks, 5);
  int sms = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetAttribute(
                                    &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  int grid = 0;
  int block = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuOccupancyMaxPotentialBlockSize(
                                    &grid, &block, function(m, "bounded"), nullptr, 0, 0));
  EXPECT_EQ(block, 256);
  EXPECT_EQ(grid, 8 * sms);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuModuleUnload(m));
}

// Launches: a kernel's parameters through kernelParams; a block above __launch_bounds__;
// a cooperative grid larger than can be resident at once (CUDA_ERROR_COOPERATIVE_LAUNCH_-
// TOO_LARGE, cuLaunchCooperativeKernel's documented error).
TEST_F(Modules, LaunchesCheckTheFunctionsLimits) {
  ACCEL_REQUIRE_SYMBOLS("cuModuleLoadData", "cuLaunchKernel", "cuLaunchCooperativeKernel",
                        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  std::vector<char> fatbin = image("kernels.fatbin");
  ASSERT_FALSE(fatbin.empty());
  CUmodule m = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuModuleLoadData(&m, fatbin.data()));
  CUdeviceptr p = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&p, 4096));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD8_v2(p, 0, 4096));
  float f = 1;
  int n = 32;
  void* params[] = {&p, &f, &n};
  CUfunction add = function(m, "add");
  ACCEL_EXPECT_CU(CUDA_SUCCESS,
                  cu().cuLaunchKernel(add, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr));
  struct {
    double d[6];
  } wide{};
  char c = 1;
  short s = 2;
  void* bounded_params[] = {&wide, &c, &s, &p};
  CUfunction bounded = function(m, "bounded");
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuLaunchKernel(bounded, 1, 1, 1, 256, 1, 1, 0, nullptr,
                                                    bounded_params, nullptr));
  ACCEL_EXPECT_CU(
      CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
      cu().cuLaunchKernel(bounded, 1, 1, 1, 512, 1, 1, 0, nullptr, bounded_params, nullptr));
  int cooperative = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetAttribute(
                                    &cooperative, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, device));
  if (cooperative != 0) {
    int blocks = 0;
    int sms = 0;
    ACCEL_ASSERT_CU(CUDA_SUCCESS,
                    cu().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add, 32, 0));
    ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetAttribute(
                                      &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
    const auto most = static_cast<unsigned>(blocks * sms);
    ACCEL_EXPECT_CU(CUDA_SUCCESS,
                    cu().cuLaunchCooperativeKernel(add, most, 1, 1, 32, 1, 1, 0, nullptr, params));
    ACCEL_EXPECT_CU(
        CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
        cu().cuLaunchCooperativeKernel(add, most + 1, 1, 1, 32, 1, 1, 0, nullptr, params));
  }
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(p));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuModuleUnload(m));
}

// Libraries are context-independent (CUDA 12): a kernel handle from the library, its
// function in the current context, and the library's variables there.
TEST_F(Modules, ALibraryServesKernelsAndVariablesInTheCurrentContext) {
  ACCEL_REQUIRE_SYMBOLS("cuLibraryLoadData", "cuLibraryGetKernel", "cuKernelGetFunction",
                        "cuLibraryGetGlobal", "cuLibraryUnload");
  std::vector<char> fatbin = image("kernels.fatbin");
  ASSERT_FALSE(fatbin.empty());
  CUlibrary library = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuLibraryLoadData(&library, fatbin.data(), nullptr, nullptr, 0,
                                                       nullptr, nullptr, 0));
  CUkernel kernel = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuLibraryGetKernel(&kernel, library, "add"));
  ACCEL_EXPECT_CU(CUDA_ERROR_NOT_FOUND, cu().cuLibraryGetKernel(&kernel, library, "nothing"));
  CUfunction f = nullptr;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuKernelGetFunction(&f, kernel));
  EXPECT_NE(f, nullptr);
  CUdeviceptr counter = 0;
  std::size_t bytes = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuLibraryGetGlobal(&counter, &bytes, library, "counter"));
  int value = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyDtoH_v2(&value, counter, 4));
  EXPECT_EQ(value, 7);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuLibraryUnload(library));
}

// The JIT linker accepts PTX and produces an image cuModuleLoadData loads.
TEST_F(Modules, TheLinkerTurnsPtxIntoALoadableImage) {
  ACCEL_REQUIRE_SYMBOLS("cuLinkCreate_v2", "cuLinkAddData_v2", "cuLinkComplete", "cuLinkDestroy");
  std::vector<char> ptx = image("kernels.ptx");
  ASSERT_FALSE(ptx.empty());
  CUlinkState link = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuLinkCreate_v2(0, nullptr, nullptr, &link));
  ACCEL_ASSERT_CU(CUDA_SUCCESS,
                  cu().cuLinkAddData_v2(link, CU_JIT_INPUT_PTX, ptx.data(), ptx.size(),
                                        "kernels.ptx", 0, nullptr, nullptr));
  void* out = nullptr;
  std::size_t size = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuLinkComplete(link, &out, &size));
  EXPECT_GT(size, 0u);
  CUmodule m = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuModuleLoadData(&m, out));
  EXPECT_NE(function(m, "copy_bytes"), nullptr);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuModuleUnload(m));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuLinkDestroy(link));
}

}  // namespace
}  // namespace accel::driver_test
