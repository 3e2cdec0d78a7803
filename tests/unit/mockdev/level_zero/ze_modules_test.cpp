// Modules and kernels of the mock Level Zero driver through the real loader: a hand-assembled
// SPIR-V module (two OpenCL kernels of 1 and 3 parameters and one exported global), build logs,
// kernel names, globals, arguments, group sizes, and launches that run a registered body in
// virtual time, or an opaque operation the race detector sees.

#include <cstring>
#include <string>
#include <vector>

#include "mockdev/kernels.h"
#include "mockdev/races.h"
#include "mockdev/streams.h"
#include "spirv_module.h"
#include "ze_module_test_helpers.h"
#include "ze_objects_fixture.h"

namespace ze_objects_test {
namespace {

namespace kernels = mockdev::kernels;

using accel::test::spirv::build_log_text;
using accel::test::spirv::two_kernels;

class ModulesTest : public ZeObjectsTest {
 protected:
  void TearDown() override { kernels::clear_kernels(); }

  ze_result_t create(const std::vector<std::uint32_t>& words, ze_module_handle_t* out,
                     ze_module_build_log_handle_t* log = nullptr,
                     ze_module_format_t format = ZE_MODULE_FORMAT_IL_SPIRV,
                     ze_device_handle_t device = nullptr) {
    return accel::test::spirv::create_module(context_, device != nullptr ? device : card_, words,
                                             out, log, format);
  }
  ze_module_handle_t module() {
    ze_module_handle_t m = nullptr;
    EXPECT_EQ(create(two_kernels(), &m), ZE_RESULT_SUCCESS);
    return m;
  }
  ze_kernel_handle_t kernel(ze_module_handle_t m, const char* name) {
    ze_kernel_desc_t desc{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, name};
    ze_kernel_handle_t k = nullptr;
    EXPECT_EQ(zeKernelCreate(m, &desc, &k), ZE_RESULT_SUCCESS);
    return k;
  }
  // The build log of a module create that must fail with `code`.
  std::string refused(const std::vector<std::uint32_t>& words, ze_result_t code,
                      ze_module_format_t format = ZE_MODULE_FORMAT_IL_SPIRV) {
    ze_module_handle_t m = nullptr;
    ze_module_build_log_handle_t log = nullptr;
    EXPECT_EQ(create(words, &m, &log, format), code);
    EXPECT_EQ(m, nullptr);
    if (log == nullptr) return "no build log";
    std::string text = build_log_text(log);
    EXPECT_EQ(zeModuleBuildLogDestroy(log), ZE_RESULT_SUCCESS);
    return text;
  }
};

// The module's entry points and their parameter counts come from the SPIR-V.
TEST_F(ModulesTest, EntryPointsAndArgumentCountsFromTheSpirv) {
  ze_module_handle_t m = nullptr;
  ze_module_build_log_handle_t log = nullptr;
  ASSERT_EQ(create(two_kernels(), &m, &log), ZE_RESULT_SUCCESS);
  EXPECT_EQ(build_log_text(log), "");
  EXPECT_EQ(zeModuleBuildLogDestroy(log), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeModuleBuildLogDestroy(log), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

  std::uint32_t count = 0;
  ASSERT_EQ(zeModuleGetKernelNames(m, &count, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(count, 2u);
  const char* names[3] = {nullptr, nullptr, nullptr};
  count = 3;
  ASSERT_EQ(zeModuleGetKernelNames(m, &count, names), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 2u);
  EXPECT_STREQ(names[0], "scale");
  EXPECT_STREQ(names[1], "axpy");
  count = 1;
  ASSERT_EQ(zeModuleGetKernelNames(m, &count, names), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(zeModuleGetKernelNames(m, nullptr, names), ZE_RESULT_ERROR_INVALID_NULL_POINTER);

  ze_kernel_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
  ze_kernel_handle_t scale = kernel(m, "scale");
  ASSERT_EQ(zeKernelGetProperties(scale, &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.numKernelArgs, 1u);
  EXPECT_EQ(p.requiredGroupSizeX, 0u);
  ze_kernel_handle_t axpy = kernel(m, "axpy");
  ASSERT_EQ(zeKernelGetProperties(axpy, &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.numKernelArgs, 3u);
  std::size_t size = 0;
  ASSERT_EQ(zeKernelGetName(axpy, &size, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(size, 5u);
  char name[5] = {};
  ASSERT_EQ(zeKernelGetName(axpy, &size, name), ZE_RESULT_SUCCESS);
  EXPECT_STREQ(name, "axpy");

  ze_kernel_desc_t desc{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, "nope"};
  ze_kernel_handle_t k = nullptr;
  EXPECT_EQ(zeKernelCreate(m, &desc, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
  desc.pKernelName = "scale";
  desc.flags = 0x4;
  EXPECT_EQ(zeKernelCreate(m, &desc, &k), ZE_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(zeKernelCreate(nullptr, &desc, &k), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(k, nullptr);
  ze_module_properties_t mp{ZE_STRUCTURE_TYPE_MODULE_PROPERTIES, nullptr, 0x5};
  ASSERT_EQ(zeModuleGetProperties(m, &mp), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mp.flags, 0u);

  // A module whose kernels live is in use; then it goes, and its handle with it.
  EXPECT_EQ(zeModuleDestroy(m), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
  ASSERT_EQ(zeKernelDestroy(scale), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeKernelDestroy(axpy), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelDestroy(axpy), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  ASSERT_EQ(zeModuleDestroy(m), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeModuleDestroy(m), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeModuleGetKernelNames(m, &count, nullptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// What zeModuleCreate refuses, with the code and the build log's words.
TEST_F(ModulesTest, RefusedModulesAndTheirBuildLogs) {
  const std::vector<std::uint32_t> good = two_kernels();
  EXPECT_EQ(refused(good, ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, ZE_MODULE_FORMAT_NATIVE),
            "a native binary is device code the simulated device cannot run: build the module "
            "from SPIR-V (ZE_MODULE_FORMAT_IL_SPIRV)");
  std::vector<std::uint32_t> words = good;
  words[0] = 0x12345678;
  EXPECT_EQ(refused(words, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE),
            "SPIR-V: not SPIR-V: the magic number is 0x12345678, not 0x07230203");
  words = good;
  words.resize(good.size() - 1);    // the last OpFunctionEnd is cut off
  words.back() = (3u << 16) | 253;  // an OpReturn that claims 3 words
  EXPECT_EQ(refused(words, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE),
            "SPIR-V: instruction 253 of 3 words runs past the end of the module (at word " +
                std::to_string(good.size() - 2) + ")");
  words = good;
  words[7] = 0;  // the second OpCapability (words 5-12 are the four capabilities)
  EXPECT_EQ(refused(words, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE),
            "SPIR-V: an instruction with a word count of 0 (at word 7)");
  words = good;
  words[1] = 0x00020000;
  EXPECT_EQ(refused(words, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE),
            "SPIR-V: SPIR-V version word 0x00020000 is not version 1.x");
  // A GLCompute (5) entry point is no OpenCL kernel.
  words = good;
  words[17] = 5;  // the execution model of OpEntryPoint "scale" (words 16-20: header 5 words,
                  // 4 capabilities of 2, the memory model of 3)
  EXPECT_EQ(refused(words, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE),
            "SPIR-V: entry point 'scale' has execution model 5, not Kernel (6): not an OpenCL "
            "kernel (at word 16)");
  const std::vector<std::uint32_t> header_only(good.begin(), good.begin() + 4);
  EXPECT_EQ(refused(header_only, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE),
            "SPIR-V: a SPIR-V module starts with a 5-word header; got 4 words");

  // Argument checks before any build: no log.
  ze_module_handle_t m = nullptr;
  ze_module_build_log_handle_t log = nullptr;
  EXPECT_EQ(create(good, &m, &log, static_cast<ze_module_format_t>(2)),
            ZE_RESULT_ERROR_INVALID_ENUMERATION);
  ze_module_desc_t empty{ZE_STRUCTURE_TYPE_MODULE_DESC,
                         nullptr,
                         ZE_MODULE_FORMAT_IL_SPIRV,
                         0,
                         reinterpret_cast<const std::uint8_t*>(good.data()),
                         nullptr,
                         nullptr};
  EXPECT_EQ(zeModuleCreate(context_, card_, &empty, &m, &log), ZE_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(log, nullptr);
  EXPECT_EQ(zeModuleCreate(context_, card_, nullptr, &m, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  ze_module_desc_t desc{ZE_STRUCTURE_TYPE_MODULE_DESC,
                        nullptr,
                        ZE_MODULE_FORMAT_IL_SPIRV,
                        4,
                        nullptr,
                        nullptr,
                        nullptr};
  EXPECT_EQ(zeModuleCreate(context_, card_, &desc, &m, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeModuleCreate(nullptr, card_, &desc, &m, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeModuleBuildLogGetString(nullptr, nullptr, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(m, nullptr);
}

// The exported CrossWorkgroup variable is device memory of the context holding its initializer.
TEST_F(ModulesTest, GlobalPointerOfAnExportedVariable) {
  ze_module_handle_t m = module();
  std::size_t size = 0;
  void* counter = nullptr;
  ASSERT_EQ(zeModuleGetGlobalPointer(m, "counter", &size, &counter), ZE_RESULT_SUCCESS);
  EXPECT_EQ(size, 4u);
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(zeModuleGetGlobalPointer(m, "counter", nullptr, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeModuleGetGlobalPointer(m, "missing", &size, &counter),
            ZE_RESULT_ERROR_INVALID_GLOBAL_NAME);
  EXPECT_EQ(zeModuleGetGlobalPointer(m, nullptr, &size, &counter),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  ze_memory_allocation_properties_t props{};
  props.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
  ASSERT_EQ(zeMemGetAllocProperties(context_, counter, &props, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(props.type, ZE_MEMORY_TYPE_DEVICE);
  ze_command_list_handle_t list = immediate(card_, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  std::uint32_t value = 0;
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, &value, counter, 4, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(value, 42u);
  EXPECT_EQ(zeMemFree(context_, counter), ZE_RESULT_ERROR_INVALID_ARGUMENT);  // the module's
  ASSERT_EQ(zeModuleDestroy(m), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendMemoryCopy(list, &value, counter, 4, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);  // gone with the module
}

// Arguments by index and size; group sizes within the device's limits; the suggestion rule
// (Note [Suggested group size]); indirect access flags.
TEST_F(ModulesTest, ArgumentsGroupSizesAndSuggestions) {
  ze_module_handle_t m = module();
  ze_kernel_handle_t axpy = kernel(m, "axpy");
  void* d = device_alloc(64, card_);
  const float a = 2.0f;
  EXPECT_EQ(zeKernelSetArgumentValue(axpy, 0, sizeof d, &d), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetArgumentValue(axpy, 1, sizeof d, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetArgumentValue(axpy, 2, sizeof a, &a), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetArgumentValue(axpy, 3, sizeof a, &a),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
  EXPECT_EQ(zeKernelSetArgumentValue(axpy, 2, 8, &d), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
  EXPECT_EQ(zeKernelSetArgumentValue(axpy, 0, 4, &a), ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
  EXPECT_EQ(zeKernelSetArgumentValue(nullptr, 0, 8, &d), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

  EXPECT_EQ(zeKernelSetGroupSize(axpy, 256, 4, 1), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetGroupSize(axpy, 0, 1, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
  EXPECT_EQ(zeKernelSetGroupSize(axpy, 1025, 1, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
  EXPECT_EQ(zeKernelSetGroupSize(axpy, 512, 4, 1), ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);

  auto suggest = [&](std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    std::uint32_t g[3] = {0, 0, 0};
    EXPECT_EQ(zeKernelSuggestGroupSize(axpy, x, y, z, &g[0], &g[1], &g[2]), ZE_RESULT_SUCCESS);
    return std::vector<std::uint32_t>{g[0], g[1], g[2]};
  };
  using V = std::vector<std::uint32_t>;
  EXPECT_EQ(suggest(1024, 1024, 1), (V{1024, 1, 1}));
  EXPECT_EQ(suggest(1000, 3, 1), (V{1000, 1, 1}));
  EXPECT_EQ(suggest(96, 8, 2), (V{96, 8, 1}));
  EXPECT_EQ(suggest(4096, 1, 1), (V{1024, 1, 1}));
  EXPECT_EQ(suggest(1031, 1, 1), (V{1, 1, 1}));  // a prime above the limit
  EXPECT_EQ(suggest(6, 10, 35), (V{6, 10, 7}));
  std::uint32_t x = 0, y = 0, z = 0;
  EXPECT_EQ(zeKernelSuggestGroupSize(axpy, 0, 1, 1, &x, &y, &z),
            ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION);
  EXPECT_EQ(zeKernelSuggestGroupSize(axpy, 1, 1, 1, nullptr, &y, &z),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);

  ze_kernel_indirect_access_flags_t flags = 0;
  ASSERT_EQ(zeKernelGetIndirectAccess(axpy, &flags), ZE_RESULT_SUCCESS);
  EXPECT_EQ(flags, 0u);
  ASSERT_EQ(zeKernelSetIndirectAccess(
                axpy, ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE | ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeKernelGetIndirectAccess(axpy, &flags), ZE_RESULT_SUCCESS);
  EXPECT_EQ(flags, 0x3u);
  EXPECT_EQ(zeKernelSetIndirectAccess(axpy, 0x8), ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

// "scale" registered: x[i] *= 2 over group count x group size floats, 5 us long.
void register_scale() {
  kernels::KernelSpec spec;
  spec.name = "scale";
  spec.param_sizes = {8};
  spec.duration_ns = 5000;
  auto count = [](const kernels::Launch& l) { return std::uint64_t{l.grid[0]} * l.block[0]; };
  spec.body = [count](const kernels::Launch& l, kernels::DeviceMemory& memory) {
    const auto x = l.arg<std::uint64_t>(0);
    for (std::uint64_t i = 0; i < count(l); ++i) {
      memory.store<float>(x + 4 * i, memory.load<float>(x + 4 * i) * 2.0f);
    }
  };
  spec.accesses = [count](const kernels::Launch& l) {
    const auto x = l.arg<std::uint64_t>(0);
    return kernels::Accesses{{{x, 4 * count(l)}}, {{x, 4 * count(l)}}};
  };
  kernels::register_kernel(std::move(spec));
}

// A launch runs the registered body when its operation completes in virtual time: nothing
// before the host waits, the declared duration in the kernel timestamps, the arguments as set
// when it was appended.
TEST_F(ModulesTest, LaunchRunsTheRegisteredBodyInVirtualTime) {
  register_scale();
  ze_module_handle_t m = module();
  ze_kernel_handle_t scale = kernel(m, "scale");
  const std::size_t n = 64;
  void* d = device_alloc(n * 4, card_);
  std::vector<float> x(n), back(n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  ze_command_list_handle_t list = immediate(card_);
  ze_event_pool_handle_t p =
      pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
  ze_event_handle_t in = event(p, 2);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d, x.data(), n * 4, in, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeKernelSetArgumentValue(scale, 0, sizeof d, &d), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeKernelSetGroupSize(scale, 16, 1, 1), ZE_RESULT_SUCCESS);
  ze_event_handle_t done = event(p, 0);
  const ze_group_count_t groups{4, 1, 1};
  ASSERT_EQ(zeCommandListAppendLaunchKernel(list, scale, &groups, done, 1, &in), ZE_RESULT_SUCCESS);
  // Arguments are copied at append: a later change does not reach the launch.
  void* other = nullptr;
  ASSERT_EQ(zeKernelSetArgumentValue(scale, 0, sizeof other, &other), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
  ze_kernel_timestamp_result_t ts{};
  ASSERT_EQ(zeEventQueryKernelTimestamp(done, &ts), ZE_RESULT_SUCCESS);
  EXPECT_EQ(ts.context.kernelEnd - ts.context.kernelStart, 100u);  // 5000 ns / 50 ns per tick
  ze_event_handle_t copied = event(p, 1);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), d, n * 4, copied, 1, &done),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(copied, UINT64_MAX), ZE_RESULT_SUCCESS);
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(back[i], 2.0f * static_cast<float>(i)) << i;
  EXPECT_EQ(mockdev::control::race_count(), 0u);

  // A launch of the registered kernel with an argument never set, or a registration whose
  // parameters differ from the module's, is refused.
  ze_kernel_handle_t fresh = kernel(m, "scale");
  EXPECT_EQ(zeCommandListAppendLaunchKernel(list, fresh, &groups, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeCommandListAppendLaunchKernel(list, scale, nullptr, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendLaunchKernel(list, nullptr, &groups, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  kernels::KernelSpec two;
  two.name = "scale";
  two.param_sizes = {8, 4};
  kernels::register_kernel(std::move(two));
  ASSERT_EQ(zeKernelSetArgumentValue(scale, 0, sizeof d, &d), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendLaunchKernel(list, scale, &groups, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

// A kernel nobody registered is an opaque operation with unknown accesses: unordered with a
// copy on another list of its device, the race detector reports it.
TEST_F(ModulesTest, UnregisteredKernelIsOpaqueWithUnknownAccesses) {
  ze_module_handle_t m = module();
  ze_kernel_handle_t axpy = kernel(m, "axpy");
  void* d = device_alloc(4096, card_);
  const float a = 1.0f;
  ASSERT_EQ(zeKernelSetArgumentValue(axpy, 0, sizeof d, &d), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeKernelSetArgumentValue(axpy, 1, sizeof d, &d), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeKernelSetArgumentValue(axpy, 2, sizeof a, &a), ZE_RESULT_SUCCESS);
  ze_command_list_handle_t one = immediate(card_);
  ze_command_list_handle_t two = immediate(card_);
  mockdev::control::clear_races();
  ze_event_pool_handle_t p = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_handle_t e = event(p, 0);
  const ze_group_count_t groups{1, 1, 1};
  ze_event_handle_t filled = event(p, 1);
  ze_event_handle_t again = event(p, 2);
  const unsigned char byte = 7;
  ASSERT_EQ(zeCommandListAppendLaunchKernel(one, axpy, &groups, e, 0, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryFill(two, d, &byte, 1, 4096, filled, 1, &e),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(filled, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::race_count(), 0u);  // ordered by the event
  ASSERT_EQ(zeCommandListAppendLaunchKernel(one, axpy, &groups, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryFill(two, d, &byte, 1, 4096, again, 0, nullptr),
            ZE_RESULT_SUCCESS);  // unordered with the second launch
  ASSERT_EQ(zeEventHostSynchronize(again, UINT64_MAX), ZE_RESULT_SUCCESS);
  ze_event_handle_t end = event(p, 3);
  ASSERT_EQ(zeCommandListAppendBarrier(one, end, 0, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(end, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::race_count(), 1u);
  mockdev::control::clear_races();
  // A kernel of a module built for tile 1 is not launched on tile 0.
  ze_module_handle_t on_tile = nullptr;
  ASSERT_EQ(create(two_kernels(), &on_tile, nullptr, ZE_MODULE_FORMAT_IL_SPIRV, tiles_[1]),
            ZE_RESULT_SUCCESS);
  ze_kernel_handle_t foreign = kernel(on_tile, "axpy");
  for (std::uint32_t i = 0; i < 3; ++i) {
    ASSERT_EQ(zeKernelSetArgumentValue(foreign, i, i == 2 ? 4 : 8, nullptr), ZE_RESULT_SUCCESS);
  }
  ze_command_list_handle_t tile0 = immediate(tiles_[0]);
  EXPECT_EQ(zeCommandListAppendLaunchKernel(tile0, foreign, &groups, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ze_command_list_handle_t tile1 = immediate(tiles_[1]);
  EXPECT_EQ(zeCommandListAppendLaunchKernel(tile1, foreign, &groups, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
}

// A regular list replays the launch as appended; the indirect launches read their group counts
// (and the kernel count) from memory when they run.
TEST_F(ModulesTest, RegularListsAndIndirectLaunches) {
  std::vector<std::uint32_t> seen;
  kernels::KernelSpec spec;
  spec.name = "scale";
  spec.param_sizes = {8};
  spec.body = [&seen](const kernels::Launch& l, kernels::DeviceMemory&) {
    seen.insert(seen.end(), {l.grid[0], l.grid[1], l.grid[2], l.block[0]});
  };
  kernels::register_kernel(std::move(spec));
  ze_module_handle_t m = module();
  ze_kernel_handle_t scale = kernel(m, "scale");
  void* d = device_alloc(64, card_);
  ASSERT_EQ(zeKernelSetArgumentValue(scale, 0, sizeof d, &d), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeKernelSetGroupSize(scale, 8, 1, 1), ZE_RESULT_SUCCESS);

  ze_command_queue_desc_t qdesc{
      ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
      ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_queue_handle_t queue = nullptr;
  ASSERT_EQ(zeCommandQueueCreate(context_, card_, &qdesc, &queue), ZE_RESULT_SUCCESS);
  ze_command_list_desc_t ldesc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, 0, 0};
  ze_command_list_handle_t list = nullptr;
  ASSERT_EQ(zeCommandListCreate(context_, card_, &ldesc, &list), ZE_RESULT_SUCCESS);
  const ze_group_count_t groups{3, 1, 1};
  ASSERT_EQ(zeCommandListAppendLaunchKernel(list, scale, &groups, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeKernelSetGroupSize(scale, 4, 1, 1), ZE_RESULT_SUCCESS);  // after the append
  auto* counts = static_cast<ze_group_count_t*>(host_alloc(2 * sizeof(ze_group_count_t)));
  counts[0] = {5, 1, 1};
  counts[1] = {6, 2, 1};
  ASSERT_EQ(zeCommandListAppendLaunchKernelIndirect(list, scale, counts, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  auto* how_many = static_cast<std::uint32_t*>(host_alloc(4));
  *how_many = 1;
  ze_kernel_handle_t both[2] = {scale, scale};
  ASSERT_EQ(zeCommandListAppendLaunchMultipleKernelsIndirect(list, 2, both, how_many, counts,
                                                             nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListClose(list), ZE_RESULT_SUCCESS);
  counts[0] = {7, 1, 1};  // read when the commands run, not when they were appended
  ASSERT_EQ(zeCommandQueueExecuteCommandLists(queue, 1, &list, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandQueueSynchronize(queue, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{3, 1, 1, 8, 7, 1, 1, 4, 7, 1, 1, 4}));
  *how_many = 2;
  seen.clear();
  ASSERT_EQ(zeCommandQueueExecuteCommandLists(queue, 1, &list, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandQueueSynchronize(queue, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(seen, (std::vector<std::uint32_t>{3, 1, 1, 8, 7, 1, 1, 4, 7, 1, 1, 4, 6, 2, 1, 4}));
  // Group counts must be memory of the context.
  ze_command_list_handle_t imm = immediate(card_);
  // An address in device 0's window that no allocation holds.
  EXPECT_EQ(zeCommandListAppendLaunchKernelIndirect(
                imm, scale, reinterpret_cast<ze_group_count_t*>(std::uintptr_t{1} << 44 | 0x10),
                nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeCommandListAppendLaunchMultipleKernelsIndirect(imm, 2, both, nullptr, counts, nullptr,
                                                             0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

// Note [Objects after their context]: after zeContextDestroy every use of its objects is
// INVALID_NULL_HANDLE, and each destroy Intel's driver allows succeeds once.
TEST_F(ModulesTest, ObjectsAfterTheirContextIsDestroyed) {
  ze_module_handle_t m = module();
  ze_kernel_handle_t k = kernel(m, "scale");
  ze_command_list_handle_t imm = immediate(card_);
  ze_command_queue_desc_t qdesc{
      ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
      ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_queue_handle_t queue = nullptr;
  ASSERT_EQ(zeCommandQueueCreate(context_, card_, &qdesc, &queue), ZE_RESULT_SUCCESS);
  ze_fence_desc_t fdesc{ZE_STRUCTURE_TYPE_FENCE_DESC, nullptr, 0};
  ze_fence_handle_t fence = nullptr;
  ASSERT_EQ(zeFenceCreate(queue, &fdesc, &fence), ZE_RESULT_SUCCESS);
  ze_event_pool_handle_t p = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_handle_t e = event(p, 0);
  ze_module_build_log_handle_t log = nullptr;
  ze_module_handle_t m2 = nullptr;
  ASSERT_EQ(create(two_kernels(), &m2, &log), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeContextDestroy(context_), ZE_RESULT_SUCCESS);

  // Uses: the specification's code for a handle that is not valid.
  EXPECT_EQ(zeCommandListAppendBarrier(imm, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeEventHostSignal(e), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeEventQueryStatus(e), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeFenceQueryStatus(fence), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeKernelSetGroupSize(k, 1, 1, 1), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  std::uint32_t count = 0;
  EXPECT_EQ(zeModuleGetKernelNames(m, &count, nullptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeContextDestroy(context_), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  // A build log is not the context's: it still answers.
  EXPECT_EQ(build_log_text(log), "");

  // Destroys: once each.
  EXPECT_EQ(zeEventDestroy(e), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventDestroy(e), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeEventPoolDestroy(p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventPoolDestroy(p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeFenceDestroy(fence), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandQueueDestroy(queue), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandQueueDestroy(queue), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeCommandListDestroy(imm), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListDestroy(imm), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  // A handle of another kind is no orphan of this one.
  EXPECT_EQ(zeEventPoolDestroy(reinterpret_cast<ze_event_pool_handle_t>(k)),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeKernelDestroy(k), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeModuleDestroy(m), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeModuleDestroy(m), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeModuleDestroy(m2), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeModuleBuildLogDestroy(log), ZE_RESULT_SUCCESS);
}

}  // namespace
}  // namespace ze_objects_test
