// The CUDA backend, and the public API over it, on the simulated 4-GPU machine (the ctest
// environment points ACCEL_CUDA_DRIVER / ACCEL_NVML_LIBRARY at mockdev's facades). Each
// test runs in its own process (one ctest entry per test), so "never initialised" holds at
// the start of every test.
#include "backends/cuda/cuda_backend.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "accel/accel.h"
#include "backends/cuda/cuda_device_facts.h"
#include "core/backend_override.h"
#include "core/backend_registry.h"
#include "mockdev/control.h"
#include "mockdev/machine.h"

namespace accel::detail::cuda {
namespace {

constexpr std::size_t kGiB = std::size_t{1} << 30;

class CvdScope {
 public:
  explicit CvdScope(std::optional<std::string> value) {
    if (value) {
      setenv("CUDA_VISIBLE_DEVICES", value->c_str(), 1);
    } else {
      unsetenv("CUDA_VISIBLE_DEVICES");
    }
  }
  ~CvdScope() { unsetenv("CUDA_VISIBLE_DEVICES"); }
};

std::uint64_t cu_init_calls() { return mockdev::control::call_count("cuInit"); }

TEST(CudaBackendTest, ForkSafeCountUsesNvmlAndNeverInitialisesTheDriver) {
  auto backend = create_cuda_backend();
  EXPECT_EQ(backend->type(), DeviceType::kCUDA);
  EXPECT_EQ(backend->name(), "cuda");
  EXPECT_EQ(backend->fork_safe_device_count(), 4);
  EXPECT_EQ(cu_init_calls(), 0u);
  EXPECT_GE(mockdev::control::call_count("nvmlDeviceGetCount_v2"), 1u);
}

// CUDA_VISIBLE_DEVICES applied to NVML's list, each value read at call time.
TEST(CudaBackendTest, ForkSafeCountAppliesVisibleDevices) {
  auto backend = create_cuda_backend();
  std::string uuid2 = mockdev::control::machine().devices[2].uuid;
  std::string uuid0 = mockdev::control::machine().devices[0].uuid;
  struct Case {
    std::optional<std::string> value;
    int expected;
  };
  const Case cases[] = {
      {std::nullopt, 4},
      {"1,0", 2},
      {"1, 5, 0", 1},  // truncated at the first ordinal NVML does not have
      {"", 0},
      {"0,0", 0},  // duplicate: nothing visible
      {"3,2,1,0", 4},
      {"-1", 0},
      {"7", 0},
      {uuid2.substr(0, 12), 1},
      {uuid2 + "," + uuid0, 2},
      {"GPU-zzzz", 0},  // an unknown prefix ends the list at once
      {uuid2 + "," + uuid2, 0},
      {"MIG-12345678", -1},  // NVML cannot resolve MIG: the caller falls back
  };
  for (const Case& c : cases) {
    CvdScope scope(c.value);
    EXPECT_EQ(backend->fork_safe_device_count(), c.expected)
        << "CUDA_VISIBLE_DEVICES=" << c.value.value_or("<unset>");
  }
  EXPECT_EQ(cu_init_calls(), 0u);
}

TEST(CudaBackendTest, DriverCountInitialisesTheDriver) {
  auto backend = create_cuda_backend();
  Result<int> count = backend->driver_device_count();
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(*count, 4);
  EXPECT_EQ(cu_init_calls(), 1u);
  EXPECT_TRUE(mockdev::control::driver_initialized());
}

TEST(CudaBackendTest, PropertiesMatchTheMachine) {
  auto backend = create_cuda_backend();
  ASSERT_TRUE(backend->initialize().ok());
  ASSERT_TRUE(backend->initialize().ok());  // idempotent
  EXPECT_EQ(backend->device_count(), 4);
  mockdev::MachineSpec machine = mockdev::control::machine();
  for (int i = 0; i < 4; ++i) {
    Result<DeviceProperties> properties = backend->device_properties(i);
    ASSERT_TRUE(properties.ok()) << properties.status().message();
    EXPECT_EQ(properties->name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(properties->major, 9);
    EXPECT_EQ(properties->minor, 0);
    EXPECT_EQ(properties->multi_processor_count, 132);
    EXPECT_EQ(properties->total_memory_bytes, 80 * kGiB);
    EXPECT_EQ(properties->uuid, machine.devices[i].uuid);
    EXPECT_EQ(properties->pci_bus_id, machine.devices[i].pci_bus_id);  // "00000000:1i:00.0"
    EXPECT_EQ(properties->mig_enabled, std::optional<bool>(false));
  }
  // Properties need no context.
  EXPECT_EQ(mockdev::control::live_objects().primary_contexts_active, 0u);
}

// CUDA_VISIBLE_DEVICES reorders the devices: bus ids and MIG modes follow the UUID, not
// NVML's order.
TEST(CudaBackendTest, PciBusIdAndMigModeFollowCudaVisibleDevices) {
  mockdev::control::reset(mockdev::parse_machine(
      "name: p\ndevices:\n"
      "  - {name: a, memory: 1GiB, compute_capability: '9.0', multiprocessors: 1,\n"
      "     pci_bus_id: 00000000:1b:00.0}\n"
      "  - {name: b, memory: 1GiB, compute_capability: '9.0', multiprocessors: 1,\n"
      "     pci_bus_id: 0001A2B3:C4:1F.3,\n"
      "     mig_uuid: MIG-7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d}\n"
      "  - {name: c, memory: 1GiB, compute_capability: '9.0', multiprocessors: 1}\n",
      "p.yaml"));
  CvdScope cvd("1,2,0");
  auto backend = create_cuda_backend();
  ASSERT_TRUE(backend->initialize().ok());
  ASSERT_EQ(backend->device_count(), 3);
  struct Expected {
    const char* name;
    const char* pci_bus_id;
    bool mig;
  };
  const Expected expected[] = {{"b", "0001A2B3:C4:1F.3", true},
                               {"c", "00000000:12:00.0", false},
                               {"a", "00000000:1B:00.0", false}};
  for (int i = 0; i < 3; ++i) {
    Result<DeviceProperties> properties = backend->device_properties(i);
    ASSERT_TRUE(properties.ok()) << properties.status().message();
    EXPECT_EQ(properties->name, expected[i].name);
    EXPECT_EQ(properties->pci_bus_id, expected[i].pci_bus_id) << "device " << i;
    EXPECT_EQ(properties->mig_enabled, std::optional<bool>(expected[i].mig)) << "device " << i;
  }
  EXPECT_GE(mockdev::control::call_count("nvmlDeviceGetHandleByUUID"), 3u);
}

// Without NVML the MIG mode and the driver's release are unknown, never an error; the bus id
// comes from the driver.
TEST(CudaBackendTest, WithoutNvmlMigModeAndReleaseAreUnknown) {
  auto backend = create_cuda_backend(CudaBackendPaths{std::nullopt, ACCEL_TEST_MISSING_DRIVER});
  ASSERT_TRUE(backend->initialize().ok());
  Result<DeviceProperties> properties = backend->device_properties(2);
  ASSERT_TRUE(properties.ok()) << properties.status().message();
  EXPECT_EQ(properties->pci_bus_id, "00000000:12:00.0");
  EXPECT_EQ(properties->mig_enabled, std::nullopt);
  EXPECT_EQ(backend->report().driver_release, "");
}

// NVML that cannot answer for a device (here: the query faults) leaves the mode unknown.
TEST(CudaBackendTest, MigModeQueryFailureIsUnknown) {
  mockdev::control::reset(mockdev::parse_machine(
      "name: f\ndevices:\n"
      "  - {name: a, memory: 1GiB, compute_capability: '9.0', multiprocessors: 1}\n"
      "faults:\n  calls:\n"
      "    - {entry: nvmlDeviceGetMigMode, nth: 1, code: NVML_ERROR_NOT_SUPPORTED}\n",
      "f.yaml"));
  auto backend = create_cuda_backend();
  ASSERT_TRUE(backend->initialize().ok());
  Result<DeviceProperties> first = backend->device_properties(0);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->mig_enabled, std::nullopt);
  Result<DeviceProperties> second = backend->device_properties(0);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->mig_enabled, std::optional<bool>(false));
}

TEST(CudaBackendTest, FormatsPciBusIdsAsNvidiaSmi) {
  EXPECT_EQ(format_pci_bus_id("0000:1b:00.0"), "00000000:1B:00.0");
  EXPECT_EQ(format_pci_bus_id("0000:00:06.0"), "00000000:00:06.0");
  EXPECT_EQ(format_pci_bus_id("00000000:3b:00.0"), "00000000:3B:00.0");
  EXPECT_EQ(format_pci_bus_id("1a2b3:c4:1f.3"), "0001A2B3:C4:1F.3");
  EXPECT_EQ(format_pci_bus_id("nonsense"), "NONSENSE");
}

TEST(CudaBackendTest, MemoryInfoUsesTheDevicesContextAndSwitchesBack) {
  auto backend = create_cuda_backend();
  ASSERT_TRUE(backend->initialize().ok());
  ASSERT_TRUE(backend->set_device(1).ok());
  Result<MemoryInfo> info = backend->memory_info(2);
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->total_bytes, 80 * kGiB);
  EXPECT_EQ(info->free_bytes, 80 * kGiB - mockdev::control::used_bytes(2));
  Result<int> current = backend->current_device();
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(*current, 1);
  EXPECT_EQ(mockdev::control::live_objects().primary_contexts_active, 2u);  // devices 1 and 2
  EXPECT_TRUE(backend->synchronize_device(3).ok());
  EXPECT_EQ(*backend->current_device(), 1);
}

TEST(CudaBackendTest, SetAndMaybeSetDevice) {
  auto backend = create_cuda_backend();
  ASSERT_TRUE(backend->initialize().ok());
  EXPECT_EQ(*backend->current_device(), 0);        // no context yet: device 0
  ASSERT_TRUE(backend->maybe_set_device(2).ok());  // no context on 2: only a target
  EXPECT_EQ(*backend->current_device(), 2);
  EXPECT_EQ(mockdev::control::live_objects().primary_contexts_active, 0u);
  ASSERT_TRUE(backend->set_device(3).ok());  // creates 3's context, clears the target
  EXPECT_EQ(*backend->current_device(), 3);
  EXPECT_EQ(mockdev::control::live_objects().primary_contexts_active, 1u);
  ASSERT_TRUE(backend->maybe_set_device(3).ok());  // active: a real switch
  ASSERT_TRUE(backend->set_device(0).ok());
  ASSERT_TRUE(backend->maybe_set_device(3).ok());
  EXPECT_EQ(*backend->current_device(), 3);
  EXPECT_EQ(mockdev::control::live_objects().primary_contexts_active, 2u);
}

TEST(CudaBackendTest, DriverErrorsCarryOperationDeviceAndName) {
  auto backend = create_cuda_backend();
  ASSERT_TRUE(backend->initialize().ok());
  mockdev::control::fail_call("cuMemGetInfo_v2", 1, 2);  // CUDA_ERROR_OUT_OF_MEMORY
  Result<MemoryInfo> info = backend->memory_info(0);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().kind(), ErrorKind::kOutOfMemory);
  EXPECT_EQ(info.status().message(),
            "memory_info: cuMemGetInfo: CUDA error: out of memory (device=0, "
            "driver=CUDA_ERROR_OUT_OF_MEMORY)");
  EXPECT_EQ(info.status().detail().device, 0);
  EXPECT_EQ(info.status().detail().driver_code, 2);
  EXPECT_EQ(info.status().detail().driver_error_name, "CUDA_ERROR_OUT_OF_MEMORY");
}

TEST(CudaBackendTest, NoDevicesMachine) {
  mockdev::control::reset(mockdev::load_machine("none"));
  auto backend = create_cuda_backend();
  EXPECT_EQ(backend->fork_safe_device_count(), 0);
  Result<int> count = backend->driver_device_count();
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 0);
  Status status = backend->initialize();
  EXPECT_EQ(status.kind(), ErrorKind::kUnavailable);
  EXPECT_EQ(status.message(), "No CUDA GPUs are available");
}

TEST(CudaBackendTest, MissingDriverMeansNoDevice) {
  auto backend = create_cuda_backend(CudaBackendPaths{ACCEL_TEST_MISSING_DRIVER, std::nullopt});
  EXPECT_EQ(backend->fork_safe_device_count(), 0);
  Result<int> count = backend->driver_device_count();
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 0);
  // A path chosen by code (not the user's ACCEL_CUDA_DRIVER) that is absent is "nothing
  // installed": no configuration error, and PyTorch's text with the reason.
  EXPECT_TRUE(backend->configuration_status().ok());
  Status status = backend->initialize();
  EXPECT_EQ(status.kind(), ErrorKind::kUnavailable);
  EXPECT_EQ(status.message(),
            "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
            "installed a driver from http://www.nvidia.com/Download/index.aspx (cannot load the "
            "CUDA driver '" ACCEL_TEST_MISSING_DRIVER "': " ACCEL_TEST_MISSING_DRIVER
            ": cannot open shared object file: No such file or directory (set ACCEL_CUDA_DRIVER "
            "to the driver file to use another one))");
  BackendReport report = backend->report();
  ASSERT_EQ(report.components.size(), 2u);
  EXPECT_EQ(report.components[0].role, "driver");
  EXPECT_EQ(report.components[0].path, ACCEL_TEST_MISSING_DRIVER);
  EXPECT_FALSE(report.components[0].loaded);
  EXPECT_EQ(report.components[0].version, "");
  EXPECT_FALSE(report.available);
  EXPECT_EQ(report.count_source, "none");
  EXPECT_EQ(report.unavailable_reason, status.message());
  EXPECT_EQ(report.config_error, "");
}

// The same file named by the user through ACCEL_CUDA_DRIVER is a configuration error.
TEST(CudaBackendTest, MissingDriverNamedByTheVariableIsAConfigError) {
  setenv("ACCEL_CUDA_DRIVER", ACCEL_TEST_MISSING_DRIVER, 1);
  auto backend = create_cuda_backend();
  const std::string message =
      "ACCEL_CUDA_DRIVER='" ACCEL_TEST_MISSING_DRIVER
      "' names no usable CUDA driver: cannot load the CUDA driver '" ACCEL_TEST_MISSING_DRIVER
      "': " ACCEL_TEST_MISSING_DRIVER
      ": cannot open shared object file: No such file or directory (set ACCEL_CUDA_DRIVER to "
      "the driver file to use another one)";
  Status configuration = backend->configuration_status();
  EXPECT_EQ(configuration.kind(), ErrorKind::kConfig);
  EXPECT_EQ(configuration.message(), message);
  Status status = backend->initialize();
  EXPECT_EQ(status.kind(), ErrorKind::kConfig);
  EXPECT_EQ(status.message(), message);
  BackendReport report = backend->report();
  EXPECT_EQ(report.config_error, message);
  EXPECT_EQ(report.config_error_kind, ErrorKind::kConfig);
  EXPECT_EQ(cu_init_calls(), 0u);
}

// An empty variable counts as unset: the default name is used (and is no user error).
TEST(CudaBackendTest, EmptyDriverVariableMeansTheDefault) {
  setenv("ACCEL_CUDA_DRIVER", "", 1);
  auto backend = create_cuda_backend(CudaBackendPaths{std::nullopt, std::nullopt});
  BackendReport report = backend->report();
  EXPECT_EQ(report.components[0].path, "libcuda.so.1");
  Status configuration = backend->configuration_status();
  EXPECT_NE(configuration.kind(), ErrorKind::kConfig) << configuration.message();
}

// NVML absent where code chose the file (not the user's ACCEL_NVML_LIBRARY): the count falls
// back to the driver, which initialises it, and nothing is reported as misconfigured.
TEST(CudaBackendTest, MissingNvmlChosenByCodeFallsBackToTheDriverCount) {
  auto backend = create_cuda_backend(CudaBackendPaths{std::nullopt, ACCEL_TEST_MISSING_DRIVER});
  EXPECT_TRUE(backend->configuration_status().ok());
  EXPECT_EQ(backend->fork_safe_device_count(), -1);
  Result<int> count = backend->driver_device_count();
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(*count, 4);
  EXPECT_EQ(cu_init_calls(), 1u);
  EXPECT_TRUE(backend->initialize().ok());
}

// Note [A broken NVML is not "nothing installed"]: an NVML that loads and fails (here the
// simulated one with an init fault, as when it refuses its machine) breaks the backend's
// configuration: kDriver with NVML's code, from configuration_status(), initialize() and
// the report, without initialising the driver.
TEST(CudaBackendTest, FailingNvmlIsADriverErrorNotACpuFallback) {
  mockdev::MachineSpec machine = mockdev::load_machine("4xh100");
  machine.faults.nvml_init_error = 999;  // NVML_ERROR_UNKNOWN
  mockdev::control::reset(machine);
  auto backend = create_cuda_backend();
  const std::string message =
      "NVML cannot count devices: nvmlInit_v2: Unknown Error (nvml=" +
      std::string(std::getenv("ACCEL_NVML_LIBRARY")) + ", code=NVML_ERROR_UNKNOWN)";
  Status configuration = backend->configuration_status();
  EXPECT_EQ(configuration.kind(), ErrorKind::kDriver);
  EXPECT_EQ(configuration.message(), message);
  EXPECT_EQ(configuration.detail().driver_error_name, "NVML_ERROR_UNKNOWN");
  EXPECT_EQ(configuration.detail().driver_code, 999);
  Status status = backend->initialize();
  EXPECT_EQ(status.kind(), ErrorKind::kDriver);
  EXPECT_EQ(status.message(), message);
  BackendReport report = backend->report();
  EXPECT_EQ(report.config_error, message);
  EXPECT_EQ(report.config_error_kind, ErrorKind::kDriver);
  EXPECT_FALSE(report.available);
  EXPECT_EQ(report.unavailable_reason, message);
  EXPECT_EQ(report.count_source, "none");
  EXPECT_EQ(cu_init_calls(), 0u);
}

// NVML_ERROR_DRIVER_NOT_LOADED is "no kernel driver": not a configuration error by itself;
// the count falls back to the driver, which says what it says.
TEST(CudaBackendTest, NvmlWithoutAKernelDriverFallsBackToTheDriverCount) {
  mockdev::MachineSpec machine = mockdev::load_machine("4xh100");
  machine.faults.nvml_init_error = 9;  // NVML_ERROR_DRIVER_NOT_LOADED
  mockdev::control::reset(machine);
  auto backend = create_cuda_backend();
  EXPECT_TRUE(backend->configuration_status().ok());
  EXPECT_EQ(backend->fork_safe_device_count(), -1);
  Result<int> count = backend->driver_device_count();
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(*count, 4);
}

// A driver whose cuInit failed is broken until a retry succeeds: the remembered failure is
// the configuration's state (so is_available() answers false with its text), initialize()
// tries cuInit again, and a retry that works clears it.
TEST(CudaBackendTest, AFailedInitIsTheConfigurationUntilARetryWorks) {
  mockdev::MachineSpec machine = mockdev::load_machine("4xh100");
  machine.faults.driver_init_error = 999;  // CUDA_ERROR_UNKNOWN
  mockdev::control::reset(machine);
  auto backend = create_cuda_backend();
  EXPECT_TRUE(backend->configuration_status().ok());
  EXPECT_EQ(backend->fork_safe_device_count(), 4);  // NVML works
  Status first = backend->initialize();
  EXPECT_EQ(first.kind(), ErrorKind::kDriver);
  EXPECT_EQ(first.detail().driver_error_name, "CUDA_ERROR_UNKNOWN");
  Status configuration = backend->configuration_status();
  EXPECT_EQ(configuration.kind(), ErrorKind::kDriver);
  EXPECT_EQ(configuration.message(), first.message());
  EXPECT_EQ(backend->initialize().message(), first.message());
  EXPECT_EQ(cu_init_calls(), 2u);
  BackendReport report = backend->report();
  EXPECT_EQ(report.config_error, first.message());
  EXPECT_FALSE(report.available);
  mockdev::control::clear_faults();
  ASSERT_TRUE(backend->initialize().ok());
  EXPECT_TRUE(backend->configuration_status().ok());
  EXPECT_TRUE(backend->report().available);
}

// Note [Bounded readers]: a driver or NVML path naming a FIFO is refused at once (dlopen
// would wait for a writer forever), named as what it is.
TEST(CudaBackendTest, DriverPathsNamingAFifoAreRefusedWithoutBlocking) {
  char pattern[] = "/tmp/accel_fifo_XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string fifo = std::string(pattern) + "/libcuda.so.1";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  setenv("ACCEL_CUDA_DRIVER", fifo.c_str(), 1);
  auto backend = create_cuda_backend();
  Status configuration = backend->configuration_status();
  EXPECT_EQ(configuration.kind(), ErrorKind::kConfig);
  EXPECT_EQ(configuration.message(),
            "ACCEL_CUDA_DRIVER='" + fifo + "' names no usable CUDA driver: cannot load the CUDA "
            "driver '" + fifo + "': is a FIFO (named pipe), not a regular file (set "
            "ACCEL_CUDA_DRIVER to the driver file to use another one)");
  unsetenv("ACCEL_CUDA_DRIVER");
  setenv("ACCEL_NVML_LIBRARY", fifo.c_str(), 1);
  auto second = create_cuda_backend();
  EXPECT_EQ(second->configuration_status().message(),
            "ACCEL_NVML_LIBRARY='" + fifo + "' names no usable NVML library: cannot load NVML '" +
                fifo + "': is a FIFO (named pipe), not a regular file (set ACCEL_NVML_LIBRARY to "
                "use another file)");
  unlink(fifo.c_str());
  rmdir(pattern);
}

TEST(CudaBackendTest, VisibilityFilterNamesCudaVisibleDevices) {
  auto backend = create_cuda_backend();
  {
    CvdScope cvd(std::nullopt);
    EXPECT_EQ(backend->visibility_filter(), "");
  }
  CvdScope cvd("1,0");
  EXPECT_EQ(backend->visibility_filter(), "CUDA_VISIBLE_DEVICES='1,0'");
}

TEST(CudaBackendTest, ReportOnTheSimulatedMachine) {
  auto backend = create_cuda_backend();
  BackendReport report = backend->report();
  ASSERT_EQ(report.components.size(), 2u);
  EXPECT_EQ(report.components[0].role, "driver");
  EXPECT_EQ(report.components[0].path, std::getenv("ACCEL_CUDA_DRIVER"));
  EXPECT_TRUE(report.components[0].loaded);
  EXPECT_EQ(report.components[0].version, "13.0");
  EXPECT_EQ(report.components[1].role, "nvml");
  EXPECT_EQ(report.components[1].path, std::getenv("ACCEL_NVML_LIBRARY"));
  EXPECT_TRUE(report.components[1].loaded);
  EXPECT_EQ(report.components[1].version, "");
  EXPECT_EQ(report.count_source, "nvml");
  EXPECT_EQ(report.device_count, 4);
  EXPECT_TRUE(report.available);
  EXPECT_EQ(report.unavailable_reason, "");
  EXPECT_EQ(report.driver_release, "mock-13.0");  // nvmlSystemGetDriverVersion
  EXPECT_EQ(cu_init_calls(), 0u);
}

TEST(CudaBackendTest, FormatsItsOwnDriverVersion) {
  EXPECT_EQ(format_driver_version(13000), "13.0");
  EXPECT_EQ(format_driver_version(12040), "12.4");
  EXPECT_EQ(format_driver_version(11080), "11.8");
  EXPECT_EQ(format_driver_version(0), "");
}

// The generated registry table lists the CUDA backend and creates it by name.
// cuda comes first in ACCEL_BACKENDS (so it is chosen when both backends see devices);
// the rest of the list depends on what this build found (xpu needs the Level Zero headers).
TEST(CudaBackendTest, RegisteredInTheGeneratedTable) {
  const std::vector<std::string> names = compiled_backend_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "cuda");
  std::string listed;
  for (const std::string& name : names) listed += (listed.empty() ? "" : ", ") + name;
  Result<std::unique_ptr<Backend>> created = create_backend("cuda");
  ASSERT_TRUE(created.ok());
  EXPECT_EQ((*created)->name(), "cuda");
  Result<std::unique_ptr<Backend>> missing = create_backend("level_zero");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kConfig);
  EXPECT_EQ(missing.status().message(),
            "create_backend: backend 'level_zero' is not compiled in (compiled backends: " +
                listed + ")");
  EXPECT_EQ(cu_init_calls(), 0u);
}

// The public API end to end over the default runtime (ACCEL_BACKEND unset: cuda).
TEST(CudaPublicApiTest, QueriesDoNotInitialise) {
  EXPECT_EQ(current_accelerator(), Device(DeviceType::kCUDA));
  EXPECT_EQ(device_count(), 4);
  EXPECT_TRUE(is_available());
  EXPECT_EQ(current_accelerator(true), Device(DeviceType::kCUDA));
  EXPECT_FALSE(is_initialized());
  set_device_index(-1);  // negative: a no-op before anything
  EXPECT_FALSE(is_initialized());
  BackendReport report = backend_report();
  EXPECT_EQ(report.backend, "cuda");
  EXPECT_TRUE(report.selected);
  EXPECT_EQ(report.compiled_backends, compiled_backend_names());
  EXPECT_EQ(cu_init_calls(), 0u);
}

TEST(CudaPublicApiTest, DeviceSelectionAndErrors) {
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_TRUE(is_initialized());
  EXPECT_EQ(cu_init_calls(), 1u);
  set_device_index("cuda:2");
  EXPECT_EQ(current_device_index(), 2);
  {
    DeviceIndexGuard guard(3);
    EXPECT_EQ(current_device_index(), 3);
    EXPECT_EQ(guard.original_index(), 2);
  }
  EXPECT_EQ(current_device_index(), 2);
  try {
    set_device_index(7);
    FAIL() << "expected an invalid-ordinal error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kDriver);
    EXPECT_STREQ(e.what(),
                 "CUDA error: invalid device ordinal (set_device_index: device=7, device_count=4)");
  }
  try {
    set_device_index(200);
    FAIL() << "expected a range error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIndex);
    EXPECT_STREQ(e.what(), "Device index 200 is out of range for DeviceIndex [0, 127]");
  }
  EXPECT_EQ(current_device_index(), 2);
}

TEST(CudaPublicApiTest, CapabilityMemoryAndProperties) {
  DeviceCapability capability = get_device_capability(1);
  EXPECT_EQ(capability.major, 9);
  EXPECT_EQ(capability.supported_dtypes.size(), all_scalar_types().size());  // cc 9.0: all
  MemoryInfo info = get_memory_info("cuda:1");
  EXPECT_EQ(info.total_bytes, 80 * kGiB);
  DeviceProperties properties = get_device_properties();
  EXPECT_EQ(properties.uuid, mockdev::control::machine().devices[0].uuid);
}

// The public API on the 4xh100 machine: bus ids in visible order, also reordered.
TEST(CudaPublicApiTest, PciBusIdsInVisibleOrder) {
  const mockdev::MachineSpec machine = mockdev::control::machine();
  ASSERT_EQ(device_count(), 4);
  for (int i = 0; i < 4; ++i) {
    const DeviceProperties properties = get_device_properties(i);
    EXPECT_EQ(properties.pci_bus_id, machine.devices[static_cast<std::size_t>(i)].pci_bus_id);
    EXPECT_EQ(properties.mig_enabled, std::optional<bool>(false));
  }
  EXPECT_EQ(machine.devices[1].pci_bus_id, "00000000:11:00.0");
}

TEST(CudaPublicApiTest, PciBusIdsUnderCudaVisibleDevices) {
  CvdScope cvd("1,0");  // before the runtime's first look at it
  const mockdev::MachineSpec machine = mockdev::control::machine();
  ASSERT_EQ(device_count(), 2);
  EXPECT_EQ(get_device_properties(0).pci_bus_id, machine.devices[1].pci_bus_id);
  EXPECT_EQ(get_device_properties(1).pci_bus_id, machine.devices[0].pci_bus_id);
  EXPECT_EQ(get_device_properties(0).uuid, machine.devices[1].uuid);
}

TEST(CudaPublicApiTest, OlderGpusLackBfloat16AndFloat8) {
  mockdev::control::reset(mockdev::load_machine("mixed"));  // H100 (9.0) and T4 (7.5)
  DeviceCapability t4 = get_device_capability(1);
  EXPECT_EQ(t4.major, 7);
  EXPECT_EQ(t4.minor, 5);
  EXPECT_EQ(t4.supported_dtypes.size(), all_scalar_types().size() - 3);
  for (ScalarType type : t4.supported_dtypes) {
    EXPECT_NE(type, ScalarType::kBFloat16);
    EXPECT_NE(type, ScalarType::kFloat8_e5m2);
    EXPECT_NE(type, ScalarType::kFloat8_e4m3fn);
  }
}

TEST(CudaPublicApiTest, RngStateRoundTripAndDeferredSeeds) {
  random::manual_seed_all(7);
  random::manual_seed(11);  // requested last: wins on the current device
  EXPECT_FALSE(is_initialized());
  EXPECT_EQ(random::initial_seed(), 11u);
  std::vector<std::uint8_t> state = random::get_rng_state(1);
  EXPECT_EQ(state, (std::vector<std::uint8_t>{7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  std::vector<std::uint8_t> custom = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  random::set_rng_state(custom, "cuda:3");
  EXPECT_EQ(random::get_rng_state("cuda:3"), custom);
  EXPECT_EQ(random::get_rng_state_all().size(), 4u);
}

// memory_info switches the thread to the device's context and back. When switching back
// fails, the thread is left on the other device: the error says so, and the core forgets
// its cached index, so the next query asks the driver and tells the truth.
TEST(CudaPublicApiTest, FailedContextRestoreIsReportedAndTheCacheForgotten) {
  set_device_index(0);
  EXPECT_EQ(current_device_index(), 0);
  mockdev::control::fail_call("cuCtxSetCurrent", 2, 999);  // the switch back
  try {
    get_memory_info(1);
    FAIL() << "expected the restore failure";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kDriver);
    EXPECT_STREQ(e.what(),
                 "memory_info: cuCtxSetCurrent (restoring the previous context): "
                 "CUDA error: unknown error (device=1, driver=CUDA_ERROR_UNKNOWN)");
  }
  const std::uint64_t queries = mockdev::control::call_count("cuCtxGetCurrent");
  EXPECT_EQ(current_device_index(), 1);  // where the thread really is
  EXPECT_EQ(mockdev::control::call_count("cuCtxGetCurrent"), queries + 1);
}

// When the call itself fails and the restore fails too, both errors are reported.
TEST(CudaPublicApiTest, FailedCallAndFailedRestoreAreBothReported) {
  set_device_index(0);
  mockdev::control::fail_call("cuMemGetInfo_v2", 1, 700);
  mockdev::control::fail_call("cuCtxSetCurrent", 2, 999);
  try {
    get_memory_info(1);
    FAIL() << "expected the call failure";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kDriver);
    EXPECT_STREQ(e.what(),
                 "memory_info: cuMemGetInfo: CUDA error: an illegal memory access was "
                 "encountered (device=1, driver=CUDA_ERROR_ILLEGAL_ADDRESS); then restoring the "
                 "previous context failed too: memory_info: cuCtxSetCurrent (restoring the "
                 "previous context): CUDA error: unknown error (device=1, "
                 "driver=CUDA_ERROR_UNKNOWN)");
    EXPECT_EQ(e.driver_code(), 700);
  }
  EXPECT_EQ(current_device_index(), 1);
}

TEST(CudaPublicApiTest, OverrideWithNoAcceleratorAndBack) {
  EXPECT_EQ(device_count(), 4);
  {
    ScopedBackendOverride none(nullptr);
    EXPECT_EQ(current_accelerator(), std::nullopt);
    EXPECT_EQ(device_count(), 0);
    try {
      current_device_index();
      FAIL() << "expected kUnavailable";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kUnavailable);
      EXPECT_STREQ(e.what(), "Cannot access accelerator device when none is available.");
    }
  }
  EXPECT_EQ(device_count(), 4);
}

}  // namespace
}  // namespace accel::detail::cuda
