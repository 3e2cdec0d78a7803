// Property: no sequence of pure queries and deferred setters initialises anything. After
// any random sequence of device_count, is_available, current_accelerator, is_initialized,
// is_in_bad_fork, negative set_device_index, empty guards, lazy_call, manual_seed(_all)
// and set_rng_state, the runtime is uninitialised and the (simulated) driver has never
// seen cuInit. This binary must never initialise the runtime: each test checks that first.

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <iostream>
#include <optional>
#include <vector>

#include "accel/accelerator.h"
#include "accel/device_index_guard.h"
#include "accel/lazy_init.h"
#include "accel/random.h"
#include "mockdev/control.h"

namespace accel::test {
namespace {

enum class Query : int {
  kDeviceCount,
  kIsAvailable,
  kCurrentAccelerator,
  kCurrentAcceleratorChecked,
  kIsInitialized,
  kIsInBadFork,
  kNegativeSetDevice,
  kEmptyGuard,
  kLazyCallNoOp,
  kManualSeed,
  kManualSeedAll,
  kSetRngState,
  kBackendReport,
  kCount,
};

// Runs one query; returns false when its answer is wrong for the 4xh100 machine.
bool run_query(Query query, std::uint64_t value) {
  switch (query) {
    case Query::kDeviceCount:
      return device_count() == 4;
    case Query::kIsAvailable:
      return is_available();
    case Query::kCurrentAccelerator:
      return current_accelerator() == Device(DeviceType::kCUDA);
    case Query::kCurrentAcceleratorChecked:
      return current_accelerator(true) == Device(DeviceType::kCUDA);
    case Query::kIsInitialized:
      return !is_initialized();
    case Query::kIsInBadFork:
      return !is_in_bad_fork();
    case Query::kNegativeSetDevice:
      set_device_index(-1 - static_cast<int>(value % 100));
      return true;
    case Query::kEmptyGuard: {
      DeviceIndexGuard guard(std::nullopt);
      return !guard.original_index().has_value();
    }
    case Query::kLazyCallNoOp:
      lazy_call([] {});
      return true;
    case Query::kManualSeed:
      random::manual_seed(value);
      return true;
    case Query::kManualSeedAll:
      random::manual_seed_all(value);
      return true;
    case Query::kSetRngState: {
      std::vector<std::uint8_t> state(random::kStateBytes, static_cast<std::uint8_t>(value));
      random::set_rng_state(state, static_cast<int>(value % 4));
      return true;
    }
    case Query::kBackendReport:
      return backend_report().device_count == 4;
    case Query::kCount:
      break;
  }
  return false;
}

TEST(PureQueries, NeverInitialiseTheDriver) {
  ASSERT_FALSE(is_initialized()) << "this test needs a process that never initialised";
  ASSERT_EQ(mockdev::control::call_count("cuInit"), 0u)
      << "cuInit was already called in this process before the property ran";
  ASSERT_EQ(device_count(), 4)
      << "this test runs on the simulated 4xh100 machine: set MOCKDEV_MACHINE=4xh100 and point "
         "ACCEL_CUDA_DRIVER / ACCEL_NVML_LIBRARY at the mock facades (ctest does)";
  EXPECT_GT(mockdev::control::call_count("nvmlDeviceGetCount_v2"), 0u)
      << "device_count() did not answer through NVML";

  std::size_t programs = 0;
  std::size_t queries = 0;
  const bool ok = rc::check("pure queries never initialise", [&] {
    const auto program = *rc::gen::container<std::vector<std::pair<int, std::uint64_t>>>(
        rc::gen::pair(rc::gen::inRange(0, static_cast<int>(Query::kCount)),
                      rc::gen::arbitrary<std::uint64_t>()));
    for (const auto& [query, value] : program) {
      RC_ASSERT(run_query(static_cast<Query>(query), value));
      RC_ASSERT(mockdev::control::call_count("cuInit") == 0u);
      RC_ASSERT(!is_initialized());
    }
    RC_ASSERT(!mockdev::control::driver_initialized());
    ++programs;
    queries += program.size();
  });
  EXPECT_TRUE(ok);
  std::cout << "[ property ] pure queries: " << programs << " programs, " << queries
            << " queries, cuInit calls: " << mockdev::control::call_count("cuInit") << std::endl;
  EXPECT_GE(programs, static_cast<std::size_t>(rc::detail::configuration().testParams.maxSuccess));
  EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u);
  EXPECT_FALSE(is_initialized());
}

}  // namespace
}  // namespace accel::test
