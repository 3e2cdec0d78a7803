// Conformance: devices (count, selection, ordinals, properties), once per backend profile.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "accel/accel.h"
#include "conformance_test.h"
#include "error_check.h"
#include "live_object_listener.h"
#include "mockdev/control.h"

namespace accel::test {
namespace {

using Devices = ConformanceTest;

TEST_P(Devices, CountMatchesPhysicalDevicesWithoutInitialising) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    promise_live_objects(promise_nothing_alive("device_count() and is_available() are pure"));
    const int physical = require_physical_devices(p, 0);
    EXPECT_EQ(device_count(), physical);
    EXPECT_EQ(is_available(), physical > 0);
    EXPECT_EQ(device_count(), physical) << "asked twice";
    EXPECT_FALSE(is_initialized()) << "device_count() initialised the runtime";
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::call_count(p.init_entry_point), 0u)
          << "device_count() called " << p.init_entry_point;
      EXPECT_EQ(physical, mock_visible_count(p, mockdev::control::machine()))
          << "the ground truth disagrees with the machine file";
    }
  }, {{p.visibility_variable, std::nullopt}});
}

TEST_P(Devices, CurrentAcceleratorIsTheProfilesType) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    promise_live_objects(promise_nothing_alive("current_accelerator() is pure"));
    require_physical_devices(p, 1);
    ASSERT_EQ(current_accelerator(), accel::Device(p.device_type));
    EXPECT_EQ(current_accelerator(true), accel::Device(p.device_type));
    EXPECT_EQ(to_string(p.device_type), p.device_type_name);
    EXPECT_EQ(current_accelerator()->str(), p.device_type_name);
    EXPECT_FALSE(is_initialized());
  });
}

TEST_P(Devices, EveryDeviceCanBeSelectedByIndexStringAndDevice) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 1);
    EXPECT_EQ(current_device_index(), 0) << "a new process starts on device 0";
    EXPECT_TRUE(is_initialized());
    for (int i = 0; i < count; ++i) {
      set_device_index(i);
      EXPECT_EQ(current_device_index(), i);
    }
    for (int i = count - 1; i >= 0; --i) {
      set_device_index(p.device_type_name + ":" + std::to_string(i));
      EXPECT_EQ(current_device_index(), i);
      set_device_index(accel::Device(p.device_type, i));
      EXPECT_EQ(current_device_index(), i);
    }
    set_device_index(-1);
    EXPECT_EQ(current_device_index(), 0) << "a negative index is a no-op";
  });
}

TEST_P(Devices, OrdinalPastTheLastDeviceRaisesInvalidOrdinal) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 1);
    const std::string tail =
        "device=" + std::to_string(count) + ", device_count=" + std::to_string(count) + ")";
    EXPECT_TRUE(is_error(catch_error([count] { set_device_index(count); }), ErrorKind::kDriver,
                         p.error_name + " error: invalid device ordinal (set_device_index: " +
                             tail));
    EXPECT_TRUE(is_error(catch_error([count] { exchange_device(count); }), ErrorKind::kDriver,
                         p.error_name + " error: invalid device ordinal (exchange_device: " +
                             tail));
    EXPECT_TRUE(is_error(catch_error([count] { get_device_properties(count); }),
                         ErrorKind::kDriver,
                         p.error_name + " error: invalid device ordinal (get_device_properties: " +
                             tail));
    EXPECT_EQ(current_device_index(), 0) << "a failed selection changes nothing";
  });
}

TEST_P(Devices, IndexOutsideDeviceIndexRangeRaisesBeforeInitialising) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    promise_live_objects(promise_nothing_alive("range errors come before initialisation"));
    require_physical_devices(p, 1);
    EXPECT_TRUE(is_error(catch_error([] { exchange_device(-1); }), ErrorKind::kIndex,
                         "Device index -1 is out of range for DeviceIndex [0, 127]"));
    EXPECT_TRUE(is_error(catch_error([] { maybe_exchange_device(128); }), ErrorKind::kIndex,
                         "Device index 128 is out of range for DeviceIndex [0, 127]"));
    EXPECT_TRUE(is_error(catch_error([] { set_device_index(128); }), ErrorKind::kIndex,
                         "Device index 128 is out of range for DeviceIndex [0, 127]"));
    EXPECT_FALSE(is_initialized());
  });
}

TEST_P(Devices, OtherDeviceTypeIsRejected) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    EXPECT_TRUE(is_error(catch_error([] { set_device_index("cpu"); }), ErrorKind::kValue,
                         "cpu doesn't match the current accelerator " + p.device_type_name +
                             "."));
    EXPECT_TRUE(is_error(catch_error([] { get_device_properties("cpu:0"); }),
                         ErrorKind::kValue,
                         "cpu doesn't match the current accelerator " + p.device_type_name +
                             "."));
  });
}

TEST_P(Devices, CurrentDeviceIsPerThreadAndStartsAtZero) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 2);
    set_device_index(count - 1);
    int seen_by_thread = -1;
    int after_thread_set = -1;
    std::thread worker([&] {
      seen_by_thread = current_device_index();
      set_device_index(1);
      after_thread_set = current_device_index();
    });
    worker.join();
    EXPECT_EQ(seen_by_thread, 0);
    EXPECT_EQ(after_thread_set, 1);
    EXPECT_EQ(current_device_index(), count - 1) << "another thread's choice leaked here";
  });
}

TEST_P(Devices, PropertiesCapabilityAndMemoryAgree) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 1);
    for (int i = 0; i < count; ++i) {
      const DeviceProperties properties = get_device_properties(i);
      const DeviceCapability capability = get_device_capability(i);
      const MemoryInfo memory = get_memory_info(i);
      EXPECT_FALSE(properties.name.empty()) << "device " << i;
      EXPECT_EQ(properties.uuid.rfind(p.uuid_prefix, 0), 0u) << properties.uuid;
      EXPECT_EQ(properties.uuid.size(), p.uuid_prefix.size() + 36) << properties.uuid;
      EXPECT_EQ(capability.major, properties.major) << "device " << i;
      EXPECT_EQ(capability.minor, properties.minor) << "device " << i;
      EXPECT_FALSE(capability.supported_dtypes.empty());
      EXPECT_EQ(memory.total_bytes, properties.total_memory_bytes) << "device " << i;
      EXPECT_LE(memory.free_bytes, memory.total_bytes) << "device " << i;
      if (p.on_mock) {
        const mockdev::MachineSpec machine = mockdev::control::machine();
        const MockDevice expected = mock_visible_devices(p, machine).at(i);
        EXPECT_EQ(properties.name, expected.card->name);
        EXPECT_EQ(properties.total_memory_bytes, expected.memory_bytes) << "device " << i;
        EXPECT_EQ(memory.free_bytes, memory.total_bytes) << "nothing allocated yet";
        if (p.properties_are_machine_attributes) {  // Note [Backend branches]
          EXPECT_EQ(properties.uuid, expected.card->uuid);
          EXPECT_EQ(properties.major, expected.card->cc_major);
          EXPECT_EQ(properties.minor, expected.card->cc_minor);
          EXPECT_EQ(properties.multi_processor_count, expected.card->multiprocessor_count);
        }
      }
    }
    EXPECT_EQ(current_device_index(), 0) << "queries by index do not change the device";
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(Devices);

}  // namespace
}  // namespace accel::test
