// The happens-before model of stream programs, checked on hand-written programs before it is
// trusted to judge the simulation (stream_program_property_test.cpp).

#include <gtest/gtest.h>

#include "stream_program_model.h"

namespace accel::test::stream_model {
namespace {

// Streams of device 0: 0 legacy, 1 and 2 blocking, 3 non-blocking; device 1: 4..7.
Command memset(int stream, int buffer, std::uint8_t value) {
  Command c;
  c.kind = Kind::kMemset;
  c.stream = stream;
  c.dst = buffer;
  c.value = value;
  return c;
}
Command copy(int stream, int src, int dst) {
  Command c;
  c.kind = Kind::kCopy;
  c.stream = stream;
  c.src = src;
  c.dst = dst;
  return c;
}
Command record(int stream, int event) {
  Command c;
  c.kind = Kind::kRecord;
  c.stream = stream;
  c.event = event;
  return c;
}
Command wait(int stream, int event) {
  Command c;
  c.kind = Kind::kWait;
  c.stream = stream;
  c.event = event;
  return c;
}
Command stream_sync(int stream) {
  Command c;
  c.kind = Kind::kStreamSync;
  c.stream = stream;
  return c;
}
Command device_sync(int device) {
  Command c;
  c.kind = Kind::kDeviceSync;
  c.device = device;
  return c;
}
Command checkpoint() {
  Command c;
  c.kind = Kind::kCheckpoint;
  return c;
}

constexpr int kHost0 = kDeviceBuffers;  // the first pinned host buffer

bool racy(const Program& p) { return predict(p, Schedule::kEager).racy; }

TEST(StreamProgramModel, ProgramOrderOrdersOneStream) {
  EXPECT_FALSE(racy({memset(1, 0, 5), memset(1, 0, 6), copy(1, 0, 1)}));
}

TEST(StreamProgramModel, TwoStreamsWithoutSynchronisationRace) {
  const Prediction p = predict({memset(1, 0, 5), memset(2, 0, 6)}, Schedule::kEager);
  EXPECT_TRUE(p.racy);
  ASSERT_EQ(p.races.size(), 2u);  // one per chunk
  EXPECT_EQ(p.races[0], "buffer 0 chunk 0: 'memset b0[0,2)=5 on s1' and 'memset b0[0,2)=6 on s2'");
}

TEST(StreamProgramModel, ReadsNeverRaceWithReads) {
  EXPECT_FALSE(racy({copy(1, 0, 1), copy(2, 0, 2)}));
}

TEST(StreamProgramModel, EventRecordAndWaitOrder) {
  EXPECT_FALSE(racy({memset(1, 0, 5), record(1, 0), wait(2, 0), memset(2, 0, 6)}));
  // A wait sees the snapshot at the call: work after the record is not covered.
  EXPECT_TRUE(racy({record(1, 0), memset(1, 0, 5), wait(2, 0), memset(2, 0, 6)}));
  // A never-recorded event stands for no work.
  EXPECT_TRUE(racy({memset(1, 0, 5), wait(2, 0), memset(2, 0, 6)}));
  // Re-recording overwrites the snapshot that later waits see (CSAN scenario 21).
  EXPECT_TRUE(racy({memset(1, 0, 5), record(1, 0), record(2, 0), wait(3, 0), memset(3, 0, 6)}));
}

TEST(StreamProgramModel, LegacyStreamBarriersOrderBlockingStreamsOnly) {
  EXPECT_FALSE(racy({memset(1, 0, 5), memset(0, 2, 1), memset(2, 0, 6)}));
  EXPECT_TRUE(racy({memset(1, 0, 5), memset(0, 2, 1), memset(3, 0, 6)}));
  EXPECT_TRUE(racy({memset(3, 0, 5), memset(0, 2, 1), memset(1, 0, 6)}));
  // The legacy stream of device 0 does not order device 1's streams.
  EXPECT_TRUE(racy({copy(1, 0, 3), memset(0, 2, 1), copy(5, 3, 4)}));
}

TEST(StreamProgramModel, HostWaitsOrderLaterWork) {
  EXPECT_FALSE(racy({memset(1, 0, 5), stream_sync(1), memset(3, 0, 6)}));
  EXPECT_FALSE(racy({memset(3, 0, 5), device_sync(0), memset(2, 0, 6)}));
  EXPECT_TRUE(racy({memset(3, 0, 5), device_sync(1), memset(2, 0, 6)}));
}

TEST(StreamProgramModel, CheckpointsFollowTheSchedule) {
  const Program p = {memset(1, 0, 7), copy(1, 0, kHost0), checkpoint(), stream_sync(1),
                     checkpoint()};
  const std::uint8_t initial = initial_value(kHost0);
  const Prediction adversarial = predict(p, Schedule::kAdversarial);
  const Prediction eager = predict(p, Schedule::kEager);
  const Prediction random = predict(p, Schedule::kRandom);
  ASSERT_EQ(adversarial.checkpoints.size(), 2u);
  EXPECT_EQ(adversarial.checkpoints[0].allowed[0][0], (std::set<std::uint8_t>{initial}));
  EXPECT_EQ(eager.checkpoints[0].allowed[0][0], (std::set<std::uint8_t>{7}));
  EXPECT_EQ(random.checkpoints[0].allowed[0][0], (std::set<std::uint8_t>{initial, 7}));
  for (const Prediction* q : {&adversarial, &eager, &random}) {
    EXPECT_EQ(q->checkpoints[1].allowed[0][0], (std::set<std::uint8_t>{7}));
  }
  EXPECT_EQ(eager.final_contents[kHost0][1], 7);
}

TEST(StreamProgramModel, HostFunctionsRunWhenTheScheduleAllows) {
  Command host;
  host.kind = Kind::kHostFunction;
  host.stream = 1;
  host.id = 0;
  Command second = host;
  second.stream = 2;
  second.id = 1;
  const Program p = {host, checkpoint(), record(1, 0), wait(2, 0), second, stream_sync(2),
                     checkpoint()};
  const Prediction adversarial = predict(p, Schedule::kAdversarial);
  EXPECT_TRUE(adversarial.checkpoints[0].host_functions_allowed.empty());
  EXPECT_EQ(adversarial.checkpoints[1].host_functions_required, (std::set<int>{0, 1}));
  const Prediction eager = predict(p, Schedule::kEager);
  EXPECT_EQ(eager.checkpoints[0].host_functions_required, (std::set<int>{0}));
  EXPECT_EQ(eager.host_function_order, (std::vector<std::pair<int, int>>{{0, 1}}));
}

}  // namespace
}  // namespace accel::test::stream_model
