// The per-architecture defaults (architecture_defaults.h).

#include "core/architecture_defaults.h"

#include <array>

namespace mockdev::core {
namespace {

constexpr int kKiB = 1024;
constexpr int kMiB = 1024 * 1024;

// name, cc, clock kHz, memory clock kHz, bus bits, L2, persisting L2, access policy
// window, threads/SM, blocks/SM, shared memory/SM, opt-in shared memory/block, reserved
// shared memory/block, registers/SM, copy engines, FP32:FP64 ratio, PCI device id,
// PCI subsystem id.
constexpr std::array<Architecture, 8> kArchitectures = {{
    {"Volta", 7, 0, 1530000, 877000, 4096, 6 * kMiB, 0, 0, 2048, 32, 96 * kKiB, 96 * kKiB, 0, 65536,
     6, 2, 0x1DB1, 0x1212},
    {"Turing", 7, 5, 1590000, 5001000, 256, 4 * kMiB, 0, 0, 1024, 16, 64 * kKiB, 64 * kKiB, 0,
     65536, 3, 32, 0x1EB8, 0x12A2},
    {"Ampere", 8, 0, 1410000, 1215000, 5120, 40 * kMiB, 30 * kMiB, 134213632, 2048, 32, 164 * kKiB,
     163 * kKiB, 1 * kKiB, 65536, 3, 2, 0x20B0, 0x134F},
    {"Ampere (GA10x)", 8, 6, 1695000, 6251000, 384, 6 * kMiB, 4608 * kKiB, 134213632, 1536, 16,
     100 * kKiB, 99 * kKiB, 1 * kKiB, 65536, 2, 32, 0x2236, 0x1482},
    {"Ada Lovelace", 8, 9, 2040000, 6251000, 192, 48 * kMiB, 36 * kMiB, 134213632, 1536, 24,
     100 * kKiB, 99 * kKiB, 1 * kKiB, 65536, 2, 64, 0x27B8, 0x16CA},
    // Hopper: the persisting L2 size, the access policy window and the subsystem id as an
    // H100 80GB HBM3 answered them (docs/HARDWARE.md, Recording 2).
    {"Hopper", 9, 0, 1980000, 2619000, 5120, 50 * kMiB, 32768000, 128 * kMiB, 2048, 32, 228 * kKiB,
     227 * kKiB, 1 * kKiB, 65536, 3, 2, 0x2330, 0x16C0},
    {"Blackwell", 10, 0, 1965000, 3996000, 8192, 126 * kMiB, 94 * kMiB, 134213632, 2048, 32,
     228 * kKiB, 227 * kKiB, 1 * kKiB, 65536, 4, 2, 0x2901, 0x1999},
    {"Blackwell (GB20x)", 12, 0, 2407000, 14001000, 512, 96 * kMiB, 72 * kMiB, 134213632, 1536, 24,
     100 * kKiB, 99 * kKiB, 1 * kKiB, 65536, 2, 64, 0x2B85, 0x2057},
}};

constexpr bool ordered() {
  for (std::size_t i = 1; i < kArchitectures.size(); ++i) {
    const Architecture& a = kArchitectures[i - 1];
    const Architecture& b = kArchitectures[i];
    if (a.cc_major * 10 + a.cc_minor >= b.cc_major * 10 + b.cc_minor) return false;
  }
  return true;
}
static_assert(ordered(), "architecture_for searches rows in increasing compute capability");

}  // namespace

std::span<const Architecture> architectures() { return kArchitectures; }

const Architecture& architecture_for(int cc_major, int cc_minor) {
  const int wanted = cc_major * 10 + cc_minor;
  const Architecture* found = &kArchitectures.front();
  for (const Architecture& a : kArchitectures) {
    if (a.cc_major * 10 + a.cc_minor <= wanted) found = &a;
  }
  return *found;
}

}  // namespace mockdev::core
