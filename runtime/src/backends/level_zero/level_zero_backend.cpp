// PLACEHOLDER from the contract commit: every method answers kUnsupported until the
// core work (level_zero_backend.cpp) and the queues work (pending_queues.cpp) replace it.
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "backends/level_zero/level_zero_backend.h"
#include "backends/level_zero/ze_queues.h"

namespace accel::detail::level_zero {

int LevelZeroBackend::fork_safe_device_count() noexcept { return -1; }
Result<int> LevelZeroBackend::driver_device_count() noexcept { return unsupported("pending", "driver_device_count"); }
Status LevelZeroBackend::initialize() noexcept { return unsupported("pending", "initialize"); }
int LevelZeroBackend::device_count() const noexcept { return 0; }
Status LevelZeroBackend::configuration_status() noexcept { return unsupported("pending", "configuration_status"); }
std::string LevelZeroBackend::visibility_filter() const { return {}; }
// device (level_zero_backend.cpp)
Status LevelZeroBackend::set_device(int index) noexcept { return unsupported("pending", "set_device"); }
Status LevelZeroBackend::maybe_set_device(int index) noexcept { return unsupported("pending", "maybe_set_device"); }
Result<int> LevelZeroBackend::current_device() noexcept { return unsupported("pending", "current_device"); }
Result<DeviceProperties> LevelZeroBackend::device_properties(int index) noexcept { return unsupported("pending", "device_properties"); }
Result<DeviceCapability> LevelZeroBackend::device_capability(int index) noexcept { return unsupported("pending", "device_capability"); }
void LevelZeroBackend::prepare_fork() noexcept {}
void LevelZeroBackend::after_fork_parent() noexcept {}
void LevelZeroBackend::after_fork_child() noexcept {}
BackendReport LevelZeroBackend::report() noexcept { return Backend::report(); }

LevelZeroBackend::LevelZeroBackend(LevelZeroBackendPaths paths) : paths_(std::move(paths)) {}
LevelZeroBackend::~LevelZeroBackend() = default;

std::unique_ptr<Backend> create_level_zero_backend(LevelZeroBackendPaths paths) {
  return std::make_unique<LevelZeroBackend>(std::move(paths));
}
std::unique_ptr<Backend> make_backend() { return create_level_zero_backend(); }

}  // namespace accel::detail::level_zero
