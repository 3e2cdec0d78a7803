// Rendering of `accel info`: byte formatting, the text layout, the JSON layout.
#include "render.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace accel::tools {
namespace {

TEST(FormatBytes, UsesBinaryUnitsWithTwoDecimals) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.00 KiB");
  EXPECT_EQ(format_bytes(512ULL << 20), "512.00 MiB");
  EXPECT_EQ(format_bytes(85520809984ULL), "79.65 GiB");
  EXPECT_EQ(format_bytes(80ULL << 30), "80.00 GiB");
  EXPECT_EQ(format_bytes(3ULL << 40), "3.00 TiB");
}

InfoReport available_report() {
  InfoReport report;
  report.version = "0.1.0";
  report.machine = "preset:2xa100";
  report.backend.backend = "cuda";
  report.backend.compiled_backends = {"cuda"};
  report.backend.available = true;
  report.backend.components = {{"driver", "/d/libcuda.so.1", true, "12.4"},
                               {"nvml", "/d/libnvidia-ml.so.1", true, ""}};
  report.backend.count_source = "nvml";
  report.backend.device_count = 2;
  report.devices.push_back({0, "GPU A", 8, 0, 40ULL << 30, 39ULL << 30, "GPU-a", ""});
  report.devices.push_back({1, "", 0, 0, 0, 0, "", "get_memory_info: failed"});
  return report;
}

TEST(RenderText, ShowsBackendDriverAndDeviceTable) {
  std::ostringstream out;
  render_text(available_report(), out);
  EXPECT_EQ(out.str(),
            "accel 0.1.0\n"
            "backend:       cuda (compiled: cuda)\n"
            "machine:       preset:2xa100 (simulated by mockdev)\n"
            "available:     yes\n"
            "driver:        /d/libcuda.so.1 (loaded, version 12.4)\n"
            "nvml:          /d/libnvidia-ml.so.1 (loaded)\n"
            "device count:  2 (from nvml)\n"
            "devices:\n"
            "  index  name                            capability  total memory  free memory\n"
            "  0      GPU A                           8.0         40.00 GiB     39.00 GiB\n"
            "  1      error: get_memory_info: failed\n");
}

TEST(RenderText, UnavailableReportsCpuFallback) {
  InfoReport report;
  report.version = "0.1.0";
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
            "backend:       cuda (compiled: cuda)\n"
            "available:     no (no driver)\n"
            "driver:        libcuda.so.1 (not loaded)\n"
            "nvml:          libnvidia-ml.so.1 (not loaded)\n"
            "device count:  0\n"
            "fallback: cpu\n");
}

TEST(RenderJson, CarriesTheSameFacts) {
  std::ostringstream out;
  render_json(available_report(), out);
  const std::string json = out.str();
  for (const char* fragment :
       {"\"backend\": \"cuda\"", "\"machine\": \"preset:2xa100\"", "\"available\": true",
        "\"components\": [", "\"role\": \"driver\"", "\"path\": \"/d/libcuda.so.1\"",
        "\"version\": \"12.4\"", "\"role\": \"nvml\"", "\"version\": null", "\"device_count\": 2",
        "\"count_source\": \"nvml\"", "\"fallback\": null", "\"compute_capability\": \"8.0\"",
        "\"total_memory_bytes\": 42949672960", "\"free_memory_bytes\": 41875931136",
        "\"uuid\": \"GPU-a\"", "\"error\": \"get_memory_info: failed\""}) {
    EXPECT_NE(json.find(fragment), std::string::npos) << fragment << "\n" << json;
  }
}

// Another backend's components render the same way, with its own roles.
TEST(RenderText, AnyBackendsComponentsByRole) {
  InfoReport report;
  report.version = "0.1.0";
  report.backend.backend = "level_zero";
  report.backend.compiled_backends = {"level_zero"};
  report.backend.unavailable_reason = "no device";
  report.backend.components = {{"loader", "libze_loader.so.1", true, "1.17.0"}};
  report.backend.count_source = "none";
  std::ostringstream out;
  render_text(report, out);
  EXPECT_EQ(out.str(),
            "accel 0.1.0\n"
            "backend:       level_zero (compiled: level_zero)\n"
            "available:     no (no device)\n"
            "loader:        libze_loader.so.1 (loaded, version 1.17.0)\n"
            "device count:  0\n"
            "fallback: cpu\n");
}

}  // namespace
}  // namespace accel::tools
