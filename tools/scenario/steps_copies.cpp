// Bytes through the runtime (accel/copy.h) as steps: buffers kept by name, copies and fills
// on named streams, and the bytes read back, so that a scenario can write a race, a stale
// read or an ordering rule against the runtime alone, on any backend (docs/SCENARIOS.md,
// "Copies and fills").
//
//   device_buffer {name, size, device}      raw_alloc on the device's current stream
//   host_buffer {name, size, pinned, value}  pageable (a vector) or pinned (raw_host_alloc)
//   release_buffer NAME                      raw_delete / raw_host_delete
//   copy_async / copy {dst, src, bytes, dst_offset, src_offset, stream}
//   fill_async / fill {buffer, value, bytes, offset, stream}
//   read_bytes {buffer, offset, bytes, stream} -> [[value, count], ...]
//
// A step never reaches outside its buffers: a range past a buffer's end is the step's
// error (kind "user"), so a scenario cannot make the runner itself read or write memory it
// does not own. read_bytes of host memory reads it as the host sees it now (no wait: a
// pinned destination of a copy still in flight shows the old bytes); of device memory it
// is a blocking copy on the stream (default: the current stream), itself ordered, and
// raced, like any other.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "accel/copy.h"
#include "accel/memory.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;

struct Buffer {
  enum class Kind { kDevice, kPinned, kPageable } kind = Kind::kPageable;
  unsigned char* ptr = nullptr;
  std::uint64_t size = 0;
  std::vector<unsigned char> pageable;  // the storage of a pageable buffer
};

// The buffers of this run (each scenario runs in a process of its own; steps run one at a
// time, the lock only keeps a misuse from threads well defined).
std::mutex g_buffers_mutex;
std::map<std::string, Buffer>& buffers() {
  static std::map<std::string, Buffer> all;
  return all;
}

Buffer& buffer(const std::string& name, const char* step) {
  auto it = buffers().find(name);
  if (it == buffers().end()) {
    throw UserError(std::string(step) + ": no buffer '" + name +
                    "' (released, or made by a step that failed)");
  }
  return it->second;
}

// `offset` and `bytes` inside the buffer, else the step's error naming them.
void check_inside(const char* step, const std::string& name, const Buffer& b, std::uint64_t offset,
                  std::uint64_t bytes) {
  if (offset > b.size || bytes > b.size - offset) {
    throw UserError(std::string(step) + ": " + std::to_string(bytes) + " bytes at offset " +
                    std::to_string(offset) + " run past the end of buffer '" + name + "' (" +
                    std::to_string(b.size) + " bytes)");
  }
}

// An optional size key.
std::optional<std::uint64_t> size_key(const StepArgs& a, const char* key) {
  if (!a.node[key] || a.node[key].IsNull()) return std::nullopt;
  return a.reader.size(a.node[key], Reader::join(a.path, key));
}

std::optional<std::string> stream_key(const StepArgs& a) {
  if (!a.node["stream"] || a.node["stream"].IsNull()) return std::nullopt;
  return object_name(a, a.node["stream"], Reader::join(a.path, "stream"), "stream", false);
}

std::string buffer_key(const StepArgs& a, const char* key) {
  if (!a.node[key])
    a.reader.fail(a.node, Reader::join(a.path, key), "a buffer name (required)", "");
  return object_name(a, a.node[key], Reader::join(a.path, key), "buffer", false);
}

Stream stream_or_current(StepEnv& env, const std::optional<std::string>& name) {
  return name ? env.stream_objects().stream(*name) : current_stream();
}

// Runs of equal bytes: [[value, count], ...], short enough to write as an expectation.
json runs(const unsigned char* bytes, std::uint64_t count) {
  json out = json::array();
  std::uint64_t i = 0;
  while (i < count) {
    std::uint64_t j = i + 1;
    while (j < count && bytes[j] == bytes[i]) ++j;
    out.push_back(json::array({bytes[i], j - i}));
    i = j;
  }
  return out;
}

struct CopyArgs {
  std::string dst, src;
  std::optional<std::uint64_t> bytes;
  std::uint64_t dst_offset = 0, src_offset = 0;
  std::optional<std::string> stream;
};

Action copy_step(const StepArgs& a, bool blocking) {
  a.reader.require_map(a.node, a.path, "{dst, src, bytes, dst_offset, src_offset, stream}");
  a.reader.check_keys(a.node, a.path,
                      {"dst", "src", "bytes", "dst_offset", "src_offset", "stream"});
  CopyArgs c;
  c.dst = buffer_key(a, "dst");
  c.src = buffer_key(a, "src");
  c.bytes = size_key(a, "bytes");
  c.dst_offset = size_key(a, "dst_offset").value_or(0);
  c.src_offset = size_key(a, "src_offset").value_or(0);
  c.stream = stream_key(a);
  const char* step = blocking ? "copy" : "copy_async";
  return [c, blocking, step](StepEnv& env) -> json {
    std::lock_guard lock(g_buffers_mutex);
    const Buffer& dst = buffer(c.dst, step);
    const Buffer& src = buffer(c.src, step);
    // Default: as many bytes as both buffers have past their offsets.
    const std::uint64_t bytes = c.bytes.value_or(std::min(
        dst.size - std::min(c.dst_offset, dst.size), src.size - std::min(c.src_offset, src.size)));
    check_inside(step, c.dst, dst, c.dst_offset, bytes);
    check_inside(step, c.src, src, c.src_offset, bytes);
    const Stream s = stream_or_current(env, c.stream);
    if (blocking) {
      accel::copy(dst.ptr + c.dst_offset, src.ptr + c.src_offset, bytes, s);
    } else {
      accel::copy_async(dst.ptr + c.dst_offset, src.ptr + c.src_offset, bytes, s);
    }
    return nullptr;
  };
}

struct FillArgs {
  std::string buffer;
  std::uint8_t value = 0;
  std::optional<std::uint64_t> bytes;
  std::uint64_t offset = 0;
  std::optional<std::string> stream;
};

Action fill_step(const StepArgs& a, bool blocking) {
  a.reader.require_map(a.node, a.path, "{buffer, value, bytes, offset, stream}");
  a.reader.check_keys(a.node, a.path, {"buffer", "value", "bytes", "offset", "stream"});
  FillArgs f;
  f.buffer = buffer_key(a, "buffer");
  if (a.node["value"]) {
    f.value = static_cast<std::uint8_t>(
        a.reader.integer(a.node["value"], Reader::join(a.path, "value"), 0, 255));
  }
  f.bytes = size_key(a, "bytes");
  f.offset = size_key(a, "offset").value_or(0);
  f.stream = stream_key(a);
  const char* step = blocking ? "fill" : "fill_async";
  return [f, blocking, step](StepEnv& env) -> json {
    std::lock_guard lock(g_buffers_mutex);
    const Buffer& b = buffer(f.buffer, step);
    const std::uint64_t bytes = f.bytes.value_or(b.size - std::min(f.offset, b.size));
    check_inside(step, f.buffer, b, f.offset, bytes);
    const Stream s = stream_or_current(env, f.stream);
    if (blocking) {
      accel::fill(b.ptr + f.offset, f.value, bytes, s);
    } else {
      accel::fill_async(b.ptr + f.offset, f.value, bytes, s);
    }
    return nullptr;
  };
}

// {name: NAME, size: SIZE, ...}: the name a buffer step defines and its size.
std::pair<std::string, std::uint64_t> named_size(const StepArgs& a,
                                                 const std::vector<std::string>& keys) {
  a.reader.require_map(a.node, a.path, "{name: NAME, size: SIZE, ...}");
  a.reader.check_keys(a.node, a.path, keys);
  if (!a.node["name"] || !a.node["size"]) {
    a.reader.fail(a.node, a.path, "name and size (both required)", "{...}");
  }
  const std::string name =
      object_name(a, a.node["name"], Reader::join(a.path, "name"), "buffer", true);
  return {name, a.reader.size(a.node["size"], Reader::join(a.path, "size"))};
}

void release(Buffer& b) {
  if (b.kind == Buffer::Kind::kDevice) raw_delete(b.ptr);
  if (b.kind == Buffer::Kind::kPinned) raw_host_delete(b.ptr);
}

// Keeps `b` as `name`; a name given again names the new buffer (the old one is released).
void keep(const std::string& name, Buffer b) {
  auto it = buffers().find(name);
  if (it != buffers().end()) {
    release(it->second);
    buffers().erase(it);
  }
  buffers().emplace(name, std::move(b));
}

const StepRegistrar registrar({
    {"device_buffer",
     "{name: NAME, size: SIZE, device: D}: device memory from the caching allocator "
     "(raw_alloc on the device's current stream), kept as NAME",
     false,
     [](const StepArgs& a) -> Action {
       const auto [name, size] = named_size(a, {"name", "size", "device"});
       StepArgs device{a.reader, a.node["device"], Reader::join(a.path, "device"), a.threads};
       const DeviceArg where = device_arg(device);
       // Init-captures: clang 14 cannot capture a structured binding by name.
       return [name = name, size = size, where](StepEnv&) -> json {
         std::lock_guard lock(g_buffers_mutex);
         Buffer b;
         b.kind = Buffer::Kind::kDevice;
         b.size = size;
         b.ptr = static_cast<unsigned char*>(raw_alloc(size, current_stream(where)));
         keep(name, std::move(b));
         return nullptr;
       };
     }},
    {"host_buffer",
     "{name: NAME, size: SIZE, pinned: BOOL, value: 0-255}: host memory, pageable (default) or "
     "pinned (raw_host_alloc), every byte set to value (default 0), kept as NAME",
     false,
     [](const StepArgs& a) -> Action {
       const auto [name, size] = named_size(a, {"name", "size", "pinned", "value"});
       const bool pinned = a.node["pinned"]
                               ? a.reader.boolean(a.node["pinned"], Reader::join(a.path, "pinned"))
                               : false;
       const auto value = static_cast<unsigned char>(
           a.node["value"]
               ? a.reader.integer(a.node["value"], Reader::join(a.path, "value"), 0, 255)
               : 0);
       return [name = name, size = size, pinned, value](StepEnv&) -> json {
         std::lock_guard lock(g_buffers_mutex);
         Buffer b;
         b.size = size;
         if (pinned) {
           b.kind = Buffer::Kind::kPinned;
           b.ptr = static_cast<unsigned char*>(raw_host_alloc(size));
         } else {
           b.pageable.assign(size, value);
           b.ptr = b.pageable.data();  // a vector's storage stays put when it is moved
         }
         if (b.ptr != nullptr) std::memset(b.ptr, value, size);
         keep(name, std::move(b));
         return nullptr;
       };
     }},
    {"release_buffer",
     "a buffer name; gives its memory back (raw_delete, raw_host_delete) and forgets the name",
     false,
     [](const StepArgs& a) -> Action {
       const std::string name = object_name(a, a.node, a.path, "buffer", false);
       return [name](StepEnv&) -> json {
         std::lock_guard lock(g_buffers_mutex);
         release(buffer(name, "release_buffer"));
         buffers().erase(name);
         return nullptr;
       };
     }},
    {"copy_async",
     "{dst: NAME, src: NAME, bytes: SIZE, dst_offset: SIZE, src_offset: SIZE, stream: NAME}: "
     "accel::copy_async on a named stream (default: the current stream); bytes default to "
     "what both buffers hold past their offsets",
     false, [](const StepArgs& a) { return copy_step(a, false); }},
    {"copy",
     "{dst, src, bytes, dst_offset, src_offset, stream}: accel::copy, the blocking form (waits "
     "for the stream)",
     false, [](const StepArgs& a) { return copy_step(a, true); }},
    {"fill_async",
     "{buffer: NAME, value: 0-255, bytes: SIZE, offset: SIZE, stream: NAME}: accel::fill_async "
     "on a named stream (default: the current stream); bytes default to the rest of the buffer",
     false, [](const StepArgs& a) { return fill_step(a, false); }},
    {"fill", "{buffer, value, bytes, offset, stream}: accel::fill, the blocking form", false,
     [](const StepArgs& a) { return fill_step(a, true); }},
    {"read_bytes",
     "{buffer: NAME, offset: SIZE, bytes: SIZE, stream: NAME}: the bytes as the host sees them "
     "now (device memory: a blocking copy on the stream, default the current one); returns "
     "runs of equal bytes [[value, count], ...]",
     true,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{buffer, offset, bytes, stream}");
       a.reader.check_keys(a.node, a.path, {"buffer", "offset", "bytes", "stream"});
       const std::string name = buffer_key(a, "buffer");
       const std::uint64_t offset = size_key(a, "offset").value_or(0);
       const std::optional<std::uint64_t> count = size_key(a, "bytes");
       const std::optional<std::string> stream = stream_key(a);
       return [name, offset, count, stream](StepEnv& env) -> json {
         std::lock_guard lock(g_buffers_mutex);
         const Buffer& b = buffer(name, "read_bytes");
         const std::uint64_t bytes = count.value_or(b.size - std::min(offset, b.size));
         check_inside("read_bytes", name, b, offset, bytes);
         if (b.kind != Buffer::Kind::kDevice) return runs(b.ptr + offset, bytes);
         std::vector<unsigned char> host(bytes, 0);
         accel::copy(host.data(), b.ptr + offset, bytes, stream_or_current(env, stream));
         return runs(host.data(), bytes);
       };
     }},
});

}  // namespace
}  // namespace accel::scenario
