// Differential fuzzer: the runtime's CUDA_VISIBLE_DEVICES parser (PyTorch's NVML-path
// rules) against the simulated driver's, on the same machine. They must expose the same
// devices, except where a difference is documented (Note [Where NVML-side and driver-side
// rules differ] in tests/conformance/visible_devices_test.cpp; see excluded()).
//
// Input: byte 0 picks the device count (1..8); bytes 1..8 pick each device's UUID from a
// small alphabet (so prefixes collide and ambiguity is reachable); the rest is the value.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/visible_devices_adapters.h"

namespace {

std::string_view trim(std::string_view s) {
  auto blank = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// ACCEL_FUZZ_STRICT=1 turns off the known-defect exclusions (not the documented
// differences), to replay known_defects/visible_devices/ and see whether a fix landed.
bool strict() {
  static const bool value = [] {
    const char* text = std::getenv("ACCEL_FUZZ_STRICT");
    return text != nullptr && std::string_view(text) == "1";
  }();
  return value;
}

bool has_upper_case(std::string_view s) {
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') return true;
  }
  return false;
}

// Inputs where the two parsers are documented to differ (Note [Where NVML-side and
// driver-side rules differ] in tests/conformance/visible_devices_test.cpp; the driver's
// side recorded on real hardware, docs/HARDWARE.md).
bool excluded(std::string_view value) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = value.find(',', start);
    const std::string_view entry = value.substr(start, comma - start);
    const bool uuid_entry = starts_with(entry, "GPU-") || starts_with(entry, "MIG-");
    // The driver compares UUIDs without regard to case; PyTorch's parser compares exactly.
    if (uuid_entry && has_upper_case(entry.substr(4))) return true;
    // An empty prefix selects nothing in the driver; PyTorch's parser lets it match every
    // device (so one device is "selected").
    if (entry == "GPU-" || entry == "MIG-") return true;
    // The driver cuts ordinals to 32 bits ("4294967296" is 0); PyTorch reads them exactly.
    // Replaying known_defects/ with ACCEL_FUZZ_STRICT=1 keeps checking the values both
    // must agree on (e.g. "0,3000000000,4000000000": both stop at 3000000000).
    const std::string_view number = trim(entry);
    std::size_t digits = 0;
    for (std::size_t i = (!number.empty() && (number[0] == '+' || number[0] == '-')) ? 1 : 0;
         i < number.size() && number[i] >= '0' && number[i] <= '9'; ++i) {
      ++digits;
    }
    if (digits >= 10 && !strict()) return true;
    if (comma == std::string_view::npos) return false;
    start = comma + 1;
  }
}

std::string describe(const std::vector<int>& ordinals) {
  std::string text = "[";
  for (int o : ordinals) text += (text.size() > 1 ? "," : "") + std::to_string(o);
  return text + "]";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 9) return 0;
  static const char* const kUuids[] = {
      "GPU-00000000-0000-0000-0000-000000000000", "GPU-0a000000-0000-0000-0000-000000000001",
      "GPU-0a1b0000-0000-0000-0000-000000000002", "GPU-9e8d35e3-0000-0000-0000-000000000003",
      "GPU-9e8d0000-0000-0000-0000-000000000004", "GPU-e4000000-0000-0000-0000-000000000005",
      "GPU-47000000-0000-0000-0000-000000000006", "GPU-1f000000-0000-0000-0000-000000000007"};
  const int count = 1 + data[0] % 8;
  std::vector<std::string> uuids;
  for (int i = 0; i < count; ++i) {
    std::string uuid = kUuids[data[1 + i] % 8];
    // Unique UUIDs, as a real machine has: suffix the index when one repeats.
    for (const std::string& other : uuids) {
      if (other == uuid) uuid.back() = static_cast<char>('a' + i);
    }
    uuids.push_back(uuid);
  }
  const std::string_view value(reinterpret_cast<const char*>(data + 9), size - 9);
  if (excluded(value)) return 0;

  const accel::fuzz::RuntimeAnswer runtime = accel::fuzz::runtime_visible_devices(value, uuids);
  const std::vector<int> mock = accel::fuzz::mockdev_visible_devices(value, uuids);
  if (!runtime.ordinals) return 0;  // MIG list: the runtime asks the driver instead
  const bool same =
      runtime.count_only ? runtime.ordinals->size() == mock.size() : *runtime.ordinals == mock;
  if (!same) {
    std::fprintf(stderr,
                 "CUDA_VISIBLE_DEVICES parsers disagree on '%.*s' with %d devices: runtime %s%s, "
                 "mock %s\n",
                 static_cast<int>(value.size()), value.data(), count,
                 describe(*runtime.ordinals).c_str(), runtime.count_only ? " (count)" : "",
                 describe(mock).c_str());
    std::abort();
  }
  return 0;
}
