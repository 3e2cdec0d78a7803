// Contexts beyond the primary ones (CUDA Driver API, "Context Management" and "Primary
// Context Management"; cuda.h's comments): the per-thread context stack, created contexts
// and what they own, flags, identity, limits and configuration, primary-context flags and
// reset. Rules cuda.h leaves open are marked [inferred] here and in docs/HARDWARE.md.
// Every test leaves the thread's stack as the fixture made it (device 0's primary context
// alone) and destroys what it created, so that on a real driver the tests share one process.

#include <condition_variable>
#include <mutex>
#include <thread>

#include "driver_test.h"

namespace accel::driver_test {
namespace {

using Contexts = DriverTest;

constexpr std::size_t kMiB = std::size_t{1} << 20;

CUcontext current(const test::CudaEntryPoints& cu) {
  CUcontext ctx = reinterpret_cast<CUcontext>(0x1);
  EXPECT_EQ(cu.cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
  return ctx;
}

std::size_t free_memory(const test::CudaEntryPoints& cu) {
  std::size_t free = 0, total = 0;
  EXPECT_EQ(cu.cuMemGetInfo_v2(&free, &total), CUDA_SUCCESS);
  return free;
}

// cuCtxCreate: "associates it with the calling thread ... If a context is already current to
// the thread, it is supplanted by the newly created context and may be restored by a
// subsequent call to cuCtxPopCurrent()"; cuCtxDestroy pops the caller's current context.
TEST_F(Contexts, CreatePushesTheNewContextAndDestroyPopsIt) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxCreate_v2", "cuCtxDestroy_v2");
  CUcontext ctx = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxCreate_v2(&ctx, 0, device));
  EXPECT_NE(ctx, nullptr);
  EXPECT_NE(ctx, primary);
  EXPECT_EQ(current(cu()), ctx);
  CUdevice on = -1;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetDevice(&on));
  EXPECT_EQ(on, device);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxDestroy_v2(ctx));
  EXPECT_EQ(current(cu()), primary);
}

// CUDA 13's cuda.h makes cuCtxCreate the _v4 form; [inferred] a NULL CUctxCreateParams
// creates a plain context (what cuCtxCreate(&ctx, NULL, 0, dev) in a CUDA 13 program does).
TEST_F(Contexts, CreateV4WithoutParametersCreatesAPlainContext) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxCreate_v4", "cuCtxDestroy_v2");
  CUcontext ctx = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxCreate_v4(&ctx, nullptr, 0, device));
  EXPECT_EQ(current(cu()), ctx);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxDestroy_v2(ctx));
  EXPECT_EQ(current(cu()), primary);
}

// cuCtxPushCurrent / cuCtxPopCurrent / cuCtxSetCurrent on the thread's stack.
TEST_F(Contexts, PushPopAndSetCurrentWorkOnTheThreadsStack) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxCreate_v2", "cuCtxDestroy_v2", "cuCtxPushCurrent_v2",
                        "cuCtxPopCurrent_v2");
  CUcontext ctx = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxCreate_v2(&ctx, 0, device));  // [primary, ctx]
  CUcontext popped = nullptr;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxPopCurrent_v2(&popped));  // [primary]
  EXPECT_EQ(popped, ctx);
  EXPECT_EQ(current(cu()), primary);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxPushCurrent_v2(ctx));  // [primary, ctx]
  EXPECT_EQ(current(cu()), ctx);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSetCurrent(primary));  // [primary, primary]
  EXPECT_EQ(current(cu()), primary);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxPopCurrent_v2(&popped));  // [primary]
  EXPECT_EQ(popped, primary);
  EXPECT_EQ(current(cu()), primary);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxPushCurrent_v2(ctx));  // [primary, ctx]
  // cuCtxSetCurrent(NULL) pops the top.
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSetCurrent(nullptr));  // [primary]
  EXPECT_EQ(current(cu()), primary);
  // ctx is current nowhere now; destroying it leaves the stack alone.
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxDestroy_v2(ctx));
  EXPECT_EQ(current(cu()), primary);
}

// cuCtxPopCurrent on an empty stack; cuCtxSetCurrent(NULL) on an empty stack is a no-op.
TEST_F(Contexts, AnEmptyStackHasNothingToPop) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxPopCurrent_v2", "cuCtxPushCurrent_v2");
  CUcontext popped = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxPopCurrent_v2(&popped));
  EXPECT_EQ(popped, primary);
  EXPECT_EQ(current(cu()), nullptr);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cu().cuCtxPopCurrent_v2(&popped));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSetCurrent(nullptr));
  EXPECT_EQ(current(cu()), nullptr);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxPushCurrent_v2(primary));
  EXPECT_EQ(current(cu()), primary);
}

// A created context owns its allocations: destroying it frees them and gives its memory
// back, and leaves the primary context's allocations alone (cuda.h, cuCtxDestroy).
TEST_F(Contexts, DestroyFreesTheContextsMemoryAndNothingElse) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxCreate_v2", "cuCtxDestroy_v2");
  CUdeviceptr kept = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&kept, 2 * kMiB));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD8_v2(kept, 0x5a, 2 * kMiB));
  const std::size_t before = free_memory(cu());
  CUcontext ctx = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxCreate_v2(&ctx, 0, device));
  CUdeviceptr owned = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&owned, 64 * kMiB));
  EXPECT_LE(free_memory(cu()) + 64 * kMiB, before);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxDestroy_v2(ctx));
  EXPECT_EQ(free_memory(cu()), before);
  unsigned char byte = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemcpyDtoH_v2(&byte, kept + kMiB, 1));
  EXPECT_EQ(byte, 0x5a);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFree_v2(kept));
}

// cuda.h, cuCtxDestroy: "If ctx is current to other threads, then ctx will remain current to
// those threads, and attempting to access ctx from those threads will result in the error
// CUDA_ERROR_CONTEXT_IS_DESTROYED."
TEST_F(Contexts, ADestroyedContextStaysCurrentOnOtherThreadsAsDestroyed) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxCreate_v2", "cuCtxDestroy_v2", "cuCtxPushCurrent_v2",
                        "cuCtxPopCurrent_v2");
  CUcontext ctx = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxCreate_v2(&ctx, 0, device));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxPopCurrent_v2(nullptr));
  CUresult pushed = CUDA_ERROR_UNKNOWN, after = CUDA_ERROR_UNKNOWN, popped = CUDA_ERROR_UNKNOWN;
  CUcontext still_current = nullptr;
  bool has_pushed = false, destroyed = false;
  std::mutex m;
  std::condition_variable cv;
  std::thread other([&] {
    std::unique_lock lock(m);
    pushed = cu().cuCtxPushCurrent_v2(ctx);
    has_pushed = true;
    cv.notify_all();
    cv.wait(lock, [&] { return destroyed; });
    after = cu().cuCtxSynchronize();
    cu().cuCtxGetCurrent(&still_current);
    popped = cu().cuCtxPopCurrent_v2(nullptr);
  });
  {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return has_pushed; });
    ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxDestroy_v2(ctx));
    destroyed = true;
  }
  cv.notify_all();
  other.join();
  ACCEL_EXPECT_CU(CUDA_SUCCESS, pushed);
  ACCEL_EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, after);
  EXPECT_EQ(still_current, ctx);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, popped);
  EXPECT_EQ(current(cu()), primary);
}

// cuCtxDestroy of NULL is CUDA_ERROR_INVALID_VALUE, of a destroyed context or a primary one
// CUDA_ERROR_INVALID_CONTEXT; pushing or setting a destroyed context succeeds, and it is
// then current as a destroyed one (Recording 2); pushing NULL is CUDA_ERROR_INVALID_VALUE.
TEST_F(Contexts, DestroyAndPushRejectWhatIsNotALiveCreatedContext) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxCreate_v2", "cuCtxDestroy_v2", "cuCtxPushCurrent_v2");
  CUcontext ctx = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxCreate_v2(&ctx, 0, device));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxDestroy_v2(ctx));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cu().cuCtxDestroy_v2(ctx));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxPushCurrent_v2(ctx));
  EXPECT_EQ(current(cu()), ctx);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSetCurrent(ctx));
  CUcontext popped = nullptr;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxPopCurrent_v2(&popped));
  EXPECT_EQ(popped, ctx);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxDestroy_v2(nullptr));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxPushCurrent_v2(nullptr));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cu().cuCtxDestroy_v2(primary));
  EXPECT_EQ(current(cu()), primary);
}

// cuCtxCreate's arguments: "Only one of the scheduling flags can be set"; flags outside
// CU_CTX_FLAGS_MASK, a NULL output and a device that does not exist are refused; execution
// affinity needs MPS, and a count of 0 or less ignores the array (Recording 2: -1 created a
// plain context); CIG parameters without shared data are CUDA_ERROR_INVALID_VALUE.
TEST_F(Contexts, CreateRejectsBadArguments) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxCreate_v2", "cuCtxCreate_v3", "cuCtxCreate_v4");
  CUcontext ctx = nullptr;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxCreate_v2(nullptr, 0, device));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuCtxCreate_v2(&ctx, CU_CTX_SCHED_SPIN | CU_CTX_SCHED_YIELD, device));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxCreate_v2(&ctx, 0x100, device));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cu().cuCtxCreate_v2(&ctx, 0, device_count));
  CUexecAffinityParam affinity{};
  affinity.type = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
  affinity.param.smCount.val = 8;
  ACCEL_EXPECT_CU(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
                  cu().cuCtxCreate_v3(&ctx, &affinity, 1, 0, device));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxCreate_v3(&ctx, &affinity, -1, 0, device));
  EXPECT_EQ(current(cu()), ctx);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxDestroy_v2(ctx));
  CUctxCigParam cig{};
  cig.sharedDataType = CIG_DATA_TYPE_NV_BLOB;
  CUctxCreateParams params{};
  params.cigParams = &cig;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxCreate_v4(&ctx, &params, 0, device));
  // [inferred] Well-formed CIG parameters on a device without CIG support: as documented.
  int blob = 0;
  cig.sharedData = &blob;
  ACCEL_EXPECT_CU(CUDA_ERROR_NOT_SUPPORTED, cu().cuCtxCreate_v4(&ctx, &params, 0, device));
  EXPECT_EQ(current(cu()), primary);
}

// cuCtxGetFlags answers the flags the context was created with; cuCtxSetFlags replaces them.
TEST_F(Contexts, FlagsAreWhatCreateAndSetFlagsGave) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxCreate_v2", "cuCtxDestroy_v2", "cuCtxGetFlags", "cuCtxSetFlags");
  constexpr unsigned kCreated = CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_MAP_HOST;
  CUcontext ctx = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxCreate_v2(&ctx, kCreated, device));
  unsigned flags = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetFlags(&flags));
  EXPECT_EQ(flags, kCreated);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSetFlags(CU_CTX_SCHED_SPIN | CU_CTX_MAP_HOST));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetFlags(&flags));
  EXPECT_EQ(flags, static_cast<unsigned>(CU_CTX_SCHED_SPIN | CU_CTX_MAP_HOST));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuCtxSetFlags(CU_CTX_SCHED_SPIN | CU_CTX_SCHED_BLOCKING_SYNC));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxGetFlags(nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxDestroy_v2(ctx));
}

// cuDevicePrimaryCtxSetFlags (_v2) sets the primary context's flags, active or not;
// cuDevicePrimaryCtxGetState reports them.
TEST_F(Contexts, PrimaryFlagsCanChangeWhileActive) {
  ACCEL_REQUIRE_SYMBOLS("cuDevicePrimaryCtxSetFlags_v2");
  ACCEL_EXPECT_CU(CUDA_SUCCESS,
                  cu().cuDevicePrimaryCtxSetFlags_v2(device, CU_CTX_SCHED_BLOCKING_SYNC));
  unsigned flags = 0;
  int active = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuDevicePrimaryCtxGetState(device, &flags, &active));
  EXPECT_EQ(flags & CU_CTX_SCHED_MASK, static_cast<unsigned>(CU_CTX_SCHED_BLOCKING_SYNC));
  EXPECT_EQ(active, 1);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuDevicePrimaryCtxSetFlags_v2(device, 0x3));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cu().cuDevicePrimaryCtxSetFlags_v2(device_count, 0));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuDevicePrimaryCtxSetFlags_v2(device, 0));
}

// cuCtxGetId: unique per context, NULL meaning the current one; cuCtxGetApiVersion
// [inferred]: 3020.
TEST_F(Contexts, IdsAreUniqueAndTheApiVersionIs3020) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxCreate_v2", "cuCtxDestroy_v2", "cuCtxGetId", "cuCtxGetApiVersion");
  unsigned long long primary_id = 0, current_id = 0, created_id = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxGetId(primary, &primary_id));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxGetId(nullptr, &current_id));
  EXPECT_EQ(primary_id, current_id);
  CUcontext ctx = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxCreate_v2(&ctx, 0, device));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxGetId(nullptr, &created_id));
  EXPECT_NE(created_id, primary_id);
  unsigned version = 0;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetApiVersion(nullptr, &version));
  EXPECT_EQ(version, 3020u);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetApiVersion(primary, &version));
  EXPECT_EQ(version, 3020u);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxGetId(nullptr, nullptr));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxGetApiVersion(nullptr, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxDestroy_v2(ctx));
  ACCEL_EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, cu().cuCtxGetId(ctx, &created_id));
}

// cuCtxGetLimit / cuCtxSetLimit: the documented default of 2048 pending launches,
// per-context values, a stack size rounded up to 16 bytes, and the sync depth refused from
// compute capability 9.0 on, queried or set (Recording 2); below 9.0 it is two levels.
TEST_F(Contexts, LimitsHaveDefaultsAndArePerContext) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxCreate_v2", "cuCtxDestroy_v2", "cuCtxGetLimit", "cuCtxSetLimit");
  std::size_t value = 0;
  int major = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetAttribute(
                                    &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  if (major >= 9) {
    ACCEL_EXPECT_CU(CUDA_ERROR_UNSUPPORTED_LIMIT,
                    cu().cuCtxGetLimit(&value, CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH));
  } else {
    ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetLimit(&value, CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH));
    EXPECT_EQ(value, 2u);
  }
  ACCEL_EXPECT_CU(CUDA_SUCCESS,
                  cu().cuCtxGetLimit(&value, CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT));
  EXPECT_EQ(value, 2048u);
  std::size_t primary_stack = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxGetLimit(&primary_stack, CU_LIMIT_STACK_SIZE));
  CUcontext ctx = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxCreate_v2(&ctx, 0, device));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetLimit(&value, CU_LIMIT_STACK_SIZE));
  EXPECT_EQ(value, 4096u);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 1000));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetLimit(&value, CU_LIMIT_STACK_SIZE));
  EXPECT_EQ(value, 1008u);
  if (major >= 9) {
    ACCEL_EXPECT_CU(CUDA_ERROR_UNSUPPORTED_LIMIT,
                    cu().cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 4));
  }
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxGetLimit(nullptr, CU_LIMIT_STACK_SIZE));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxGetLimit(&value, CU_LIMIT_MAX));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxDestroy_v2(ctx));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetLimit(&value, CU_LIMIT_STACK_SIZE));
  EXPECT_EQ(value, primary_stack);
}

// The cache preference is kept per context; the shared-memory bank size has no effect on
// devices without configurable banks [inferred: none since Volta].
TEST_F(Contexts, CacheAndSharedMemoryConfiguration) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxGetCacheConfig", "cuCtxSetCacheConfig", "cuCtxGetSharedMemConfig",
                        "cuCtxSetSharedMemConfig", "cuCtxResetPersistingL2Cache");
  CUfunc_cache cache = CU_FUNC_CACHE_PREFER_EQUAL;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetCacheConfig(&cache));
  EXPECT_EQ(cache, CU_FUNC_CACHE_PREFER_NONE);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_L1));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetCacheConfig(&cache));
  EXPECT_EQ(cache, CU_FUNC_CACHE_PREFER_L1);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxSetCacheConfig(static_cast<CUfunc_cache>(7)));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_NONE));
  CUsharedconfig shared = CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE;
  ACCEL_EXPECT_CU(CUDA_SUCCESS,
                  cu().cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetSharedMemConfig(&shared));
  EXPECT_EQ(shared, CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxResetPersistingL2Cache());
}

// cuDevicePrimaryCtxReset destroys the primary context's allocations; "Resetting the
// primary context does not release it ... it is safe for other modules to call
// cuDevicePrimaryCtxRelease() even after resetting the device". [inferred] The context is
// inactive after the reset until the next retain, and the pointer it had is no longer an
// allocation.
TEST_F(Contexts, PrimaryResetFreesItsMemoryAndLaterReleasesStillSucceed) {
  ACCEL_REQUIRE_SYMBOLS("cuDevicePrimaryCtxReset_v2");
  CUdeviceptr p = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAlloc_v2(&p, 2 * kMiB));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDevicePrimaryCtxReset_v2(device));
  unsigned flags = 0;
  int active = 1;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuDevicePrimaryCtxGetState(device, &flags, &active));
  EXPECT_EQ(active, 0);
  // The fixture's retain: the reset ended it, and its release still succeeds.
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuDevicePrimaryCtxRelease_v2(device));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_CONTEXT, cu().cuDevicePrimaryCtxRelease_v2(device));
  CUcontext again = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDevicePrimaryCtxRetain(&again, device));
  EXPECT_EQ(again, primary);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemsetD8_v2(p, 0, 1));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cu().cuDevicePrimaryCtxReset_v2(device_count));
}

// CUDA 13's forms that name their context (cuda.h): NULL names the current one; a created
// context answers for itself, current or not; a destroyed one is
// CUDA_ERROR_CONTEXT_IS_DESTROYED [inferred: as every call naming it].
TEST_F(Contexts, Cuda13FormsNameTheirContext) {
  ACCEL_REQUIRE_SYMBOLS("cuCtxGetDevice_v2", "cuCtxSynchronize_v2", "cuCtxCreate_v2");
  CUdevice dev = -1;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetDevice_v2(&dev, nullptr));
  EXPECT_EQ(dev, device);
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuCtxGetDevice_v2(nullptr, primary));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize_v2(nullptr));
  CUcontext created = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxCreate_v2(&created, 0, device));
  CUcontext popped = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxPopCurrent_v2(&popped));
  EXPECT_EQ(popped, created);
  dev = -1;
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxGetDevice_v2(&dev, created));
  EXPECT_EQ(dev, device);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize_v2(created));
  EXPECT_EQ(current(cu()), primary);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxDestroy_v2(created));
  ACCEL_EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, cu().cuCtxGetDevice_v2(&dev, created));
  ACCEL_EXPECT_CU(CUDA_ERROR_CONTEXT_IS_DESTROYED, cu().cuCtxSynchronize_v2(created));
}

}  // namespace
}  // namespace accel::driver_test
