#pragma once
// The two environment variables that narrow or reshape what the Level Zero driver shows,
// as the runtime reads them: syntax checks (configuration_status()) and PyTorch's own
// integer-list reading of ZE_AFFINITY_MASK (the fork-safe Sysman count).
//
// Note [Level Zero visibility variables]
// The DRIVER applies ZE_FLAT_DEVICE_HIERARCHY and ZE_AFFINITY_MASK (Level Zero Programming Guide);
// the backend never filters zeDeviceGet's answer itself. It only refuses values that cannot
// mean anything, because a setting the user made that does nothing is an error in this
// project (Note [Misconfiguration is an error] in accel/accelerator.h):
//  * ZE_AFFINITY_MASK: comma-separated entries, each N or N.M (card.tile), numbers decimal
//    or hexadecimal (0x..., the driver reads them with strtoul base 0), each with an optional
//    sign, blanks allowed before an entry (spaces after commas). Anything else (letters, an
//    empty entry, N.M.K, a sign alone) is kConfig: Intel's parser aborts on three levels and
//    its handling of non-numeric text is unspecified, so such a mask is refused before the
//    driver sees it. Entries that are well formed but select nothing (out of range, N.M in
//    FLAT, a signed entry, which strtoul turns into a huge index and PyTorch skips as
//    negative: decision 208) are the driver's business: zeInit then finds no device.
//  * ZE_FLAT_DEVICE_HIERARCHY: exactly COMPOSITE, FLAT or COMBINED (upper case). The
//    driver silently falls back to its default for any other value; the runtime
//    refuses it instead, since the user asked for a layout they would not get.
// Both: an empty value counts as unset (the Programming Guide's rule for the mask; the runtime's
// rule for every variable it reads). Pure functions; thread-safe.

#include <optional>
#include <string_view>
#include <vector>

#include "accel_common/environment_variables.h"
#include "spi/status.h"

namespace accel::detail::level_zero {

inline constexpr const char* kAffinityMaskVariable =
    ::accel::common::environment_variable_name("ZE_AFFINITY_MASK");
inline constexpr const char* kHierarchyVariable =
    ::accel::common::environment_variable_name("ZE_FLAT_DEVICE_HIERARCHY");

// OK, or kConfig "ZE_AFFINITY_MASK='0,x': entry 'x' is not a device index (expected N or
// N.M, e.g. '0,1.0')". nullopt: unset.
Status check_affinity_mask(std::optional<std::string_view> value);

// OK, or kConfig "ZE_FLAT_DEVICE_HIERARCHY='flat' is not a device hierarchy (expected
// COMPOSITE, FLAT or COMBINED; the driver would silently use its default)". nullopt: unset.
Status check_flat_device_hierarchy(std::optional<std::string_view> value);

// PyTorch's fork-safe reading of ZE_AFFINITY_MASK (torch/xpu/__init__.py,
// _parse_visible_devices, strict=False): unset or empty -> 0..127; otherwise the
// comma-separated tokens, blanks stripped, each a decimal integer with an optional sign;
// duplicates dropped (first kept), negatives skipped; any token that is not an integer
// (e.g. the COMPOSITE-style "0.1", or "0x1") -> the empty list, meaning "cannot tell"
// (the caller falls back to another count).
std::vector<int> pytorch_mask_indices(std::optional<std::string_view> value);

// The variable's value, nullopt when unset or empty. Reads the environment.
std::optional<std::string_view> environment_value(const char* variable);

}  // namespace accel::detail::level_zero
