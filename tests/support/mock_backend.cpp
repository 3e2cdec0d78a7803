#include "mock_backend.h"

#include <utility>

namespace accel::test {

using ::testing::Invoke;
using ::testing::Return;

void MockBackend::install_defaults(std::shared_ptr<FakeMachine> machine) {
  machine_ = std::move(machine);
  FakeMachine* m = machine_.get();
  const int count = m->device_count();
  ON_CALL(*this, type()).WillByDefault(Return(DeviceType::kCUDA));
  ON_CALL(*this, name()).WillByDefault(Return(std::string("cuda")));
  ON_CALL(*this, fork_safe_device_count()).WillByDefault(Return(count));
  ON_CALL(*this, driver_device_count()).WillByDefault([count] {
    return detail::Result<int>(count);
  });
  ON_CALL(*this, initialize()).WillByDefault([] { return detail::Status(); });
  ON_CALL(*this, device_count()).WillByDefault(Return(count));
  ON_CALL(*this, set_device).WillByDefault([m](int index) { return m->set_device(index); });
  ON_CALL(*this, maybe_set_device).WillByDefault([m](int index) {
    return m->maybe_set_device(index);
  });
  ON_CALL(*this, current_device()).WillByDefault([m] {
    return detail::Result<int>(m->current_device());
  });
  ON_CALL(*this, device_properties).WillByDefault([m](int index) {
    return m->device_properties(index);
  });
  ON_CALL(*this, device_capability).WillByDefault([m](int index) {
    return m->device_capability(index);
  });
  ON_CALL(*this, memory_info).WillByDefault([m](int index) { return m->memory_info(index); });
  ON_CALL(*this, synchronize_device).WillByDefault([](int) { return detail::Status(); });
  ON_CALL(*this, report()).WillByDefault([count] {
    BackendReport report;
    report.available = count > 0;
    report.components = {BackendComponent{"driver", "fake", true, "1.0"}};
    report.count_source = "nvml";
    report.device_count = count;
    return report;
  });
}

}  // namespace accel::test
