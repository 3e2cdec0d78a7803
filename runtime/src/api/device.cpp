// Device parsing and printing with torch.device's rules and messages.
#include "accel/device.h"

#include <cctype>
#include <string>

#include "accel/error.h"

namespace accel {

std::string_view to_string(DeviceType type) noexcept {
  switch (type) {
    case DeviceType::kCPU:
      return "cpu";
    case DeviceType::kCUDA:
      return "cuda";
    case DeviceType::kXPU:
      return "xpu";
  }
  return "unknown";
}

// Note [Device string grammar]
// torch.device accepts `<type>` or `<type>:<index>`: the type is letters and
// underscores; the index is decimal digits without a leading zero (so "cuda:01" is
// rejected) and without a sign. Anything else, including an empty string, an empty index
// ("cuda:") or surrounding spaces, is "Invalid device string". A well-formed type that
// is not known gives the "Expected one of ..." message. A CPU device may only have index
// 0, as torch.device checks.
Device Device::parse(std::string_view text) {
  auto invalid = [&]() -> Error {
    return Error(ErrorKind::kRuntime, "Invalid device string: '" + std::string(text) + "'");
  };
  std::size_t colon = text.find(':');
  std::string_view type_text = text.substr(0, colon);
  if (type_text.empty()) throw invalid();
  for (char ch : type_text) {
    if (!(std::isalpha(static_cast<unsigned char>(ch)) || ch == '_')) throw invalid();
  }
  std::optional<int> index;
  if (colon != std::string_view::npos) {
    std::string_view index_text = text.substr(colon + 1);
    if (index_text.empty() || index_text.size() > 9) throw invalid();
    if (index_text.size() > 1 && index_text[0] == '0') throw invalid();
    int value = 0;
    for (char ch : index_text) {
      if (!std::isdigit(static_cast<unsigned char>(ch))) throw invalid();
      value = value * 10 + (ch - '0');
    }
    index = value;
  }
  DeviceType type;
  if (type_text == "cpu") {
    type = DeviceType::kCPU;
  } else if (type_text == "cuda") {
    type = DeviceType::kCUDA;
  } else if (type_text == "xpu") {
    type = DeviceType::kXPU;
  } else {
    throw Error(ErrorKind::kRuntime,
                "Expected one of cpu, cuda, xpu device type at start of device string: " +
                    std::string(type_text));
  }
  if (type == DeviceType::kCPU && index && *index != 0) {
    throw Error(ErrorKind::kRuntime,
                "CPU device index must be -1 or zero, got " + std::to_string(*index));
  }
  return Device(type, index);
}

std::string Device::str() const {
  std::string out(to_string(type_));
  if (index_) {
    out += ':';  // separate appends: g++ 12 -O2 warns falsely (-Wrestrict) on ":" + string
    out += std::to_string(*index_);
  }
  return out;
}

std::string DeviceArg::str() const {
  struct Printer {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(int index) const { return std::to_string(index); }
    std::string operator()(const Device& device) const { return device.str(); }
    std::string operator()(const std::string& text) const { return text; }
  };
  return std::visit(Printer{}, value_);
}

}  // namespace accel
