#pragma once
// Device identifiers of the simulated machine: UUID and PCI bus id syntax, their generation
// for devices whose machine file does not give them, and the 16 UUID bytes that
// cuDeviceGetUuid reports. Pure functions; thread-safe.

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace mockdev::core {

// Most devices a machine may have (keeps the fake address ranges of core/memory.h inside
// 64 bits).
inline constexpr int kMaxDevices = 64;

// True for "<prefix>xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (hex digits, either case).
bool is_uuid(std::string_view text, std::string_view prefix);
// True for "dddddddd:bb:dd.f" (hex domain, bus, device; function digit 0-7).
bool is_pci_bus_id(std::string_view text);

// A stable "GPU-..." UUID for device `index` of the machine called `machine_name`.
std::string generate_uuid(std::string_view machine_name, int index);
// A stable PCI bus id for device `index` ("00000000:bb:00.0").
std::string generate_pci_bus_id(int index);

// The 16 bytes a "GPU-..." or "MIG-..." UUID spells in hex (nullopt if it is not a UUID).
std::optional<std::array<unsigned char, 16>> uuid_bytes(std::string_view uuid);

// The bus and device numbers of a PCI bus id (as is_pci_bus_id accepts); -1 if malformed.
int pci_bus_number(std::string_view pci_bus_id);
int pci_device_number(std::string_view pci_bus_id);

}  // namespace mockdev::core
