#include "core/kernel_registry.h"

namespace mockdev::core {

KernelMap& kernel_registry() {
  static KernelMap* registry = new KernelMap();  // never deleted: Note [Leaky state]
  return *registry;
}

std::shared_ptr<const kernels::KernelSpec> find_kernel(std::string_view name) {
  const KernelMap& registry = kernel_registry();
  auto it = registry.find(name);
  return it == registry.end() ? nullptr : it->second;
}

}  // namespace mockdev::core
