// Rendering of `accel info`: byte formatting, the exact text layout, the JSON layout.
#include "render.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace accel::tools {
namespace {

TEST(ShortUuid, KeepsThePrefixAndTheFirstGroup) {
  EXPECT_EQ(short_uuid("GPU-1c9b5fc9-5afc-10bc-fbe1-e7d2b016d148"), "GPU-1c9b5fc9");
  EXPECT_EQ(short_uuid("MIG-7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d"), "MIG-7a6b5c4d");
  EXPECT_EQ(short_uuid("GPU-abc"), "GPU-abc");
  EXPECT_EQ(short_uuid("abc"), "abc");
}

BuildInfo test_build() { return {"GNU 12.2.0", "RelWithDebInfo", {"cuda"}, true}; }

InfoReport available_report() {
  InfoReport report;
  report.version = "0.1.0";
  report.build = test_build();
  report.environment = {{"CUDA_VISIBLE_DEVICES", "1,0"},
                        {"ACCEL_BACKEND", std::nullopt},
                        {"MOCKDEV_MACHINE", "2xa100"}};
  report.machine = "2xa100";
  report.backend.backend = "cuda";
  report.backend.compiled_backends = {"cuda"};
  report.backend.available = true;
  report.backend.components = {{"driver", "/d/libcuda.so.1", true, "12.4"},
                               {"nvml", "/d/libnvidia-ml.so.1", true, ""}};
  report.backend.count_source = "nvml";
  report.backend.device_count = 2;
  DeviceRow good;
  good.index = 0;
  good.name = "GPU A";
  good.uuid = "GPU-1c9b5fc9-5afc-10bc-fbe1-e7d2b016d148";
  good.pci_bus_id = "00000000:00:06.0";
  good.mig_mode = "Disabled";
  good.cc_major = 8;
  good.cc_minor = 0;
  good.multiprocessors = 108;
  good.total_bytes = 40ULL << 30;
  good.free_bytes = 39ULL << 30;
  report.devices.push_back(good);
  // A device whose memory query failed keeps what was learned first, its name included.
  DeviceRow failed;
  failed.index = 1;
  failed.name = "GPU B";
  failed.cc_major = 8;
  failed.cc_minor = 0;
  failed.error = "get_memory_info: failed";
  report.devices.push_back(failed);
  report.current_device = 0;
  return report;
}

TEST(RenderText, ShowsHeaderAndWhichGpuIsWhich) {
  std::ostringstream out;
  render_text(available_report(), out);
  EXPECT_EQ(out.str(),
            "accel 0.1.0\n"
            "build:          GNU 12.2.0, RelWithDebInfo, backends: cuda, CUDA ABI checked "
            "against cuda.h: yes\n"
            "environment:    CUDA_VISIBLE_DEVICES=1,0\n"
            "                MOCKDEV_MACHINE=2xa100\n"
            "backend:        cuda (compiled: cuda)\n"
            "machine:        2xa100 (simulated by mockdev)\n"
            "available:      yes\n"
            "driver:         /d/libcuda.so.1 (loaded, version 12.4)\n"
            "nvml:           /d/libnvidia-ml.so.1 (loaded)\n"
            "device count:   2 (from nvml)\n"
            "devices:\n"
            "  index  name   uuid          pci bus id        capability  SMs  MIG       "
            "total memory  free memory\n"
            "  0      GPU A  GPU-1c9b5fc9  00000000:00:06.0  8.0         108  Disabled  "
            "40.00 GiB     39.00 GiB\n"
            "  1      GPU B  -             -                 8.0         -    -         "
            "-             -\n"
            "         error: get_memory_info: failed\n");
}

TEST(RenderText, VendorDriverVersionWhenKnown) {
  InfoReport report = available_report();
  report.driver_version = "580.159.04";
  std::ostringstream out;
  render_text(report, out);
  EXPECT_NE(out.str().find("\ndriver version: 580.159.04\n"), std::string::npos) << out.str();
}

// A name or error from a driver may hold control characters: the text report escapes them,
// so a row stays one line and nothing reaches the terminal as a control sequence.
TEST(RenderText, ControlCharactersAreEscaped) {
  InfoReport report = available_report();
  report.devices[0].name = "GPU A\x1b[31m\nPASS";
  report.devices[1].error = "lost\rdevice";
  std::ostringstream out;
  render_text(report, out);
  const std::string text = out.str();
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_NE(text.find("GPU A\\x1b[31m\\nPASS"), std::string::npos) << text;
  EXPECT_NE(text.find("error: lost\\rdevice"), std::string::npos) << text;
}

TEST(RenderText, UnavailableReportsCpuFallback) {
  InfoReport report;
  report.version = "0.1.0";
  report.build = {"Clang 14.0.6", "", {}, false};
  report.environment = {{"CUDA_VISIBLE_DEVICES", std::nullopt}};
  report.backend.backend = "cuda";
  report.backend.compiled_backends = {"cuda"};
  report.backend.unavailable_reason = "no driver";
  report.backend.components = {{"driver", "libcuda.so.1", false, ""},
                               {"nvml", "libnvidia-ml.so.1", false, ""}};
  report.backend.count_source = "none";
  std::ostringstream out;
  render_text(report, out);
  EXPECT_EQ(out.str(),
            "accel 0.1.0\n"
            "build:          Clang 14.0.6, backends: none, CUDA ABI checked against cuda.h: no\n"
            "environment:    (none set of CUDA_VISIBLE_DEVICES, ACCEL_*, MOCKDEV_MACHINE)\n"
            "backend:        cuda (compiled: cuda)\n"
            "available:      no (no driver)\n"
            "driver:         libcuda.so.1 (not loaded)\n"
            "nvml:           libnvidia-ml.so.1 (not loaded)\n"
            "device count:   0\n"
            "fallback: cpu\n");
}

// Another backend's components render the same way, with its own roles.
TEST(RenderText, AnyBackendsComponentsByRole) {
  InfoReport report;
  report.version = "0.1.0";
  report.build = test_build();
  report.backend.backend = "level_zero";
  report.backend.compiled_backends = {"level_zero"};
  report.backend.unavailable_reason = "no device";
  report.backend.components = {{"loader", "libze_loader.so.1", true, "1.17.0"}};
  report.backend.count_source = "none";
  std::ostringstream out;
  render_text(report, out);
  EXPECT_NE(out.str().find("\nloader:         libze_loader.so.1 (loaded, version 1.17.0)\n"),
            std::string::npos)
      << out.str();
}

TEST(RenderJson, CarriesEverythingTheTextShowsWithNullForUnknowns) {
  std::ostringstream out;
  render_json(available_report(), out);
  const nlohmann::json json = nlohmann::json::parse(out.str());
  const nlohmann::json expected = nlohmann::json::parse(R"({
    "version": "0.1.0",
    "build": {"compiler": "GNU 12.2.0", "build_type": "RelWithDebInfo", "backends": ["cuda"],
              "cuda_abi_checked": true},
    "environment": {"CUDA_VISIBLE_DEVICES": "1,0", "ACCEL_BACKEND": null,
                    "MOCKDEV_MACHINE": "2xa100"},
    "backend": "cuda",
    "compiled_backends": ["cuda"],
    "machine": "2xa100",
    "available": true,
    "unavailable_reason": null,
    "components": [
      {"role": "driver", "path": "/d/libcuda.so.1", "loaded": true, "version": "12.4"},
      {"role": "nvml", "path": "/d/libnvidia-ml.so.1", "loaded": true, "version": null}],
    "driver_version": null,
    "device_count": 2,
    "count_source": "nvml",
    "fallback": null,
    "error": null,
    "devices": [
      {"index": 0, "name": "GPU A", "uuid": "GPU-1c9b5fc9-5afc-10bc-fbe1-e7d2b016d148",
       "uuid_short": "GPU-1c9b5fc9", "pci_bus_id": "00000000:00:06.0",
       "compute_capability": "8.0", "multiprocessors": 108, "mig_mode": "Disabled",
       "total_memory_bytes": 42949672960, "free_memory_bytes": 41875931136, "error": null},
      {"index": 1, "name": "GPU B", "uuid": null, "uuid_short": null, "pci_bus_id": null,
       "compute_capability": "8.0", "multiprocessors": null, "mig_mode": null,
       "total_memory_bytes": null, "free_memory_bytes": null,
       "error": "get_memory_info: failed"}],
    "current_device": 0,
    "backends": [],
    "simulation": {}
  })");
  EXPECT_EQ(json, expected) << out.str();
}

// Two compiled backends: cuda serves the process, xpu's devices came from a child.
InfoReport two_backend_report() {
  InfoReport report = available_report();
  report.devices.pop_back();
  report.backend.compiled_backends = {"cuda", "xpu"};
  report.backend.selected = true;
  BackendSection cuda;
  cuda.report = report.backend;
  BackendSection xpu;
  xpu.report.backend = "xpu";
  xpu.report.compiled_backends = {"cuda", "xpu"};
  xpu.report.available = true;
  xpu.report.components = {{"loader", "/l/libze_loader.so.1", true, "1.8.12"}};
  xpu.report.count_source = "probe child";
  xpu.report.device_count = 1;
  DeviceRow tile;
  tile.index = 0;
  tile.name = "Intel GPU Max";
  tile.total_bytes = 64ULL << 30;
  tile.free_bytes = 63ULL << 30;
  xpu.devices = std::vector<DeviceRow>{tile};
  report.backends = {cuda, xpu};
  return report;
}

TEST(RenderText, OtherBackendsAfterTheSelectedOne) {
  std::ostringstream out;
  render_text(two_backend_report(), out);
  const std::string text = out.str();
  const std::string tail =
      "devices:\n"
      "  index  name   uuid          pci bus id        capability  SMs  MIG       "
      "total memory  free memory\n"
      "  0      GPU A  GPU-1c9b5fc9  00000000:00:06.0  8.0         108  Disabled  "
      "40.00 GiB     39.00 GiB\n"
      "backend xpu (not selected; --backend xpu selects it):\n"
      "  available:    yes\n"
      "  loader:       /l/libze_loader.so.1 (loaded, version 1.8.12)\n"
      "  device count: 1 (from probe child)\n"
      "  devices:\n"
      "    index  name           uuid  pci bus id  capability  SMs  MIG  total memory  "
      "free memory\n"
      "    0      Intel GPU Max  -     -           -           -    -    64.00 GiB     "
      "63.00 GiB\n";
  ASSERT_GE(text.size(), tail.size());
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail) << text;
  EXPECT_NE(text.find("\nbackend:        cuda (compiled: cuda, xpu)\n"), std::string::npos);
}

TEST(RenderText, OtherBackendWhoseChildFailedSaysWhy) {
  InfoReport report = two_backend_report();
  report.backends[1].devices.reset();
  report.backends[1].devices_error = "accel info --backend xpu exited 2: boom";
  std::ostringstream out;
  render_text(report, out);
  EXPECT_NE(out.str().find("\n  device count: 1 (from probe child)\n"
                           "  devices:      not listed: accel info --backend xpu exited 2: "
                           "boom\n"),
            std::string::npos)
      << out.str();
}

TEST(RenderJson, BackendsArrayHasEveryBackend) {
  std::ostringstream out;
  render_json(two_backend_report(), out);
  const nlohmann::json json = nlohmann::json::parse(out.str());
  ASSERT_EQ(json["backends"].size(), 2u) << out.str();
  const nlohmann::json& cuda = json["backends"][0];
  EXPECT_EQ(cuda["backend"], "cuda");
  EXPECT_EQ(cuda["selected"], true);
  EXPECT_EQ(cuda["devices"], json["devices"]);  // the selected one's rows, once more
  EXPECT_EQ(cuda["count_source"], "nvml");
  const nlohmann::json expected_xpu = nlohmann::json::parse(R"({
    "backend": "xpu", "selected": false, "available": true, "unavailable_reason": null,
    "config_error": null,
    "components": [{"role": "loader", "path": "/l/libze_loader.so.1", "loaded": true,
                    "version": "1.8.12"}],
    "device_count": 1, "count_source": "probe child",
    "devices": [{"index": 0, "name": "Intel GPU Max", "uuid": null, "uuid_short": null,
                 "pci_bus_id": null, "compute_capability": null, "multiprocessors": null,
                 "mig_mode": null, "total_memory_bytes": 68719476736,
                 "free_memory_bytes": 67645734912, "error": null}],
    "devices_error": null,
    "child_components": null
  })");
  EXPECT_EQ(json["backends"][1], expected_xpu) << out.str();
  // The top-level keys still describe the selected backend.
  EXPECT_EQ(json["backend"], "cuda");
  EXPECT_EQ(json["compiled_backends"], nlohmann::json::parse(R"(["cuda", "xpu"])"));
}

// Note [Simulation settings] (info.cpp): under a simulated machine every setting is shown,
// set ones with their value, unset ones with the rule that applies.
std::vector<SimulationSetting> test_simulation(bool schedule_set) {
  return {{"MOCKDEV_SCHEDULE", schedule_set ? std::optional<std::string>("random") : std::nullopt,
           "the machine file's streams.schedule, else eager"},
          {"MOCKDEV_SEED", std::nullopt, "the machine file's streams.seed, else 0"},
          {"MOCKDEV_RACES", std::nullopt, "the machine file's streams.races, else report"},
          {"MOCKDEV_TRACE", std::nullopt, "no trace is written"}};
}

TEST(RenderText, SimulationSettingsUnderASimulatedMachine) {
  InfoReport report = available_report();
  report.simulation = test_simulation(/*schedule_set=*/true);
  std::ostringstream out;
  render_text(report, out);
  EXPECT_NE(out.str().find("                MOCKDEV_MACHINE=2xa100\n"
                           "simulation:     MOCKDEV_SCHEDULE=random\n"
                           "                MOCKDEV_SEED unset: the machine file's streams.seed, "
                           "else 0\n"
                           "                MOCKDEV_RACES unset: the machine file's "
                           "streams.races, else report\n"
                           "                MOCKDEV_TRACE unset: no trace is written\n"
                           "backend:        cuda (compiled: cuda)\n"),
            std::string::npos)
      << out.str();
}

TEST(RenderText, NoSimulationBlockWithoutTheSimulation) {
  InfoReport report = available_report();
  report.environment = {{"MOCKDEV_MACHINE", std::nullopt}};
  report.simulation = test_simulation(/*schedule_set=*/false);
  std::ostringstream out;
  render_text(report, out);
  EXPECT_EQ(out.str().find("simulation:"), std::string::npos) << out.str();
  // One setting set is enough to show them all, machine or not.
  report.simulation = test_simulation(/*schedule_set=*/true);
  std::ostringstream again;
  render_text(report, again);
  EXPECT_NE(again.str().find("simulation:     MOCKDEV_SCHEDULE=random\n"), std::string::npos)
      << again.str();
}

TEST(RenderJson, SimulationSettingsWithValueAndDefault) {
  InfoReport report = available_report();
  report.simulation = test_simulation(/*schedule_set=*/true);
  std::ostringstream out;
  render_json(report, out);
  const nlohmann::json json = nlohmann::json::parse(out.str());
  EXPECT_EQ(json["simulation"], nlohmann::json::parse(R"({
    "MOCKDEV_SCHEDULE": {"value": "random",
                         "default": "the machine file's streams.schedule, else eager"},
    "MOCKDEV_SEED": {"value": null, "default": "the machine file's streams.seed, else 0"},
    "MOCKDEV_RACES": {"value": null, "default": "the machine file's streams.races, else report"},
    "MOCKDEV_TRACE": {"value": null, "default": "no trace is written"}
  })"))
      << out.str();
}

TEST(SimulationInEffect, ReadsTheFiveVariables) {
  ::setenv("MOCKDEV_SEED", "7", 1);
  ::unsetenv("MOCKDEV_SCHEDULE");
  const std::vector<SimulationSetting> settings = simulation_in_effect();
  ::unsetenv("MOCKDEV_SEED");
  ASSERT_EQ(settings.size(), 5u);
  EXPECT_EQ(settings[0].name, "MOCKDEV_SCHEDULE");
  EXPECT_EQ(settings[0].value, std::nullopt);
  EXPECT_EQ(settings[1].name, "MOCKDEV_SEED");
  EXPECT_EQ(settings[1].value, std::optional<std::string>("7"));
  EXPECT_EQ(settings[2].name, "MOCKDEV_RACES");
  EXPECT_EQ(settings[3].name, "MOCKDEV_LEAKS");
  EXPECT_EQ(settings[3].default_text, "no leak report at exit");
  EXPECT_EQ(settings[4].name, "MOCKDEV_TRACE");
  EXPECT_EQ(settings[4].default_text, "no trace is written");
}

// A backend that counted and found no device: one line, not the driver call behind it.
BackendSection no_device_xpu() {
  BackendSection xpu;
  xpu.report.backend = "xpu";
  xpu.report.available = false;
  xpu.report.unavailable_reason =
      "zeInit failed in the probe child: ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)";
  xpu.report.components = {{"loader", "libze_loader.so.1", true, ""},
                           {"driver", "/m/libze_mock.so", false, ""}};
  xpu.report.count_source = "probe";
  xpu.report.device_count = 0;
  return xpu;
}

TEST(RenderText, OtherBackendWithNoDeviceIsOneLine) {
  InfoReport report = two_backend_report();
  report.backends[1] = no_device_xpu();
  std::ostringstream out;
  render_text(report, out);
  const std::string tail =
      "backend xpu (not selected): no Level Zero device (device count 0, "
      "from probe)\n";
  ASSERT_GE(out.str().size(), tail.size());
  EXPECT_EQ(out.str().substr(out.str().size() - tail.size()), tail) << out.str();
  EXPECT_EQ(out.str().find("ZE_RESULT"), std::string::npos) << out.str();
}

TEST(RenderText, OtherBackendWhoseCountFailedKeepsItsReason) {
  InfoReport report = two_backend_report();
  report.backends[1] = no_device_xpu();
  report.backends[1].report.count_source = "none";  // no count was made
  report.backends[1].report.unavailable_reason = "the probe child was killed by signal 9";
  std::ostringstream out;
  render_text(report, out);
  EXPECT_NE(out.str().find("backend xpu (not selected; --backend xpu selects it):\n"
                           "  available:    no (the probe child was killed by signal 9)\n"
                           "  loader:       libze_loader.so.1 (loaded)\n"
                           "  driver:       /m/libze_mock.so (not loaded)\n"
                           "  device count: 0\n"),
            std::string::npos)
      << out.str();
}

TEST(RenderText, SelectedBackendWithNoDeviceSaysSo) {
  InfoReport report;
  report.version = "0.1.0";
  report.build = test_build();
  report.backend = no_device_xpu().report;
  report.backend.selected = true;
  std::ostringstream out;
  render_text(report, out);
  EXPECT_NE(out.str().find("\navailable:      no (no Level Zero device)\n"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("\ndriver:         /m/libze_mock.so (not loaded)\n"), std::string::npos)
      << out.str();
}

// The files of another backend as the child that listed its devices saw them: loaded.
TEST(RenderText, OtherBackendsFilesAsItsChildSawThem) {
  InfoReport report = two_backend_report();
  report.backends[1].report.components.push_back({"driver", "/m/libze_mock.so", false, ""});
  std::ostringstream without_child;
  render_text(report, without_child);
  EXPECT_NE(without_child.str().find("\n  driver:       /m/libze_mock.so (not loaded by this "
                                     "process)\n"),
            std::string::npos)
      << without_child.str();
  report.backends[1].child_components = std::vector<BackendComponent>{
      {"loader", "/l/libze_loader.so.1", true, "1.8.12"}, {"driver", "/m/libze_mock.so", true, ""}};
  std::ostringstream with_child;
  render_text(report, with_child);
  EXPECT_NE(with_child.str().find("  available:    yes\n"
                                  "  loader:       /l/libze_loader.so.1 (loaded, version 1.8.12)\n"
                                  "  driver:       /m/libze_mock.so (loaded)\n"),
            std::string::npos)
      << with_child.str();
  std::ostringstream json_out;
  render_json(report, json_out);
  const nlohmann::json json = nlohmann::json::parse(json_out.str());
  EXPECT_EQ(json["backends"][1]["child_components"][1],
            nlohmann::json::parse(R"({"role": "driver", "path": "/m/libze_mock.so",
                                      "loaded": true, "version": null})"))
      << json_out.str();
}

TEST(CountedNoDevice, OnlyACountThatWasMadeAndFoundNone) {
  BackendReport report = no_device_xpu().report;
  EXPECT_TRUE(counted_no_device(report));
  report.count_source = "none";
  EXPECT_FALSE(counted_no_device(report));
  report.count_source = "";
  EXPECT_FALSE(counted_no_device(report));
  report = no_device_xpu().report;
  report.config_error = "ZE_AFFINITY_MASK='x': malformed";
  EXPECT_FALSE(counted_no_device(report));
  report = no_device_xpu().report;
  report.device_count = 1;
  EXPECT_FALSE(counted_no_device(report));
}

// The child's JSON reads back into the same rows (the parent lists another backend's
// devices from it).
TEST(ParseDeviceRows, RoundTripsTheJsonRows) {
  std::ostringstream out;
  render_json(available_report(), out);
  const std::optional<std::vector<DeviceRow>> rows = parse_device_rows(out.str());
  ASSERT_TRUE(rows.has_value());
  ASSERT_EQ(rows->size(), 2u);
  const DeviceRow& a = (*rows)[0];
  EXPECT_EQ(a.index, 0);
  EXPECT_EQ(a.name, "GPU A");
  EXPECT_EQ(a.uuid, "GPU-1c9b5fc9-5afc-10bc-fbe1-e7d2b016d148");
  EXPECT_EQ(a.pci_bus_id, "00000000:00:06.0");
  EXPECT_EQ(a.mig_mode, "Disabled");
  EXPECT_EQ(a.cc_major, 8);
  EXPECT_EQ(a.cc_minor, 0);
  EXPECT_EQ(a.multiprocessors, 108);
  EXPECT_EQ(a.total_bytes, 40ULL << 30);
  EXPECT_EQ(a.free_bytes, 39ULL << 30);
  EXPECT_EQ(a.error, std::nullopt);
  const DeviceRow& b = (*rows)[1];
  EXPECT_EQ(b.index, 1);
  EXPECT_EQ(b.uuid, std::nullopt);
  EXPECT_EQ(b.total_bytes, std::nullopt);
  EXPECT_EQ(b.error, "get_memory_info: failed");
  EXPECT_FALSE(parse_device_rows("accel: no").has_value());
  EXPECT_FALSE(parse_device_rows(R"({"devices": [{"name": "no index"}]})").has_value());
  EXPECT_FALSE(parse_device_rows(R"({"version": "0.1.0"})").has_value());
}

TEST(RenderJson, NoEmptyStringsBesideNulls) {
  InfoReport report;
  report.version = "0.1.0";
  report.build = {"GNU 12.2.0", "", {}, false};
  report.backend.backend = "none";
  report.backend.count_source = "none";
  report.backend.components = {{"driver", "", false, ""}};
  std::ostringstream out;
  render_json(report, out);
  EXPECT_EQ(out.str().find("\"\""), std::string::npos) << out.str();
  const nlohmann::json json = nlohmann::json::parse(out.str());
  EXPECT_TRUE(json["build"]["build_type"].is_null());
  EXPECT_TRUE(json["unavailable_reason"].is_null());
  EXPECT_TRUE(json["count_source"].is_null());
  EXPECT_TRUE(json["components"][0]["path"].is_null());
  EXPECT_EQ(json["fallback"], "cpu");
}

// A driver that returns a name that is not UTF-8 must not make the output unreadable.
TEST(RenderJson, InvalidUtf8StaysValidJson) {
  InfoReport report = available_report();
  report.devices[0].name = std::string("GPU \xff\xfe A");
  std::ostringstream out;
  render_json(report, out);
  nlohmann::json json;
  ASSERT_NO_THROW(json = nlohmann::json::parse(out.str())) << out.str();
  EXPECT_EQ(json["devices"][0]["name"], "GPU \xEF\xBF\xBD\xEF\xBF\xBD A");
}

}  // namespace
}  // namespace accel::tools
