// The Level Zero backend over Debian's real loader and the mock Level Zero driver
// (ZE_ENABLE_ALT_DRIVERS names libze_mock.so in the ctest environment). Each test runs in
// its own process (one ctest entry per test) and installs its machine first, so "never
// initialised" holds at its start.
#include "backends/level_zero/ze_backend_impl.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <optional>
#include <string>
#include <thread>

#include "mockdev/control.h"
#include "mockdev/level_zero.h"
#include "scoped_env.h"
#include "ze_test_machines.h"

namespace accel::detail::level_zero {
namespace {

using accel::test::ScopedEnv;
namespace machines = ze_test;

std::uint64_t ze_init_calls() { return mockdev::control::call_count("zeInit"); }

std::string alt_drivers() {
  const char* value = std::getenv("ZE_ENABLE_ALT_DRIVERS");
  return value ? value : "";
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// ---- the loader file ---------------------------------------------------------------------

TEST(ZeLoaderTest, UserNamedLoaderThatDoesNotExistIsAConfigError) {
  ScopedEnv loader("ACCEL_LEVEL_ZERO_LOADER", "/nonexistent/libze_loader.so.1");
  auto backend = create_level_zero_backend();
  Status status = backend->configuration_status();
  EXPECT_EQ(status.kind(), ErrorKind::kConfig);
  EXPECT_TRUE(starts_with(status.message(),
                          "ACCEL_LEVEL_ZERO_LOADER='/nonexistent/libze_loader.so.1' names no "
                          "usable Level Zero loader: cannot load the Level Zero loader "
                          "'/nonexistent/libze_loader.so.1': "))
      << status.message();
  Status init = backend->initialize();
  EXPECT_EQ(init.kind(), ErrorKind::kConfig);
  EXPECT_EQ(init.message(), status.message());
  EXPECT_EQ(backend->fork_safe_device_count(), 0);
  BackendReport report = backend->report();
  EXPECT_EQ(report.config_error, status.message());
  EXPECT_EQ(report.config_error_kind, ErrorKind::kConfig);
  EXPECT_FALSE(report.available);
  ASSERT_GE(report.components.size(), 1u);
  EXPECT_EQ(report.components[0].role, "loader");
  EXPECT_EQ(report.components[0].path, "/nonexistent/libze_loader.so.1");
  EXPECT_FALSE(report.components[0].loaded);
}

TEST(ZeLoaderTest, NoLoaderInstalledIsUnavailableNotAnError) {
  ScopedEnv loader("ACCEL_LEVEL_ZERO_LOADER", std::nullopt);
  auto backend = create_level_zero_backend(LevelZeroBackendPaths{"libze_loader_absent.so.1"});
  EXPECT_TRUE(backend->configuration_status().ok());
  Status init = backend->initialize();
  EXPECT_EQ(init.kind(), ErrorKind::kUnavailable);
  EXPECT_TRUE(starts_with(init.message(),
                          "Level Zero loader libze_loader_absent.so.1 not found (install "
                          "libze1): cannot load the Level Zero loader "
                          "'libze_loader_absent.so.1': "))
      << init.message();
  EXPECT_EQ(backend->fork_safe_device_count(), 0);
  Result<int> driver_count = backend->driver_device_count();
  ASSERT_TRUE(driver_count.ok());
  EXPECT_EQ(*driver_count, 0);
  BackendReport report = backend->report();
  EXPECT_EQ(report.config_error, "");
  EXPECT_FALSE(report.available);
  EXPECT_EQ(report.unavailable_reason, init.message());
  EXPECT_EQ(report.count_source, "none");
}

TEST(ZeLoaderTest, LibraryLackingEntryPointsIsRefusedNamingTheSymbol) {
  const std::string path = std::getenv("ACCEL_TEST_INCOMPLETE_LOADER");
  const std::string reason = "the Level Zero loader '" + path +
                             "' lacks zeDriverGet (a loader older than 1.8, or not the Level "
                             "Zero loader)";
  {
    // Chosen by code: an installed but unusable loader is kDriver.
    ScopedEnv loader("ACCEL_LEVEL_ZERO_LOADER", std::nullopt);
    auto backend = create_level_zero_backend(LevelZeroBackendPaths{path});
    Status status = backend->configuration_status();
    EXPECT_EQ(status.kind(), ErrorKind::kDriver);
    EXPECT_EQ(status.message(), "the Level Zero loader '" + path + "' cannot be used: " + reason);
    EXPECT_EQ(backend->initialize().message(), status.message());
  }
  {
    // Named by the user: kConfig naming the variable.
    ScopedEnv loader("ACCEL_LEVEL_ZERO_LOADER", path);
    auto backend = create_level_zero_backend();
    Status status = backend->configuration_status();
    EXPECT_EQ(status.kind(), ErrorKind::kConfig);
    EXPECT_EQ(status.message(), "ACCEL_LEVEL_ZERO_LOADER='" + path +
                                    "' names no usable Level Zero loader: " + reason);
  }
}

// ---- configuration (Note [Level Zero visibility variables]) ----------------------------------

TEST(ZeConfigurationTest, MalformedMaskIsAConfigErrorBeforeAnyDriverCall) {
  mockdev::control::reset(machines::two_max_1550());
  ScopedEnv mask("ZE_AFFINITY_MASK", "0,x");
  auto backend = create_level_zero_backend();
  Status status = backend->initialize();
  EXPECT_EQ(status.kind(), ErrorKind::kConfig);
  EXPECT_EQ(status.message(),
            "ZE_AFFINITY_MASK='0,x': entry 'x' is not a device index (expected N or N.M, e.g. "
            "'0,1.0')");
  EXPECT_EQ(backend->configuration_status().message(), status.message());
  BackendReport report = backend->report();
  EXPECT_EQ(report.config_error, status.message());
  EXPECT_EQ(report.count_source, "none");  // no count can honour a malformed mask
  EXPECT_EQ(report.unavailable_reason, status.message());
  EXPECT_EQ(ze_init_calls(), 0u);
}

TEST(ZeConfigurationTest, UnknownHierarchyIsAConfigError) {
  mockdev::control::reset(machines::two_max_1550());
  ScopedEnv hierarchy("ZE_FLAT_DEVICE_HIERARCHY", "flat");
  auto backend = create_level_zero_backend();
  Status status = backend->initialize();
  EXPECT_EQ(status.kind(), ErrorKind::kConfig);
  EXPECT_EQ(status.message(),
            "ZE_FLAT_DEVICE_HIERARCHY='flat' is not a device hierarchy (expected COMPOSITE, "
            "FLAT or COMBINED; the driver would silently use its default)");
  EXPECT_EQ(ze_init_calls(), 0u);
}

TEST(ZeConfigurationTest, MalformedProbeTimeoutIsAConfigError) {
  mockdev::control::reset(machines::two_max_1550());
  ScopedEnv timeout("ACCEL_LEVEL_ZERO_PROBE_TIMEOUT_MS", "ten");
  auto backend = create_level_zero_backend();
  EXPECT_EQ(backend->configuration_status().message(),
            "ACCEL_LEVEL_ZERO_PROBE_TIMEOUT_MS='ten' is not a positive number of milliseconds "
            "(e.g. '10000')");
}

// ---- zeInit failure --------------------------------------------------------------------

TEST(ZeInitTest, DriverWithoutIntelDevicesIsNoDevice) {
  mockdev::control::reset(mockdev::load_machine("4xh100"));  // NVIDIA only: zeInit fails
  auto backend = create_level_zero_backend();
  EXPECT_TRUE(backend->configuration_status().ok());
  Status status = backend->initialize();
  EXPECT_EQ(status.kind(), ErrorKind::kUnavailable);
  EXPECT_EQ(status.message(),
            "No XPU devices are available (zeInit returned ZE_RESULT_ERROR_UNINITIALIZED "
            "(0x78000001))");
  // Remembered; a second initialize() does not call zeInit again.
  const std::uint64_t calls = ze_init_calls();
  EXPECT_GE(calls, 1u);
  EXPECT_EQ(backend->initialize().message(), status.message());
  Result<int> count = backend->driver_device_count();
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 0);
  EXPECT_EQ(ze_init_calls(), calls);
  BackendReport report = backend->report();
  EXPECT_EQ(report.config_error, "");  // no device is not a misconfiguration
  EXPECT_FALSE(report.available);
  EXPECT_EQ(report.count_source, "driver");
  EXPECT_EQ(report.unavailable_reason, status.message());
}

TEST(ZeInitTest, MaskSelectingNothingIsNoDevice) {
  mockdev::control::reset(machines::two_max_1550());
  ScopedEnv mask("ZE_AFFINITY_MASK", "7");  // FLAT: 4 tiles, index 7 does not exist
  auto backend = create_level_zero_backend();
  Status status = backend->initialize();
  EXPECT_EQ(status.kind(), ErrorKind::kUnavailable);
  EXPECT_EQ(status.message(),
            "No XPU devices are available (zeInit returned ZE_RESULT_ERROR_UNINITIALIZED "
            "(0x78000001)) with ZE_AFFINITY_MASK='7'");
  Result<int> count = backend->driver_device_count();
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(*count, 0);
}

// ---- devices ---------------------------------------------------------------------

TEST(ZeDevicesTest, FlatHierarchyShowsEveryTile) {
  mockdev::control::reset(machines::two_max_1550());
  ScopedEnv hierarchy("ZE_FLAT_DEVICE_HIERARCHY", "FLAT");
  auto backend = create_level_zero_backend();
  ASSERT_TRUE(backend->initialize().ok()) << backend->initialize().message();
  EXPECT_EQ(backend->device_count(), 4);
  // One zeInit per process (loader 1.8.12 forwards it to the driver twice); a
  // second count or initialisation does not call it again.
  const std::uint64_t calls = ze_init_calls();
  EXPECT_GE(calls, 1u);
  ASSERT_TRUE(backend->driver_device_count().ok());
  ASSERT_TRUE(backend->initialize().ok());
  EXPECT_EQ(ze_init_calls(), calls);
  for (int i = 0; i < 4; ++i) {
    Result<DeviceProperties> properties = backend->device_properties(i);
    ASSERT_TRUE(properties.ok());
    EXPECT_EQ(properties->name, "Intel(R) Data Center GPU Max 1550");
    EXPECT_EQ(properties->total_memory_bytes, 64 * machines::kGiB) << i;  // half a card
    EXPECT_EQ(properties->multi_processor_count, 64);
    EXPECT_EQ(properties->uuid.size(), 36u);
  }
  EXPECT_NE(backend->device_properties(0)->uuid, backend->device_properties(1)->uuid);
  auto& ze = static_cast<LevelZeroBackend&>(*backend);
  EXPECT_NE(ze.context(), nullptr);
  EXPECT_EQ(ze.device(0).compute_ordinal, 0u);
  EXPECT_EQ(ze.device(0).copy_ordinal, 1u);
  EXPECT_EQ(ze.device(0).timer_hz, 19200122u);  // 1e9 / 52.083 ns, truncated
  EXPECT_EQ(ze.device(0).kernel_timestamp_bits, 32u);
  EXPECT_TRUE(ze.device(0).fp64);
  EXPECT_FALSE(ze.device(0).integrated);
  EXPECT_EQ(ze.driver_api_version(), ZE_API_VERSION_1_4);
  Result<DeviceCapability> capability = backend->device_capability(0);
  ASSERT_TRUE(capability.ok());
  EXPECT_EQ(capability->supported_dtypes.size(), all_scalar_types().size());
}

TEST(ZeDevicesTest, CompositeHierarchyShowsCards) {
  mockdev::control::reset(machines::two_max_1550());
  ScopedEnv hierarchy("ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE");
  auto backend = create_level_zero_backend();
  ASSERT_TRUE(backend->initialize().ok()) << backend->initialize().message();
  EXPECT_EQ(backend->device_count(), 2);
  EXPECT_EQ(backend->device_properties(1)->total_memory_bytes, 128 * machines::kGiB);
}

TEST(ZeDevicesTest, LaptopIntegratedGpu) {
  mockdev::control::reset(machines::laptop_igpu());
  auto backend = create_level_zero_backend();
  ASSERT_TRUE(backend->initialize().ok()) << backend->initialize().message();
  EXPECT_EQ(backend->device_count(), 1);
  auto& ze = static_cast<LevelZeroBackend&>(*backend);
  EXPECT_TRUE(ze.device(0).integrated);
  EXPECT_FALSE(ze.device(0).fp64);
  EXPECT_EQ(backend->device_properties(0)->name, "Intel(R) Iris(R) Xe Graphics");
  Result<DeviceCapability> capability = backend->device_capability(0);
  ASSERT_TRUE(capability.ok());
  const auto& dtypes = capability->supported_dtypes;
  EXPECT_EQ(std::find(dtypes.begin(), dtypes.end(), ScalarType::kFloat64), dtypes.end());
  EXPECT_EQ(dtypes.size(), all_scalar_types().size() - 2);
}

TEST(ZeDevicesTest, MixedVendorsShowOnlyIntelDevices) {
  mockdev::control::reset(machines::mixed_vendors());
  auto backend = create_level_zero_backend();
  ASSERT_TRUE(backend->initialize().ok()) << backend->initialize().message();
  EXPECT_EQ(backend->device_count(), 2);  // the Max 1550's two tiles (FLAT default)
  EXPECT_EQ(backend->device_properties(0)->name, "Intel(R) Data Center GPU Max 1550");
}

TEST(ZeDevicesTest, DiscreteGpusArePreferredOverIntegrated) {
  mockdev::control::reset(machines::igpu_and_discrete());
  auto backend = create_level_zero_backend();
  ASSERT_TRUE(backend->initialize().ok()) << backend->initialize().message();
  EXPECT_EQ(backend->device_count(), 1);
  EXPECT_EQ(backend->device_properties(0)->name, "Intel(R) Arc(TM) A770 Graphics");
}

TEST(ZeDevicesTest, CurrentDeviceIsPerThreadAndPerInstance) {
  mockdev::control::reset(machines::two_max_1550());
  auto backend = create_level_zero_backend();
  ASSERT_TRUE(backend->initialize().ok());
  EXPECT_EQ(*backend->current_device(), 0);
  ASSERT_TRUE(backend->set_device(3).ok());
  EXPECT_EQ(*backend->current_device(), 3);
  ASSERT_TRUE(backend->maybe_set_device(2).ok());
  EXPECT_EQ(*backend->current_device(), 2);
  int other_thread = -1;
  std::thread([&] { other_thread = *backend->current_device(); }).join();
  EXPECT_EQ(other_thread, 0);
  auto second = create_level_zero_backend();
  ASSERT_TRUE(second->initialize().ok());
  EXPECT_EQ(*second->current_device(), 0);  // a new instance does not inherit it
}

// ---- the presets (machine files of i9's machine work) ---------------------------------------

struct PresetCase {
  const char* preset;
  const char* hierarchy;  // nullptr: the machine's default
  int expected;
  const char* first_name;
};

TEST(ZePresetTest, DeviceListsPerPresetAndHierarchy) {
  for (const PresetCase& c :
       {PresetCase{"2xmax1550", nullptr, 4, "Intel(R) Data Center GPU Max 1550"},  // FLAT
        PresetCase{"2xmax1550", "COMPOSITE", 2, "Intel(R) Data Center GPU Max 1550"},
        PresetCase{"laptop_igpu", nullptr, 1, "Intel(R) Iris(R) Xe Graphics"},
        PresetCase{"mixed_vendors", nullptr, 2, "Intel(R) Data Center GPU Max 1550"},
        PresetCase{"mixed_vendors", "FLAT", 3, "Intel(R) Data Center GPU Max 1550"}}) {
    // One process per row: zeInit reads the variables once per process.
    pid_t pid = fork();
    if (pid == 0) {
      if (c.hierarchy) setenv("ZE_FLAT_DEVICE_HIERARCHY", c.hierarchy, 1);
      mockdev::control::reset(mockdev::load_machine(c.preset));
      auto backend = create_level_zero_backend();
      Status status = backend->initialize();
      const bool ok = status.ok() && backend->device_count() == c.expected &&
                      backend->device_properties(0)->name == c.first_name;
      if (!ok) {
        std::fprintf(stderr, "%s %s: %s count=%d\n", c.preset, c.hierarchy ? c.hierarchy : "-",
                     status.message().c_str(), backend->device_count());
      }
      _exit(ok ? 0 : 1);
    }
    int wait_status = 0;
    ASSERT_EQ(waitpid(pid, &wait_status, 0), pid);
    EXPECT_TRUE(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0)
        << c.preset << " hierarchy=" << (c.hierarchy ? c.hierarchy : "<default>");
  }
}

TEST(ZePresetTest, LaptopIntegratedGpuHasNoFp64) {
  mockdev::control::reset(mockdev::load_machine("laptop_igpu"));
  auto backend = create_level_zero_backend();
  ASSERT_TRUE(backend->initialize().ok()) << backend->initialize().message();
  auto& ze = static_cast<LevelZeroBackend&>(*backend);
  EXPECT_TRUE(ze.device(0).integrated);
  EXPECT_FALSE(ze.device(0).fp64);
  EXPECT_EQ(ze.device(0).timer_hz, 12000048u);  // 1e9 / 83.333 ns, truncated
  EXPECT_EQ(backend->device_properties(0)->multi_processor_count, 6);
  EXPECT_EQ(backend->device_properties(0)->total_memory_bytes, 8 * machines::kGiB);
}

TEST(ZePresetTest, MachineFaultFailingZeInitIsReportedWithItsCode) {
  mockdev::MachineSpec machine = mockdev::load_machine("2xmax1550");
  machine.faults.level_zero_init_error = ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS;
  mockdev::control::reset(machine);
  auto backend = create_level_zero_backend();
  Status status = backend->initialize();
  // Loader 1.8.12 forwards the driver's own code; the user named the driver
  // (ZE_ENABLE_ALT_DRIVERS), so its failure is an error naming it, not a quiet "no device".
  EXPECT_EQ(status.kind(), ErrorKind::kDriver);
  EXPECT_EQ(status.message(),
            "zeInit: Level Zero error ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS (0x70010000): "
            "the Level Zero driver named by ZE_ENABLE_ALT_DRIVERS='" +
                alt_drivers() + "' failed to initialise");
  EXPECT_EQ(status.detail().driver_code, 0x70010000);
  EXPECT_EQ(mockdev::control::level_zero::status().init_result,
            ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS);
  Result<int> count = backend->driver_device_count();
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().message(), status.message());
  BackendReport report = backend->report();
  EXPECT_FALSE(report.available);
  EXPECT_EQ(report.config_error, status.message());
  EXPECT_EQ(report.config_error_kind, ErrorKind::kDriver);
  EXPECT_EQ(report.unavailable_reason, status.message());
  EXPECT_EQ(report.count_source, "driver");
}

TEST(ZeInitTest, FailureAfterZeInitIsReportedAndARetryCanSucceed) {
  mockdev::control::reset(mockdev::load_machine("2xmax1550"));
  mockdev::control::fail_call("zeContextCreate", 1, ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
  auto backend = create_level_zero_backend();
  Status status = backend->initialize();
  EXPECT_EQ(status.kind(), ErrorKind::kOutOfMemory);
  EXPECT_EQ(status.message(),
            "initialize: zeContextCreate: Level Zero error ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY "
            "(0x70000002)");
  BackendReport report = backend->report();
  EXPECT_EQ(report.config_error, status.message());
  EXPECT_EQ(report.unavailable_reason, status.message());
  EXPECT_FALSE(report.available);
  // The core retries initialisation on the next call; the fault was for the first only.
  ASSERT_TRUE(backend->initialize().ok());
  EXPECT_EQ(backend->device_count(), 4);
  report = backend->report();
  EXPECT_EQ(report.config_error, "");
  EXPECT_TRUE(report.available);
  EXPECT_EQ(report.device_count, 4);
}

// ---- the fork-safe count: probe child ------------------------------------------------

TEST(ZeProbeCountTest, ProbeChildCountsWithoutInitialisingThisProcess) {
  mockdev::control::reset(machines::two_max_1550());
  auto backend = create_level_zero_backend();
  struct Case {
    const char* hierarchy;
    const char* mask;
    int expected;
  };
  for (const Case& c : {Case{"FLAT", nullptr, 4}, Case{"COMPOSITE", nullptr, 2},
                        Case{"FLAT", "1,3", 2}, Case{"COMPOSITE", "1", 1},
                        Case{"COMPOSITE", "0.1", 1}, Case{"FLAT", "0.1", 0}}) {
    ScopedEnv hierarchy("ZE_FLAT_DEVICE_HIERARCHY", c.hierarchy);
    ScopedEnv mask("ZE_AFFINITY_MASK",
                   c.mask ? std::optional<std::string>(c.mask) : std::nullopt);
    EXPECT_EQ(backend->fork_safe_device_count(), c.expected)
        << c.hierarchy << " mask=" << (c.mask ? c.mask : "<unset>");
  }
  EXPECT_EQ(ze_init_calls(), 0u);  // every zeInit ran in a probe child
  EXPECT_FALSE(mockdev::control::level_zero::status().init_attempted);
  int status = 0;
  errno = 0;
  EXPECT_EQ(waitpid(-1, &status, WNOHANG), -1);  // no zombie left
  EXPECT_EQ(errno, ECHILD);
  BackendReport report = backend->report();
  EXPECT_EQ(report.count_source, "probe");
  EXPECT_EQ(report.device_count, 4);  // the environment is back to unset: FLAT default
  EXPECT_TRUE(report.available);
  ASSERT_EQ(report.components.size(), 2u);
  EXPECT_EQ(report.components[0].role, "loader");
  EXPECT_EQ(report.components[0].path, "libze_loader.so.1");
  EXPECT_TRUE(report.components[0].loaded);
  EXPECT_EQ(report.components[0].version, "");  // known only after zeInit
  EXPECT_EQ(report.components[1].role, "driver");
  EXPECT_EQ(report.components[1].path, alt_drivers());
  EXPECT_FALSE(report.components[1].loaded);  // only the probe children loaded it
}

// Only UNINITIALIZED means "no device". A probe child whose zeInit fails otherwise
// gives no count (-1), so the core asks the driver itself, which raises the error; a count
// of 0 there would be a quiet CPU fallback.
TEST(ZeProbeCountTest, AFailingDriverGivesNoCountRatherThanZero) {
  mockdev::MachineSpec machine = mockdev::load_machine("2xmax1550");
  machine.faults.level_zero_init_error = ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS;
  mockdev::control::reset(machine);
  auto backend = create_level_zero_backend();
  EXPECT_EQ(backend->fork_safe_device_count(), -1);
  BackendReport report = backend->report();
  EXPECT_FALSE(report.available);
  EXPECT_EQ(report.unavailable_reason,
            "the fork-safe count failed (Sysman: the loader does not export zesInit (Sysman "
            "needs loader 1.9 or newer); zeInit failed in the probe child: "
            "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS (0x70010000))");
  Result<int> count = backend->driver_device_count();
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().kind(), ErrorKind::kDriver);
}

// ZE_ENABLE_ALT_DRIVERS naming a file that is not there, or a FIFO: the loader would skip
// the first quietly ("no device") and block on the second; both are configuration errors.
TEST(ZeConfigurationTest, AltDriversMustNameRegularFiles) {
  char pattern[] = "/tmp/accel_ze_alt_XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string missing = std::string(pattern) + "/libze_missing.so";
  const std::string fifo = std::string(pattern) + "/libze_fifo.so";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  {
    ScopedEnv driver("ZE_ENABLE_ALT_DRIVERS", missing.c_str());
    auto backend = create_level_zero_backend();
    Status status = backend->configuration_status();
    EXPECT_EQ(status.kind(), ErrorKind::kConfig);
    EXPECT_EQ(status.message(), "ZE_ENABLE_ALT_DRIVERS='" + missing +
                                    "' names no usable Level Zero driver: the Level Zero driver '" +
                                    missing + "': cannot open: No such file or directory");
  }
  {
    const std::string both = alt_drivers() + "," + fifo;
    ScopedEnv driver("ZE_ENABLE_ALT_DRIVERS", both.c_str());
    auto backend = create_level_zero_backend();
    Status status = backend->initialize();
    EXPECT_EQ(status.kind(), ErrorKind::kConfig);
    EXPECT_EQ(status.message(), "ZE_ENABLE_ALT_DRIVERS='" + both +
                                    "' names no usable Level Zero driver: the Level Zero driver '" +
                                    fifo + "': is a FIFO (named pipe), not a regular file");
  }
  unlink(fifo.c_str());
  rmdir(pattern);
}

TEST(ZeProbeCountTest, CountIsCachedPerEnvironment) {
  mockdev::control::reset(machines::two_max_1550());
  auto backend = create_level_zero_backend();
  EXPECT_EQ(backend->fork_safe_device_count(), 4);
  // The cache answers without a child: a machine change is not seen for the same values...
  mockdev::control::reset(machines::laptop_igpu());
  EXPECT_EQ(backend->fork_safe_device_count(), 4);
  // ...but new values of the variables probe again.
  ScopedEnv hierarchy("ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE");
  EXPECT_EQ(backend->fork_safe_device_count(), 1);
}

TEST(ZeProbeCountTest, HangingProbeChildIsKilledAndReaped) {
  ScopedEnv driver("ZE_ENABLE_ALT_DRIVERS", std::getenv("ACCEL_TEST_BROKEN_DRIVER_FILE"));
  ScopedEnv mode("ACCEL_TEST_BROKEN_DRIVER", "hang");
  ScopedEnv timeout("ACCEL_LEVEL_ZERO_PROBE_TIMEOUT_MS", "300");
  auto backend = create_level_zero_backend();
  EXPECT_EQ(backend->fork_safe_device_count(), -1);
  int status = 0;
  errno = 0;
  EXPECT_EQ(waitpid(-1, &status, WNOHANG), -1);  // reaped: no zombie
  EXPECT_EQ(errno, ECHILD);
  BackendReport report = backend->report();
  EXPECT_EQ(report.count_source, "none");
  EXPECT_EQ(report.unavailable_reason,
            "the fork-safe count failed (Sysman: the loader does not export zesInit (Sysman "
            "needs loader 1.9 or newer); the probe child did not answer within 300 ms "
            "(ACCEL_LEVEL_ZERO_PROBE_TIMEOUT_MS); it was killed)");
}

TEST(ZeProbeCountTest, CrashingProbeChildIsReported) {
  ScopedEnv driver("ZE_ENABLE_ALT_DRIVERS", std::getenv("ACCEL_TEST_BROKEN_DRIVER_FILE"));
  ScopedEnv mode("ACCEL_TEST_BROKEN_DRIVER", "abort");
  auto backend = create_level_zero_backend();
  EXPECT_EQ(backend->fork_safe_device_count(), -1);
  BackendReport report = backend->report();
  EXPECT_EQ(report.unavailable_reason,
            "the fork-safe count failed (Sysman: the loader does not export zesInit (Sysman "
            "needs loader 1.9 or newer); the probe child was killed by signal 6 (Aborted))");
  int status = 0;
  EXPECT_EQ(waitpid(-1, &status, WNOHANG), -1);
}

// ---- driver count, report after init -------------------------------------------------------

TEST(ZeDriverCountTest, DriverCountInitialisesHereAndFeedsTheCache) {
  mockdev::control::reset(machines::two_max_1550());
  auto backend = create_level_zero_backend();
  Result<int> count = backend->driver_device_count();
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(*count, 4);
  EXPECT_GE(ze_init_calls(), 1u);
  // The cache holds the driver's answer for these values: no probe child needed.
  EXPECT_EQ(backend->fork_safe_device_count(), 4);
  // Other values in the process that called zeInit: the driver's count decides (-1).
  ScopedEnv hierarchy("ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE");
  EXPECT_EQ(backend->fork_safe_device_count(), -1);
}

TEST(ZeReportTest, AfterInitialisationTheLoaderVersionAndDriverAreKnown) {
  mockdev::control::reset(machines::two_max_1550());
  auto backend = create_level_zero_backend();
  ASSERT_TRUE(backend->initialize().ok());
  BackendReport report = backend->report();
  EXPECT_EQ(report.count_source, "driver");
  EXPECT_EQ(report.device_count, 4);
  EXPECT_TRUE(report.available);
  EXPECT_EQ(report.unavailable_reason, "");
  EXPECT_EQ(report.config_error, "");
  ASSERT_EQ(report.components.size(), 2u);
  EXPECT_EQ(report.components[0].version.empty(), false);
  EXPECT_TRUE(report.components[1].loaded);
}

// ZES_ENABLE_SYSMAN=1 before zeInit when the loader has no zesInit, never overriding
// the user's value.
TEST(ZeInitTest, LegacySysmanRouteIsEnabledUnlessTheUserChose) {
  mockdev::control::reset(machines::two_max_1550());
  {
    ScopedEnv sysman("ZES_ENABLE_SYSMAN", std::nullopt);
    auto backend = create_level_zero_backend();
    ASSERT_TRUE(backend->initialize().ok());
    EXPECT_STREQ(std::getenv("ZES_ENABLE_SYSMAN"), "1");
    EXPECT_EQ(mockdev::control::level_zero::status().sysman_route, "legacy");
  }
}

TEST(ZeInitTest, UserChoiceOfSysmanIsKept) {
  mockdev::control::reset(machines::two_max_1550());
  ScopedEnv sysman("ZES_ENABLE_SYSMAN", "0");
  auto backend = create_level_zero_backend();
  ASSERT_TRUE(backend->initialize().ok());
  EXPECT_STREQ(std::getenv("ZES_ENABLE_SYSMAN"), "0");
  EXPECT_EQ(mockdev::control::level_zero::status().sysman_route, "none");
}

}  // namespace
}  // namespace accel::detail::level_zero
