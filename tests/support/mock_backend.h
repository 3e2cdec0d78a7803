#pragma once
// MockBackend: a GMock of the backend SPI (accel::detail::Backend, core/spi/backend.h), for
// testing the runtime core without any driver. It mocks the identity, device and memory_info
// methods; the capabilities it does not mock (raw memory, streams, events, graphs) keep the
// SPI's defaults, which answer kUnsupported.
//
// install_defaults() makes every method delegate to a FakeMachine (4 devices by default),
// so a NiceMock<MockBackend> behaves like a small healthy machine and a test only states
// the calls it cares about (EXPECT_CALL) or overrides one answer (ON_CALL). The runtime
// owns the backend once it is handed to ScopedBackendOverride; the test keeps a raw
// pointer for expectations and must not use it after the override ends.
// Thread safety: as GMock's (calls from any thread; set expectations before the calls).

#include <gmock/gmock.h>

#include <memory>
#include <string>

#include "core/spi/backend.h"
#include "fake_machine.h"

namespace accel::test {

class MockBackend : public detail::Backend {
 public:
  MOCK_METHOD(DeviceType, type, (), (const, noexcept, override));
  MOCK_METHOD(std::string, name, (), (const, override));
  MOCK_METHOD(int, fork_safe_device_count, (), (noexcept, override));
  MOCK_METHOD(detail::Result<int>, driver_device_count, (), (noexcept, override));
  MOCK_METHOD(detail::Status, initialize, (), (noexcept, override));
  MOCK_METHOD(int, device_count, (), (const, noexcept, override));
  MOCK_METHOD(detail::Status, set_device, (int index), (noexcept, override));
  MOCK_METHOD(detail::Status, maybe_set_device, (int index), (noexcept, override));
  MOCK_METHOD(detail::Result<int>, current_device, (), (noexcept, override));
  MOCK_METHOD(detail::Result<DeviceProperties>, device_properties, (int index),
              (noexcept, override));
  MOCK_METHOD(detail::Result<DeviceCapability>, device_capability, (int index),
              (noexcept, override));
  MOCK_METHOD(detail::Result<MemoryInfo>, memory_info, (int index), (noexcept, override));
  MOCK_METHOD(detail::Status, synchronize_device, (int index), (noexcept, override));
  MOCK_METHOD(BackendReport, report, (), (noexcept, override));

  // Makes every method answer from `machine` (ON_CALL, so it also gives StrictMock a
  // return value for the calls it reports as unexpected).
  void install_defaults(std::shared_ptr<FakeMachine> machine);

  const std::shared_ptr<FakeMachine>& machine() const { return machine_; }

 private:
  std::shared_ptr<FakeMachine> machine_;
};

}  // namespace accel::test
