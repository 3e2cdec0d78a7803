#include "allocator_scenario.h"

#include <cstdlib>
#include <sstream>

#include "accel/accelerator.h"

namespace accel::test::alloc_model {
namespace {

std::string stream_name(int device, int stream) {
  return "d" + std::to_string(device) + "_s" + std::to_string(stream);
}

// The pinned byte whose fill is the work queued on a stream.
std::string work_name(int device, int stream) { return "w_" + stream_name(device, stream); }

}  // namespace

ScenarioKind allocator_scenario_kind(const std::size_t* capacity,
                                     const std::size_t* context_reserve, int devices) {
  std::string setup = "machine:\n  name: 2xa100_at_property_capacity\n  devices:\n";
  for (int d = 0; d < devices; ++d) {
    const DeviceProperties p = get_device_properties(d);
    setup += "    - {name: " + p.name + ", memory: " + std::to_string(capacity[d]) +
             ", context_reserve: " + std::to_string(context_reserve[d]) +
             ", compute_capability: \"" + std::to_string(p.major) + "." + std::to_string(p.minor) +
             "\", multiprocessors: " + std::to_string(p.multi_processor_count) + "}\n";
  }
  std::string environment;
  for (const char* variable : {"MOCKDEV_SCHEDULE", "MOCKDEV_SEED", "MOCKDEV_RACES"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && value[0] != '\0') {
      environment += "  " + std::string(variable) + ": " + value + "\n";
    }
  }
  if (!environment.empty()) setup += "environment:\n" + environment;
  setup += "invariants: memory_stats\n";
  return {.kind = "allocator",
          .title = "the device allocator property",
          .source = "tests/property/allocator_runtime_sut.h, allocator_scenario.h",
          .model = "the allocator's reference model (allocator_model.h)",
          .setup = setup};
}

void AllocatorScenario::setup(bool expandable) {
  for (int d = 0; d < devices_; ++d) {
    recorder_.step(
        -1, "default_stream: {name: " + stream_name(d, 0) + ", device: " + std::to_string(d) + "}");
    for (int s = 1; s < streams_; ++s) {
      recorder_.step(-1, "stream: {name: " + stream_name(d, s) + ", device: " + std::to_string(d) +
                             ", priority: " + std::to_string(1 - s) + "}");
    }
  }
  for (int d = 0; d < devices_; ++d) {
    for (int s = 0; s < streams_; ++s) {
      recorder_.step(-1, "host_buffer: {name: " + work_name(d, s) + ", size: 1, pinned: true}");
    }
  }
  recorder_.step(-1, std::string("set_allocator_settings: \"expandable_segments:") +
                         (expandable ? "True" : "False") + "\"");
  for (int d = 0; d < devices_; ++d) {
    recorder_.step(
        -1, "set_per_process_memory_fraction: {fraction: 1.0, device: " + std::to_string(d) + "}");
  }
}

void AllocatorScenario::allocate(const std::string& name, int device, int stream, std::size_t bytes,
                                 bool oom, bool used) {
  recorder_.step(-1,
                 "allocate: {name: " + name + ", size: " + std::to_string(bytes) +
                     ", stream: " + stream_name(device, stream) + "}",
                 oom ? "{error: out_of_memory}"
                     : "{value: {device: " + std::to_string(device) +
                           ", size: " + std::to_string(bytes) + "}}");
  if (used) queue_work(device, stream);
}

void AllocatorScenario::free(const std::string& name) { recorder_.step(-1, "free: " + name); }

void AllocatorScenario::record_stream(const std::string& name, int device, int owner, int stream) {
  if (stream != owner) {
    recorder_.step(-1, "wait_stream: {stream: " + stream_name(device, stream) +
                           ", other: " + stream_name(device, owner) + "}");
    queue_work(device, stream);
  }
  recorder_.step(
      -1, "record_stream: {alloc: " + name + ", stream: " + stream_name(device, stream) + "}");
}

void AllocatorScenario::queue_work(int device, int stream) {
  recorder_.step(-1, "fill_async: {buffer: " + work_name(device, stream) +
                         ", value: 1, stream: " + stream_name(device, stream) + "}");
}

void AllocatorScenario::complete_work(int device, int stream) {
  recorder_.step(-1, "stream_synchronize: " + stream_name(device, stream));
}

void AllocatorScenario::empty_cache() { recorder_.step(-1, "empty_cache:"); }

void AllocatorScenario::reset_peak(int device) {
  recorder_.step(-1, "reset_peak_memory_stats: " + std::to_string(device));
}

void AllocatorScenario::reset_accumulated(int device) {
  recorder_.step(-1, "reset_accumulated_memory_stats: " + std::to_string(device));
}

void AllocatorScenario::set_fraction(int device, double fraction) {
  std::ostringstream f;
  f << fraction;
  recorder_.step(-1, "set_per_process_memory_fraction: {fraction: " + f.str() +
                         ", device: " + std::to_string(device) + "}");
  recorder_.step(-1, "get_per_process_memory_fraction: " + std::to_string(device),
                 "{value: " + f.str() + "}");
}

void AllocatorScenario::expect_model(const Model& model) {
  for (int d = 0; d < devices_; ++d) {
    std::size_t live = 0, requested = 0, allocated = 0, active = 0, active_bytes = 0;
    for (const LiveBlock& b : model.live()) {
      if (b.device != d) continue;
      ++live;
      requested += b.requested;
      allocated += b.size;
    }
    active = live;
    active_bytes = allocated;
    for (const PendingBlock& p : model.pending()) {  // requested until the free completes
      if (p.block.device != d) continue;
      ++active;
      active_bytes += p.block.size;
      requested += p.block.requested;
    }
    recorder_.step(-1, "memory_stats: " + std::to_string(d),
                   "{value: {allocation.all.current: " + std::to_string(live) +
                       ", requested_bytes.all.current: " + std::to_string(requested) +
                       ", allocated_bytes.all.current: " + std::to_string(allocated) +
                       ", active.all.current: " + std::to_string(active) +
                       ", active_bytes.all.current: " + std::to_string(active_bytes) + "}}");
  }
}

void AllocatorScenario::synchronize_all() {
  for (int d = 0; d < devices_; ++d) {
    for (int s = 0; s < streams_; ++s) complete_work(d, s);
  }
}

void AllocatorScenario::expect_driver_holds_nothing(const std::size_t* context_reserve) {
  std::string used;
  for (int d = 0; d < devices_; ++d) {
    used += (d ? ", " : "") + std::to_string(d) + ": " + std::to_string(context_reserve[d]);
  }
  recorder_.step(-1, "check:", "{used_bytes: {" + used + "}}");
}

void AllocatorScenario::expect_no_race() { recorder_.step(-1, "races:", "{value: []}"); }

}  // namespace accel::test::alloc_model
