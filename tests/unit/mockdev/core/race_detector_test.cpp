// The race detector over the observer interface: what races, what never races, the report
// (control API form, stderr block, abort), unknown accesses, the policy and its variable.

#include "core/race_detector.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/engine_lock.h"
#include "core/race_policy.h"
#include "mockdev/control.h"
#include "mockdev/races.h"
#include "observer_driver.h"

namespace mockdev::testing {
namespace {

class CollectingListener final : public core::RaceListener {
 public:
  void on_race(const control::Race& race) override { races.push_back(race); }
  void before_abort() override { ++aborts; }
  std::vector<control::Race> races;
  int aborts = 0;
};

// A detector with the report policy, printing into a temporary file.
class RaceDetectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = std::tmpfile();
    ASSERT_NE(out_, nullptr);
    core::RaceDetectorOptions options;
    options.out = out_;
    options.listeners.push_back(&listener_);
    detector_ = core::make_race_detector(options);
    driver_ = std::make_unique<ObserverDriver>(*detector_);
  }
  void TearDown() override { std::fclose(out_); }

  std::string printed() {
    std::fflush(out_);
    std::rewind(out_);
    std::string text;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, out_)) > 0;)
      text.append(buffer, n);
    return text;
  }
  const std::vector<control::Race>& races() const { return listener_.races; }
  ObserverDriver& d() { return *driver_; }

  std::FILE* out_ = nullptr;
  CollectingListener listener_;
  std::unique_ptr<core::OpObserver> detector_;
  std::unique_ptr<ObserverDriver> driver_;
};

// A queue the runtime named through its tool interface (Note [Runtime names] in
// core/runtime_tool.h) is reported by its handle, the runtime's name, then its label; a queue
// not named keeps the old form byte for byte; a later name replaces an earlier one; a name for
// a queue the detector never saw is ignored.
TEST_F(RaceDetectorTest, ARuntimeNamedQueueIsReportedByHandleNameAndLabel) {
  const auto s1 = d().queue(0, "dev0/stream 1 (non-blocking)", "CUstream 0x5a1");
  const auto s2 = d().queue(0, "dev0/stream 2 (non-blocking)", "CUstream 0x5b2");
  detector_->on_queue_named(s1, "cuda:0 stream id=2 (priority 0)");
  detector_->on_queue_named(s1, "cuda:0 stream id=3 (priority 0)");
  detector_->on_queue_named(77, "cuda:0 stream id=77 (priority 0)");
  d().enqueue(s1, {OpKind::kMemset, "cuMemsetD8Async", {}, {dev_range(0, 0, 64)}, {}, false,
                   "app.cpp:10"});
  d().enqueue(s2, {OpKind::kMemset, "cuMemsetD8Async", {}, {dev_range(0, 32, 64)}, {}, false,
                   "app.cpp:11"});
  ASSERT_EQ(races().size(), 1u);
  EXPECT_EQ(races()[0].first.runtime_name, "cuda:0 stream id=3 (priority 0)");
  EXPECT_EQ(races()[0].first.handle, "CUstream 0x5a1");
  EXPECT_EQ(races()[0].second.runtime_name, "");
  const std::string expected =
      "==================== mockdev: data race ====================\n"
      "write to device memory [0x100000000020, 0x100000000040) (32 bytes)\n"
      "  by op 2 \"cuMemsetD8Async\" on CUstream 0x5b2 (queue \"dev0/stream 2 (non-blocking)\") "
      "at app.cpp:11\n"
      "conflicts with an earlier write\n"
      "  by op 1 \"cuMemsetD8Async\" on CUstream 0x5a1 = \"cuda:0 stream id=3 (priority 0)\" "
      "(queue \"dev0/stream 1 (non-blocking)\") at app.cpp:10\n"
      "Neither is ordered before the other: no stream order, event wait, barrier, graph launch "
      "or host synchronisation joins them.\n"
      "=============================================================\n";
  EXPECT_EQ(races()[0].text, expected);
  EXPECT_EQ(printed(), expected);
}

TEST_F(RaceDetectorTest, UnorderedWritesOfTwoQueuesAreOneRaceWithBothOperations) {
  const auto s1 = d().queue(0, "dev0/stream 1");
  const auto s2 = d().queue(0, "dev0/stream 2");
  const OpId a = d().enqueue(
      s1,
      {OpKind::kKernel, "kernel saxpy", {}, {dev_range(0, 0x200, 256)}, {}, false, "app.cpp:10"});
  const OpId b = d().enqueue(s2, {OpKind::kMemset,
                                  "cuMemsetD8Async",
                                  {},
                                  {dev_range(0, 0x280, 256)},
                                  {},
                                  false,
                                  "app.cpp:11"});
  ASSERT_EQ(races().size(), 1u);
  const control::Race& race = races()[0];
  EXPECT_EQ(race.kind, control::RaceKind::kDataRace);
  EXPECT_EQ(race.first.op, a);
  EXPECT_EQ(race.first.name, "kernel saxpy");
  EXPECT_EQ(race.first.queue, "dev0/stream 1");
  EXPECT_EQ(race.first.device, 0);
  EXPECT_EQ(race.first.call_site, "app.cpp:10");
  EXPECT_TRUE(race.first.writes);
  EXPECT_FALSE(race.first.unknown);
  EXPECT_EQ(race.second.op, b);
  EXPECT_EQ(race.second.name, "cuMemsetD8Async");
  EXPECT_EQ(race.second.queue, "dev0/stream 2");
  EXPECT_EQ(race.second.call_site, "app.cpp:11");
  EXPECT_TRUE(race.second.writes);
  EXPECT_EQ(race.begin, 0x100000000280u);  // the overlap only
  EXPECT_EQ(race.bytes, 128u);
  EXPECT_FALSE(race.host);
  const std::string expected =
      "==================== mockdev: data race ====================\n"
      "write to device memory [0x100000000280, 0x100000000300) (128 bytes)\n"
      "  by op 2 \"cuMemsetD8Async\" on queue \"dev0/stream 2\" at app.cpp:11\n"
      "conflicts with an earlier write\n"
      "  by op 1 \"kernel saxpy\" on queue \"dev0/stream 1\" at app.cpp:10\n"
      "Neither is ordered before the other: no stream order, event wait, barrier, graph launch "
      "or host synchronisation joins them.\n"
      "=============================================================\n";
  EXPECT_EQ(race.text, expected);
  EXPECT_EQ(printed(), expected);
  EXPECT_EQ(listener_.aborts, 0);
}

TEST_F(RaceDetectorTest, ReadReadNeverRaces) {
  const auto s1 = d().queue(0, "s1");
  const auto s2 = d().queue(0, "s2");
  d().kernel(s1, {dev_range(0, 0, 64)}, {});
  d().kernel(s2, {dev_range(0, 0, 64)}, {});
  EXPECT_TRUE(races().empty());
  EXPECT_EQ(printed(), "");
}

TEST_F(RaceDetectorTest, ReadThenUnorderedWriteRacesAndNamesTheRead) {
  const auto s1 = d().queue(0, "s1");
  const auto s2 = d().queue(0, "s2");
  const OpId r = d().kernel(s1, {dev_range(0, 0, 64)}, {});
  const OpId w = d().kernel(s2, {}, {dev_range(0, 32, 64)});
  ASSERT_EQ(races().size(), 1u);
  EXPECT_EQ(races()[0].first.op, r);
  EXPECT_FALSE(races()[0].first.writes);
  EXPECT_EQ(races()[0].second.op, w);
  EXPECT_TRUE(races()[0].second.writes);
  EXPECT_EQ(races()[0].bytes, 32u);
  EXPECT_NE(races()[0].text.find("conflicts with an earlier read\n"), std::string::npos);
  // No call site from the engine and no caller: the revealing operation gets the
  // enqueuer's frame (ObserverDriver::enqueue, in this test binary: "observer_driver.h:N
  // ..." from debug info, else "mockdev_observer_test+0x..."), the earlier one stays unknown.
  EXPECT_EQ(races()[0].first.call_site, "");
  const std::string& site = races()[0].second.call_site;
  EXPECT_TRUE(site.find("/observer_driver.h:") != std::string::npos ||
              site.rfind("mockdev_observer_test+0x", 0) == 0)
      << site;
  EXPECT_NE(races()[0].text.find(" at " + races()[0].second.call_site + "\n"), std::string::npos);
}

TEST_F(RaceDetectorTest, ProgramOrderNeverRaces) {
  const auto s1 = d().queue(0, "s1");
  for (int i = 0; i < 10; ++i) d().kernel(s1, {dev_range(0, 0, 64)}, {dev_range(0, 0, 64)});
  EXPECT_TRUE(races().empty());
}

TEST_F(RaceDetectorTest, DisjointRangesNeverRace) {
  const auto s1 = d().queue(0, "s1");
  const auto s2 = d().queue(0, "s2");
  d().kernel(s1, {}, {dev_range(0, 0, 64)});
  d().kernel(s2, {}, {dev_range(0, 64, 64)});  // adjacent, not overlapping
  EXPECT_TRUE(races().empty());
}

TEST_F(RaceDetectorTest, HostAndDeviceRangesAreSeparateSpaces) {
  const auto s1 = d().queue(0, "s1");
  const auto s2 = d().queue(0, "s2");
  const AccessRange device = dev_range(0, 0, 64);
  d().kernel(s1, {}, {device});
  d().kernel(s2, {}, {host_range(device.begin, 64)});  // same number, other space
  EXPECT_TRUE(races().empty());
  d().kernel(s1, {}, {host_range(device.begin + 8, 8)});
  ASSERT_EQ(races().size(), 1u);
  EXPECT_TRUE(races()[0].host);
  EXPECT_EQ(races()[0].begin, device.begin + 8);
  EXPECT_NE(races()[0].text.find("write to host memory"), std::string::npos);
}

TEST_F(RaceDetectorTest, HostWaitOrdersEverythingUpToTheWaitedOperationOnly) {
  const auto s1 = d().queue(0, "s1");
  const auto s2 = d().queue(0, "s2");
  const OpId first = d().kernel(s1, {}, {dev_range(0, 0, 64)});
  d().host_wait(first);  // e.g. cuEventSynchronize on an event recorded here
  const OpId later = d().kernel(s1, {}, {dev_range(0, 64, 64)});
  d().kernel(s2, {}, {dev_range(0, 0, 64)});  // ordered after `first`
  EXPECT_TRUE(races().empty());
  d().kernel(s2, {}, {dev_range(0, 64, 64)});  // not ordered after `later`
  ASSERT_EQ(races().size(), 1u);
  EXPECT_EQ(races()[0].first.op, later);
}

// A wait on an early operation of a queue brings only what that queue knew then: the clock
// of an operation is the one of its segment, not the queue's latest.
TEST_F(RaceDetectorTest, AWaitBringsTheClockOfTheRecordNotTheQueuesLatest) {
  const auto s1 = d().queue(0, "s1");
  const auto s2 = d().queue(0, "s2");
  const auto s3 = d().queue(0, "s3");
  const OpId early = d().record(s1);  // s1 knows nothing of s2 here
  const OpId w = d().kernel(s2, {}, {dev_range(0, 0, 64)});
  const OpId rec2 = d().record(s2);
  d().wait(s1, rec2);   // now s1 knows w
  d().wait(s3, early);  // s3 learns s1 before the join
  d().kernel(s3, {}, {dev_range(0, 0, 64)});
  ASSERT_EQ(races().size(), 1u);
  EXPECT_EQ(races()[0].first.op, w);
  const OpId late = d().record(s1);
  d().wait(s3, late);  // after the join: now ordered after w (and after s3's own write)
  d().kernel(s3, {}, {dev_range(0, 0, 64)});
  EXPECT_EQ(races().size(), 1u);
}

TEST_F(RaceDetectorTest, BarrierDepsOrderLikeAnyDep) {
  // The legacy default stream's implicit barrier: the engine gives it the blocking
  // streams' last operations as deps.
  const auto legacy = d().queue(0, "dev0/legacy");
  const auto s1 = d().queue(0, "dev0/stream 1 (blocking)");
  const OpId w = d().kernel(s1, {}, {dev_range(0, 0, 64)});
  d().enqueue(legacy, {OpKind::kBarrier, "legacy barrier", {}, {}, {w}});
  d().kernel(legacy, {dev_range(0, 0, 64)}, {});
  EXPECT_TRUE(races().empty());
}

TEST_F(RaceDetectorTest, AWriteIsCheckedAgainstTheLastWriteAndEveryRead) {
  const auto s1 = d().queue(0, "s1");
  const auto s2 = d().queue(0, "s2");
  const auto s3 = d().queue(0, "s3");
  const OpId w = d().kernel(s1, {}, {dev_range(0, 0, 64)});
  const OpId r = d().kernel(s3, {dev_range(0, 0, 64)}, {});  // races with w
  ASSERT_EQ(races().size(), 1u);
  d().kernel(s2, {}, {dev_range(0, 0, 64)});  // races with w and with r
  ASSERT_EQ(races().size(), 3u);
  EXPECT_EQ(races()[1].first.op, w);
  EXPECT_EQ(races()[2].first.op, r);
}

TEST_F(RaceDetectorTest, OneReportPerPairAndContiguousRange) {
  const auto s1 = d().queue(0, "s1");
  const auto s2 = d().queue(0, "s2");
  // Ten adjacent pieces are one contiguous range: one report covering them all.
  std::vector<AccessRange> pieces;
  for (std::uint64_t i = 0; i < 10; ++i) pieces.push_back(dev_range(0, i * 16, 16));
  d().kernel(s1, {}, pieces);
  d().kernel(s2, {}, {dev_range(0, 0, 160)});
  ASSERT_EQ(races().size(), 1u);
  EXPECT_EQ(races()[0].begin, dev_range(0, 0, 1).begin);
  EXPECT_EQ(races()[0].bytes, 160u);
  // A read in the middle splits the shadow cells of s2's write; a third queue's write
  // still gets one report per earlier operation.
  const auto s3 = d().queue(0, "s3");
  const OpId read = d().kernel(s1, {dev_range(0, 40, 20)}, {});
  ASSERT_EQ(races().size(), 2u);  // s1's read against s2's write
  const OpId write = d().kernel(s3, {}, {dev_range(0, 0, 160)});
  ASSERT_EQ(races().size(), 4u);
  EXPECT_EQ(races()[2].first.op, read - 1);  // s2's write, over all 160 bytes
  EXPECT_EQ(races()[2].second.op, write);
  EXPECT_EQ(races()[2].bytes, 160u);
  EXPECT_EQ(races()[3].first.op, read);
  EXPECT_EQ(races()[3].bytes, 20u);
}

TEST_F(RaceDetectorTest, UnknownAccessesConflictWithEveryUnorderedAccessOnTheirDevice) {
  const auto s1 = d().queue(0, "dev0/s1");
  const auto s2 = d().queue(0, "dev0/s2");
  const auto other = d().queue(1, "dev1/s1");
  d().kernel(s1, {dev_range(0, 0x1000, 64)}, {});  // a read on device 0
  d().kernel(other, {}, {dev_range(1, 0, 64)});    // device 1 memory: not touched
  const OpId k = d().enqueue(s2, {OpKind::kKernel, "kernel opaque", {}, {}, {}, true, "k.cpp:3"});
  ASSERT_EQ(races().size(), 1u);
  const control::Race& race = races()[0];
  EXPECT_EQ(race.kind, control::RaceKind::kUnknownAccesses);
  EXPECT_EQ(race.second.op, k);
  EXPECT_TRUE(race.second.unknown);
  EXPECT_EQ(race.begin, dev_range(0, 0x1000, 1).begin);
  EXPECT_EQ(race.bytes, 64u);
  EXPECT_EQ(race.text,
            "=========== mockdev: possible race: unknown accesses ===========\n"
            "unknown accesses to device memory [0x100000001000, 0x100000001040) (64 bytes)\n"
            "  by op 3 \"kernel opaque\" on queue \"dev0/s2\" at k.cpp:3 (unknown accesses: a "
            "kernel launched but never registered)\n"
            "conflicts with an earlier read\n"
            "  by op 1 \"kernel k\" on queue \"dev0/s1\" (call site unknown)\n"
            "Neither is ordered before the other: no stream order, event wait, barrier, graph "
            "launch or host synchronisation joins them.\n"
            "=============================================================\n");
  // Later unordered work on device 0 conflicts with it; ordered work does not.
  d().kernel(s1, {dev_range(0, 0x9000, 8)}, {});
  ASSERT_EQ(races().size(), 2u);
  EXPECT_EQ(races()[1].first.op, k);
  EXPECT_EQ(races()[1].kind, control::RaceKind::kUnknownAccesses);
  EXPECT_NE(races()[1].text.find("conflicts with an earlier unknown access\n"), std::string::npos);
  d().kernel(s2, {}, {dev_range(0, 0x2000, 8)});  // program order after the unknown kernel
  d().kernel(other, {}, {dev_range(1, 0, 64)});
  EXPECT_EQ(races().size(), 2u);
}

TEST_F(RaceDetectorTest, AnUnknownOperationOrderedWithEverythingIsNoRace) {
  const auto s1 = d().queue(0, "s1");
  const auto s2 = d().queue(0, "s2");
  d().kernel(s1, {}, {dev_range(0, 0, 64)});
  d().synchronize(s1);
  d().enqueue(s2, {OpKind::kKernel, "kernel opaque", {}, {}, {}, true});
  d().synchronize(s2);
  d().kernel(s1, {dev_range(0, 0, 64)}, {});
  EXPECT_TRUE(races().empty());
}

TEST_F(RaceDetectorTest, AnOperationOnAQueueNobodyAnnouncedStillWorks) {
  d().enqueue(77, {OpKind::kKernel, "kernel a", {}, {dev_range(0, 0, 8)}});
  d().enqueue(78, {OpKind::kKernel, "kernel b", {}, {dev_range(0, 0, 8)}});
  ASSERT_EQ(races().size(), 1u);
  EXPECT_EQ(races()[0].first.queue, "queue 77");
  EXPECT_EQ(races()[0].second.queue, "queue 78");
}

TEST_F(RaceDetectorTest, UnknownDepsAndHostWaitsAreIgnored) {
  const auto s1 = d().queue(0, "s1");
  const auto s2 = d().queue(0, "s2");
  d().kernel(s1, {}, {dev_range(0, 0, 8)});
  detector_->on_host_wait(999, 5);
  d().enqueue(s2, {OpKind::kKernel, "kernel b", {}, {dev_range(0, 0, 8)}, {0, 12345}});
  EXPECT_EQ(races().size(), 1u);
}

TEST_F(RaceDetectorTest, PrintsAtMostTheCapThenOneLine) {
  const auto s1 = d().queue(0, "s1");
  const auto s2 = d().queue(0, "s2");
  const std::size_t n = control::kMaxKeptRaces + 5;
  for (std::size_t i = 0; i < n; ++i) {
    d().kernel(s1, {}, {dev_range(0, i * 64, 8)});
    d().kernel(s2, {}, {dev_range(0, i * 64, 8)});
  }
  EXPECT_EQ(races().size(), n);  // listeners hear every race
  const std::string text = printed();
  std::size_t blocks = 0;
  for (std::size_t at = 0; (at = text.find("mockdev: data race", at)) != std::string::npos; ++at) {
    ++blocks;
  }
  EXPECT_EQ(blocks, control::kMaxKeptRaces);
  EXPECT_NE(text.find("mockdev: more than 1000 races; later ones are counted "
                      "(mockdev::control::race_count()) but not printed\n"),
            std::string::npos);
}

TEST(RaceDetectorAbort, AbortPolicyPrintsTheRaceThenAborts) {
  auto program = [] {
    CollectingListener listener;
    core::RaceDetectorOptions options;
    options.policy = RacePolicy::kAbort;
    options.listeners.push_back(&listener);
    auto detector = core::make_race_detector(options);
    ObserverDriver d(*detector);
    const auto s1 = d.queue(0, "s1");
    const auto s2 = d.queue(0, "s2");
    d.kernel(s1, {}, {dev_range(0, 0, 8)});
    d.kernel(s2, {}, {dev_range(0, 0, 8)});
    std::fprintf(stderr, "not reached\n");
    std::exit(0);
  };
  EXPECT_DEATH(program(),
               "mockdev: data race =+\nwrite to device memory \\[0x100000000000, "
               "0x100000000008\\) \\(8 bytes\\)\n(.|\n)*mockdev: aborting on the race above "
               "\\(race policy 'abort'\\)\n$");
}

// The policy: MOCKDEV_RACES overrides the machine file; a malformed value is an error
// naming it (the engine turns it into a configuration error).
TEST(RacePolicy, ParsesItsFourSpellings) {
  EXPECT_EQ(parse_race_policy("report"), RacePolicy::kReport);
  EXPECT_EQ(parse_race_policy("fail"), RacePolicy::kFail);
  EXPECT_EQ(parse_race_policy("abort"), RacePolicy::kAbort);
  EXPECT_EQ(parse_race_policy("off"), RacePolicy::kOff);
  EXPECT_EQ(parse_race_policy("Abort"), std::nullopt);
  EXPECT_EQ(parse_race_policy(""), std::nullopt);
  EXPECT_EQ(race_policy_name(RacePolicy::kAbort), "abort");
  EXPECT_EQ(race_policy_name(RacePolicy::kFail), "fail");
  EXPECT_EQ(race_policy_name(RacePolicy::kReport), "report");
  EXPECT_EQ(race_policy_name(RacePolicy::kOff), "off");
}

TEST(RacePolicy, TheVariableOverridesTheMachine) {
  MachineSpec machine;
  machine.streams.races = RacePolicy::kAbort;
  unsetenv("MOCKDEV_RACES");
  EXPECT_EQ(core::race_policy_in_force(machine), RacePolicy::kAbort);
  EXPECT_EQ(core::race_policy_environment_error(), std::nullopt);
  setenv("MOCKDEV_RACES", "", 1);  // empty = unset
  EXPECT_EQ(core::race_policy_in_force(machine), RacePolicy::kAbort);
  EXPECT_EQ(core::race_policy_environment_error(), std::nullopt);
  setenv("MOCKDEV_RACES", "off", 1);
  EXPECT_EQ(core::race_policy_in_force(machine), RacePolicy::kOff);
  EXPECT_EQ(core::race_policy_environment_error(), std::nullopt);
  EXPECT_TRUE(core::race_policy_set_by_variable());
  setenv("MOCKDEV_RACES", "sometimes", 1);
  EXPECT_EQ(core::race_policy_in_force(machine), RacePolicy::kAbort);
  EXPECT_FALSE(core::race_policy_set_by_variable());
  EXPECT_EQ(core::race_policy_environment_error(),
            "MOCKDEV_RACES='sometimes': expected report, fail, abort or off");
  setenv("MOCKDEV_RACES", "abrot", 1);
  EXPECT_EQ(core::race_policy_environment_error(),
            "MOCKDEV_RACES='abrot': expected report, fail, abort or off (closest: abort)");
  unsetenv("MOCKDEV_RACES");
  EXPECT_FALSE(core::race_policy_set_by_variable());
}

// make_observers and the control API: the detector feeds control::races(), which a new
// machine installation empties.
std::vector<std::unique_ptr<core::OpObserver>> observers_for(const MachineSpec& machine) {
  core::EngineLock lock;
  return core::make_observers(machine);
}

TEST(RaceControl, MakeObserversFollowsThePolicy) {
  unsetenv("MOCKDEV_TRACE");
  MachineSpec machine = load_machine("1xa100");
  setenv("MOCKDEV_RACES", "off", 1);
  EXPECT_TRUE(observers_for(machine).empty());
  setenv("MOCKDEV_RACES", "report", 1);
  EXPECT_EQ(observers_for(machine).size(), 1u);
  unsetenv("MOCKDEV_RACES");
  machine.streams.races = RacePolicy::kOff;
  EXPECT_TRUE(observers_for(machine).empty());
}

TEST(RaceControl, RacesAreKeptCountedAndClearedPerMachine) {
  unsetenv("MOCKDEV_TRACE");
  unsetenv("MOCKDEV_RACES");
  control::reset(load_machine("1xa100"));
  EXPECT_EQ(control::race_policy(), RacePolicy::kReport);
  auto observers = observers_for(control::machine());
  ASSERT_EQ(observers.size(), 1u);
  ::testing::internal::CaptureStderr();
  {
    core::EngineLock lock;
    ObserverDriver d(*observers[0]);
    const auto s1 = d.queue(0, "s1");
    const auto s2 = d.queue(0, "s2");
    for (std::size_t i = 0; i < control::kMaxKeptRaces + 1; ++i) {
      d.kernel(s1, {}, {dev_range(0, i * 64, 8)});
      d.kernel(s2, {}, {dev_range(0, i * 64, 8)});
    }
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.rfind("==================== mockdev: data race ====================\n", 0), 0u);
  const std::vector<control::Race> kept = control::races();
  ASSERT_EQ(kept.size(), control::kMaxKeptRaces);
  EXPECT_EQ(control::race_count(), control::kMaxKeptRaces + 1);
  EXPECT_EQ(kept[0].first.op, 1u);
  EXPECT_EQ(kept[0].second.op, 2u);
  EXPECT_EQ(kept[0].first.queue, "s1");
  control::clear_races();
  EXPECT_TRUE(control::races().empty());
  EXPECT_EQ(control::race_count(), 0u);
  setenv("MOCKDEV_RACES", "abort", 1);
  EXPECT_EQ(control::race_policy(), RacePolicy::kAbort);
  unsetenv("MOCKDEV_RACES");
}

TEST(RaceControl, ANewMachineInstallationEmptiesTheLog) {
  unsetenv("MOCKDEV_TRACE");
  unsetenv("MOCKDEV_RACES");
  auto observers = observers_for(load_machine("1xa100"));
  ::testing::internal::CaptureStderr();
  {
    core::EngineLock lock;
    ObserverDriver d(*observers[0]);
    d.kernel(d.queue(0, "a"), {}, {dev_range(0, 0, 8)});
    d.kernel(d.queue(0, "b"), {}, {dev_range(0, 0, 8)});
  }
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(control::race_count(), 1u);
  observers = observers_for(load_machine("1xa100"));
  EXPECT_EQ(control::race_count(), 0u);
}

}  // namespace
}  // namespace mockdev::testing
