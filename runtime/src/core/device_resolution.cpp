// _get_device_index for DeviceArg (PyTorch torch/accelerator/_utils.py).
#include "core/device_resolution.h"

#include "accel/accelerator.h"
#include "accel/error.h"
#include "core/runtime.h"

namespace accel::detail {

namespace {

// Index of a Device after the accelerator checks; nullopt when it has none.
std::optional<int> device_index_of(const Device& device) {
  RuntimeState& state = current_state();
  if (state.config_error()) throw_error(*state.config_error());
  if (state.backend() == nullptr) throw Error(ErrorKind::kRuntime, "Accelerator expected");
  DeviceType accelerator = state.backend()->type();
  if (device.type() != accelerator) {
    throw Error(ErrorKind::kValue, std::string(to_string(device.type())) +
                                       " doesn't match the current accelerator " +
                                       std::string(to_string(accelerator)) + ".");
  }
  return device.index();
}

struct Resolved {
  std::optional<int> index;
  std::string printed;  // the argument as PyTorch prints it after conversion
};

Resolved resolve(const DeviceArg& arg) {
  const DeviceArg::Value& value = arg.value();
  if (const int* index = std::get_if<int>(&value)) return {*index, {}};
  if (const Device* device = std::get_if<Device>(&value)) {
    return {device_index_of(*device), device->str()};
  }
  if (const std::string* text = std::get_if<std::string>(&value)) {
    Device device = Device::parse(*text);
    return {device_index_of(device), device.str()};
  }
  return {std::nullopt, "None"};
}

}  // namespace

int resolve_device_index(const DeviceArg& device, bool optional) {
  Resolved resolved = resolve(device);
  if (resolved.index) return *resolved.index;
  if (optional) return current_device_index();
  throw Error(ErrorKind::kValue,
              "Expected an accel::Device with a specified index or an integer, but got:" +
                  resolved.printed);
}

std::optional<int> resolve_explicit_device_index(const DeviceArg& device) {
  return resolve(device).index;
}

}  // namespace accel::detail
