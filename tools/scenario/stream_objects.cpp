// Named streams, events and graphs of a run (StreamObjects in step_registry.h), the
// reference check of their names, and the snapshot of a thread's current streams that the
// fault sweep compares around guards.
#include "accel/detail/thread_stream_cache.h"
#include "step_registry.h"

namespace accel::scenario {

const Stream& StreamObjects::stream(const std::string& name) const {
  for (const auto& entry : streams) {
    if (entry.first == name) return entry.second;
  }
  throw UserError("no stream named '" + name + "' was made in this process");
}

Event& StreamObjects::event(const std::string& name) {
  auto it = events.find(name);
  if (it == events.end()) throw UserError("no event named '" + name + "' was made in this process");
  return *it->second;
}

Graph& StreamObjects::graph(const std::string& name) {
  auto it = graphs.find(name);
  if (it == graphs.end()) throw UserError("no graph named '" + name + "' was made in this process");
  return *it->second;
}

std::string StreamObjects::name_of(const Stream& stream) const {
  for (const auto& entry : streams) {
    if (entry.second == stream) return entry.first;
  }
  return "";
}

std::vector<std::int64_t> thread_stream_snapshot(std::size_t count) {
  const std::int64_t* ids = detail::thread_stream_ids();
  const std::size_t n = std::min<std::size_t>(count, detail::kMaxCachedIndex + 1);
  return std::vector<std::int64_t>(ids, ids + n);
}

std::string object_name(const StepArgs& args, const YAML::Node& node, const std::string& path,
                        const std::string& kind, bool defines) {
  const std::string name = args.reader.name(node, path, "a " + kind + " name");
  args.reader.note_object({kind, name, path, Reader::line_of(node), defines});
  return name;
}

}  // namespace accel::scenario
