// The kernels part of the control API (mockdev/kernels.h) over core/kernel_registry.h.

#include "core/kernel_registry.h"
#include "mockdev/kernels.h"

namespace mockdev::kernels {

using core::EngineLock;

void register_kernel(KernelSpec spec) {
  if (spec.name.empty()) {
    throw std::invalid_argument(
        "mockdev::kernels::register_kernel: expected a kernel name, got ''");
  }
  for (std::size_t i = 0; i < spec.param_sizes.size(); ++i) {
    if (spec.param_sizes[i] == 0) {
      throw std::invalid_argument("mockdev::kernels::register_kernel: kernel '" + spec.name +
                                  "': parameter " + std::to_string(i) +
                                  ": expected a size in bytes, got 0");
    }
  }
  std::string name = spec.name;
  auto shared = std::make_shared<const KernelSpec>(std::move(spec));
  EngineLock lock;
  core::kernel_registry()[std::move(name)] = std::move(shared);
}

bool unregister_kernel(std::string_view name) {
  EngineLock lock;
  core::KernelMap& registry = core::kernel_registry();
  auto it = registry.find(name);
  if (it == registry.end()) return false;
  registry.erase(it);
  return true;
}

void clear_kernels() {
  EngineLock lock;
  core::kernel_registry().clear();
}

std::vector<std::string> registered_kernels() {
  EngineLock lock;
  std::vector<std::string> names;
  for (const auto& [name, spec] : core::kernel_registry()) names.push_back(name);
  return names;
}

}  // namespace mockdev::kernels
