#include "fake_machine.h"

#include <string>

namespace accel::test {

detail::Status FakeMachine::check_index(int index) const {
  if (index < 0 || index >= device_count_) {
    return detail::Status(ErrorKind::kDriver,
                          "CUDA error: invalid device ordinal (device=" + std::to_string(index) +
                              ", device_count=" + std::to_string(device_count_) + ")",
                          ErrorDetail{index, 101, "CUDA_ERROR_INVALID_DEVICE"});
  }
  return detail::Status();
}

detail::Status FakeMachine::set_device(int index) {
  if (auto status = check_index(index); !status.ok()) return status;
  std::lock_guard lock(mutex_);
  ThreadState& state = threads_[std::this_thread::get_id()];
  state.current = index;
  state.target.reset();
  contexts_.insert(index);
  return detail::Status();
}

detail::Status FakeMachine::maybe_set_device(int index) {
  if (auto status = check_index(index); !status.ok()) return status;
  std::lock_guard lock(mutex_);
  ThreadState& state = threads_[std::this_thread::get_id()];
  if (contexts_.count(index) != 0) {
    state.current = index;
    state.target.reset();
  } else {
    state.target = index;
  }
  return detail::Status();
}

int FakeMachine::current_device() {
  std::lock_guard lock(mutex_);
  const ThreadState& state = threads_[std::this_thread::get_id()];
  return state.target ? *state.target : state.current;
}

detail::Result<DeviceProperties> FakeMachine::device_properties(int index) const {
  if (auto status = check_index(index); !status.ok()) return status;
  DeviceProperties properties;
  properties.name = "Fake Accelerator " + std::to_string(index);
  properties.major = 9;
  properties.minor = 0;
  properties.total_memory_bytes = kMemoryBytes;
  properties.multi_processor_count = 132;
  properties.uuid = uuid(index);
  return properties;
}

detail::Result<DeviceCapability> FakeMachine::device_capability(int index) const {
  if (auto status = check_index(index); !status.ok()) return status;
  DeviceCapability capability;
  capability.major = 9;
  capability.minor = 0;
  for (ScalarType type : all_scalar_types()) capability.supported_dtypes.push_back(type);
  return capability;
}

detail::Result<MemoryInfo> FakeMachine::memory_info(int index) {
  if (auto status = check_index(index); !status.ok()) return status;
  {
    std::lock_guard lock(mutex_);
    contexts_.insert(index);  // cuMemGetInfo needs a context, as in PyTorch
  }
  return MemoryInfo{kMemoryBytes - (std::size_t{1} << 20), kMemoryBytes};
}

std::set<int> FakeMachine::contexts() const {
  std::lock_guard lock(mutex_);
  return contexts_;
}

std::string FakeMachine::uuid(int index) {
  return "GPU-0000000" + std::to_string(index) + "-1111-2222-3333-444444444444";
}

}  // namespace accel::test
