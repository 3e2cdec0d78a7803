#pragma once
// Device types, devices, and the argument type every device-taking function accepts.
//
// A Device is a type plus an optional index ("cuda" or "cuda:1"), like torch.device.
// DeviceArg is torch's `_device_t`: an index, a Device, a device string, or nothing.
// Resolution to an index (and its errors) happens inside each API call, following
// PyTorch's _get_device_index rules (docs/ARCHITECTURE.md, "(a) accel::set_device_index";
// installed in share/doc/accel/).
// Values only; thread-safe to copy.

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

namespace accel {

enum class DeviceType : std::uint8_t { kCPU, kCUDA, kXPU };

// "cpu", "cuda", "xpu".
std::string_view to_string(DeviceType type) noexcept;

class Device {
 public:
  constexpr explicit Device(DeviceType type, std::optional<int> index = std::nullopt)
      : type_(type), index_(index) {}

  // Parses "cuda", "cuda:1", "cpu", "xpu:0". Throws accel::Error (kRuntime) with
  // PyTorch's texts: "Invalid device string: '<text>'" for a malformed string, and
  // "Expected one of cpu, cuda, xpu device type at start of device string: <type>".
  static Device parse(std::string_view text);

  constexpr DeviceType type() const noexcept { return type_; }
  constexpr const std::optional<int>& index() const noexcept { return index_; }
  constexpr bool has_index() const noexcept { return index_.has_value(); }

  // "cuda:1", or "cuda" without an index.
  std::string str() const;

  friend constexpr bool operator==(const Device&, const Device&) = default;

 private:
  DeviceType type_;
  std::optional<int> index_;
};

// torch's `_device_t`: int | Device | str | None. Implicit from each, so
// `set_device_index(1)`, `set_device_index("cuda:1")` and
// `set_device_index(Device(DeviceType::kCUDA, 1))` all read naturally. Floating-point and
// bool arguments are rejected at compile time rather than silently truncated.
class DeviceArg {
 public:
  using Value = std::variant<std::monostate, int, Device, std::string>;

  DeviceArg() = default;
  DeviceArg(std::nullopt_t) {}
  DeviceArg(int index) : value_(index) {}
  DeviceArg(std::optional<int> index) {
    if (index) value_ = *index;
  }
  DeviceArg(Device device) : value_(device) {}
  DeviceArg(const char* text) : value_(std::string(text)) {}
  DeviceArg(std::string text) : value_(std::move(text)) {}
  DeviceArg(std::string_view text) : value_(std::string(text)) {}
  template <class T>
  requires(std::is_floating_point_v<T> || std::is_same_v<T, bool>) DeviceArg(T)
  = delete;

  const Value& value() const noexcept { return value_; }
  bool is_none() const noexcept { return std::holds_alternative<std::monostate>(value_); }

  // As PyTorch would print the argument in a message: "None", "3", "cuda:1", "cuda".
  std::string str() const;

 private:
  Value value_;
};

}  // namespace accel
