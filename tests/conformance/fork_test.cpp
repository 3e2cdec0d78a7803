// Conformance: fork safety, once per backend profile.
//
// Note [The fork table]
// Every public call is listed once (fork_rows()) with what it must do in a child forked
// after the parent initialised (a "poisoned" child): a device call raises exactly
// ForkError with the profile's message and reaches no driver entry point; a pure query
// answers (device_count, is_available); a deferred setter queues silently (it can never
// run there); a no-op stays a no-op. Each row runs, each in its own poisoned child, under
// three states of the forking thread's device cache, because the cache is a fast path
// that can skip checks:
//   warm_set:   the parent's forking thread set device 1 (cache: 1),
//   warm_query: it only queried its device (cache: 0, nothing pending),
//   cold:       it never touched a device (the runtime was initialised by another thread),
// and calls taking an index run with the cached index ("same") and another ("other").
// Deleting the fork check from one API's fast path (e.g. maybe_exchange_device) fails its
// warm "same" rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "accel/accel.h"
#include "child_process.h"
#include "conformance_test.h"
#include "error_check.h"
#include "mockdev/control.h"

namespace accel::test {
namespace {

enum class Outcome {
  kForkError,  // raises ForkError with the profile's message; no driver call
  kAnswers,    // a pure query: answers (the row checks the value)
  kDeferred,   // queued for an init() that can never happen here; no driver call
  kNoOp,       // does nothing; no driver call
};

struct ForkRow {
  std::string name;  // gtest-safe
  Outcome outcome;
  bool takes_index;  // called with the "same" and the "other" index
  std::function<void(const BackendProfile&, int index)> call;
};

const std::vector<ForkRow>& fork_rows() {
  using P = const BackendProfile&;
  static const std::vector<ForkRow>* const kRows = new std::vector<ForkRow>{
      {"init", Outcome::kForkError, false, [](P, int) { init(); }},
      {"current_device_index", Outcome::kForkError, false,
       [](P, int) { current_device_index(); }},
      {"set_device_index_int", Outcome::kForkError, true,
       [](P, int i) { set_device_index(i); }},
      {"set_device_index_string", Outcome::kForkError, true,
       [](P p, int i) { set_device_index(p.device_type_name + ":" + std::to_string(i)); }},
      {"set_device_index_device", Outcome::kForkError, true,
       [](P p, int i) { set_device_index(Device(p.device_type, i)); }},
      {"exchange_device", Outcome::kForkError, true, [](P, int i) { exchange_device(i); }},
      {"maybe_exchange_device", Outcome::kForkError, true,
       [](P, int i) { maybe_exchange_device(i); }},
      {"DeviceIndexGuard", Outcome::kForkError, true,
       [](P, int i) { DeviceIndexGuard guard(i); }},
      // A guard over a stream of the cached device takes the inline path that checks the
      // fork generation in its one key compare (runtime/include/accel/stream_guard.h).
      {"StreamGuard", Outcome::kForkError, true,
       [](P, int i) { StreamGuard guard(Stream::unchecked(i, 0)); }},
      {"get_memory_info_current", Outcome::kForkError, false, [](P, int) { get_memory_info(); }},
      {"get_memory_info", Outcome::kForkError, true, [](P, int i) { get_memory_info(i); }},
      {"get_device_capability_current", Outcome::kForkError, false,
       [](P, int) { get_device_capability(); }},
      {"get_device_capability", Outcome::kForkError, true,
       [](P, int i) { get_device_capability(i); }},
      {"get_device_properties_current", Outcome::kForkError, false,
       [](P, int) { get_device_properties(); }},
      {"get_device_properties", Outcome::kForkError, true,
       [](P, int i) { get_device_properties(i); }},
      {"can_device_access_peer", Outcome::kForkError, true,
       [](P, int i) { can_device_access_peer(i, 0); }},
      {"current_stream_current", Outcome::kForkError, false, [](P, int) { current_stream(); }},
      {"current_stream", Outcome::kForkError, true, [](P, int i) { current_stream(i); }},
      {"priority_range", Outcome::kForkError, true, [](P, int i) { priority_range(i); }},
      {"Stream", Outcome::kForkError, true, [](P, int i) { Stream stream(i); }},
      {"Stream_default_stream", Outcome::kForkError, true,
       [](P, int i) { Stream::default_stream(i); }},
      {"synchronize_current", Outcome::kForkError, false, [](P, int) { synchronize(); }},
      {"Event_record", Outcome::kForkError, false,
       [](P, int) {
         Event event;
         event.record();
       }},
      {"Graph_capture_begin", Outcome::kForkError, false,
       [](P, int) {
         Graph graph;
         graph.capture_begin();
       }},
      // Outside a fork child, synchronize(i) before initialisation does nothing (PyTorch);
      // in a poisoned child it raises ForkError first, as the streams issue asks of every
      // stream call (decision in runtime/src/api/stream.cpp).
      {"synchronize", Outcome::kForkError, true, [](P, int i) { synchronize(i); }},
      {"random_initial_seed", Outcome::kForkError, false, [](P, int) { random::initial_seed(); }},
      {"random_get_rng_state_current", Outcome::kForkError, false,
       [](P, int) { random::get_rng_state(); }},
      {"random_get_rng_state", Outcome::kForkError, true,
       [](P, int i) { random::get_rng_state(i); }},
      {"random_get_rng_state_all", Outcome::kForkError, false,
       [](P, int) { random::get_rng_state_all(); }},
      // Pure queries: answered through the fork-safe path.
      {"device_count", Outcome::kAnswers, false,
       [](P p, int) {
         std::string error;
         EXPECT_EQ(device_count(), physical_device_count(p, &error)) << error;
       }},
      {"is_available", Outcome::kAnswers, false, [](P, int) { EXPECT_TRUE(is_available()); }},
      {"current_accelerator", Outcome::kAnswers, false,
       [](P p, int) {
         EXPECT_EQ(current_accelerator(), Device(p.device_type));
         EXPECT_EQ(current_accelerator(true), Device(p.device_type));
       }},
      {"is_in_bad_fork", Outcome::kAnswers, false, [](P, int) {
         EXPECT_TRUE(is_in_bad_fork());
         EXPECT_FALSE(is_initialized());
       }},
      // Deferred setters: queued, never run, no error (PyTorch's _lazy_call does the same).
      {"lazy_call", Outcome::kDeferred, false,
       [](P, int) {
         bool ran = false;
         lazy_call([&ran] { ran = true; });
         EXPECT_FALSE(ran);
       }},
      {"random_manual_seed", Outcome::kDeferred, false, [](P, int) { random::manual_seed(1); }},
      {"random_manual_seed_all", Outcome::kDeferred, false,
       [](P, int) { random::manual_seed_all(2); }},
      {"random_seed", Outcome::kDeferred, false, [](P, int) { random::seed(); }},
      {"random_seed_all", Outcome::kDeferred, false, [](P, int) { random::seed_all(); }},
      {"random_set_rng_state", Outcome::kDeferred, true,
       [](P, int i) { random::set_rng_state(std::vector<std::uint8_t>(16, 0), i); }},
      {"random_set_rng_state_all", Outcome::kDeferred, false,
       [](P, int) {
         random::set_rng_state_all({std::vector<std::uint8_t>(16, 0)});
       }},
      // No-ops.
      {"set_device_index_negative", Outcome::kNoOp, false, [](P, int) { set_device_index(-1); }},
      // A graph pool handle is a process-wide counter (PyTorch's graph_pool_handle()).
      {"generate_graph_pool_handle", Outcome::kNoOp, false,
       [](P, int) { generate_graph_pool_handle(); }},
      {"DeviceIndexGuard_empty", Outcome::kNoOp, false,
       [](P, int) { DeviceIndexGuard guard(std::nullopt); }},
  };
  return *kRows;
}

enum class Cache { kWarmSet, kWarmQuery, kCold };

const char* cache_name(Cache cache) {
  switch (cache) {
    case Cache::kWarmSet:
      return "warm_set";
    case Cache::kWarmQuery:
      return "warm_query";
    case Cache::kCold:
      return "cold";
  }
  return "?";
}

// Brings the runtime up in this (isolated) process and leaves the calling thread's device
// cache as `cache` says; returns the index the cache holds (what "same" means). With one
// device, warm_set selects device 0 and "other" is index 1, past the last device: the fork
// check must still come first.
int prepare_parent(Cache cache, int count) {
  const int last = count - 1;
  switch (cache) {
    case Cache::kWarmSet:
      init();
      set_device_index(std::min(1, last));
      return std::min(1, last);
    case Cache::kWarmQuery:
      init();
      EXPECT_EQ(current_device_index(), 0);
      return 0;
    case Cache::kCold: {
      std::thread initialiser([last] {
        init();
        set_device_index(last);  // another thread's choice: not this thread's cache
      });
      initialiser.join();
      return 0;
    }
  }
  return 0;
}

using ForkParam = std::tuple<const BackendProfile*, std::size_t, Cache>;

class ForkTable : public ::testing::TestWithParam<ForkParam> {};

TEST_P(ForkTable, PoisonedChild) {
  const BackendProfile& p = *std::get<0>(GetParam());
  const ForkRow& row = fork_rows().at(std::get<1>(GetParam()));
  const Cache cache = std::get<2>(GetParam());
  run_isolated(p, [&p, &row, cache] {
    const int count = require_physical_devices(p, 1);
    const int same = prepare_parent(cache, count);
    const int other = same == 0 ? 1 : 0;
    ASSERT_TRUE(is_initialized());
    std::vector<std::pair<std::string, int>> variants;
    if (row.takes_index) {
      variants = {{"same", same}, {"other", other}};
    } else {
      variants = {{"-", same}};
    }
    for (const auto& [variant, index] : variants) {
      const std::string where = row.name + " (" + variant + " index " + std::to_string(index) +
                                ", cache " + cache_name(cache) + ", profile " + p.name + ")";
      const ChildStatus child = run_in_child([&p, &row, index = index, &where] {
        ASSERT_TRUE(is_in_bad_fork()) << where;
        std::map<std::string, std::uint64_t> before;
        if (p.on_mock) before = mockdev::control::call_counts();
        const CaughtError caught = catch_error([&] { row.call(p, index); });
        switch (row.outcome) {
          case Outcome::kForkError:
            EXPECT_EQ(caught.type, "ForkError") << where << ": " << caught.describe();
            EXPECT_TRUE(is_error(caught, ErrorKind::kFork, p.fork_message)) << where;
            break;
          case Outcome::kAnswers:
          case Outcome::kDeferred:
          case Outcome::kNoOp:
            EXPECT_FALSE(caught.thrown()) << where << ": " << caught.describe();
            break;
        }
        if (p.on_mock && row.outcome != Outcome::kAnswers) {
          EXPECT_EQ(mockdev::control::call_counts(), before)
              << where << ": the call reached the driver in a poisoned child";
        }
        EXPECT_FALSE(is_initialized()) << where;
      });
      EXPECT_TRUE(child.ok()) << where << ": poisoned child " << child.describe();
    }
    // The parent is unaffected by what its children did.
    EXPECT_FALSE(is_in_bad_fork());
    EXPECT_TRUE(is_initialized());
  });
}

std::string fork_param_name(const ::testing::TestParamInfo<ForkParam>& info) {
  return std::get<0>(info.param)->name + "_" + cache_name(std::get<2>(info.param)) + "_" +
         fork_rows().at(std::get<1>(info.param)).name;
}

INSTANTIATE_TEST_SUITE_P(Conformance, ForkTable,
                         ::testing::Combine(::testing::ValuesIn(selected_profiles()),
                                            ::testing::Range<std::size_t>(0, fork_rows().size()),
                                            ::testing::Values(Cache::kWarmSet, Cache::kWarmQuery,
                                                              Cache::kCold)),
                         fork_param_name);

using Fork = ConformanceTest;

TEST_P(Fork, ChildOfAnUninitialisedParentCanInitialise) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 1);
    EXPECT_EQ(device_count(), count);  // the parent queries, never initialises
    const ChildStatus child = run_in_child([&p, count] {
      EXPECT_FALSE(is_in_bad_fork());
      init();
      EXPECT_EQ(device_count(), count);
      set_device_index(count - 1);
      EXPECT_EQ(current_device_index(), count - 1);
      if (p.on_mock) {
        EXPECT_TRUE(p.mock_driver_initialized());
      }
    });
    EXPECT_TRUE(child.ok()) << "child " << child.describe();
    EXPECT_FALSE(is_initialized()) << "the child's init() is not the parent's";
    EXPECT_EQ(current_device_index(), 0);
  });
}

TEST_P(Fork, GrandchildOfAnInitialisedParentIsPoisonedToo) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    init();
    const ChildStatus child = run_in_child([&p] {
      const ChildStatus grandchild = run_in_child([&p] {
        EXPECT_TRUE(is_in_bad_fork());
        EXPECT_TRUE(is_error(catch_error([] { current_device_index(); }), ErrorKind::kFork,
                             p.fork_message));
      });
      EXPECT_TRUE(grandchild.ok()) << "grandchild " << grandchild.describe();
    });
    EXPECT_TRUE(child.ok()) << "child " << child.describe();
  });
}

// The fork-safe count end to end: the parent asks device_count() (the
// backend's fork-safe path: NVML for CUDA; Sysman or a short-lived probe child for Level
// Zero), which must neither initialise the runtime nor reach the driver's init in the
// parent's process (mock: its call count stays 0); then it forks, and the child
// initialises, selects the last device, allocates and frees device memory, and exits 0.
TEST_P(Fork, ForksAfterDeviceCountAndInitialisesInTheChild) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 1);
    ASSERT_EQ(device_count(), count);
    ASSERT_TRUE(is_available());
    ASSERT_FALSE(is_initialized()) << "device_count() initialised the parent";
    if (p.on_mock) {
      ASSERT_EQ(mockdev::control::call_count(p.init_entry_point), 0u)
          << "device_count() reached " << p.init_entry_point << " in the parent's process";
    }
    const ChildStatus child = run_in_child(
        [&p, count] {
          ASSERT_FALSE(is_in_bad_fork()) << "a parent that only counted poisons no child";
          init();
          ASSERT_TRUE(is_initialized());
          ASSERT_EQ(device_count(), count);
          set_device_index(count - 1);
          EXPECT_EQ(current_device_index(), count - 1);
          void* block = raw_alloc(1 << 20);
          EXPECT_NE(block, nullptr);
          EXPECT_EQ(memory_allocated(count - 1), 1 << 20);
          raw_delete(block);
          if (p.on_mock) {
            EXPECT_GE(mockdev::control::call_count(p.init_entry_point), 1u);
            EXPECT_TRUE(p.mock_driver_initialized());
          }
        },
        30);
    EXPECT_TRUE(child.ok()) << "child " << child.describe();
    EXPECT_FALSE(is_initialized()) << "the child's init() is not the parent's";
    EXPECT_FALSE(is_in_bad_fork());
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::call_count(p.init_entry_point), 0u)
          << "the child's driver calls are not the parent's";
    }
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(Fork);

}  // namespace
}  // namespace accel::test
