#pragma once
// A driver object a program made and has not destroyed, as the leak report lists it (Note
// [Leak report] in core/leak_report.h). Each adapter lists its own through the vendor
// registry's `live_objects` hook (core/vendor_registry.h); pure data.

#include <cstdint>
#include <string>
#include <vector>

namespace mockdev::core {

struct LiveObject {
  std::string kind;              // "CUDA stream", "Level Zero device memory": API and object
  std::string where;             // "device 1", or "" when the object belongs to no device
  std::uint64_t bytes = 0;       // memory: the bytes asked for; 0 for other objects
  const void* caller = nullptr;  // the return address that made it (core/race_call_site.h)
};

using LiveObjects = std::vector<LiveObject>;

}  // namespace mockdev::core
