// The fault sweep's rules (tools/scenario/sweep_rules.h): the code each API's swept calls
// fail with, as the report writes it, and the calls a sweep leaves alone (Note [Unswept
// calls]). The values are the headers' (cuda.h; Level Zero's ze_api.h: ze_result_t).
#include "sweep_rules.h"

#include <gtest/gtest.h>

namespace accel::scenario {
namespace {

TEST(SweepRules, LevelZeroCallsFailWithLevelZeroCodes) {
  EXPECT_EQ(representative_code("zeMemAllocDevice"), 0x70000003);  // OUT_OF_DEVICE_MEMORY
  EXPECT_EQ(representative_code("zeMemAllocHost"), 0x70000003);
  EXPECT_EQ(representative_code("zeMemAllocShared"), 0x70000003);
  EXPECT_EQ(representative_code("zeEventHostSynchronize"), 0x7ffffffe);  // ERROR_UNKNOWN
  EXPECT_EQ(representative_code("zesDeviceGetProperties"), 0x7ffffffe);
  EXPECT_EQ(code_text("zeMemAllocDevice", 0x70000003), "0x70000003");
  EXPECT_EQ(code_text("zesMemoryGetState", 0x7ffffffe), "0x7ffffffe");
}

TEST(SweepRules, CudaAndNvmlCallsKeepTheirCodes) {
  EXPECT_EQ(representative_code("cuMemAlloc_v2"), 2);  // CUDA_ERROR_OUT_OF_MEMORY
  EXPECT_EQ(representative_code("cuInit"), 100);       // CUDA_ERROR_NO_DEVICE
  EXPECT_EQ(representative_code("cuCtxSetCurrent"), 999);
  EXPECT_EQ(representative_code("nvmlInit_v2"), 999);  // NVML_ERROR_UNKNOWN
  EXPECT_EQ(code_text("cuInit", 100), "100");
  EXPECT_EQ(code_text("nvmlDeviceGetCount_v2", 999), "999");
}

TEST(SweepRules, InitialisationAndDriverLoadingAreNotSwept) {
  for (const char* entry : {"zeInit", "zeInitDrivers", "zesInit", "cuGetProcAddress",
                            "cuGetProcAddress_v2", "cuDriverGetVersion"}) {
    EXPECT_FALSE(sweepable(entry)) << entry;
  }
  for (const char* entry : {"zeDriverGet", "zeDriverGetApiVersion", "zeDeviceGet",
                            "zeContextCreate", "zeMemAllocDevice", "zeMemFree", "zesDeviceGet",
                            "cuInit", "cuMemAlloc_v2", "nvmlInit_v2"}) {
    EXPECT_TRUE(sweepable(entry)) << entry;
  }
}

}  // namespace
}  // namespace accel::scenario
