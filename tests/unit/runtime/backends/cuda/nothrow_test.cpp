// The CUDA backend never lets an exception out of its noexcept methods (spi/backend.h):
// when building an error message itself runs out of memory, the method returns the
// allocation-free "out of memory" Status instead of terminating the process.
//
// This binary replaces the global operator new so that a test can make every allocation of
// its thread fail. The backend runs in a forked child of a parent that initialised the
// simulated driver, where every driver call fails (CUDA_ERROR_NOT_INITIALIZED), so every
// method takes its error path and builds a message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

#include "backends/cuda/cuda_backend.h"
#include "child_process.h"

namespace {
thread_local bool t_fail_allocations = false;
}  // namespace

void* operator new(std::size_t size) {
  if (t_fail_allocations) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace accel::detail::cuda {
namespace {

// Every allocation of this thread fails for the scope's lifetime.
class FailAllocations {
 public:
  FailAllocations() { t_fail_allocations = true; }
  ~FailAllocations() { t_fail_allocations = false; }
};

TEST(CudaBackendNoThrowTest, ErrorPathsSurviveAllocationFailure) {
  std::unique_ptr<Backend> backend = create_cuda_backend();
  ASSERT_TRUE(backend->initialize().ok());
  ASSERT_TRUE(backend->set_device(0).ok());
  const test::ChildStatus child = test::run_in_child([&] {
    Status set, maybe, sync;
    Result<int> current = 0, driver_count = 0;
    Result<DeviceProperties> properties = DeviceProperties{};
    Result<MemoryInfo> memory = MemoryInfo{};
    int fork_safe = 0;
    {
      FailAllocations scope;
      set = backend->set_device(1);
      maybe = backend->maybe_set_device(2);
      sync = backend->synchronize_device(0);
      current = backend->current_device();
      driver_count = backend->driver_device_count();
      properties = backend->device_properties(0);
      memory = backend->memory_info(1);
      fork_safe = backend->fork_safe_device_count();
      (void)backend->report();
    }
    for (const Status& status : {set, maybe, sync, current.status(), driver_count.status(),
                                 properties.status(), memory.status()}) {
      EXPECT_EQ(status.kind(), ErrorKind::kRuntime);
      EXPECT_EQ(status.message(), "out of memory");
    }
    EXPECT_EQ(fork_safe, -1);
  });
  EXPECT_TRUE(child.ok()) << child.describe();
}

}  // namespace
}  // namespace accel::detail::cuda
