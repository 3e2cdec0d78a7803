#pragma once
// The control API for stream capture and graphs in the simulated CUDA driver: the choices
// the mock makes where neither NVIDIA's documentation nor the recorded hardware
// (docs/HARDWARE.md) settles a rule, and what a test can inspect. Thread-safe; the rules
// go back to their defaults at every machine installation (control::reset).

#include <cstddef>

namespace mockdev::control {

// Each default is the mock's reading of NVIDIA's stream-capture documentation (CUDA
// Programming Guide, "CUDA Graphs") where it is marked [inferred]; each is on the hardware
// "to check" list (docs/HARDWARE.md, "Capture and graphs").
struct CaptureRules {
  // Ongoing captures prohibit unsafe calls only on their own device; false (the default):
  // on every device of the process, as cuda.h states the rule with no device qualifier
  // (cuThreadExchangeStreamCaptureMode: "any other thread has a concurrent capture sequence
  // initiated with CU_STREAM_CAPTURE_MODE_GLOBAL").
  bool gate_per_device = false;
  // A wait that would merge two captures (902) invalidates both of them.
  bool merge_invalidates_both = true;
  // cuEventQuery / cuEventSynchronize on a captured event (907) also invalidates the capture
  // the event belongs to (Recording 2 on an H100).
  bool captured_event_wait_invalidates = true;
};

CaptureRules capture_rules();
void set_capture_rules(const CaptureRules& rules);

// What is alive now: capture sequences in progress (active or invalidated), graphs, execs.
struct CaptureCounts {
  std::size_t sequences = 0;
  std::size_t graphs = 0;
  std::size_t execs = 0;
};
CaptureCounts capture_counts();

}  // namespace mockdev::control
