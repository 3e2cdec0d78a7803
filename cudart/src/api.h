#pragma once
// The runtime's entry points, one accel::cudart::impl::<name> per row of
// ACCEL_CUDART_TABLE (accel_abi/cuda_runtime.h), declared from the rows. entry.cpp's
// exported wrappers call them after the gates (Note [Entry call order] in entry.cpp); each
// subject's file defines its own (device.cpp, context.cpp, errors.cpp, versions.cpp, and
// memory.cpp, streams.cpp, kernels.cpp as they come). A row marked kNotImplemented needs no
// definition: its wrapper answers through not_implemented() (errors.h).
// An impl function returns the runtime's code and may throw std::bad_alloc (the wrapper
// turns it into cudaErrorMemoryAllocation); it records nothing itself.

#include "accel_abi/cuda_runtime.h"

namespace accel::cudart {

using namespace accel::cudart_abi;  // NOLINT: the runtime speaks the vendor's names

namespace impl {
#define ACCEL_CUDART_DECLARE_IMPL(ret, name, params, args, traits) ret name params;
ACCEL_CUDART_TABLE(ACCEL_CUDART_DECLARE_IMPL)
#undef ACCEL_CUDART_DECLARE_IMPL
}  // namespace impl

// Note [Per-thread default stream]
// A per-thread variant (cudaMemcpyAsync_ptsz) runs its row's impl function with this
// scope in force: there the NULL stream (0) means cudaStreamPerThread, elsewhere the legacy
// default stream. Stream-taking implementations ask per_thread_default_stream().
class PerThreadDefaultStream {
 public:
  PerThreadDefaultStream() noexcept;
  ~PerThreadDefaultStream();
  PerThreadDefaultStream(const PerThreadDefaultStream&) = delete;
  PerThreadDefaultStream& operator=(const PerThreadDefaultStream&) = delete;

 private:
  bool previous_;
};

// True inside a per-thread variant's call on this thread.
[[nodiscard]] bool per_thread_default_stream() noexcept;

}  // namespace accel::cudart
