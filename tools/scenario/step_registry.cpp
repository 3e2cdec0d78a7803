#include "step_registry.h"

#include <charconv>
#include <cstdint>
#include <stdexcept>

namespace accel::scenario {

StepRegistry& StepRegistry::global() {
  static StepRegistry registry;  // built by the step files' static registrars
  return registry;
}

void StepRegistry::add(StepKind kind) {
  const std::string name = kind.name;
  if (!kinds_.emplace(name, std::move(kind)).second) {
    throw std::logic_error("scenario step '" + name + "' registered twice");
  }
}

const StepKind* StepRegistry::find(const std::string& name) const {
  auto it = kinds_.find(name);
  return it == kinds_.end() ? nullptr : &it->second;
}

std::vector<std::string> StepRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, kind] : kinds_) out.push_back(name);
  return out;
}

DeviceArg device_arg(const StepArgs& args) {
  const YAML::Node& node = args.node;
  if (!node.IsDefined() || node.IsNull()) return DeviceArg();
  const std::string what = "a device: an index, a device string such as \"cuda:1\", or null";
  const std::string s = args.reader.scalar(node, args.path, what);
  if (node.Tag() != "!") {
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (!s.empty() && ec == std::errc() && ptr == s.data() + s.size()) {
      if (value < INT32_MIN || value > INT32_MAX) args.reader.fail(node, args.path, what, s);
      return DeviceArg(static_cast<int>(value));
    }
  }
  if (s.empty()) args.reader.fail(node, args.path, what, s);
  return DeviceArg(s);
}

}  // namespace accel::scenario
