// ScopedBackendOverride: push/pop of a RuntimeState.
#include "core/backend_override.h"

#include "core/runtime.h"

namespace accel::detail {

ScopedBackendOverride::ScopedBackendOverride(std::unique_ptr<Backend> backend)
    : state_(push_state(std::make_unique<RuntimeState>(std::move(backend), std::nullopt))) {}

ScopedBackendOverride::~ScopedBackendOverride() { pop_state(state_); }

Backend* ScopedBackendOverride::backend() const noexcept { return state_->backend(); }

}  // namespace accel::detail
