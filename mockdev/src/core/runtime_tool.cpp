// The engine's side of the runtime's tool interface: Note [Runtime names] in
// core/runtime_tool.h.

#include "core/runtime_tool.h"

#include <string>

#include "core/engine.h"
#include "core/op_observer.h"
#include "core/timeline.h"
#include "core/vendor_registry.h"

namespace mockdev::core {

std::optional<std::uint64_t> queue_of_native_handle(const void* native_queue) {
  if (native_queue == nullptr) return std::nullopt;  // a default stream: no one queue
  for (const ApiRow& row : kApiRows) {
    if (row.queue_of_handle == nullptr || row.initialized == nullptr || !row.initialized()) {
      continue;
    }
    if (std::optional<std::uint64_t> queue = row.queue_of_handle(native_queue)) return queue;
  }
  return std::nullopt;
}

void name_queue(std::uint64_t queue, std::string_view name) {
  if (queue == 0 || queue > timeline_stats().queues) return;
  const std::string text(name);
  for (const auto& o : engine().observers) o->on_queue_named(queue, text);
}

void note_runtime_memory(std::string_view device, std::int64_t allocated_bytes,
                         std::int64_t reserved_bytes) {
  if (engine().observers.empty()) return;
  const std::string text(device);
  const std::uint64_t now = host_time_ns();
  for (const auto& o : engine().observers) {
    o->on_runtime_memory(text, allocated_bytes, reserved_bytes, now);
  }
}

}  // namespace mockdev::core
