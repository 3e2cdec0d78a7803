// The runtime-API conformance profiles (tests/cudart/README.md): every runtime test program
// runs unchanged on three pairs of libraries, chosen by the library search path alone, and
// this global test environment checks before any test that the process got the pair its
// profile names (ACCEL_CUDART_PROFILE; unset: no check, as for cudart.no_driver):
//   cudart_mock    this libcudart.so.13 over the simulated libcuda.so.1;
//   cudart_real    this libcudart.so.13 over a real libcuda.so.1;
//   cudart_nvidia  NVIDIA's libcudart.so.13 over a real libcuda.so.1.
// Which libcudart: the file that defines cudaGetDeviceCount (dladdr). Which libcuda: the
// libcuda.so.1 the runtime loaded for cudaDriverGetVersion (which initialises nothing),
// asked for with RTLD_NOLOAD (every later dlopen("libcuda.so.1") of the tests gets the same
// one, matched by soname). A wrong
// pair fails the program before any test. The real profiles skip every test LOUDLY ("cudart
// conformance did not run", ctest's SKIP_REGULAR_EXPRESSION) where the runtime finds no real
// driver with a device, or NVIDIA's libcudart is not on the library path.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cudart_api.h"

namespace {

namespace drv = accel::cuda_abi;

std::string real_path(const char* path) {
  if (path == nullptr) return "";
  char resolved[PATH_MAX];
  return realpath(path, resolved) != nullptr ? resolved : path;
}

std::string file_defining(const void* symbol) {
  Dl_info info{};
  if (symbol == nullptr || dladdr(symbol, &info) == 0) return "";
  return real_path(info.dli_fname);
}

class ProfileEnvironment final : public testing::Environment {
 public:
  void SetUp() override {
    const char* profile_variable = std::getenv("ACCEL_CUDART_PROFILE");
    if (profile_variable == nullptr) return;
    const std::string profile = profile_variable;
    if (profile != "cudart_mock" && profile != "cudart_real" && profile != "cudart_nvidia") {
      FAIL() << "ACCEL_CUDART_PROFILE='" << profile
             << "' is not a profile (known: cudart_mock, cudart_real, cudart_nvidia)";
    }
    const bool ours_expected = profile != "cudart_nvidia";
    const bool mock_expected = profile == "cudart_mock";

    const std::string runtime = file_defining(reinterpret_cast<const void*>(&::cudaGetDeviceCount));
    const bool ours = runtime == real_path(ACCEL_CUDART_TEST_LIBRARY);
    if (ours != ours_expected) {
      if (!mock_expected) {
        skip(profile, "expected " + std::string(ours_expected ? "this" : "NVIDIA's") +
                          " libcudart.so.13, the loader gave " + runtime);
        return;
      }
      FAIL() << profile << ": expected this project's libcudart.so.13, the loader gave " << runtime;
    }

    // cudaDriverGetVersion loads the runtime's libcuda.so.1 without initialising the runtime
    // (no cuInit through it, no context), so no test's starting state changes; every later
    // dlopen("libcuda.so.1") of the process then gets that library, matched by soname.
    int version = 0;
    const cudaError_t versioned = cudaDriverGetVersion(&version);
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    const std::string driver_file =
        driver != nullptr ? file_defining(dlsym(driver, "cuInit")) : "(none loaded)";
    const bool mock = driver_file == real_path(ACCEL_CUDART_TEST_MOCK_DRIVER);
    if (mock_expected) {
      ASSERT_TRUE(mock) << profile << ": expected the simulated libcuda.so.1 ("
                        << ACCEL_CUDART_TEST_MOCK_DRIVER << "), the runtime loaded " << driver_file;
      return;
    }
    // A real driver with a device: asked of the driver itself (cuInit is idempotent and
    // the runtime calls it too), not of the runtime, which stays uninitialised.
    int count = 0;
    drv::CUresult init = drv::CUDA_ERROR_NOT_INITIALIZED;
    if (driver != nullptr && !mock) {
      const auto cu_init = reinterpret_cast<drv::PFN_cuInit_v2000>(dlsym(driver, "cuInit"));
      const auto cu_count =
          reinterpret_cast<drv::PFN_cuDeviceGetCount_v2000>(dlsym(driver, "cuDeviceGetCount"));
      if (cu_init != nullptr && cu_count != nullptr) {
        init = cu_init(0);
        if (init == drv::CUDA_SUCCESS && cu_count(&count) != drv::CUDA_SUCCESS) count = 0;
      }
    }
    if (mock || versioned != cudaSuccess || init != drv::CUDA_SUCCESS || count < 1) {
      skip(profile, "the runtime found no real driver with a device (libcuda.so.1: " + driver_file +
                        ", driver version " + std::to_string(version) +
                        ", cuInit: " + std::to_string(static_cast<int>(init)) + ", " +
                        std::to_string(count) + " devices)");
    }
  }

 private:
  static void skip(const std::string& profile, const std::string& why) {
    // On stderr too: the line ctest's SKIP_REGULAR_EXPRESSION matches, whatever gtest prints.
    std::fprintf(stderr, "%s: cudart conformance did not run: %s\n", profile.c_str(), why.c_str());
    GTEST_SKIP() << profile << ": cudart conformance did not run: " << why;
  }
};

[[maybe_unused]] testing::Environment* const g_profile_environment =
    testing::AddGlobalTestEnvironment(new ProfileEnvironment);

}  // namespace
