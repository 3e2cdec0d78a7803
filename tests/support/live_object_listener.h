#pragma once
// LiveObjectListener: a gtest event listener that fails a test which leaves live driver
// objects behind in the simulated hardware beyond what the test promised.
//
// At each test's start the listener records mockdev::control::live_objects() and resets
// the promise to the binary's default; at the end it compares what is alive now with that
// baseline and the promise, and adds a failure naming every extra object. A test states
// its own promise with promise_live_objects() (or opts out with waive_live_object_check()).
//
// The runtime keeps a device's primary context for the life of the process (docs/
// decisions/023-choices-where-pytorch-is-silent.md), so "no new primary context" is a promise only
// some tests can make (pure queries, guards that must not create a context); allocations are never
// legitimately left behind by a test that frees what it allocated.
//
// A test body that runs in a forked child (the conformance suite does) calls
// verify_live_objects() in the child before it exits, because the listener itself only runs
// in the process that runs the test. Not thread-safe: promises are made from the test's
// main thread.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "mockdev/control.h"

namespace accel::test {

// The most live objects a test may add between its start and its end (nullopt: unchecked).
struct LiveObjectPromise {
  std::optional<std::size_t> primary_contexts;
  std::optional<std::size_t> allocations = 0;
  std::string reason;  // printed with a failure: why the test promised this
};

// Promises nothing new at all: no primary context retained, no allocation.
LiveObjectPromise promise_nothing_alive(std::string reason);
// Promises no allocation left behind; primary contexts unchecked (the default).
LiveObjectPromise promise_no_allocations();

// The current test's promise (replaces the default until the test ends).
void promise_live_objects(LiveObjectPromise promise);
// Turns the check off for the current test; `reason` is printed.
void waive_live_object_check(std::string reason);

// Checks the current promise against the live objects now and adds a gtest failure per
// broken limit. Called by the listener at the end of each test, and by forked test bodies.
void verify_live_objects();

class LiveObjectListener : public ::testing::EmptyTestEventListener {
 public:
  // `enabled` false: the binary runs on a real driver, where the control API does not see
  // the driver's objects; the listener then checks nothing (and says so once).
  LiveObjectListener(LiveObjectPromise default_promise, bool enabled);

  void OnTestStart(const ::testing::TestInfo& info) override;
  void OnTestEnd(const ::testing::TestInfo& info) override;
};

}  // namespace accel::test
