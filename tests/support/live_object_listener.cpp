#include "live_object_listener.h"

#include <cstdio>
#include <utility>

namespace accel::test {

namespace {

struct ListenerState {
  bool enabled = false;
  LiveObjectPromise default_promise;
  LiveObjectPromise promise;
  bool waived = false;
  std::string waive_reason;
  mockdev::control::LiveObjects baseline;
};

ListenerState& listener_state() {
  static ListenerState* const state = new ListenerState();  // used from forked children too
  return *state;
}

std::string describe(const mockdev::control::LiveObjects& live) {
  std::string text;
  for (const std::string& line : live.descriptions) {
    if (!text.empty()) text += "; ";
    text += line;
  }
  return text.empty() ? "(none described)" : text;
}

void check_limit(const char* what, std::size_t before, std::size_t now,
                 const std::optional<std::size_t>& limit, const LiveObjectPromise& promise,
                 const mockdev::control::LiveObjects& live) {
  if (!limit) return;
  const std::size_t added = now > before ? now - before : 0;
  if (added <= *limit) return;
  ADD_FAILURE() << "live driver objects left behind: " << added << " new " << what
                << " (promised at most " << *limit << ": " << promise.reason
                << "); live now: " << describe(live);
}

}  // namespace

LiveObjectPromise promise_nothing_alive(std::string reason) {
  return LiveObjectPromise{0, 0, std::move(reason)};
}

LiveObjectPromise promise_no_allocations() {
  return LiveObjectPromise{std::nullopt, 0, "every allocation is freed by the test"};
}

void promise_live_objects(LiveObjectPromise promise) {
  listener_state().promise = std::move(promise);
  listener_state().waived = false;
}

void waive_live_object_check(std::string reason) {
  listener_state().waived = true;
  listener_state().waive_reason = std::move(reason);
}

void verify_live_objects() {
  ListenerState& state = listener_state();
  if (!state.enabled || state.waived) return;
  const mockdev::control::LiveObjects live = mockdev::control::live_objects();
  check_limit("primary contexts", state.baseline.primary_contexts_active,
              live.primary_contexts_active, state.promise.primary_contexts, state.promise, live);
  check_limit("allocations", state.baseline.allocations, live.allocations,
              state.promise.allocations, state.promise, live);
}

LiveObjectListener::LiveObjectListener(LiveObjectPromise default_promise, bool enabled) {
  ListenerState& state = listener_state();
  state.enabled = enabled;
  state.default_promise = std::move(default_promise);
  if (!enabled) {
    std::printf(
        "[ LIVE-OBJECTS ] listener OFF: not on the simulated hardware, the driver's live "
        "objects cannot be counted\n");
  }
}

void LiveObjectListener::OnTestStart(const ::testing::TestInfo&) {
  ListenerState& state = listener_state();
  state.promise = state.default_promise;
  state.waived = false;
  state.waive_reason.clear();
  if (state.enabled) state.baseline = mockdev::control::live_objects();
}

void LiveObjectListener::OnTestEnd(const ::testing::TestInfo& info) {
  ListenerState& state = listener_state();
  if (state.enabled && state.waived) {
    std::printf("[ LIVE-OBJECTS ] %s.%s: check waived: %s\n", info.test_suite_name(),
                info.name(), state.waive_reason.c_str());
  }
  verify_live_objects();
}

}  // namespace accel::test
