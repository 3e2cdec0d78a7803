#pragma once
// ScopedBackendOverride: a test-only way to run the whole public API over another Backend
// (a GMock, a fake), or over no accelerator at all.
//
// For its lifetime the process-wide runtime uses `backend` (nullptr = "no accelerator")
// with fresh state: uninitialised, an empty lazy_call queue, not in a bad fork, fresh RNG
// states, and every thread's cached current device invalidated. The destructor destroys
// the override's backend and restores the previous backend and its state (with the
// per-thread device caches invalidated again). Overrides nest (LIFO).
//
// Thread safety: construct and destroy it while no other thread uses the runtime. The
// process-wide atfork handlers cover every installed state; a fork while an override is
// active poisons the child's override state if it had started initialising
// (Note [Fork safety]).

#include <memory>

#include "spi/backend.h"

namespace accel::detail {

class RuntimeState;

class ScopedBackendOverride {
 public:
  explicit ScopedBackendOverride(std::unique_ptr<Backend> backend);
  ~ScopedBackendOverride();

  ScopedBackendOverride(const ScopedBackendOverride&) = delete;
  ScopedBackendOverride& operator=(const ScopedBackendOverride&) = delete;

  // The overriding backend (owned by the runtime until the destructor); nullptr for none.
  Backend* backend() const noexcept;

 private:
  RuntimeState* state_;
};

}  // namespace accel::detail
