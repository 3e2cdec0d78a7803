// The control API of mockdev/capture.h over the capture engine and the graph registry.

#include "core/engine_lock.h"
#include "cuda/capture.h"
#include "cuda/graph.h"
#include "mockdev/capture.h"

namespace mockdev::control {

CaptureRules capture_rules() {
  core::EngineLock lock;
  return cuda::capture::rules();
}

void set_capture_rules(const CaptureRules& rules) {
  core::EngineLock lock;
  cuda::capture::rules() = rules;
}

CaptureCounts capture_counts() {
  core::EngineLock lock;
  return CaptureCounts{cuda::capture::ongoing_sequences(), cuda::graph::live_graphs(),
                      cuda::graph::live_execs()};
}

}  // namespace mockdev::control
