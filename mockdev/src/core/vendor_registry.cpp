// The lookups of the vendor registry (core/vendor_registry.h); the rows themselves are the
// adapters' (Note [Vendor registry]).

#include "core/vendor_registry.h"

#include <array>
#include <cstdio>
#include <cstdlib>

namespace mockdev::core {
namespace {

// The device makers machine files know, in Vendor order. Not an adapter's row: two APIs
// (CUDA, NVML) serve one vendor's devices.
constexpr std::array kVendors = {
    VendorRow{Vendor::kNvidia, "nvidia", "NVIDIA"},
    VendorRow{Vendor::kIntel, "intel", "Intel"},
};

[[noreturn]] void missing(const char* what, int value) {
  // A build that registers no row for an enumerator: a programming error, found by every
  // test that reads a machine file.
  std::fprintf(stderr, "mockdev: no registered row for %s %d (Note [Vendor registry])\n", what,
               value);
  std::abort();
}

}  // namespace

const ApiRow& api_row(Api api) {
  for (const ApiRow* row : registered_api_rows()) {
    if (row->api == api) return *row;
  }
  missing("Api", static_cast<int>(api));
}

std::span<const VendorRow> vendor_rows() { return kVendors; }

const VendorRow& vendor_row(Vendor vendor) {
  for (const VendorRow& row : kVendors) {
    if (row.vendor == vendor) return row;
  }
  missing("Vendor", static_cast<int>(vendor));
}

}  // namespace mockdev::core

namespace mockdev {

// Total over any value (a message may print a corrupt one), so no abort here.
std::string_view api_name(Api api) {
  for (const core::ApiRow* row : core::registered_api_rows()) {
    if (row->api == api) return row->name;
  }
  return "unknown";
}

std::string_view vendor_name(Vendor vendor) {
  for (const core::VendorRow& row : core::vendor_rows()) {
    if (row.vendor == vendor) return row.name;
  }
  return "unknown";
}

}  // namespace mockdev
