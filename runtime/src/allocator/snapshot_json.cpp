#include "allocator/snapshot_json.h"

#include <cstdint>
#include <cstdio>

namespace accel::detail::alloc {
namespace {

// The length of the valid UTF-8 sequence starting at text[i], or 0 when the bytes there
// do not form one (stray continuation byte, truncated sequence, overlong form, a UTF-16
// surrogate, or a code point above U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned char low = 0x80;  // allowed range of the second byte
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

void append_uint(std::string& out, std::uint64_t value) { out += std::to_string(value); }
void append_int(std::string& out, std::int64_t value) { out += std::to_string(value); }

void key(std::string& out, const char* name) {
  out += '"';
  out += name;
  out += "\":";
}

void append_frames(std::string& out, const std::vector<HostFrame>& frames) {
  key(out, "frames");
  out += '[';
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i != 0) out += ',';
    out += '{';
    key(out, "filename");
    append_json_string(out, frames[i].filename);
    out += ',';
    key(out, "line");
    append_int(out, frames[i].line);
    out += ',';
    key(out, "name");
    append_json_string(out, frames[i].name);
    out += '}';
  }
  out += ']';
}

void append_block(std::string& out, const BlockSnapshot& block) {
  out += '{';
  key(out, "address");
  append_uint(out, block.address);
  out += ',';
  key(out, "size");
  append_uint(out, block.size);
  out += ',';
  key(out, "requested_size");
  append_uint(out, block.requested_size);
  out += ',';
  key(out, "state");
  append_json_string(out, block.state);
  out += ',';
  append_frames(out, block.frames);
  out += '}';
}

void append_segment(std::string& out, const SegmentSnapshot& segment) {
  out += '{';
  key(out, "device");
  append_int(out, segment.device);
  out += ',';
  key(out, "address");
  append_uint(out, segment.address);
  out += ',';
  key(out, "total_size");
  append_uint(out, segment.total_size);
  out += ',';
  key(out, "allocated_size");
  append_uint(out, segment.allocated_size);
  out += ',';
  key(out, "active_size");
  append_uint(out, segment.active_size);
  out += ',';
  key(out, "requested_size");
  append_uint(out, segment.requested_size);
  out += ',';
  key(out, "stream");
  append_int(out, segment.stream);
  out += ',';
  key(out, "segment_type");
  append_json_string(out, segment.segment_type);
  out += ',';
  key(out, "segment_pool_id");
  out += '[';
  append_uint(out, segment.segment_pool_id.first);
  out += ',';
  append_uint(out, segment.segment_pool_id.second);
  out += "],";
  key(out, "is_expandable");
  out += segment.is_expandable ? "true" : "false";
  out += ',';
  key(out, "frames");  // where the segment was allocated: not recorded, as PyTorch without context
  out += "[],";
  key(out, "blocks");
  out += '[';
  for (std::size_t i = 0; i < segment.blocks.size(); ++i) {
    if (i != 0) out += ',';
    append_block(out, segment.blocks[i]);
  }
  out += "]}";
}

void append_trace_entry(std::string& out, const TraceEntry& entry) {
  out += '{';
  key(out, "action");
  append_json_string(out, entry.action);
  out += ',';
  // PyTorch's one exception: an oom entry's number is the device's free memory.
  key(out, entry.action == "oom" ? "device_free" : "addr");
  append_uint(out, entry.addr);
  out += ',';
  key(out, "size");
  append_uint(out, entry.size);
  out += ',';
  key(out, "stream");
  append_int(out, entry.stream);
  out += ',';
  key(out, "compile_context");
  out += "\"N/A\"";  // PyTorch's value outside a compiled region; there are none here
  out += ',';
  key(out, "user_metadata");
  out += "\"\"";
  out += ',';
  key(out, "time_us");
  append_uint(out, entry.time_us);
  if (!entry.frames.empty()) {  // PyTorch writes frames only for an entry with a context
    out += ',';
    append_frames(out, entry.frames);
  }
  out += '}';
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t length = utf8_sequence_length(text, i);
      if (length == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(text.substr(i, length));
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char escape[7];
          std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
          out += escape;
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  out += '"';
}

// Note [One event per line]
// Each segment (with its blocks) and each history entry starts a line of its own, so a tool
// that reads the file back names a line that means something: accel-replay's errors say
// "<file>:<line>: device_traces[0][17].size: ..." at the entry itself, and a text diff of two
// snapshots shows whole events. Nothing else holds a newline (strings are escaped), so the
// snapshot with no segment and no entry is the one-line document it always was.
std::string snapshot_to_json(const MemorySnapshot& snapshot) {
  std::string out = "{";
  key(out, "segments");
  out += '[';
  for (std::size_t i = 0; i < snapshot.segments.size(); ++i) {
    out += i != 0 ? ",\n" : "\n";
    append_segment(out, snapshot.segments[i]);
  }
  out += "],";
  key(out, "device_traces");
  out += '[';
  for (std::size_t d = 0; d < snapshot.device_traces.size(); ++d) {
    if (d != 0) out += ',';
    out += '[';
    const auto& trace = snapshot.device_traces[d];
    for (std::size_t i = 0; i < trace.size(); ++i) {
      out += i != 0 ? ",\n" : "\n";
      append_trace_entry(out, trace[i]);
    }
    out += ']';
  }
  out += "],";
  key(out, "external_annotations");  // record_function annotations: the runtime records none
  out += "[]}";
  return out;
}

}  // namespace accel::detail::alloc

namespace accel {

std::string memory_snapshot_json(const MemorySnapshot& snapshot) {
  return detail::alloc::snapshot_to_json(snapshot);
}

}  // namespace accel
