#pragma once
// Simulated machines with Intel devices for the Level Zero tests: the mock driver's
// (tests/unit/mockdev/level_zero) and the backend's (tests/unit/runtime/backends/level_zero).
// Built in code, so each test states exactly the hardware it needs and none depends on the
// machine-file reader; install one with mockdev::control::reset() before anything touches
// the driver. Two families, each exactly as its tests pin it:
//  - bare machines (their devices and nothing else) of cards whose deviceId and uuid encode
//    the card and the tile, so the driver's tests read a handle's label back from the
//    properties the driver reports ("c1t0": card 1 tile 0);
//  - machines on the 4xh100 preset's settings (streams, topology) with the devices
//    replaced, for the backend, which reads the whole machine.
// Only mockdev/machine.h: no Level Zero header or loader is needed to build a machine.
// Not thread-safe (tests call them first).

#include <cstdint>
#include <string>
#include <vector>

#include "mockdev/machine.h"

namespace ze_test {

// ---- Bare machines (the mock driver's tests) ------------------------------------------

// intel_card(index) has deviceId kCardDeviceIdBase + index.
inline constexpr std::uint32_t kCardDeviceIdBase = 0x0bd5;
inline constexpr std::uint64_t kTileBytes = std::uint64_t{64} << 30;

// An Intel card: `tiles` tiles (0 = untiled), 64 GiB per tile (or per untiled card). Card
// `index` gets deviceId kCardDeviceIdBase + index and the uuid 8086...00<index>0 (last byte
// 0), so labels can be read back.
mockdev::DeviceSpec intel_card(int index, int tiles, std::string pci_bus_id = "");

// Two cards of two tiles each (the machine of the Programming Guide's mask examples), with an
// NVIDIA device between them that Level Zero must never show.
mockdev::MachineSpec two_cards_two_tiles();
// A laptop: one integrated, untiled Intel GPU.
mockdev::MachineSpec laptop();
// NVIDIA only: Level Zero sees no device.
mockdev::MachineSpec nvidia_only();

// ---- On the 4xh100 preset's settings (the backend's tests) ----------------------------

inline constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// An Intel GPU: `tiles` sub-devices (0: untiled), discrete unless `integrated`; device
// `index` gets the uuid GPU-8680d50b-...<index> and the PCI bus 0x20 + index.
mockdev::DeviceSpec intel_gpu(const std::string& name, int tiles, bool integrated,
                              std::uint64_t memory_bytes, int index, bool fp64 = true);

// The 4xh100 preset with `devices` instead of its own.
mockdev::MachineSpec machine_with(std::vector<mockdev::DeviceSpec> devices,
                                  const std::string& default_hierarchy = "FLAT");

// Two Data Center GPU Max 1550 cards, two tiles each (FLAT by default, as Intel's driver
// on Max).
mockdev::MachineSpec two_max_1550();
// A laptop: one integrated GPU without fp64 (COMPOSITE).
mockdev::MachineSpec laptop_igpu();
// NVIDIA and Intel together: two H100s (never seen by Level Zero) and one Max 1550.
mockdev::MachineSpec mixed_vendors();
// An integrated GPU listed before a discrete one (the discrete one is used).
mockdev::MachineSpec igpu_and_discrete();

}  // namespace ze_test
