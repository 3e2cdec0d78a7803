#pragma once
// What a device of each GPU architecture is like, for the device attributes a machine file
// does not give (the `attributes:` map of a device, docs/MACHINE_FILES.md).
//
// One row per architecture, keyed by compute capability. The figures are those of the
// architecture's usual data-centre part (V100, T4, A100, A10/RTX 30, L4/RTX 40, H100,
// B200, RTX 50) as the vendor's tables publish them; they are plausible defaults for a
// simulated device, not a promise about any one board -- a machine file that needs exact
// figures states them. Pure data; thread-safe.

#include <cstdint>
#include <span>
#include <string_view>

namespace mockdev::core {

struct Architecture {
  std::string_view name;  // "Hopper"
  int cc_major = 0;       // the first compute capability this row describes
  int cc_minor = 0;
  int clock_khz = 0;         // typical SM clock
  int memory_clock_khz = 0;  // peak memory clock
  int memory_bus_width_bits = 0;
  int l2_cache_bytes = 0;
  int max_persisting_l2_bytes = 0;         // 0 before Ampere (no persisting L2 lines)
  int max_access_policy_window_bytes = 0;  // 0 before Ampere
  int max_threads_per_multiprocessor = 0;
  int max_blocks_per_multiprocessor = 0;
  int shared_memory_per_multiprocessor = 0;
  int shared_memory_per_block_optin = 0;
  int reserved_shared_memory_per_block = 0;
  int registers_per_multiprocessor = 0;
  int async_engine_count = 0;  // copy engines
  int single_to_double_precision_ratio = 0;
  std::uint16_t pci_device_id = 0;     // the part's PCI device id (vendor 0x10DE)
  std::uint16_t pci_subsystem_id = 0;  // its subsystem id (subsystem vendor 0x10DE)
};

inline constexpr std::uint16_t kPciVendorNvidia = 0x10DE;

// Every row, in increasing compute capability.
std::span<const Architecture> architectures();

// The row for compute capability major.minor: the last row at or below it (a 9.0 row
// serves 9.x; 8.7 gets the 8.6 row); a capability below the first row gets the first row.
const Architecture& architecture_for(int cc_major, int cc_minor);

}  // namespace mockdev::core
