// PyTorch's stream-sanitizer (CSAN) event-handler scenarios (test/test_cuda_sanitizer.py) as golden
// tests of the race detector, each written as the observer calls the stream engine would make for
// the same program.
//
// Mapping from CSAN's notions to ours:
// - stream S_i                 -> a queue "S<i>" on device 0, created on first use
//                                 (CSAN's stream creation copies the host clock; ours is
//                                 the same because every operation joins the host clock);
// - tensor T_i                 -> a 256-byte device range at 512 * i (separate
//                                 allocations, never adjacent);
// - kernel launch (read_only, read_write) -> a kKernel operation with those reads and writes
//                                 (CSAN's read_write arguments are writes);
// - record E on S              -> a kEventRecord operation on S; the event remembers it
//                                 (a re-record replaces it);
// - S waits E                  -> a kEventWait operation on S with the record as a dep
//                                 (no dep when E was never recorded, deleted or re-created);
// - event synchronise E        -> a host wait on E's record operation;
// - stream synchronise S       -> a host wait on S's last operation;
// - device synchronise         -> host waits on every queue's last operation;
// - stream creation after sync -> a queue whose first operation carries the host epoch
//                                 (ObserverDriver stamps every operation with it).
// A "1 err" scenario checks the exact pair of operations reported.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/race_detector.h"
#include "observer_driver.h"

namespace mockdev::testing {
namespace {

class Csan : public ::testing::Test {
 protected:
  class Listener final : public core::RaceListener {
   public:
    void on_race(const control::Race& race) override { races.push_back(race); }
    std::vector<control::Race> races;
  };

  void SetUp() override {
    out_ = std::tmpfile();
    core::RaceDetectorOptions options;
    options.out = out_;
    options.listeners.push_back(&listener_);
    detector_ = core::make_race_detector(options);
    driver_ = std::make_unique<ObserverDriver>(*detector_);
  }
  void TearDown() override { std::fclose(out_); }

  std::uint64_t S(int i) {
    auto it = streams_.find(i);
    if (it == streams_.end())
      it = streams_.emplace(i, driver_->queue(0, "S" + std::to_string(i))).first;
    return it->second;
  }
  static AccessRange T(int i) { return dev_range(0, 512 * static_cast<std::uint64_t>(i), 256); }

  // A kernel launch; returns how many races its enqueue revealed.
  std::size_t launch(int stream, std::vector<int> read_only, std::vector<int> read_write,
                     OpId* id = nullptr) {
    std::vector<AccessRange> reads, writes;
    for (int t : read_only) reads.push_back(T(t));
    for (int t : read_write) writes.push_back(T(t));
    const std::size_t before = listener_.races.size();
    const OpId op = driver_->kernel(S(stream), reads, writes);
    if (id != nullptr) *id = op;
    return listener_.races.size() - before;
  }
  void record(int event, int stream) { events_[event] = driver_->record(S(stream)); }
  void wait(int event, int stream) {
    auto it = events_.find(event);
    driver_->wait(S(stream), it == events_.end() ? 0 : it->second);
  }
  void delete_event(int event) { events_.erase(event); }
  void event_synchronize(int event) { driver_->host_wait(events_.at(event)); }
  void stream_synchronize(int stream) { driver_->synchronize(S(stream)); }
  void device_synchronize() { driver_->synchronize_all(); }
  const std::vector<control::Race>& races() const { return listener_.races; }

  std::FILE* out_ = nullptr;
  Listener listener_;
  std::unique_ptr<core::OpObserver> detector_;
  std::unique_ptr<ObserverDriver> driver_;
  std::map<int, std::uint64_t> streams_;
  std::map<int, OpId> events_;  // event -> its latest record operation
};

// 8
TEST_F(Csan, EmptyKernelLaunch) { EXPECT_EQ(launch(0, {}, {}), 0u); }

// 9
TEST_F(Csan, SimplePassing) {
  EXPECT_EQ(launch(1, {1}, {}), 0u);
  EXPECT_EQ(launch(2, {1}, {}), 0u);
}

// 10
TEST_F(Csan, SimpleError) {
  OpId r = 0, w = 0;
  EXPECT_EQ(launch(1, {1}, {}, &r), 0u);
  EXPECT_EQ(launch(2, {}, {1}, &w), 1u);
  EXPECT_EQ(races()[0].first.op, r);
  EXPECT_EQ(races()[0].second.op, w);
}

// 11
TEST_F(Csan, SimpleSync) {
  EXPECT_EQ(launch(1, {1}, {}), 0u);
  record(0, 1);
  wait(0, 2);
  EXPECT_EQ(launch(2, {}, {1}), 0u);
}

// 12
TEST_F(Csan, ReadsCheckLastWrite) {
  OpId w = 0, r = 0;
  EXPECT_EQ(launch(1, {}, {1}, &w), 0u);
  record(0, 1);
  wait(0, 2);
  EXPECT_EQ(launch(2, {1}, {}), 0u);
  EXPECT_EQ(launch(3, {1}, {}, &r), 1u);
  EXPECT_EQ(races()[0].first.op, w);
  EXPECT_EQ(races()[0].second.op, r);
}

// 13
TEST_F(Csan, BranchSync) {
  OpId r3 = 0, w = 0;
  EXPECT_EQ(launch(1, {}, {1}), 0u);
  record(0, 1);
  wait(0, 2);
  wait(0, 3);
  EXPECT_EQ(launch(2, {1}, {}), 0u);
  EXPECT_EQ(launch(3, {1}, {}, &r3), 0u);
  EXPECT_EQ(launch(2, {}, {1}, &w), 1u);
  EXPECT_EQ(races()[0].first.op, r3);  // S3's read
  EXPECT_EQ(races()[0].second.op, w);
}

// 14
TEST_F(Csan, ChainSync) {
  EXPECT_EQ(launch(0, {1}, {}), 0u);
  for (int i = 0; i < 10; ++i) {
    record(i, i);
    wait(i, i + 1);
  }
  EXPECT_EQ(launch(10, {}, {1}), 0u);
}

// 15
TEST_F(Csan, ExpiredRecord) {
  OpId later_read = 0;
  EXPECT_EQ(launch(1, {1}, {}), 0u);
  record(0, 1);
  EXPECT_EQ(launch(1, {1}, {}, &later_read), 0u);
  wait(0, 2);
  EXPECT_EQ(launch(2, {}, {1}), 1u);
  EXPECT_EQ(races()[0].first.op, later_read);
}

// 16: deleted and/or re-created before the wait: the wait has no edge.
class CsanDeletedRecord : public Csan,
                          public ::testing::WithParamInterface<std::pair<bool, bool>> {};

TEST_P(CsanDeletedRecord, WaitOnADeletedOrRecreatedEventOrdersNothing) {
  const auto [should_delete, should_create] = GetParam();
  OpId r = 0;
  EXPECT_EQ(launch(1, {1}, {}, &r), 0u);
  record(0, 1);
  if (should_delete || should_create) delete_event(0);  // re-creation forgets the snapshot too
  wait(0, 2);
  EXPECT_EQ(launch(2, {}, {1}), 1u);
  EXPECT_EQ(races()[0].first.op, r);
}

INSTANTIATE_TEST_SUITE_P(Csan, CsanDeletedRecord,
                         ::testing::Values(std::pair{true, true}, std::pair{true, false},
                                           std::pair{false, true}));

// 17
TEST_F(Csan, AllReadsCheckedFailing) {
  OpId unwaited = 0;
  for (int i = 1; i <= 10; ++i) {
    EXPECT_EQ(launch(i, {1}, {}, i == 10 ? &unwaited : nullptr), 0u);
    record(i, i);
  }
  for (int i = 1; i < 10; ++i) wait(i, 0);
  EXPECT_EQ(launch(0, {}, {1}), 1u);
  EXPECT_EQ(races()[0].first.op, unwaited);
}

// 18
TEST_F(Csan, AllReadsCheckedPassing) {
  for (int i = 1; i < 10; ++i) {
    EXPECT_EQ(launch(i, {1}, {}), 0u);
    record(i, i);
  }
  for (int i = 1; i < 10; ++i) wait(i, 0);
  EXPECT_EQ(launch(0, {}, {1}), 0u);
}

// 19
TEST_F(Csan, MultipleErrors) {
  std::vector<int> all;
  for (int i = 0; i < 10; ++i) all.push_back(i);
  EXPECT_EQ(launch(0, {}, all), 0u);
  EXPECT_EQ(launch(1, {}, all), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(races()[static_cast<std::size_t>(i)].begin, T(i).begin);
    EXPECT_EQ(races()[static_cast<std::size_t>(i)].bytes, 256u);
  }
}

// 20
TEST_F(Csan, CorrectStateMerging) {
  EXPECT_EQ(launch(1, {}, {1}), 0u);
  EXPECT_EQ(launch(2, {}, {2}), 0u);
  record(1, 1);
  record(2, 2);
  EXPECT_EQ(launch(1, {}, {1}), 0u);
  EXPECT_EQ(launch(2, {}, {2}), 0u);
  wait(1, 2);
  wait(2, 1);
  record(3, 2);
  wait(3, 1);
  EXPECT_EQ(launch(1, {}, {1, 2}), 0u);
}

// 21
TEST_F(Csan, RecordOverride) {
  OpId r1 = 0;
  EXPECT_EQ(launch(1, {1}, {}, &r1), 0u);
  EXPECT_EQ(launch(2, {2}, {}), 0u);
  record(1, 1);
  record(1, 2);  // re-record: the event now stands for S2's work only
  wait(1, 3);
  EXPECT_EQ(launch(3, {}, {1}), 1u);
  EXPECT_EQ(races()[0].first.op, r1);
}

// 22
TEST_F(Csan, MultipleWait) {
  EXPECT_EQ(launch(1, {}, {1}), 0u);
  record(1, 1);
  wait(1, 2);
  wait(1, 3);
  EXPECT_EQ(launch(2, {1}, {}), 0u);
  EXPECT_EQ(launch(3, {1}, {}), 0u);
}

// 23
TEST_F(Csan, DeviceSynchronizeOrdersEveryStream) {
  for (int i = 1; i <= 9; ++i) EXPECT_EQ(launch(i, {}, {i}), 0u);
  device_synchronize();
  EXPECT_EQ(launch(0, {}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), 0u);
}

// 24
TEST_F(Csan, DeviceSynchronizeIsOneTime) {
  OpId again = 0;
  EXPECT_EQ(launch(1, {}, {1}), 0u);
  device_synchronize();
  EXPECT_EQ(launch(1, {}, {1}, &again), 0u);
  EXPECT_EQ(launch(2, {}, {1}), 1u);
  EXPECT_EQ(races()[0].first.op, again);
}

// 25
TEST_F(Csan, StreamCreatedAfterSynchronizeIsOrdered) {
  EXPECT_EQ(launch(1, {}, {1}), 0u);
  device_synchronize();
  EXPECT_EQ(streams_.count(2), 0u);  // S2 does not exist yet
  EXPECT_EQ(launch(2, {}, {1}), 0u);
}

// 26
TEST_F(Csan, StreamSynchronize) {
  OpId w2 = 0;
  EXPECT_EQ(launch(0, {}, {1}), 0u);
  EXPECT_EQ(launch(1, {}, {2}, &w2), 0u);
  stream_synchronize(0);
  EXPECT_EQ(launch(2, {1}, {}), 0u);
  EXPECT_EQ(launch(3, {1}, {}), 0u);
  EXPECT_EQ(launch(4, {2}, {}), 1u);
  EXPECT_EQ(races()[0].first.op, w2);
}

// 27
TEST_F(Csan, EventSynchronize) {
  OpId w2 = 0;
  EXPECT_EQ(launch(1, {}, {1}), 0u);
  record(1, 1);
  EXPECT_EQ(launch(1, {}, {2}, &w2), 0u);
  event_synchronize(1);
  EXPECT_EQ(launch(2, {}, {1}), 0u);
  EXPECT_EQ(launch(2, {}, {2}), 1u);
  EXPECT_EQ(races()[0].first.op, w2);
}

}  // namespace
}  // namespace mockdev::testing
