// Conformance: Note [Misconfiguration is an error] (accel/accelerator.h). A value the user
// set that does not work is an error naming the variable and its value, thrown by every
// call that needs the device; is_available() and device_count() answer false / 0 and print
// it once on stderr; nothing installed is the quiet CPU fallback. Each case runs in a child
// of a process that never touched the runtime, because the runtime reads ACCEL_BACKEND /
// ACCEL_CUDA_DRIVER / ACCEL_NVML_LIBRARY / ACCEL_REQUIRE_DEVICES and the simulated machine
// reads MOCKDEV_MACHINE once, at first use.

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "accel/accel.h"
#include "child_process.h"
#include "error_check.h"
#include "mockdev/control.h"

namespace accel::test {
namespace {

constexpr const char* kMissingLibrary = "/nonexistent/accel-test/libmissing.so.1";
constexpr const char* kNoDriverText =
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
    "installed a driver from http://www.nvidia.com/Download/index.aspx";

// The parent must not call the runtime at all (not even is_initialized(): the first call
// selects the backend from the environment), so the child's setenv is seen.
void run_case(const std::function<void()>& body) {
  const ChildStatus child = run_in_child(body, 20);
  EXPECT_TRUE(child.ok()) << "child " << child.describe();
}

// Sends this process's stderr (fd 2) to a temporary file while alive; text() is what was
// written so far. For the child only.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    saved_ = dup(2);
    dup2(fileno(file_), 2);
  }
  ~StderrCapture() {
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    std::fclose(file_);
  }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;

  std::string text() {
    std::fflush(stderr);
    std::string out;
    std::rewind(file_);
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file_)) > 0) out.append(buffer, n);
    std::fseek(file_, 0, SEEK_END);
    return out;
  }

 private:
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

std::size_t occurrences(const std::string& text, const std::string& fragment) {
  std::size_t count = 0;
  for (std::size_t at = text.find(fragment); at != std::string::npos;
       at = text.find(fragment, at + fragment.size())) {
    ++count;
  }
  return count;
}

// The non-throwing queries answer "nothing" and print `message` exactly once however often
// they are asked; every call that needs the device throws it with `kind`.
void expect_misconfiguration(ErrorKind kind, const std::string& message) {
  {
    StderrCapture capture;
    EXPECT_FALSE(is_available());
    EXPECT_EQ(device_count(), 0);
    EXPECT_FALSE(is_available());
    EXPECT_EQ(device_count(), 0);
    const std::string printed = capture.text();
    EXPECT_EQ(occurrences(printed, "accel: warning: " + message + "\n"), 1u) << printed;
    EXPECT_EQ(occurrences(printed, "accel: warning: "), 1u) << printed;
  }
  EXPECT_TRUE(is_error(catch_error([] { current_accelerator(true); }), kind, message));
  EXPECT_TRUE(is_error(catch_error([] { init(); }), kind, message));
  EXPECT_TRUE(is_error(catch_error([] { current_device_index(); }), kind, message));
  EXPECT_TRUE(is_error(catch_error([] { set_device_index(0); }), kind, message));
  EXPECT_TRUE(is_error(catch_error([] { get_device_properties(0); }), kind, message));
  EXPECT_TRUE(is_error(catch_error([] { get_memory_info(0); }), kind, message));
  EXPECT_FALSE(is_initialized());
  const BackendReport report = backend_report();
  EXPECT_EQ(report.config_error, message);
  EXPECT_EQ(report.config_error_kind, kind);
  EXPECT_FALSE(report.available);
}

// What the simulated NVML's refusal of its machine becomes (nvmlInit_v2 answers
// NVML_ERROR_UNKNOWN for a machine the simulation cannot load).
std::string nvml_failure() {
  const char* path = std::getenv("ACCEL_NVML_LIBRARY");
  return "NVML cannot count devices: nvmlInit_v2: Unknown Error (nvml=" +
         std::string(path != nullptr ? path : "") + ", code=NVML_ERROR_UNKNOWN)";
}

// The variables of these cases are CUDA's (its driver files, NVML) and they run on the
// simulated CUDA machine, so the suite is instantiated for the cuda_mock profile only; the
// profile ends every test name, as in the rest of the conformance suite.
class BadEnvironment : public ::testing::TestWithParam<const char*> {};

TEST_P(BadEnvironment, UnknownBackendNameIsAConfigError) {
  run_case([] {
    setenv("ACCEL_BACKEND", "rocm", 1);
    const std::string message =
        "ACCEL_BACKEND: unknown backend 'rocm' (compiled backends: "
        ACCEL_CONFORMANCE_COMPILED_BACKENDS "; or 'none')";
    expect_misconfiguration(ErrorKind::kConfig, message);
    EXPECT_TRUE(is_error(catch_error([] { current_accelerator(); }), ErrorKind::kConfig, message));
    set_device_index(-1);  // still a no-op
    EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u);
  });
}

TEST_P(BadEnvironment, BackendNoneMeansNoAccelerator) {
  run_case([] {
    setenv("ACCEL_BACKEND", "none", 1);
    StderrCapture capture;
    EXPECT_EQ(current_accelerator(), std::nullopt);
    EXPECT_EQ(current_accelerator(true), std::nullopt);
    EXPECT_EQ(device_count(), 0);
    EXPECT_FALSE(is_available());
    EXPECT_TRUE(is_error(catch_error([] { current_device_index(); }), ErrorKind::kUnavailable,
                         "Cannot access accelerator device when none is available."));
    EXPECT_TRUE(is_error(catch_error([] { lazy_call([] {}); }), ErrorKind::kUnavailable,
                         "No accelerator is available; lazy_call requires an active accelerator."));
    EXPECT_EQ(backend_report().backend, "none");
    EXPECT_EQ(backend_report().config_error, "");
    EXPECT_EQ(capture.text(), "") << "choosing no accelerator is not a misconfiguration";
    EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u);
  });
}

TEST_P(BadEnvironment, ExplicitCudaBackendIsTheDefault) {
  run_case([] {
    setenv("ACCEL_BACKEND", "cuda", 1);
    EXPECT_EQ(current_accelerator(), Device(DeviceType::kCUDA));
    EXPECT_EQ(device_count(), 4);
  });
}

TEST_P(BadEnvironment, MissingDriverFileIsAConfigError) {
  run_case([] {
    setenv("ACCEL_CUDA_DRIVER", kMissingLibrary, 1);
    const std::string path = kMissingLibrary;
    expect_misconfiguration(
        ErrorKind::kConfig,
        "ACCEL_CUDA_DRIVER='" + path +
            "' names no usable CUDA driver: cannot load the CUDA driver '" + path + "': " + path +
            ": cannot open shared object file: No such file or directory (set ACCEL_CUDA_DRIVER "
            "to the driver file to use another one)");
    // The variable names the file; the accelerator itself is still CUDA.
    EXPECT_EQ(current_accelerator(), Device(DeviceType::kCUDA));
    const BackendReport report = backend_report();
    ASSERT_FALSE(report.components.empty());
    EXPECT_EQ(report.components[0].role, "driver");
    EXPECT_FALSE(report.components[0].loaded);
    EXPECT_EQ(report.components[0].path, kMissingLibrary);
  });
}

TEST_P(BadEnvironment, MissingNvmlFileIsAConfigError) {
  run_case([] {
    setenv("ACCEL_NVML_LIBRARY", kMissingLibrary, 1);
    const std::string path = kMissingLibrary;
    expect_misconfiguration(
        ErrorKind::kConfig,
        "ACCEL_NVML_LIBRARY='" + path + "' names no usable NVML library: cannot load NVML '" +
            path + "': " + path +
            ": cannot open shared object file: No such file or directory (set ACCEL_NVML_LIBRARY "
            "to use another file)");
    EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u)
        << "the configuration is checked before the driver is initialised";
  });
}

TEST_P(BadEnvironment, NonDriverLibraryAsDriverIsAConfigError) {
  run_case([] {
    // The NVML facade is a real shared library, but not a CUDA driver.
    const char* nvml = std::getenv("ACCEL_NVML_LIBRARY");
    ASSERT_NE(nvml, nullptr) << "ACCEL_NVML_LIBRARY must name the mock NVML (ctest sets it)";
    const std::string path = nvml;
    setenv("ACCEL_CUDA_DRIVER", nvml, 1);
    expect_misconfiguration(ErrorKind::kConfig,
                            "ACCEL_CUDA_DRIVER='" + path +
                                "' names no usable CUDA driver: the CUDA driver '" + path +
                                "' exports neither cuGetProcAddress_v2 nor cuGetProcAddress (not "
                                "a CUDA 11.3+ driver)");
  });
}

TEST_P(BadEnvironment, UnknownMachinePresetIsADriverError) {
  run_case([] {
    setenv("MOCKDEV_MACHINE", "4xh1000", 1);
    // The runtime does not know the simulated driver: it reports what the drivers answered,
    // NVML first (nvmlInit_v2: NVML_ERROR_UNKNOWN: an NVML that is there and fails, Note [A
    // broken NVML is not "nothing installed"]), and the driver printed the cause on stderr.
    expect_misconfiguration(ErrorKind::kDriver, nvml_failure());
    EXPECT_TRUE(mockdev::control::config_error().has_value());
    EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u);
    try {
      init();
      ADD_FAILURE() << "init() returned";
    } catch (const Error& e) {
      EXPECT_EQ(e.driver_code(), 999);
      EXPECT_EQ(e.driver_error_name(), "NVML_ERROR_UNKNOWN");
    }
  });
}

TEST_P(BadEnvironment, InvalidMachineFileIsADriverError) {
  run_case([] {
    char path[] = "/tmp/accel-bad-machine-XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    const std::string yaml = "name: typo\ndevices: [\n";  // unterminated flow sequence
    ASSERT_EQ(write(fd, yaml.data(), yaml.size()), static_cast<ssize_t>(yaml.size()));
    close(fd);
    setenv("MOCKDEV_MACHINE", path, 1);
    expect_misconfiguration(ErrorKind::kDriver, nvml_failure());
    unlink(path);
  });
}

TEST_P(BadEnvironment, ToolkitStubDriverNamedExplicitlyIsAConfigError) {
#ifndef ACCEL_CUDA_STUB_DRIVER
  GTEST_SKIP() << "no CUDA toolkit stub libcuda.so found at configure time; the stub case "
                  "is NOT tested in this build";
#else
  run_case([] {
    setenv("ACCEL_CUDA_DRIVER", ACCEL_CUDA_STUB_DRIVER, 1);
    expect_misconfiguration(ErrorKind::kConfig,
                            "ACCEL_CUDA_DRIVER='" ACCEL_CUDA_STUB_DRIVER
                            "' names no usable CUDA driver: stub driver, no NVIDIA driver "
                            "installed (" ACCEL_CUDA_STUB_DRIVER ")");
  });
#endif
}

// Nothing installed: the variables unset and no libcuda.so.1 on the machine. The CPU
// fallback is legitimate: no message, no error until a device is needed, and then
// PyTorch's text.
TEST_P(BadEnvironment, NothingInstalledIsAQuietCpuFallback) {
  if (void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL); handle != nullptr) {
    GTEST_SKIP() << "a CUDA driver (libcuda.so.1) is installed on this machine; the "
                    "nothing-installed case is NOT tested here";
  }
  run_case([] {
    unsetenv("ACCEL_CUDA_DRIVER");
    unsetenv("ACCEL_NVML_LIBRARY");
    StderrCapture capture;
    EXPECT_EQ(device_count(), 0);
    EXPECT_FALSE(is_available());
    EXPECT_EQ(current_accelerator(true), std::nullopt);
    EXPECT_EQ(current_accelerator(), Device(DeviceType::kCUDA));
    EXPECT_EQ(capture.text(), "");
    const CaughtError caught = catch_error([] { init(); });
    EXPECT_TRUE(is_error_containing(caught, ErrorKind::kUnavailable,
                                    std::string(kNoDriverText) + " (cannot load the CUDA driver "
                                                                 "'libcuda.so.1': "));
    EXPECT_EQ(caught.message.rfind(kNoDriverText, 0), 0u) << caught.describe();
    const BackendReport report = backend_report();
    EXPECT_EQ(report.config_error, "");
    EXPECT_EQ(report.unavailable_reason, caught.message);
  });
}

TEST_P(BadEnvironment, RequireDevicesMetRunsNormally) {
  run_case([] {
    setenv("ACCEL_REQUIRE_DEVICES", "4", 1);
    StderrCapture capture;
    EXPECT_EQ(device_count(), 4);
    EXPECT_EQ(current_accelerator(true), Device(DeviceType::kCUDA));
    init();
    EXPECT_EQ(current_device_index(), 0);
    const BackendReport report = backend_report();
    EXPECT_EQ(report.required_devices, 4);
    EXPECT_EQ(report.config_error, "");
    EXPECT_EQ(capture.text(), "");
  });
}

TEST_P(BadEnvironment, RequireDevicesZeroAsksForNothing) {
  run_case([] {
    setenv("ACCEL_REQUIRE_DEVICES", "0", 1);
    setenv("MOCKDEV_MACHINE", "none", 1);
    StderrCapture capture;
    EXPECT_EQ(device_count(), 0);
    EXPECT_EQ(current_accelerator(true), std::nullopt);
    EXPECT_EQ(capture.text(), "");
  });
}

TEST_P(BadEnvironment, RequireDevicesTooFewIsAConfigError) {
  run_case([] {
    setenv("ACCEL_REQUIRE_DEVICES", "5", 1);
    expect_misconfiguration(ErrorKind::kConfig,
                            "ACCEL_REQUIRE_DEVICES=5: 5 devices required, 4 visible");
  });
}

TEST_P(BadEnvironment, RequireDevicesTooFewSaysWhichAreVisible) {
  run_case([] {
    setenv("ACCEL_REQUIRE_DEVICES", "3", 1);
    setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
    expect_misconfiguration(
        ErrorKind::kConfig,
        "ACCEL_REQUIRE_DEVICES=3: 3 devices required, 2 visible (CUDA_VISIBLE_DEVICES='0,1')");
  });
}

TEST_P(BadEnvironment, RequireDevicesOnAMachineWithoutDevices) {
  run_case([] {
    setenv("ACCEL_REQUIRE_DEVICES", "1", 1);
    setenv("MOCKDEV_MACHINE", "none", 1);
    {
      StderrCapture capture;
      EXPECT_EQ(device_count(), 0);
      EXPECT_EQ(device_count(), 0);
      EXPECT_EQ(capture.text(),
                "accel: warning: ACCEL_REQUIRE_DEVICES=1: 1 device required, 0 visible (no CUDA "
                "device found)\n");
    }
    // Initialisation learns why from the driver.
    EXPECT_TRUE(is_error(catch_error([] { init(); }), ErrorKind::kConfig,
                         "ACCEL_REQUIRE_DEVICES=1: 1 device required, 0 visible (No CUDA GPUs "
                         "are available)"));
  });
}

TEST_P(BadEnvironment, RequireDevicesWithNoAcceleratorSelected) {
  run_case([] {
    setenv("ACCEL_REQUIRE_DEVICES", "1", 1);
    setenv("ACCEL_BACKEND", "none", 1);
    const std::string message =
        "ACCEL_REQUIRE_DEVICES=1: 1 device required, 0 visible (no accelerator selected: "
        "ACCEL_BACKEND=none or no backend compiled)";
    expect_misconfiguration(ErrorKind::kConfig, message);
    EXPECT_TRUE(is_error(catch_error([] { current_accelerator(); }), ErrorKind::kConfig, message));
  });
}

TEST_P(BadEnvironment, RequireDevicesMalformedIsAConfigError) {
  run_case([] {
    setenv("ACCEL_REQUIRE_DEVICES", "two", 1);
    const std::string message =
        "ACCEL_REQUIRE_DEVICES='two': expected the number of devices the program requires (a "
        "whole number from 0 to 1000000, such as 2)";
    expect_misconfiguration(ErrorKind::kConfig, message);
    EXPECT_TRUE(is_error(catch_error([] { current_accelerator(); }), ErrorKind::kConfig, message));
    EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u);
  });
}

INSTANTIATE_TEST_SUITE_P(Conformance, BadEnvironment, ::testing::Values("cuda_mock"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace accel::test
