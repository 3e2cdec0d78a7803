#pragma once
// Module helpers of the Level Zero module tests (the mock driver's, tests/unit/mockdev/
// level_zero, and the driver conformance suite's, tests/driver/level_zero): a module made from
// words (spirv_module.h) and a build log's text. GoogleTest assertions report a failing call.

#include <gtest/gtest.h>
#include <level_zero/ze_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace accel::test::spirv {

// zeModuleCreate of `words` in `format` on `device` of `context`.
inline ze_result_t create_module(ze_context_handle_t context, ze_device_handle_t device,
                                 const std::vector<std::uint32_t>& words,
                                 ze_module_handle_t* out,
                                 ze_module_build_log_handle_t* log = nullptr,
                                 ze_module_format_t format = ZE_MODULE_FORMAT_IL_SPIRV) {
  const ze_module_desc_t desc{ZE_STRUCTURE_TYPE_MODULE_DESC,
                              nullptr,
                              format,
                              words.size() * 4,
                              reinterpret_cast<const std::uint8_t*>(words.data()),
                              nullptr,
                              nullptr};
  return zeModuleCreate(context, device, &desc, out, log);
}

// A build log's text without its terminating nul ("" for an empty log).
inline std::string build_log_text(ze_module_build_log_handle_t log) {
  std::size_t size = 0;
  EXPECT_EQ(zeModuleBuildLogGetString(log, &size, nullptr), ZE_RESULT_SUCCESS);
  std::string text(size, '?');
  EXPECT_EQ(zeModuleBuildLogGetString(log, &size, text.data()), ZE_RESULT_SUCCESS);
  if (!text.empty()) {
    EXPECT_EQ(text.back(), '\0');
    text.pop_back();
  }
  return text;
}

}  // namespace accel::test::spirv
