// Created contexts and the context stack on the simulated driver (Note [Created contexts]
// in mockdev/src/cuda/driver_context_create.cpp, Note [Context stack] and Note [Primary
// contexts] in driver_context.cpp): what a context owns, seen through the control API, and
// the handles that die with it. The rules a GPU can confirm are in tests/driver.

#include <algorithm>
#include <optional>
#include <string>

#include "mock_test.h"
#include "mockdev/memory.h"
#include "mockdev/streams.h"

namespace mockdev::testing {
namespace {

using MockContexts = MockTest;

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

std::string one_device(std::string_view keys) {
  return "name: small\ndevices:\n  - name: Small\n    memory: 1GiB\n"
         "    compute_capability: '9.0'\n    multiprocessors: 1\n" +
         std::string(keys);
}

// A created context takes the device's context reserve and owns its allocations, which the
// control API names by the context's id; destroying it gives both back and leaves the
// primary context's memory alone.
TEST_F(MockContexts, ACreatedContextOwnsItsReserveAndAllocations) {
  use_yaml(one_device("    context_reserve: 100MiB\n"));
  init_and_make_current(0);
  CUdeviceptr primary_memory = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&primary_memory, 2 * kMiB), CUDA_SUCCESS);
  EXPECT_EQ(control::memory_usage(0).used_bytes, 102 * kMiB);
  CUcontext ctx = nullptr;
  ASSERT_EQ(cu().cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
  unsigned long long id = 0;
  ASSERT_EQ(cu().cuCtxGetId(ctx, &id), CUDA_SUCCESS);
  CUdeviceptr owned = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&owned, 4 * kMiB), CUDA_SUCCESS);
  control::DeviceMemoryUsage u = control::memory_usage(0);
  EXPECT_EQ(u.context_reserve_bytes, 200 * kMiB);
  EXPECT_EQ(u.used_bytes, 206 * kMiB);
  ASSERT_EQ(u.allocations.size(), 2u);
  EXPECT_EQ(u.allocations[0].context, "ctx dev=0");
  EXPECT_EQ(u.allocations[1].context, "ctx dev=0 id=" + std::to_string(id));
  ASSERT_EQ(cu().cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
  u = control::memory_usage(0);
  EXPECT_EQ(u.context_reserve_bytes, 100 * kMiB);
  EXPECT_EQ(u.used_bytes, 102 * kMiB);
  ASSERT_EQ(u.allocations.size(), 1u);
  EXPECT_EQ(u.allocations[0].address, primary_memory);
  // Its memory is gone: the address is no allocation any more.
  EXPECT_EQ(cu().cuMemsetD8_v2(owned, 0, 1), CUDA_ERROR_INVALID_VALUE);
}

// Creating a context needs its reserve to fit, as retaining a primary context does.
TEST_F(MockContexts, CreateFailsWhenTheReserveDoesNotFit) {
  use_yaml(one_device("    context_reserve: 600MiB\n"));
  init_and_make_current(0);
  CUcontext ctx = nullptr;
  EXPECT_EQ(cu().cuCtxCreate_v2(&ctx, 0, 0), CUDA_ERROR_OUT_OF_MEMORY);
  CUcontext now = nullptr;
  ASSERT_EQ(cu().cuCtxGetCurrent(&now), CUDA_SUCCESS);
  EXPECT_NE(now, nullptr);
  EXPECT_EQ(control::memory_usage(0).context_reserve_bytes, 600 * kMiB);
}

// Streams and events belong to their context: destroying it rejects their handles, and the
// primary context's stream stays usable.
TEST_F(MockContexts, StreamsAndEventsDieWithTheirContext) {
  init_and_make_current(0);
  CUstream kept = nullptr;
  ASSERT_EQ(cu().cuStreamCreate(&kept, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUcontext ctx = nullptr;
  ASSERT_EQ(cu().cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
  CUstream stream = nullptr;
  CUevent event = nullptr;
  ASSERT_EQ(cu().cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventCreate(&event, 0), CUDA_SUCCESS);
  CUcontext of_stream = nullptr;
  ASSERT_EQ(cu().cuStreamGetCtx(stream, &of_stream), CUDA_SUCCESS);
  EXPECT_EQ(of_stream, ctx);
  ASSERT_EQ(cu().cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamQuery(stream), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuEventQuery(event), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuStreamQuery(kept), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamDestroy_v2(kept), CUDA_SUCCESS);
}

// A context's legacy stream is its own: work on a created context's default stream is not
// ordered after the primary context's.
TEST_F(MockContexts, EachContextHasItsOwnLegacyStream) {
  init_and_make_current(0);
  CUcontext ctx = nullptr;
  ASSERT_EQ(cu().cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
  std::optional<std::uint64_t> created_queue = streams::cuda_stream_queue(nullptr);
  CUcontext popped = nullptr;
  ASSERT_EQ(cu().cuCtxPopCurrent_v2(&popped), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&p, 2 * kMiB), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(p, 1, 2 * kMiB, nullptr), CUDA_SUCCESS);
  std::optional<std::uint64_t> primary_queue = streams::cuda_stream_queue(nullptr);
  ASSERT_TRUE(primary_queue.has_value());
  EXPECT_NE(created_queue, primary_queue);
  ASSERT_EQ(cu().cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
}

// Modules are their context's: destroying it unloads them.
TEST_F(MockContexts, ModulesDieWithTheirContext) {
  init_and_make_current(0);
  CUcontext ctx = nullptr;
  ASSERT_EQ(cu().cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
  CUmodule module = nullptr;
  ASSERT_EQ(cu().cuModuleLoadData(&module, ".version 8.0\n.target sm_90\n.entry k()\n{ ret; }\n"),
            CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuModuleUnload(module), CUDA_ERROR_INVALID_HANDLE);
}

// The leak report lists a context cuCtxCreate made and nobody destroyed.
TEST_F(MockContexts, LiveObjectsListCreatedContexts) {
  init_and_make_current(0);
  CUcontext ctx = nullptr;
  ASSERT_EQ(cu().cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
  unsigned long long id = 0;
  ASSERT_EQ(cu().cuCtxGetId(ctx, &id), CUDA_SUCCESS);
  const control::LiveObjects live = control::live_objects();
  const std::string line = "ctx dev=0 created id=" + std::to_string(id);
  EXPECT_NE(std::find(live.descriptions.begin(), live.descriptions.end(), line),
            live.descriptions.end());
  ASSERT_EQ(cu().cuCtxDestroy_v2(ctx), CUDA_SUCCESS);
  const control::LiveObjects after = control::live_objects();
  EXPECT_EQ(std::find(after.descriptions.begin(), after.descriptions.end(), line),
            after.descriptions.end());
}

// A compute-prohibited device refuses contexts with CUDA_ERROR_UNKNOWN (cuda.h, cuCtxCreate
// and cuDevicePrimaryCtxRetain).
TEST_F(MockContexts, AComputeProhibitedDeviceRefusesContexts) {
  use_yaml(one_device("    attributes:\n      compute_mode: 2\n"));
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  CUcontext ctx = nullptr;
  EXPECT_EQ(cu().cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_ERROR_UNKNOWN);
  EXPECT_EQ(cu().cuCtxCreate_v2(&ctx, 0, 0), CUDA_ERROR_UNKNOWN);
}

}  // namespace
}  // namespace mockdev::testing
