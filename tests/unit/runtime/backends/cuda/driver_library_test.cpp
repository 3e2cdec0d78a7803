// Loading the CUDA driver and NVML: the simulated driver (mockdev), a missing file, the
// toolkit's stub libcuda, and scripted fake drivers for the failure modes of
// cuGetProcAddress. Every test checks the exact reason a caller would print.
#include "backends/cuda/cuda_driver_library.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "backends/cuda/cuda_nvml_library.h"
#include "mockdev/control.h"
#include "mockdev/machine.h"

namespace accel::detail::cuda {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The simulated driver's path; the test is misconfigured (not skipped) without it.
std::string mock_driver() {
  std::string path = env("ACCEL_CUDA_DRIVER");
  EXPECT_FALSE(path.empty()) << "ACCEL_CUDA_DRIVER must name mockdev's libcuda.so.1";
  return path;
}

TEST(DriverLibraryTest, LoadsTheSimulatedDriverWithoutInitialisingIt) {
  DriverLibrary::LoadResult loaded = DriverLibrary::load(mock_driver());
  ASSERT_NE(loaded.library, nullptr) << loaded.reason;
  EXPECT_EQ(loaded.reason, "");
  EXPECT_FALSE(loaded.is_stub);
  EXPECT_EQ(loaded.library->path(), mock_driver());
  EXPECT_EQ(loaded.library->resolver(), "cuGetProcAddress_v2");
  EXPECT_EQ(loaded.library->driver_version(), mockdev::control::machine().driver_version);
  // Loading and cuDriverGetVersion are not initialisation.
  EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u);
  EXPECT_FALSE(mockdev::control::driver_initialized());
  EXPECT_EQ(mockdev::control::call_count("cuDriverGetVersion"), 1u);
  // Every entry point resolved to the address the facade exports under its ABI name.
  EXPECT_NE(loaded.library->api().cuMemGetInfo, nullptr);
  EXPECT_NE(loaded.library->api().cuDeviceGetUuid, nullptr);
}

TEST(DriverLibraryTest, ErrorTextComesFromTheDriver) {
  DriverLibrary::LoadResult loaded = DriverLibrary::load(mock_driver());
  ASSERT_NE(loaded.library, nullptr) << loaded.reason;
  EXPECT_EQ(loaded.library->error_name(101), "CUDA_ERROR_INVALID_DEVICE");
  EXPECT_EQ(loaded.library->error_string(2), "out of memory");
}

TEST(DriverLibraryTest, MissingFileNamesThePathAndTheVariable) {
  const std::string path = ACCEL_TEST_MISSING_DRIVER;
  DriverLibrary::LoadResult loaded = DriverLibrary::load(path);
  EXPECT_EQ(loaded.library, nullptr);
  EXPECT_FALSE(loaded.is_stub);
  EXPECT_EQ(loaded.reason.rfind("cannot load the CUDA driver '" + path + "': ", 0), 0u)
      << loaded.reason;
  EXPECT_NE(loaded.reason.find("No such file or directory"), std::string::npos) << loaded.reason;
  EXPECT_NE(loaded.reason.find("(set ACCEL_CUDA_DRIVER to the driver file to use another one)"),
            std::string::npos)
      << loaded.reason;
}

TEST(DriverLibraryTest, ToolkitStubIsReportedAsStub) {
  const std::string stub = ACCEL_TEST_CUDA_STUB;
  if (stub.empty()) {
    GTEST_SKIP() << "SKIPPED: no CUDA toolkit stub libcuda.so was found at configure time; "
                    "the stub-driver path is NOT tested in this build";
  }
  DriverLibrary::LoadResult loaded = DriverLibrary::load(stub);
  EXPECT_EQ(loaded.library, nullptr);
  EXPECT_TRUE(loaded.is_stub);
  EXPECT_EQ(loaded.reason, "stub driver, no NVIDIA driver installed (" + stub + ")");
}

// A driver older than an entry point's introducing version: the simulated driver answers
// cuGetProcAddress for a newer version with CUDA_ERROR_INVALID_VALUE, as CUDA documents.
TEST(DriverLibraryTest, DriverTooOldForAnEntryPoint) {
  mockdev::MachineSpec machine = mockdev::load_machine("1xa100");
  machine.driver_version = 11000;  // cuDeviceGetUuid_v2 needs 11040
  mockdev::control::reset(machine);
  DriverLibrary::LoadResult loaded = DriverLibrary::load(mock_driver());
  EXPECT_EQ(loaded.library, nullptr);
  EXPECT_EQ(loaded.reason, "the CUDA driver '" + mock_driver() +
                               "' failed to resolve cuDeviceGetUuid at version 11040: "
                               "cuGetProcAddress_v2 returned CUDA_ERROR_INVALID_VALUE (1)");
}

struct FakeDriver {
  explicit FakeDriver(const char* mode, const char* variable = "ACCEL_TEST_FAKE_DRIVER_V2")
      : path(env(variable)) {
    setenv("FAKE_CUDA_MODE", mode, 1);
  }
  ~FakeDriver() { unsetenv("FAKE_CUDA_MODE"); }
  std::string path;
};

TEST(DriverLibraryTest, FakeDriverLoadsWithTheV2Resolver) {
  FakeDriver fake("ok");
  ASSERT_FALSE(fake.path.empty()) << "ACCEL_TEST_FAKE_DRIVER_V2 must be set by ctest";
  DriverLibrary::LoadResult loaded = DriverLibrary::load(fake.path);
  ASSERT_NE(loaded.library, nullptr) << loaded.reason;
  EXPECT_EQ(loaded.library->resolver(), "cuGetProcAddress_v2");
  EXPECT_EQ(loaded.library->driver_version(), 12080);
}

TEST(DriverLibraryTest, FallsBackToTheLegacyResolver) {
  FakeDriver fake("ok", "ACCEL_TEST_FAKE_DRIVER_LEGACY");
  ASSERT_FALSE(fake.path.empty()) << "ACCEL_TEST_FAKE_DRIVER_LEGACY must be set by ctest";
  DriverLibrary::LoadResult loaded = DriverLibrary::load(fake.path);
  ASSERT_NE(loaded.library, nullptr) << loaded.reason;
  EXPECT_EQ(loaded.library->resolver(), "cuGetProcAddress");
  EXPECT_EQ(loaded.library->driver_version(), 12080);
}

TEST(DriverLibraryTest, VersionNotSufficientNamesSymbolAndVersion) {
  FakeDriver fake("version_not_sufficient");
  DriverLibrary::LoadResult loaded = DriverLibrary::load(fake.path);
  EXPECT_EQ(loaded.library, nullptr);
  EXPECT_EQ(loaded.reason, "the CUDA driver '" + fake.path +
                               "' lacks cuDeviceGetUuid at version 11040 "
                               "(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)");
}

TEST(DriverLibraryTest, SuccessWithANullPointerIsAMissingSymbol) {
  FakeDriver fake("null_pfn");
  DriverLibrary::LoadResult loaded = DriverLibrary::load(fake.path);
  EXPECT_EQ(loaded.library, nullptr);
  EXPECT_EQ(loaded.reason, "the CUDA driver '" + fake.path +
                               "' lacks cuMemGetInfo at version 3020 "
                               "(CU_GET_PROC_ADDRESS_SUCCESS)");
}

TEST(DriverLibraryTest, ResolverErrorNamesTheCode) {
  FakeDriver fake("resolver_error");
  DriverLibrary::LoadResult loaded = DriverLibrary::load(fake.path);
  EXPECT_EQ(loaded.library, nullptr);
  EXPECT_EQ(loaded.reason, "the CUDA driver '" + fake.path +
                               "' failed to resolve cuCtxSynchronize at version 2000: "
                               "cuGetProcAddress_v2 returned CUDA_ERROR_INVALID_VALUE (1)");
}

TEST(DriverLibraryTest, StubAnswerFromDriverGetVersion) {
  FakeDriver fake("stub_version");
  DriverLibrary::LoadResult loaded = DriverLibrary::load(fake.path);
  EXPECT_EQ(loaded.library, nullptr);
  EXPECT_TRUE(loaded.is_stub);
  EXPECT_EQ(loaded.reason, "stub driver, no NVIDIA driver installed (" + fake.path + ")");
}

TEST(NvmlLibraryTest, CountsAndIdentifiesTheSimulatedGpus) {
  NvmlLibrary::LoadResult loaded = NvmlLibrary::load(env("ACCEL_NVML_LIBRARY"));
  ASSERT_NE(loaded.library, nullptr) << loaded.reason;
  Result<int> count = loaded.library->device_count();
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(*count, 4);
  Result<std::vector<std::string>> uuids = loaded.library->device_uuids();
  ASSERT_TRUE(uuids.ok()) << uuids.status().message();
  mockdev::MachineSpec machine = mockdev::control::machine();
  ASSERT_EQ(uuids->size(), machine.devices.size());
  for (std::size_t i = 0; i < machine.devices.size(); ++i) {
    EXPECT_EQ((*uuids)[i], machine.devices[i].uuid);
  }
  EXPECT_EQ(mockdev::control::call_count("nvmlInit_v2"), 1u);  // once per process
  EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u);
}

TEST(NvmlLibraryTest, MissingFileNamesThePath) {
  const std::string path = ACCEL_TEST_MISSING_DRIVER;
  NvmlLibrary::LoadResult loaded = NvmlLibrary::load(path);
  EXPECT_EQ(loaded.library, nullptr);
  EXPECT_EQ(loaded.reason.rfind("cannot load NVML '" + path + "': ", 0), 0u) << loaded.reason;
}

TEST(NvmlLibraryTest, InitFailureIsReported) {
  mockdev::MachineSpec machine = mockdev::load_machine("4xh100");
  machine.faults.nvml_init_error = 9;  // NVML_ERROR_DRIVER_NOT_LOADED
  mockdev::control::reset(machine);
  NvmlLibrary::LoadResult loaded = NvmlLibrary::load(env("ACCEL_NVML_LIBRARY"));
  ASSERT_NE(loaded.library, nullptr) << loaded.reason;
  Result<int> count = loaded.library->device_count();
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(count.status().message().find("nvmlInit_v2: "), std::string::npos)
      << count.status().message();
  EXPECT_NE(count.status().message().find("code=NVML_ERROR_DRIVER_NOT_LOADED"), std::string::npos)
      << count.status().message();
}

// Any other NVML failure comes from an NVML that is there and does not work: kDriver, with
// the code in the detail (Note [A broken NVML is not "nothing installed"]).
TEST(NvmlLibraryTest, AnyOtherInitFailureIsADriverError) {
  mockdev::MachineSpec machine = mockdev::load_machine("4xh100");
  machine.faults.nvml_init_error = 999;  // NVML_ERROR_UNKNOWN
  mockdev::control::reset(machine);
  NvmlLibrary::LoadResult loaded = NvmlLibrary::load(env("ACCEL_NVML_LIBRARY"));
  ASSERT_NE(loaded.library, nullptr) << loaded.reason;
  Result<int> count = loaded.library->device_count();
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().kind(), ErrorKind::kDriver);
  EXPECT_EQ(count.status().message(), "nvmlInit_v2: Unknown Error (nvml=" +
                                          env("ACCEL_NVML_LIBRARY") + ", code=NVML_ERROR_UNKNOWN)");
  EXPECT_EQ(count.status().detail().driver_error_name, "NVML_ERROR_UNKNOWN");
  EXPECT_EQ(loaded.library->check_usable().message(), count.status().message());
}

}  // namespace
}  // namespace accel::detail::cuda
