#pragma once
// The kernels tests registered (mockdev/kernels.h), by name: process state, not machine
// state (they survive install_machine). Leaky (Note [Leaky state] in core/engine.h); every
// function requires the engine lock.

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "core/engine_lock.h"
#include "mockdev/kernels.h"

namespace mockdev::core {

using KernelMap = std::map<std::string, std::shared_ptr<const kernels::KernelSpec>, std::less<>>;

KernelMap& kernel_registry() MOCKDEV_REQUIRES(g_engine_mutex);
// The registered kernel `name`, or nullptr.
std::shared_ptr<const kernels::KernelSpec> find_kernel(std::string_view name)
    MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
