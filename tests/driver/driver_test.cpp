#include "driver_test.h"

#include <cstdlib>

namespace accel::driver_test {
namespace {

std::string_view profile() {
  const char* p = std::getenv("ACCEL_DRIVER_PROFILE");
  return p != nullptr && *p != '\0' ? std::string_view(p) : std::string_view("cuda_mock");
}

std::string driver_file() {
  if (profile() == "cuda_mock") return ACCEL_DRIVER_TEST_MOCK_CUDA;
  const char* file = std::getenv("ACCEL_CUDA_DRIVER");
  return file != nullptr && *file != '\0' ? file : "libcuda.so.1";
}

struct Loaded {
  test::CudaEntryPoints cu;
  test::LoadReport report;
};

const Loaded& loaded() {
  static const Loaded* once = [] {
    auto* l = new Loaded;  // never freed: the driver outlives every test
    l->report = test::load_cuda_entry_points(driver_file(), l->cu);
    return l;
  }();
  return *once;
}

}  // namespace

const test::CudaEntryPoints& DriverTest::cu() { return loaded().cu; }
bool DriverTest::on_mock() { return profile() == "cuda_mock"; }

std::string name_of(CUresult rc) {
  const char* name = result_name(static_cast<int>(rc));
  return name != nullptr ? name : "CUresult " + std::to_string(static_cast<int>(rc));
}

std::string DriverTest::missing(std::initializer_list<std::string_view> symbols) {
  return loaded().report.missing_of(symbols);
}

void DriverTest::SetUp() {
  const std::string_view p = profile();
  if (p != "cuda_mock" && p != "cuda_real") {
    FAIL() << "ACCEL_DRIVER_PROFILE='" << p << "' is not a profile (known: cuda_mock, cuda_real)";
  }
  const Loaded& l = loaded();
  if (!l.report.opened() || cu().cuInit == nullptr || cu().cuDeviceGetCount == nullptr) {
    if (on_mock()) FAIL() << l.report.describe();
    GTEST_SKIP() << "no real CUDA device: driver conformance did not run ("
                 << (l.report.opened() ? "no cuInit" : l.report.open_error) << ")";
  }
  const CUresult init = cu().cuInit(0);
  if (init != CUDA_SUCCESS || cu().cuDeviceGetCount(&device_count) != CUDA_SUCCESS ||
      device_count == 0) {
    if (on_mock()) FAIL() << "the simulated driver did not initialise: " << name_of(init);
    GTEST_SKIP() << "no real CUDA device: driver conformance did not run (cuInit: "
                 << name_of(init) << ")";
  }
  ASSERT_EQ(name_of(cu().cuDeviceGet(&device, 0)), name_of(CUDA_SUCCESS));
  ASSERT_EQ(name_of(cu().cuDevicePrimaryCtxRetain(&primary, device)), name_of(CUDA_SUCCESS));
  ASSERT_EQ(name_of(cu().cuCtxSetCurrent(primary)), name_of(CUDA_SUCCESS));
}

void DriverTest::TearDown() {
  if (primary != nullptr) {
    cu().cuCtxSynchronize();
    cu().cuCtxSetCurrent(nullptr);
    cu().cuDevicePrimaryCtxRelease_v2(device);
  }
}

}  // namespace accel::driver_test
