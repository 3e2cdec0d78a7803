// Item: modules and kernels. A module built from SPIR-V (tests/support/spirv_module.h: kernels
// "scale" of 1 parameter and "axpy" of 3, the exported global "counter" = 42) lists its entry
// points; kernels take their arguments by index and size; group sizes stay within the device's
// limits; a launch signals its event. The kernels' bodies are empty, so on a real device a
// launch does nothing observable but complete, as the simulated driver's opaque launch of a
// kernel no host body is registered for.

#include <string>
#include <vector>

#include "spirv_module.h"
#include "ze_module_test_helpers.h"
#include "ze_driver_test.h"

namespace accel::ze_driver_test {
namespace {

class ZeModules : public ZeDriverTest {
 protected:
  void TearDown() override {
    for (ze_kernel_handle_t k : kernels_) zeKernelDestroy(k);
    for (ze_module_handle_t m : modules_) zeModuleDestroy(m);
    ZeDriverTest::TearDown();
  }
  ze_result_t create(const std::vector<std::uint32_t>& words, ze_module_handle_t* out,
                     ze_module_build_log_handle_t* log = nullptr,
                     ze_module_format_t format = ZE_MODULE_FORMAT_IL_SPIRV) {
    const ze_result_t rc =
        accel::test::spirv::create_module(context_, device_, words, out, log, format);
    if (rc == ZE_RESULT_SUCCESS) modules_.push_back(*out);
    return rc;
  }
  ze_module_handle_t module() {
    ze_module_handle_t m = nullptr;
    EXPECT_EQ(create(accel::test::spirv::two_kernels(), &m), ZE_RESULT_SUCCESS);
    return m;
  }
  ze_kernel_handle_t kernel(ze_module_handle_t m, const char* name) {
    ze_kernel_desc_t desc{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, name};
    ze_kernel_handle_t k = nullptr;
    EXPECT_EQ(zeKernelCreate(m, &desc, &k), ZE_RESULT_SUCCESS);
    if (k != nullptr) kernels_.push_back(k);
    return k;
  }
  std::vector<ze_module_handle_t> modules_;
  std::vector<ze_kernel_handle_t> kernels_;
};

// The module's entry points, in the module's order, with their parameter counts; the names
// array is filled up to the count given; an unknown name is INVALID_KERNEL_NAME.
TEST_F(ZeModules, EntryPointsAndArgumentCountsFromTheSpirv) {
  ze_module_handle_t m = module();
  ASSERT_NE(m, nullptr);
  std::uint32_t count = 0;
  ASSERT_EQ(zeModuleGetKernelNames(m, &count, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(count, 2u);
  const char* names[2] = {nullptr, nullptr};
  ASSERT_EQ(zeModuleGetKernelNames(m, &count, names), ZE_RESULT_SUCCESS);
  ASSERT_NE(names[0], nullptr);
  ASSERT_NE(names[1], nullptr);
  EXPECT_EQ(std::vector<std::string>({names[0], names[1]}),
            std::vector<std::string>({"scale", "axpy"}));
  EXPECT_EQ(zeModuleGetKernelNames(m, nullptr, names), ZE_RESULT_ERROR_INVALID_NULL_POINTER);

  ze_kernel_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
  ASSERT_EQ(zeKernelGetProperties(kernel(m, "scale"), &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.numKernelArgs, 1u);
  ze_kernel_handle_t axpy = kernel(m, "axpy");
  ASSERT_EQ(zeKernelGetProperties(axpy, &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.numKernelArgs, 3u);
  std::size_t size = 0;
  ASSERT_EQ(zeKernelGetName(axpy, &size, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(size, 5u);  // with its nul

  ze_kernel_desc_t desc{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, "nope"};
  ze_kernel_handle_t k = nullptr;
  EXPECT_EQ(zeKernelCreate(m, &desc, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
  EXPECT_EQ(zeKernelCreate(nullptr, &desc, &k), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  desc.pKernelName = nullptr;
  EXPECT_EQ(zeKernelCreate(m, &desc, &k), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(k, nullptr);
}

// A native binary that is no binary of this device is INVALID_NATIVE_BINARY; a SPIR-V module
// that is not SPIR-V fails to build, with a build log that says why.
TEST_F(ZeModules, RefusedModulesHaveTheirCodesAndABuildLog) {
  const std::vector<std::uint32_t> junk(64, 0x5a5a5a5au);
  ze_module_handle_t m = nullptr;
  EXPECT_EQ(create(junk, &m, nullptr, ZE_MODULE_FORMAT_NATIVE),
            ZE_RESULT_ERROR_INVALID_NATIVE_BINARY);
  EXPECT_EQ(m, nullptr);
  std::vector<std::uint32_t> words = accel::test::spirv::two_kernels();
  words[0] = 0x12345678;  // the magic number
  ze_module_build_log_handle_t log = nullptr;
  EXPECT_EQ(create(words, &m, &log), ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
  EXPECT_EQ(m, nullptr);
  ASSERT_NE(log, nullptr);
  EXPECT_NE(accel::test::spirv::build_log_text(log), "");
  EXPECT_EQ(zeModuleBuildLogDestroy(log), ZE_RESULT_SUCCESS);
  ze_module_desc_t no_input{ZE_STRUCTURE_TYPE_MODULE_DESC, nullptr, ZE_MODULE_FORMAT_IL_SPIRV, 4,
                            nullptr, nullptr, nullptr};
  EXPECT_EQ(zeModuleCreate(context_, device_, nullptr, &m, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeModuleCreate(context_, device_, &no_input, &m, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeModuleCreate(nullptr, device_, &no_input, &m, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// The exported global is device memory holding its initializer; an unknown name is
// INVALID_GLOBAL_NAME.
TEST_F(ZeModules, GlobalPointerOfAnExportedVariable) {
  ze_module_handle_t m = module();
  ASSERT_NE(m, nullptr);
  std::size_t size = 0;
  void* counter = nullptr;
  ASSERT_EQ(zeModuleGetGlobalPointer(m, "counter", &size, &counter), ZE_RESULT_SUCCESS);
  EXPECT_EQ(size, 4u);
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(zeModuleGetGlobalPointer(m, "missing", &size, &counter),
            ZE_RESULT_ERROR_INVALID_GLOBAL_NAME);
  auto* value = static_cast<std::uint32_t*>(host_alloc(4));
  ASSERT_NE(value, nullptr);
  *value = 0;
  ze_command_list_handle_t list = immediate(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, value, counter, 4, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(*value, 42u);
}

// Arguments by index and size; group sizes within the device's limits; a suggested group size
// divides the global size and stays within the limits; indirect-access flags read back.
TEST_F(ZeModules, ArgumentsGroupSizesAndSuggestions) {
  ze_module_handle_t m = module();
  ASSERT_NE(m, nullptr);
  ze_kernel_handle_t axpy = kernel(m, "axpy");
  void* d = device_alloc(64);
  const float a = 2.0f;
  EXPECT_EQ(zeKernelSetArgumentValue(axpy, 0, sizeof d, &d), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetArgumentValue(axpy, 1, sizeof d, &d), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetArgumentValue(axpy, 2, sizeof a, &a), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetArgumentValue(axpy, 3, sizeof a, &a),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
  EXPECT_EQ(zeKernelSetArgumentValue(axpy, 2, 8, &d), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
  EXPECT_EQ(zeKernelSetArgumentValue(nullptr, 0, 8, &d), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

  EXPECT_EQ(zeKernelSetGroupSize(axpy, 1, 1, 1), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetGroupSize(axpy, compute_.maxGroupSizeX + 1, 1, 1),
            ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
  const std::uint32_t globals[][3] = {{1024, 1024, 1}, {1000, 3, 1}, {96, 8, 2}, {4096, 1, 1},
                                      {1031, 1, 1},    {6, 10, 35}};
  for (const auto& g : globals) {
    std::uint32_t x = 0, y = 0, z = 0;
    ASSERT_EQ(zeKernelSuggestGroupSize(axpy, g[0], g[1], g[2], &x, &y, &z), ZE_RESULT_SUCCESS);
    const std::string where = std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" +
                              std::to_string(g[2]) + " -> " + std::to_string(x) + "x" +
                              std::to_string(y) + "x" + std::to_string(z);
    ASSERT_TRUE(x > 0 && y > 0 && z > 0) << where;
    EXPECT_EQ(g[0] % x, 0u) << where;
    EXPECT_EQ(g[1] % y, 0u) << where;
    EXPECT_EQ(g[2] % z, 0u) << where;
    EXPECT_LE(x, compute_.maxGroupSizeX) << where;
    EXPECT_LE(y, compute_.maxGroupSizeY) << where;
    EXPECT_LE(z, compute_.maxGroupSizeZ) << where;
    EXPECT_LE(std::uint64_t{x} * y * z, compute_.maxTotalGroupSize) << where;
    EXPECT_EQ(zeKernelSetGroupSize(axpy, x, y, z), ZE_RESULT_SUCCESS) << where;
  }
  std::uint32_t x = 0, y = 0, z = 0;
  EXPECT_EQ(zeKernelSuggestGroupSize(axpy, 1, 1, 1, nullptr, &y, &z),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeKernelSuggestGroupSize(nullptr, 1, 1, 1, &x, &y, &z),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

  ze_kernel_indirect_access_flags_t flags = 0x80;
  ASSERT_EQ(zeKernelSetIndirectAccess(axpy, ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
                                                ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeKernelGetIndirectAccess(axpy, &flags), ZE_RESULT_SUCCESS);
  EXPECT_EQ(flags, ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE | ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST);
}

// A launch, direct and indirect, on an immediate list signals its event; the kernel timestamps
// of the launch run forward.
TEST_F(ZeModules, LaunchesSignalTheirEvents) {
  ze_module_handle_t m = module();
  ASSERT_NE(m, nullptr);
  ze_kernel_handle_t scale = kernel(m, "scale");
  void* d = device_alloc(64 * 4);
  ASSERT_EQ(zeKernelSetArgumentValue(scale, 0, sizeof d, &d), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeKernelSetGroupSize(scale, 16, 1, 1), ZE_RESULT_SUCCESS);
  ze_command_list_handle_t list = immediate();
  ze_event_pool_handle_t p =
      pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
  ze_event_handle_t launched = event(p, 0);
  const ze_group_count_t groups{4, 1, 1};
  ASSERT_EQ(zeCommandListAppendLaunchKernel(list, scale, &groups, launched, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(launched, kBoundedWaitNs), ZE_RESULT_SUCCESS);
  ze_kernel_timestamp_result_t ts{};
  ASSERT_EQ(zeEventQueryKernelTimestamp(launched, &ts), ZE_RESULT_SUCCESS);
  EXPECT_GE(ts.context.kernelEnd, ts.context.kernelStart);

  auto* counts = static_cast<ze_group_count_t*>(host_alloc(sizeof(ze_group_count_t)));
  ASSERT_NE(counts, nullptr);
  *counts = {2, 1, 1};
  ze_event_handle_t indirect = event(p, 1);
  ASSERT_EQ(zeCommandListAppendLaunchKernelIndirect(list, scale, counts, indirect, 1, &launched),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventHostSynchronize(indirect, kBoundedWaitNs), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendLaunchKernel(list, scale, nullptr, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendLaunchKernel(list, nullptr, &groups, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

}  // namespace
}  // namespace accel::ze_driver_test
