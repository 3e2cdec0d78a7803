#pragma once
// Quantities as the project prints them to people: sizes in binary units and addresses in
// hexadecimal. One spelling for the `accel` tool's tables, replay's reports and the
// allocators' messages, so a figure reads the same wherever it appears. PyTorch's own
// out-of-memory wording ("20.00 MiB", with "bytes" below 1 KiB) is a different rule and
// stays with the allocator (runtime/src/allocator/size_policy.h, format_size). Pure;
// thread-safe; never throws except std::bad_alloc.

#include <cstdint>
#include <string>

namespace accel::common {

// "0 B" ... "1023 B", then two decimals in the largest binary unit below the value:
// "1.00 KiB", "512.00 MiB", "79.65 GiB", up to EiB.
std::string binary_size(std::uint64_t bytes);

// "0x" and lower-case hex digits, no padding: "0x7f00dead0000", "0x0".
std::string hex_address(std::uint64_t address);

}  // namespace accel::common
