// The race detector and the timeline trace under the simulated driver: programs written
// against the CUDA driver API, racy and correctly synchronised, under every schedule.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "mockdev/races.h"
#include "stream_test.h"

namespace mockdev::testing {
namespace {


class RaceDriver : public StreamTest,
                   public ::testing::WithParamInterface<StreamSettings::Schedule> {};

TEST_P(RaceDriver, TwoStreamsWritingOneBufferRaceOnce) {
  start(GetParam());
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  const CUdeviceptr d = alloc(1024);
  ::testing::internal::CaptureStderr();
  const int first_line = __LINE__ + 1;
  ASSERT_EQ(cu().cuMemsetD8Async(d, 1, 1024, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(d + 512, 2, 256, b), CUDA_SUCCESS);
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::vector<control::Race> races = control::races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].kind, control::RaceKind::kDataRace);
  EXPECT_EQ(races[0].first.name, "cuMemsetD8Async");
  EXPECT_EQ(races[0].second.name, "cuMemsetD8Async");
  EXPECT_EQ(races[0].first.queue, "dev0/stream 1 (non-blocking)");
  EXPECT_EQ(races[0].second.queue, "dev0/stream 2 (non-blocking)");
  EXPECT_EQ(races[0].begin, d + 512);
  EXPECT_EQ(races[0].bytes, 256u);
  // Both queues by the handles the program holds (Note [Race detection]).
  EXPECT_EQ(races[0].first.handle, handle_of(a));
  EXPECT_EQ(races[0].second.handle, handle_of(b));
  EXPECT_EQ(err, races[0].text);
  // Both calls' sites: this test's lines, the caller of the facade (Note [Call sites of
  // operations]); object+offset where addr2line cannot say.
  if (std::system("addr2line --version >/dev/null 2>&1") == 0) {
    EXPECT_NE(
        races[0].first.call_site.find("race_driver_test.cpp:" + std::to_string(first_line) + " "),
        std::string::npos)
        << races[0].first.call_site;
    EXPECT_NE(races[0].second.call_site.find(
                  "race_driver_test.cpp:" + std::to_string(first_line + 1) + " "),
              std::string::npos)
        << races[0].second.call_site;
  } else {
    EXPECT_NE(races[0].first.call_site.find("mockdev_observer_test"), std::string::npos);
    EXPECT_NE(races[0].second.call_site.find("mockdev_observer_test"), std::string::npos);
  }
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  cu().cuStreamDestroy_v2(a);
  cu().cuStreamDestroy_v2(b);
  cu().cuMemFree_v2(d);
}

TEST_P(RaceDriver, CorrectlySynchronisedProgramsNeverRace) {
  start(GetParam());
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream blocking = make_stream(0);
  const CUdeviceptr d = alloc(4096);
  unsigned char host[4096] = {};
  CUevent e = nullptr;
  ASSERT_EQ(cu().cuEventCreate(&e, 0), CUDA_SUCCESS);
  // Event record / wait.
  ASSERT_EQ(cu().cuMemsetD8Async(d, 1, 4096, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(e, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamWaitEvent(b, e, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 2, 4096, b), CUDA_SUCCESS);
  // Stream synchronise.
  ASSERT_EQ(cu().cuStreamSynchronize(b), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemcpyDtoHAsync_v2(host, d, 4096, a), CUDA_SUCCESS);
  // Event synchronise.
  ASSERT_EQ(cu().cuEventRecord(e, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventSynchronize(e), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 3, 4096, b), CUDA_SUCCESS);
  // (Without this wait the next memset races with the one above: b is non-blocking.)
  ASSERT_EQ(cu().cuEventRecord(e, b), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamWaitEvent(blocking, e, 0), CUDA_SUCCESS);
  // The legacy stream's implicit barrier with a blocking stream.
  ASSERT_EQ(cu().cuMemsetD8Async(d, 4, 4096, blocking), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 5, 4096, blocking), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 6, 4096, nullptr), CUDA_SUCCESS);   // after `blocking`
  ASSERT_EQ(cu().cuMemsetD8Async(d, 7, 4096, blocking), CUDA_SUCCESS);  // after the legacy op
  // Synchronous copies return once complete.
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(host, d, 4096), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 8, 4096, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(control::race_count(), 0u);
  for (const control::Race& r : control::races()) ADD_FAILURE() << r.text;
  EXPECT_EQ(host[0], 7);
  cu().cuEventDestroy_v2(e);
  cu().cuStreamDestroy_v2(a);
  cu().cuStreamDestroy_v2(b);
  cu().cuStreamDestroy_v2(blocking);
  cu().cuMemFree_v2(d);
}

INSTANTIATE_TEST_SUITE_P(Schedules, RaceDriver,
                         ::testing::Values(StreamSettings::Schedule::kEager,
                                           StreamSettings::Schedule::kRandom,
                                           StreamSettings::Schedule::kAdversarial),
                         [](const auto& info) {
                           switch (info.param) {
                             case StreamSettings::Schedule::kEager:
                               return std::string("eager");
                             case StreamSettings::Schedule::kRandom:
                               return std::string("random");
                             default:
                               return std::string("adversarial");
                           }
                         });

TEST_F(StreamTest, TheMachineFilesRacePolicyOffMakesNoDetector) {
  MachineSpec m = load_machine("4xh100");
  m.streams.races = RacePolicy::kOff;
  unsetenv("MOCKDEV_RACES");
  control::reset(m);
  init_and_make_current(0);
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  const CUdeviceptr d = alloc(64);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 1, 64, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 2, 64, b), CUDA_SUCCESS);
  EXPECT_EQ(control::race_count(), 0u);
  EXPECT_EQ(control::race_policy(), RacePolicy::kOff);
}

TEST_F(StreamTest, TheTraceOfADriverProgram) {
  const std::string path =
      ::testing::TempDir() + "mockdev_driver_trace_" + std::to_string(getpid()) + ".json";
  setenv("MOCKDEV_TRACE", path.c_str(), 1);
  start(Schedule::kEager);
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  const CUdeviceptr d = alloc(1 << 20);
  CUevent e = nullptr;
  ASSERT_EQ(cu().cuEventCreate(&e, 0), CUDA_SUCCESS);
  const int first_line = __LINE__ + 1;
  ASSERT_EQ(cu().cuMemsetD8Async(d, 1, 1 << 20, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(e, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamWaitEvent(b, e, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 2, 1 << 20, b), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total_bytes), CUDA_SUCCESS);
  control::reset(load_machine("1xa100"));  // flushes the trace of the machine above
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json trace = nlohmann::json::parse(text.str());
  std::map<std::string, int> slices;
  std::map<std::string, std::string> thread_names;  // "pid/tid" -> label
  int flow_starts = 0, flow_ends = 0;
  std::vector<nlohmann::json> host_calls, counters;
  for (const auto& event : trace["traceEvents"]) {
    const std::string ph = event["ph"];
    if (ph == "X") ++slices[event["name"].get<std::string>()];
    if (ph == "i" && event["cat"] == "host call") host_calls.push_back(event);
    if (ph == "C") counters.push_back(event);
    if (ph == "s") ++flow_starts;
    if (ph == "f") ++flow_ends;
    if (ph == "M" && event["name"] == "thread_name") {
      thread_names[std::to_string(event["pid"].get<int>()) + "/" +
                   std::to_string(event["tid"].get<int>())] = event["args"]["name"];
    }
  }
  EXPECT_EQ(slices["cuMemsetD8Async"], 2);
  EXPECT_EQ(slices["cuEventRecord"], 1);
  EXPECT_EQ(slices["cuStreamWaitEvent"], 1);
  EXPECT_EQ(flow_starts, 1);
  EXPECT_EQ(flow_ends, 1);
  std::set<std::string> labels;
  for (const auto& [track, label] : thread_names) labels.insert(label);
  // Tracks are named by the program's handle, then the label (Note [Timeline trace]).
  EXPECT_TRUE(labels.count(handle_of(a) + ": dev0/stream 1 (non-blocking)")) << text.str();
  EXPECT_TRUE(labels.count(handle_of(b) + ": dev0/stream 2 (non-blocking)")) << text.str();
  // The host's calls that enqueued work, on the calling thread's track, in call order, each
  // naming its op, queue and call site (Note [Host calls in the trace]).
  const std::string main_thread = "host thread " + std::to_string(getpid()) + " (main)";
  EXPECT_TRUE(labels.count(main_thread)) << text.str();
  ASSERT_EQ(host_calls.size(), 4u) << text.str();
  const char* names[] = {"cuMemsetD8Async", "cuEventRecord", "cuStreamWaitEvent",
                         "cuMemsetD8Async"};
  const CUstream queues[] = {a, a, b, b};
  const bool symbolised = std::system("addr2line --version >/dev/null 2>&1") == 0;
  for (std::size_t i = 0; i < host_calls.size(); ++i) {
    const nlohmann::json& call = host_calls[i];
    EXPECT_EQ(call["name"], names[i]);
    EXPECT_EQ(call["tid"].get<long>(), static_cast<long>(getpid()));
    EXPECT_EQ(call["args"]["queue"].get<std::string>().rfind(handle_of(queues[i]) + ": ", 0), 0u)
        << call;
    if (symbolised) {
      const std::string site = call["args"]["call_site"];
      EXPECT_NE(site.find("race_driver_test.cpp:" +
                          std::to_string(first_line + static_cast<int>(i)) + " "),
                std::string::npos)
          << site;
    }
  }
  // The driver's memory in use on the device, a counter that moves with each allocation; its
  // last value is what cuMemGetInfo said.
  ASSERT_FALSE(counters.empty()) << text.str();
  EXPECT_EQ(counters.back()["name"], "driver memory in use");
  EXPECT_EQ(counters.back()["args"]["bytes"].get<std::uint64_t>(), total_bytes - free_bytes);
  unsetenv("MOCKDEV_TRACE");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace mockdev::testing
