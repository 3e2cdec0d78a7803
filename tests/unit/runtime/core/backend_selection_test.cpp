// Which accelerator serves the process (Note [Which accelerator] in
// core/backend_registry.h), over fake backends injected through select_backend's table
// seam; and backend_reports() over the compiled table.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accel/accelerator.h"
#include "core/backend_override.h"
#include "core/backend_registry.h"
#include "spi/backend.h"

namespace accel::detail {
namespace {

// What one fake backend answers, and how often it was asked. Plain globals: a table
// entry's factory is a function pointer without captures.
struct Script {
  int count = 0;                          // fork_safe_device_count()
  std::optional<Status> configuration;    // configuration_status(); nullopt: OK
  int created = 0;
  int destroyed = 0;
  int counted = 0;
  int configured = 0;
};
std::array<Script, 3> g_scripts;

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(int id) : id_(id) { ++g_scripts[id].created; }
  ~FakeBackend() override { ++g_scripts[id_].destroyed; }
  int id() const { return id_; }

  DeviceType type() const noexcept override { return DeviceType::kXPU; }
  std::string name() const override { return std::string(1, static_cast<char>('a' + id_)); }
  int fork_safe_device_count() noexcept override {
    ++g_scripts[id_].counted;
    return g_scripts[id_].count;
  }
  Status configuration_status() noexcept override {
    ++g_scripts[id_].configured;
    return g_scripts[id_].configuration.value_or(Status());
  }
  Result<int> driver_device_count() noexcept override {
    ADD_FAILURE() << "selection initialised the driver of backend " << name();
    return 0;
  }
  Status initialize() noexcept override {
    ADD_FAILURE() << "selection initialised backend " << name();
    return Status();
  }
  int device_count() const noexcept override { return 0; }
  Status set_device(int) noexcept override { return Status(); }
  Status maybe_set_device(int) noexcept override { return Status(); }
  Result<int> current_device() noexcept override { return 0; }
  Result<DeviceProperties> device_properties(int) noexcept override { return DeviceProperties{}; }
  Result<DeviceCapability> device_capability(int) noexcept override { return DeviceCapability{}; }

 private:
  int id_;
};

template <int Id>
std::unique_ptr<Backend> make_fake() {
  return std::make_unique<FakeBackend>(Id);
}

// In table order, as ACCEL_BACKENDS would list them: a (think cuda), b (think xpu), c.
constexpr std::array<BackendEntry, 3> kTable{{{"a", &make_fake<0>}, {"b", &make_fake<1>},
                                              {"c", &make_fake<2>}}};
constexpr std::span<const BackendEntry> kTwo(kTable.data(), 2);

class BackendSelectionTest : public ::testing::Test {
 protected:
  void SetUp() override { g_scripts = {}; }
  // Every instance created during selection is gone, except the one returned.
  void TearDown() override {
    int alive = 0;
    for (const Script& s : g_scripts) alive += s.created - s.destroyed;
    EXPECT_EQ(alive, 0);
  }
  static int selected_id(const BackendSelection& selection) {
    auto* fake = dynamic_cast<FakeBackend*>(selection.backend.get());
    return fake != nullptr ? fake->id() : -1;
  }
};

TEST_F(BackendSelectionTest, RequestedBackendIsSelectedWhateverItSees) {
  g_scripts[0].count = 4;
  g_scripts[1].count = 0;
  BackendSelection selection = select_backend("b", kTwo);
  EXPECT_EQ(selected_id(selection), 1);
  EXPECT_EQ(selection.rule, SelectionRule::kRequested);
  EXPECT_FALSE(selection.error.has_value());
  // Nothing else is created or asked: ACCEL_BACKEND decides alone.
  EXPECT_EQ(g_scripts[0].created, 0);
  EXPECT_EQ(g_scripts[1].created, 1);
  EXPECT_EQ(g_scripts[1].counted, 0);
  EXPECT_EQ(g_scripts[1].configured, 0);
}

TEST_F(BackendSelectionTest, RequestedNoneSelectsNothingAndCreatesNothing) {
  g_scripts[0].count = 4;
  BackendSelection selection = select_backend("none", kTwo);
  EXPECT_EQ(selection.backend, nullptr);
  EXPECT_FALSE(selection.error.has_value());
  EXPECT_EQ(selection.rule, SelectionRule::kNone);
  EXPECT_EQ(g_scripts[0].created + g_scripts[1].created, 0);
}

TEST_F(BackendSelectionTest, UnknownRequestIsAConfigErrorNamingValueAndTable) {
  g_scripts[0].count = 4;
  BackendSelection selection = select_backend("rocm", kTwo);
  EXPECT_EQ(selection.backend, nullptr);
  ASSERT_TRUE(selection.error.has_value());
  EXPECT_EQ(selection.error->kind(), ErrorKind::kConfig);
  EXPECT_EQ(selection.error->message(),
            "ACCEL_BACKEND: unknown backend 'rocm' (compiled backends: a, b; or 'none')");
  EXPECT_EQ(g_scripts[0].created + g_scripts[1].created, 0);
}

TEST_F(BackendSelectionTest, UnsetPicksFirstBackendWithAVisibleDevice) {
  g_scripts[0].count = 0;
  g_scripts[1].count = 2;
  g_scripts[2].count = 8;
  BackendSelection selection = select_backend(std::nullopt, kTable);
  EXPECT_EQ(selected_id(selection), 1);
  EXPECT_EQ(selection.rule, SelectionRule::kVisibleDevice);
  EXPECT_FALSE(selection.error.has_value());
  // Table order decides, not the larger count: c is never counted.
  EXPECT_EQ(g_scripts[2].counted, 0);
  EXPECT_EQ(g_scripts[0].counted, 1);
  EXPECT_EQ(g_scripts[1].counted, 1);
}

TEST_F(BackendSelectionTest, EmptyValueIsUnset) {
  g_scripts[1].count = 1;
  EXPECT_EQ(selected_id(select_backend("", kTwo)), 1);
}

TEST_F(BackendSelectionTest, FirstCompiledWinsWhenBothSeeDevices) {
  g_scripts[0].count = 2;
  g_scripts[1].count = 4;
  BackendSelection selection = select_backend(std::nullopt, kTwo);
  EXPECT_EQ(selected_id(selection), 0);
  EXPECT_EQ(selection.rule, SelectionRule::kVisibleDevice);
  EXPECT_EQ(g_scripts[1].counted, 0);
}

// -1: the backend cannot count without initialising its driver. Selection never
// initialises one, so that is "no visible device" here (the scripted xpu answers -1).
TEST_F(BackendSelectionTest, CannotCountIsNoVisibleDevice) {
  g_scripts[0].count = -1;
  g_scripts[1].count = 3;
  EXPECT_EQ(selected_id(select_backend(std::nullopt, kTwo)), 1);
}

TEST_F(BackendSelectionTest, NoDeviceAnywhereSelectsFirstCompiled) {
  g_scripts[0].count = -1;
  g_scripts[1].count = 0;
  BackendSelection selection = select_backend(std::nullopt, kTwo);
  EXPECT_EQ(selected_id(selection), 0);
  EXPECT_EQ(selection.rule, SelectionRule::kFirstCompiled);
  EXPECT_FALSE(selection.error.has_value());
  EXPECT_EQ(g_scripts[0].counted, 1);
  EXPECT_EQ(g_scripts[1].counted, 1);
}

// A broken configuration surfaces: the user named a driver file that does not work for b;
// a's working device must not hide that.
TEST_F(BackendSelectionTest, BrokenConfigurationIsSelectedOverAVisibleDevice) {
  g_scripts[0].count = 4;
  g_scripts[1].configuration =
      Status(ErrorKind::kConfig, "ACCEL_LEVEL_ZERO_LOADER='/nowhere' names no usable loader");
  BackendSelection selection = select_backend(std::nullopt, kTwo);
  EXPECT_EQ(selected_id(selection), 1);
  EXPECT_EQ(selection.rule, SelectionRule::kBrokenConfiguration);
  EXPECT_FALSE(selection.error.has_value());  // the backend's own error, from its calls
  // Decided before anything is counted.
  EXPECT_EQ(g_scripts[0].counted, 0);
  EXPECT_EQ(g_scripts[1].counted, 0);
}

TEST_F(BackendSelectionTest, UnusableInstalledDriverIsBrokenToo) {
  g_scripts[1].count = 2;
  g_scripts[0].configuration = Status(ErrorKind::kDriver, "CUDA driver cannot be used");
  BackendSelection selection = select_backend(std::nullopt, kTwo);
  EXPECT_EQ(selected_id(selection), 0);
  EXPECT_EQ(selection.rule, SelectionRule::kBrokenConfiguration);
}

TEST_F(BackendSelectionTest, FirstBrokenConfigurationInTableOrder) {
  g_scripts[1].configuration = Status(ErrorKind::kConfig, "b broken");
  g_scripts[2].configuration = Status(ErrorKind::kConfig, "c broken");
  EXPECT_EQ(selected_id(select_backend(std::nullopt, kTable)), 1);
  EXPECT_EQ(g_scripts[2].created, 0);
}

// "Cannot tell" (a backend not written yet answers kUnsupported) is not broken.
TEST_F(BackendSelectionTest, UnsupportedConfigurationAnswerIsNotBroken) {
  g_scripts[0].configuration = Status(ErrorKind::kUnsupported, "pending");
  g_scripts[1].count = 1;
  BackendSelection selection = select_backend(std::nullopt, kTwo);
  EXPECT_EQ(selected_id(selection), 1);
  EXPECT_EQ(selection.rule, SelectionRule::kVisibleDevice);
}

TEST_F(BackendSelectionTest, EmptyTableSelectsNothingWithoutError) {
  const std::span<const BackendEntry> none;
  BackendSelection selection = select_backend(std::nullopt, none);
  EXPECT_EQ(selection.backend, nullptr);
  EXPECT_FALSE(selection.error.has_value());
  BackendSelection named = select_backend("a", none);
  ASSERT_TRUE(named.error.has_value());
  EXPECT_EQ(named.error->message(),
            "ACCEL_BACKEND: unknown backend 'a' (compiled backends: none; or 'none')");
}

// A test-only fake backend serves the process through the override: backend_reports() lists
// every compiled backend from a fresh instance, unselected, and appends the serving fake.
class NamedBackend final : public Backend {
 public:
  DeviceType type() const noexcept override { return DeviceType::kXPU; }
  std::string name() const override { return "fake"; }
  int fork_safe_device_count() noexcept override { return 3; }
  Result<int> driver_device_count() noexcept override { return 3; }
  Status initialize() noexcept override { return Status(); }
  int device_count() const noexcept override { return 3; }
  Status set_device(int) noexcept override { return Status(); }
  Status maybe_set_device(int) noexcept override { return Status(); }
  Result<int> current_device() noexcept override { return 0; }
  Result<DeviceProperties> device_properties(int) noexcept override { return DeviceProperties{}; }
  Result<DeviceCapability> device_capability(int) noexcept override { return DeviceCapability{}; }
};

TEST(BackendReportsTest, EveryCompiledBackendPlusTheServingOne) {
  ScopedBackendOverride override(std::make_unique<NamedBackend>());
  const std::vector<std::string> compiled = compiled_backend_names();
  const std::vector<BackendReport> reports = backend_reports();
  ASSERT_EQ(reports.size(), compiled.size() + 1);
  for (std::size_t i = 0; i < compiled.size(); ++i) {
    EXPECT_EQ(reports[i].backend, compiled[i]);
    EXPECT_FALSE(reports[i].selected) << compiled[i];
    EXPECT_EQ(reports[i].compiled_backends, compiled);
  }
  EXPECT_EQ(reports.back().backend, "fake");
  EXPECT_TRUE(reports.back().selected);
  EXPECT_EQ(reports.back().device_count, 3);
  EXPECT_TRUE(reports.back().available);
  EXPECT_EQ(backend_report().backend, "fake");
  EXPECT_TRUE(backend_report().selected);
}

TEST(BackendReportsTest, NoAcceleratorSelectsNone) {
  ScopedBackendOverride override(nullptr);
  const std::vector<BackendReport> reports = backend_reports();
  ASSERT_EQ(reports.size(), compiled_backend_names().size());
  for (const BackendReport& report : reports) EXPECT_FALSE(report.selected) << report.backend;
  EXPECT_FALSE(backend_report().selected);
  EXPECT_EQ(backend_report().backend, "none");
}

}  // namespace
}  // namespace accel::detail
