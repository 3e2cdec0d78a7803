#pragma once
// Simulated machines for the mock Level Zero driver's tests, built in code so each test
// states exactly the hardware it needs, and helpers that name what a device handle is
// ("c1t0": card 1 tile 0) from the properties the driver reports.

#include <level_zero/ze_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mockdev/machine.h"

namespace ze_test {

// An Intel card: `tiles` tiles (0 = untiled), 64 GiB per tile (or per untiled card). Card
// `index` gets deviceId 0x0bd5 + index and the uuid 8086...00<index>0 (last byte 0), so
// labels can be read back.
mockdev::DeviceSpec intel_card(int index, int tiles, std::string pci_bus_id = "");

// Two cards of two tiles each (the machine of the Programming Guide's mask examples), with an
// NVIDIA device between them that Level Zero must never show.
mockdev::MachineSpec two_cards_two_tiles();
// A laptop: one integrated, untiled Intel GPU.
mockdev::MachineSpec laptop();
// NVIDIA only: Level Zero sees no device.
mockdev::MachineSpec nvidia_only();

inline constexpr std::uint64_t kTileBytes = std::uint64_t{64} << 30;

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
