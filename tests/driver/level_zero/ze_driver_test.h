#pragma once
// The Level Zero driver conformance suite's fixture: rules of the public Level Zero API (the
// specification, or marked [inferred] in docs/HARDWARE.md), checked by calling a driver through
// the system's Level Zero loader, with no runtime in between. One binary, two profiles
// (ACCEL_DRIVER_PROFILE):
//   xpu_mock  (default) the simulated libze_mock.so of this build, which the loader opens
//             through ZE_ENABLE_ALT_DRIVERS, on the machine MOCKDEV_MACHINE names (ctest: one
//             entry per test, label unit; once more under the validation layer);
//   xpu_real  whatever GPU driver the loader finds, label hardware: without one that
//             initialises and has a device, every test skips with
//             "no real Level Zero GPU: driver conformance did not run (...)".
// A test checks its rule the same way on both, so a run on an Intel GPU confirms or refutes
// the simulation. Nothing here uses the simulated hardware's control API, and no test waits
// without a bound on work that a wrong answer could leave pending: a rule that needs either is
// a mock driver test (tests/unit/mockdev/level_zero).
//
// The fixture initialises the loader (GPU drivers only), takes the first driver's first
// device and makes one context, destroyed with what the helpers made in TearDown.

#include <gtest/gtest.h>
#include <level_zero/ze_api.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

// gtest prints a ze_result_t by its name ("ZE_RESULT_ERROR_INVALID_NULL_HANDLE").
void PrintTo(ze_result_t result, std::ostream* os);

namespace accel::ze_driver_test {

// The name of `result` ("ZE_RESULT_NOT_READY"), or its value in hex for a code not listed.
std::string name_of(ze_result_t result);

class ZeDriverTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Whether the profile is xpu_mock (the simulated driver).
  static bool on_mock();
  // The loader's export `symbol` (a newer entry point than the headers this builds with may
  // declare), or nullptr when this loader has none.
  static void* loader_symbol(const char* symbol);

  // Allocations of the test's context, freed in TearDown.
  void* device_alloc(std::size_t bytes);
  void* host_alloc(std::size_t bytes);
  void* shared_alloc(std::size_t bytes);
  // An immediate list on the device's compute engine group.
  ze_command_list_handle_t immediate(ze_command_queue_mode_t mode =
                                         ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS);
  // A regular list and a command queue on the compute engine group.
  ze_command_list_handle_t regular();
  ze_command_queue_handle_t queue();
  // An event pool of `count` events with `flags`, and its event `index` (host scope).
  ze_event_pool_handle_t pool(ze_event_pool_flags_t flags, std::uint32_t count = 4);
  ze_event_handle_t event(ze_event_pool_handle_t pool, std::uint32_t index);

  ze_driver_handle_t driver_ = nullptr;
  ze_device_handle_t device_ = nullptr;
  ze_context_handle_t context_ = nullptr;
  // The first engine group with ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE.
  std::uint32_t compute_ordinal_ = 0;
  ze_device_compute_properties_t compute_{};

 private:
  std::vector<void*> allocations_;
  std::vector<ze_command_list_handle_t> lists_;
  std::vector<ze_command_queue_handle_t> queues_;
  std::vector<ze_event_handle_t> events_;
  std::vector<ze_event_pool_handle_t> pools_;
};

// A host wait long enough for any short command on real hardware, and bounded: 10 s in ns.
inline constexpr std::uint64_t kBoundedWaitNs = 10'000'000'000ull;

}  // namespace accel::ze_driver_test
