#pragma once
// What the mock Level Zero driver's tests ask of the devices through the real loader: the
// driver, its device and sub-device lists, and a label naming what a device handle is
// ("c1t0": card 1 tile 0) from the properties the driver reports, for the cards of the
// bare machines in ze_test_machines.h (tests/support).

#include <level_zero/ze_api.h>

#include <string>
#include <vector>

#include "ze_test_machines.h"

namespace ze_test {

// "c<card>" or "c<card>t<tile>" for a device handle, from its deviceId and uuid.
std::string label(ze_device_handle_t device);
// Labels of every handle, in order.
std::vector<std::string> labels(const std::vector<ze_device_handle_t>& devices);

// zeInit(0) + the one driver; fails the test (ASSERT) when either fails.
ze_driver_handle_t init_driver();
// zeDeviceGet's list (count protocol: ask, then fetch).
std::vector<ze_device_handle_t> devices_of(ze_driver_handle_t driver);
std::vector<ze_device_handle_t> subdevices_of(ze_device_handle_t device);

}  // namespace ze_test
