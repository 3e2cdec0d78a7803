#pragma once
// What the stream, event and graph files (streams.cpp, events.cpp, graphs.cpp) share: the
// driver and the context every such call runs on (spec cuda_runtime.md §5). Stream arguments
// are converted by driver_stream() (stream_handle.h) and nowhere else. Thread-safe; never
// throws.

#include "api.h"
#include "context.h"
#include "driver.h"
#include "stream_handle.h"

namespace accel::cudart {

// The driver, loaded, with the calling thread's context current (Note [Implicit primary
// contexts] in context.h): cudaSuccess with `*d`, or the error that keeps the call from
// running. Every stream, event and graph call runs on it, as the legacy and per-thread
// default streams belong to the current context.
[[nodiscard]] inline cudaError_t stream_context(const DriverTable** d) {
  if (const cudaError_t e = load_driver(d); e != cudaSuccess) return e;
  int device = 0;
  return require_context(**d, &device);
}

}  // namespace accel::cudart
