// Copies and fills (accel/copy.h) over the backend SPI's copy_async / fill_async: the
// argument checks every backend shares, the stream's handle, and the driver's refusal
// turned into an Error that names the values (Note [Copy ordering] in accel/copy.h).
#include "accel/copy.h"

#include <cstdio>
#include <string>

#include "api/current_stream.h"
#include "core/tool_library.h"

namespace accel {

namespace {

std::string hex(const void* pointer) {
  char text[2 + 2 * sizeof(std::uintptr_t) + 1];
  std::snprintf(text, sizeof text, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(pointer)));
  return text;
}

// [pointer, pointer + bytes) does not wrap around the address space.
bool fits(const void* pointer, std::size_t bytes) {
  const auto begin = reinterpret_cast<std::uintptr_t>(pointer);
  return begin + bytes >= begin;
}

[[noreturn]] void value_error(const std::string& message) {
  throw Error(ErrorKind::kValue, message);
}

// The checks before anything is initialised (accel/copy.h, "Errors").
void check_copy_arguments(const char* operation, void* dst, const void* src, std::size_t bytes,
                          const std::string& values) {
  const std::string op(operation);
  if (dst == nullptr) value_error(op + ": dst is a null pointer " + values);
  if (src == nullptr) value_error(op + ": src is a null pointer " + values);
  if (!fits(dst, bytes))
    value_error(op + ": the dst range wraps around the address space " + values);
  if (!fits(src, bytes))
    value_error(op + ": the src range wraps around the address space " + values);
  const auto d = reinterpret_cast<std::uintptr_t>(dst);
  const auto s = reinterpret_cast<std::uintptr_t>(src);
  if (d < s + bytes && s < d + bytes) {
    value_error(op + ": the source and destination ranges overlap " + values);
  }
}

void check_fill_arguments(const char* operation, void* ptr, std::size_t bytes,
                          const std::string& values) {
  const std::string op(operation);
  if (ptr == nullptr) value_error(op + ": ptr is a null pointer " + values);
  if (!fits(ptr, bytes))
    value_error(op + ": the ptr range wraps around the address space " + values);
}

// A failed backend call, with the call's values after the driver's message (the driver
// names the entry point and its code; only the caller knows the pointers).
void check_queued(const detail::Status& status, const std::string& values) {
  if (status.ok()) return;
  detail::check_stream_call(
      detail::Status(status.kind(), status.message() + " " + values, status.detail()));
}

std::string with_stream(std::string values, const Stream& stream) {
  values.pop_back();  // the closing parenthesis
  return values + ", device=" + std::to_string(stream.device_index()) +
         ", stream_id=" + std::to_string(stream.id()) + ")";
}

std::string copy_values(void* dst, const void* src, std::size_t bytes) {
  return "(dst=" + hex(dst) + ", src=" + hex(src) + ", bytes=" + std::to_string(bytes) + ")";
}

std::string fill_values(void* ptr, std::uint8_t value, std::size_t bytes) {
  return "(ptr=" + hex(ptr) + ", value=" + std::to_string(value) +
         ", bytes=" + std::to_string(bytes) + ")";
}

}  // namespace

void copy_async(void* dst, const void* src, std::size_t bytes, const Stream& stream) {
  if (bytes == 0) return;
  const std::string values = copy_values(dst, src, bytes);
  check_copy_arguments("copy_async", dst, src, bytes, values);
  detail::RuntimeState& state = detail::prepare_stream_call(stream.device_index());
  // The program's line for a tool (Note [The tool interface]): after initialisation.
  const detail::ToolApiScope tool_scope(__builtin_return_address(0));
  const detail::StreamHandle handle = detail::stream_handle(state, stream);
  check_queued(
      detail::initialized_backend(state).copy_async(stream.device_index(), handle, dst, src, bytes),
      with_stream(values, stream));
}

void fill_async(void* ptr, std::uint8_t value, std::size_t bytes, const Stream& stream) {
  if (bytes == 0) return;
  const std::string values = fill_values(ptr, value, bytes);
  check_fill_arguments("fill_async", ptr, bytes, values);
  detail::RuntimeState& state = detail::prepare_stream_call(stream.device_index());
  // The program's line for a tool (Note [The tool interface]): after initialisation.
  const detail::ToolApiScope tool_scope(__builtin_return_address(0));
  const detail::StreamHandle handle = detail::stream_handle(state, stream);
  check_queued(detail::initialized_backend(state).fill_async(stream.device_index(), handle, ptr,
                                                             value, bytes),
               with_stream(values, stream));
}

void copy(void* dst, const void* src, std::size_t bytes, const std::optional<Stream>& stream) {
  if (bytes == 0) return;
  // The arguments first: a bad one is refused before current_stream() initialises.
  check_copy_arguments("copy", dst, src, bytes, copy_values(dst, src, bytes));
  const Stream target = stream ? *stream : current_stream();
  // The program's line for a tool (Note [The tool interface]): after initialisation.
  const detail::ToolApiScope tool_scope(__builtin_return_address(0));
  copy_async(dst, src, bytes, target);
  target.synchronize();
}

void fill(void* ptr, std::uint8_t value, std::size_t bytes, const std::optional<Stream>& stream) {
  if (bytes == 0) return;
  check_fill_arguments("fill", ptr, bytes, fill_values(ptr, value, bytes));
  const Stream target = stream ? *stream : current_stream();
  // The program's line for a tool (Note [The tool interface]): after initialisation.
  const detail::ToolApiScope tool_scope(__builtin_return_address(0));
  fill_async(ptr, value, bytes, target);
  target.synchronize();
}

}  // namespace accel
