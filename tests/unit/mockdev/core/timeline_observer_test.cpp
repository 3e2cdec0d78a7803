// What the engine tells its observers (core/op_observer.h): queues, enqueues with their
// direct dependencies and host epoch, completions with virtual times, host waits, event
// flows. The race detector's correctness rests on these dependencies, so the test checks
// them exactly. A recording observer is installed next to make_observers' own.

#include <memory>
#include <sstream>

#include "core/engine.h"
#include "stream_test.h"

namespace mockdev::testing {
namespace {

class Recorder : public core::OpObserver {
 public:
  explicit Recorder(std::ostringstream* log) : log_(log) {}
  void on_queue_created(const core::QueueInfo& q) override {
    *log_ << "queue " << q.id << " dev" << q.device << " '" << q.label << "'\n";
  }
  void on_queue_destroyed(std::uint64_t q) override { *log_ << "destroyed " << q << "\n"; }
  void on_enqueue(const core::OpRecord& r) override {
    *log_ << "enqueue " << r.id << " q" << r.queue << " " << r.name << " deps[";
    for (std::size_t i = 0; i < r.deps.size(); ++i) *log_ << (i ? "," : "") << r.deps[i];
    *log_ << "] epoch " << r.host_epoch;
    for (const auto& w : r.writes) *log_ << " w" << (w.host ? "h" : "d") << w.bytes;
    for (const auto& rd : r.reads) *log_ << " r" << (rd.host ? "h" : "d") << rd.bytes;
    *log_ << "\n";
  }
  void on_complete(core::OpId op, std::uint64_t start, std::uint64_t end) override {
    *log_ << "complete " << op << " " << start << ".." << end << "\n";
  }
  void on_host_wait(core::OpId op, std::uint64_t epoch) override {
    *log_ << "host_wait " << op << " epoch " << epoch << "\n";
  }
  void on_event_flow(core::OpId record, core::OpId wait) override {
    *log_ << "flow " << record << "->" << wait << "\n";
  }
  void flush() override { *log_ << "flush\n"; }

 private:
  std::ostringstream* log_;
};

class ObserverTest : public StreamTest {
 protected:
  std::ostringstream log;
  // The recorder writes into `log`: drop it (a machine installation flushes and replaces the
  // observers) before the log goes away.
  void TearDown() override {
    control::reset(load_machine("4xh100"));
    StreamTest::TearDown();
  }
  void observe() {
    core::EngineLock lock;
    core::engine().observers.push_back(std::make_unique<Recorder>(&log));
  }
};

TEST_F(ObserverTest, LegacyBarrierEventFlowAndHostWaits) {
  start(Schedule::kAdversarial);
  observe();
  CUstream s = make_stream();                         // queue 1
  CUstream nb = make_stream(CU_STREAM_NON_BLOCKING);  // queue 2
  CUevent e = nullptr;
  ASSERT_EQ(cu().cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  CUdeviceptr d = alloc(1000);
  cu().cuMemsetD8Async(d, 1, 1000, s);        // op 1: on s
  cu().cuMemsetD8Async(d, 2, 1000, nullptr);  // op 2: legacy (queue 3) after s's tail
  cu().cuMemsetD8Async(d, 3, 1000, s);        // op 3: after op 1 and the legacy tail
  cu().cuEventRecord(e, s);                   // op 4
  cu().cuStreamWaitEvent(nb, e, 0);           // op 5: non-blocking, after the record only
  ASSERT_EQ(cu().cuStreamSynchronize(nb), CUDA_SUCCESS);
  unsigned char host[4] = {};
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(host, d, 4), CUDA_SUCCESS);  // op 6: legacy, waits
  EXPECT_EQ(host[0], 3);
  // Default timing: latency 4000 ns, memset 1000 bytes at 2000 GB/s = 1 ns, DtoH 4 bytes at
  // 25 GB/s = 1 ns (at least 1 ns).
  EXPECT_EQ(log.str(),
            "queue 1 dev0 'dev0/stream 1'\n"
            "queue 2 dev0 'dev0/stream 2 (non-blocking)'\n"
            "enqueue 1 q1 cuMemsetD8Async deps[] epoch 0 wd1000\n"
            "queue 3 dev0 'dev0/legacy'\n"
            "enqueue 2 q3 cuMemsetD8Async deps[1] epoch 0 wd1000\n"
            "enqueue 3 q1 cuMemsetD8Async deps[1,2] epoch 0 wd1000\n"
            "enqueue 4 q1 cuEventRecord deps[3,2] epoch 0\n"
            "enqueue 5 q2 cuStreamWaitEvent deps[4] epoch 0\n"
            "flow 4->5\n"
            "complete 1 4000..4001\n"
            "complete 2 4001..4002\n"
            "complete 3 4002..4003\n"
            "complete 4 4003..4003\n"
            "complete 5 4003..4003\n"
            "host_wait 5 epoch 1\n"
            "enqueue 6 q3 cuMemcpyDtoH_v2 deps[2,4] epoch 1 wh4 rd4\n"
            "complete 6 8003..8004\n"
            "host_wait 6 epoch 2\n");
}

TEST_F(ObserverTest, EagerCompletesInEnqueueOrderAndQueryTellsTheHost) {
  start(Schedule::kEager);
  observe();
  CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
  int v = 7;
  CUdeviceptr d = alloc(4);
  ASSERT_EQ(cu().cuMemcpyHtoDAsync_v2(d, &v, 4, s), CUDA_SUCCESS);  // pageable: staged
  ASSERT_EQ(cu().cuStreamQuery(s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamDestroy_v2(s), CUDA_SUCCESS);
  EXPECT_EQ(log.str(),
            "queue 1 dev0 'dev0/stream 1 (non-blocking)'\n"
            "enqueue 1 q1 cuMemcpyHtoDAsync_v2 deps[] epoch 0 wd4\n"  // staged: no host read
            "complete 1 4000..4001\n"
            "host_wait 1 epoch 1\n"
            "destroyed 1\n");
}

TEST_F(ObserverTest, HostFunctionsCarryTheirDeclaredAccesses) {
  start(Schedule::kEager);
  observe();
  CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
  CUdeviceptr d = alloc(64);
  int user = 0;
  streams::declare_host_function_accesses(&user, {{d, 16, false}}, {{0x1000, 8, true}});
  ASSERT_EQ(cu().cuLaunchHostFunc(
                s, [](void* p) { ++*static_cast<int*>(p); }, &user),
            CUDA_SUCCESS);
  streams::declare_host_function_accesses(&user, {}, {});  // removed: nothing declared
  ASSERT_EQ(cu().cuLaunchHostFunc(
                s, [](void* p) { ++*static_cast<int*>(p); }, &user),
            CUDA_SUCCESS);
  EXPECT_EQ(user, 2);
  EXPECT_EQ(log.str(),
            "queue 1 dev0 'dev0/stream 1 (non-blocking)'\n"
            "enqueue 1 q1 cuLaunchHostFunc deps[] epoch 0 wh8 rd16\n"
            "complete 1 4000..5000\n"
            "enqueue 2 q1 cuLaunchHostFunc deps[1] epoch 0\n"
            "complete 2 5000..6000\n");
}

TEST_F(ObserverTest, ObserversAreFlushedWhenTheMachineIsReplaced) {
  start(Schedule::kEager);
  observe();
  control::reset(load_machine("1xa100"));
  EXPECT_EQ(log.str(), "flush\n");
}

}  // namespace
}  // namespace mockdev::testing
