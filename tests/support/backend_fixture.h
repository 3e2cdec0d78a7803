#pragma once
// BackendTest: a GTest fixture that runs the runtime core on a MockBackend (4 fake
// devices) for the duration of one test, through ScopedBackendOverride, so every test
// starts uninitialised with an empty lazy-call queue and device 0 current on every thread.
//
// BackendTest uses NiceMock (only the calls a test states are checked); StrictBackendTest
// uses StrictMock (any call the test did not state fails it), except the backend's
// identity queries type() and name(), which the core may ask at any time and which touch
// no driver. NoAcceleratorTest installs "no accelerator" (a null backend).
// Expectations are verified before the override ends. Not thread-safe to set up.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "core/backend_override.h"
#include "fake_machine.h"
#include "mock_backend.h"

namespace accel::test {

template <template <class> class Strictness>
class BasicBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    machine_ = std::make_shared<FakeMachine>(4);
    auto backend = std::make_unique<Strictness<MockBackend>>();
    backend->install_defaults(machine_);
    EXPECT_CALL(*backend, type()).Times(::testing::AnyNumber());
    EXPECT_CALL(*backend, name()).Times(::testing::AnyNumber());
    backend_ = backend.get();
    override_.emplace(std::move(backend));
  }

  void TearDown() override {
    ::testing::Mock::VerifyAndClearExpectations(backend_);
    // Identity queries stay allowed while the override unwinds.
    EXPECT_CALL(*backend_, type()).Times(::testing::AnyNumber());
    EXPECT_CALL(*backend_, name()).Times(::testing::AnyNumber());
    override_.reset();
    backend_ = nullptr;
  }

  MockBackend& backend() { return *backend_; }
  FakeMachine& machine() { return *machine_; }

 private:
  std::shared_ptr<FakeMachine> machine_;
  MockBackend* backend_ = nullptr;
  std::optional<detail::ScopedBackendOverride> override_;
};

using BackendTest = BasicBackendTest<::testing::NiceMock>;
using StrictBackendTest = BasicBackendTest<::testing::StrictMock>;

class NoAcceleratorTest : public ::testing::Test {
 protected:
  void SetUp() override { override_.emplace(nullptr); }
  void TearDown() override { override_.reset(); }

 private:
  std::optional<detail::ScopedBackendOverride> override_;
};

}  // namespace accel::test
