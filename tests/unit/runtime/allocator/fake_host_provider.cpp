#include "fake_host_provider.h"

#include <cinttypes>
#include <cstdio>

namespace accel::test {

using detail::EventHandle;
using detail::Result;
using detail::Status;

Result<void*> FakeHostProvider::allocate(std::size_t bytes) noexcept {
  if (fail_allocate_) {
    Status failure = std::move(*fail_allocate_);
    fail_allocate_.reset();
    calls_.push_back("allocate(" + std::to_string(bytes) + ")=failed");
    return failure;
  }
  if (live_bytes_ > capacity_bytes_ || bytes > capacity_bytes_ - live_bytes_) {
    calls_.push_back("allocate(" + std::to_string(bytes) + ")=oom");
    return Status(ErrorKind::kOutOfMemory, "fake pinned memory exhausted (capacity=" +
                                               std::to_string(capacity_bytes_) + ")");
  }
  // Aligned to the size (at most 4 KiB apart from the last block), never reused.
  const std::uintptr_t align = bytes < 4096 ? 4096 : bytes;
  const std::uintptr_t address = (next_address_ + align - 1) / align * align;
  next_address_ = address + (bytes < 4096 ? 4096 : bytes);
  live_[address] = bytes;
  live_bytes_ += bytes;
  now_us_ += allocate_cost_us_;
  calls_.push_back("allocate(" + std::to_string(bytes) + ")=" + hex_address(address));
  return reinterpret_cast<void*>(address);
}

Status FakeHostProvider::deallocate(void* pointer) noexcept {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  calls_.push_back("deallocate(" + hex_address(address) + ")");
  if (fail_deallocate_) {
    Status failure = std::move(*fail_deallocate_);
    fail_deallocate_.reset();
    return failure;
  }
  auto found = live_.find(address);
  if (found == live_.end()) {
    return Status(ErrorKind::kValue, "fake deallocate: unknown pointer " + hex_address(address));
  }
  live_bytes_ -= found->second;
  live_.erase(found);
  now_us_ += deallocate_cost_us_;
  return {};
}

Result<EventHandle> FakeHostProvider::record_event(int device,
                                                   detail::alloc::StreamId stream) noexcept {
  if (fail_record_ && record_successes_before_failure_-- == 0) {
    Status failure = std::move(*fail_record_);
    fail_record_.reset();
    calls_.push_back("record_event(" + std::to_string(device) + "," + std::to_string(stream) +
                     ")=failed");
    return failure;
  }
  const std::uint64_t id = next_event_++;
  events_[id] = Event{device, stream, false, false};
  calls_.push_back("record_event(" + std::to_string(device) + "," + std::to_string(stream) +
                   ")=" + std::to_string(id));
  return EventHandle{id};
}

Result<bool> FakeHostProvider::query_event(int device, EventHandle event) noexcept {
  calls_.push_back("query_event(" + std::to_string(event.value) + ")");
  if (fail_query_) {
    Status failure = std::move(*fail_query_);
    fail_query_.reset();
    return failure;
  }
  auto found = events_.find(event.value);
  if (found == events_.end() || found->second.destroyed || found->second.device != device) {
    return Status(ErrorKind::kValue, "fake query_event: bad event " + std::to_string(event.value));
  }
  return found->second.completed;
}

Status FakeHostProvider::synchronize_event(int device, EventHandle event) noexcept {
  calls_.push_back("synchronize_event(" + std::to_string(event.value) + ")");
  auto found = events_.find(event.value);
  if (found == events_.end() || found->second.destroyed || found->second.device != device) {
    return Status(ErrorKind::kValue, "fake synchronize_event: bad event");
  }
  found->second.completed = true;
  return {};
}

Status FakeHostProvider::destroy_event(int device, EventHandle event) noexcept {
  calls_.push_back("destroy_event(" + std::to_string(event.value) + ")");
  auto found = events_.find(event.value);
  if (found == events_.end() || found->second.destroyed || found->second.device != device) {
    return Status(ErrorKind::kValue, "fake destroy_event: bad event");
  }
  found->second.destroyed = true;
  return {};
}

int FakeHostProvider::complete_stream(int device, detail::alloc::StreamId stream) {
  int completed = 0;
  for (auto& [id, event] : events_) {
    if (event.device == device && event.stream == stream && !event.completed) {
      event.completed = true;
      ++completed;
    }
  }
  return completed;
}

void FakeHostProvider::complete_event(std::uint64_t event) { events_.at(event).completed = true; }

void FakeHostProvider::complete_all() {
  for (auto& [id, event] : events_) event.completed = true;
}

std::size_t FakeHostProvider::undestroyed_events() const {
  std::size_t count = 0;
  for (const auto& [id, event] : events_) count += event.destroyed ? 0 : 1;
  return count;
}

}  // namespace accel::test
