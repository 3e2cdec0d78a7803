// Conformance: malformed or unusable environment values never crash; device counts
// answer 0 (or what still can be known) and device calls throw accel::Error naming the
// value. Each case runs in a child of a process that never touched the runtime, because
// the runtime reads ACCEL_BACKEND / ACCEL_CUDA_DRIVER / ACCEL_NVML_LIBRARY and the
// simulated machine reads MOCKDEV_MACHINE once, at first use.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "accel/accel.h"
#include "child_process.h"
#include "error_check.h"
#include "mockdev/control.h"

namespace accel::test {
namespace {

constexpr const char* kMissingLibrary = "/nonexistent/accel-test/libmissing.so.1";

// The parent must not call the runtime at all (not even is_initialized(): the first call
// selects the backend from the environment), so the child's setenv is seen.
void run_case(const std::function<void()>& body) {
  const ChildStatus child = run_in_child(body, 20);
  EXPECT_TRUE(child.ok()) << "child " << child.describe();
}

TEST(BadEnvironment, UnknownBackendNameIsAConfigError) {
  run_case([] {
    setenv("ACCEL_BACKEND", "bogus", 1);
    const std::string message =
        "ACCEL_BACKEND: unknown backend 'bogus' (compiled backends: cuda; or 'none')";
    EXPECT_EQ(device_count(), 0);
    EXPECT_FALSE(is_available());
    EXPECT_TRUE(is_error(catch_error([] { current_accelerator(); }), ErrorKind::kConfig, message));
    EXPECT_TRUE(is_error(catch_error([] { init(); }), ErrorKind::kConfig, message));
    EXPECT_TRUE(is_error(catch_error([] { current_device_index(); }), ErrorKind::kConfig, message));
    set_device_index(-1);  // still a no-op
    EXPECT_FALSE(is_initialized());
    EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u);
  });
}

TEST(BadEnvironment, BackendNoneMeansNoAccelerator) {
  run_case([] {
    setenv("ACCEL_BACKEND", "none", 1);
    EXPECT_EQ(current_accelerator(), std::nullopt);
    EXPECT_EQ(current_accelerator(true), std::nullopt);
    EXPECT_EQ(device_count(), 0);
    EXPECT_FALSE(is_available());
    EXPECT_TRUE(is_error(catch_error([] { current_device_index(); }), ErrorKind::kUnavailable,
                         "Cannot access accelerator device when none is available."));
    EXPECT_TRUE(is_error(catch_error([] { lazy_call([] {}); }), ErrorKind::kUnavailable,
                         "No accelerator is available; lazy_call requires an active accelerator."));
    EXPECT_EQ(backend_report().backend, "none");
    EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u);
  });
}

TEST(BadEnvironment, ExplicitCudaBackendIsTheDefault) {
  run_case([] {
    setenv("ACCEL_BACKEND", "cuda", 1);
    EXPECT_EQ(current_accelerator(), Device(DeviceType::kCUDA));
    EXPECT_EQ(device_count(), 4);
  });
}

TEST(BadEnvironment, MissingDriverFileIsNamed) {
  run_case([] {
    setenv("ACCEL_CUDA_DRIVER", kMissingLibrary, 1);
    // No driver: not available and count 0 (the rule), even though NVML could count.
    EXPECT_EQ(device_count(), 0);
    EXPECT_FALSE(is_available());
    const CaughtError caught = catch_error([] { init(); });
    EXPECT_TRUE(is_error_containing(caught, ErrorKind::kUnavailable, kMissingLibrary));
    EXPECT_FALSE(is_initialized());
    const BackendReport report = backend_report();
    EXPECT_FALSE(report.driver_loaded);
    EXPECT_EQ(report.driver_path, kMissingLibrary);
  });
}

TEST(BadEnvironment, MissingDriverAndNvmlMeansNothingAvailable) {
  run_case([] {
    setenv("ACCEL_CUDA_DRIVER", kMissingLibrary, 1);
    setenv("ACCEL_NVML_LIBRARY", kMissingLibrary, 1);
    EXPECT_EQ(device_count(), 0);
    EXPECT_FALSE(is_available());
    EXPECT_EQ(current_accelerator(true), std::nullopt);
    EXPECT_EQ(current_accelerator(), Device(DeviceType::kCUDA));
    EXPECT_TRUE(is_error_containing(catch_error([] { current_device_index(); }),
                                    ErrorKind::kUnavailable, kMissingLibrary));
    EXPECT_FALSE(backend_report().available);
  });
}

TEST(BadEnvironment, MissingNvmlFallsBackToTheDriverCount) {
  run_case([] {
    setenv("ACCEL_NVML_LIBRARY", kMissingLibrary, 1);
    EXPECT_EQ(device_count(), 4);
    EXPECT_GE(mockdev::control::call_count("cuInit"), 1u)
        << "without NVML the count comes from the driver, which initialises it";
    init();
    EXPECT_EQ(current_device_index(), 0);
  });
}

TEST(BadEnvironment, NonDriverLibraryAsDriverIsRejected) {
  run_case([] {
    // The NVML facade is a real shared library, but not a CUDA driver.
    const char* nvml = std::getenv("ACCEL_NVML_LIBRARY");
    ASSERT_NE(nvml, nullptr) << "ACCEL_NVML_LIBRARY must name the mock NVML (ctest sets it)";
    setenv("ACCEL_CUDA_DRIVER", nvml, 1);
    const CaughtError caught = catch_error([] { init(); });
    EXPECT_TRUE(is_error_containing(caught, ErrorKind::kUnavailable,
                                    "exports neither cuGetProcAddress_v2 nor cuGetProcAddress"));
    EXPECT_FALSE(is_initialized());
  });
}

TEST(BadEnvironment, MalformedMachineLeavesNoDevices) {
  run_case([] {
    setenv("MOCKDEV_MACHINE", "no-such-preset", 1);
    EXPECT_EQ(device_count(), 0);
    EXPECT_FALSE(is_available());
    const CaughtError caught = catch_error([] { init(); });
    EXPECT_EQ(caught.type, "Error") << caught.describe();
    EXPECT_TRUE(caught.kind == ErrorKind::kUnavailable || caught.kind == ErrorKind::kDriver)
        << caught.describe();
    EXPECT_TRUE(mockdev::control::config_error().has_value());
  });
}

TEST(BadEnvironment, ToolkitStubDriverIsReportedAsStub) {
#ifndef ACCEL_CUDA_STUB_DRIVER
  GTEST_SKIP() << "no CUDA toolkit stub libcuda.so found at configure time; the stub case "
                  "is NOT tested in this build";
#else
  run_case([] {
    setenv("ACCEL_CUDA_DRIVER", ACCEL_CUDA_STUB_DRIVER, 1);
    setenv("ACCEL_NVML_LIBRARY", kMissingLibrary, 1);
    EXPECT_EQ(device_count(), 0);
    EXPECT_FALSE(is_available());
    EXPECT_TRUE(is_error_containing(catch_error([] { init(); }), ErrorKind::kUnavailable,
                                    "stub driver, no NVIDIA driver installed"));
    const BackendReport report = backend_report();
    EXPECT_NE(report.unavailable_reason.find("stub driver, no NVIDIA driver installed"),
              std::string::npos)
        << report.unavailable_reason;
  });
#endif
}

}  // namespace
}  // namespace accel::test
