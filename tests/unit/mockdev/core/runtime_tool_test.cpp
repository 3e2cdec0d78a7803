// libmockdev.so as the runtime's tool (Note [The tool interface] in
// accel_abi/tool_interface.h; Note [Runtime names] in core/runtime_tool.h), driven as the
// runtime drives it: the library behind the simulated driver opened again by its path, the
// three functions looked up with dlsym, queues named by the CUstream cuStreamCreate handed
// out; then a race names the stream by the runtime's name, and the trace has the track name
// and the allocator's counters.

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "accel_abi/tool_interface.h"
#include "mockdev/races.h"
#include "stream_test.h"

namespace mockdev::testing {
namespace {


// The tool functions as the runtime finds them: dlopen of the file that holds the mock's
// engine (the one already loaded: the same instance), then dlsym.
class RuntimeTool : public StreamTest {
 protected:
  void SetUp() override {
    StreamTest::SetUp();
    Dl_info info{};
    ASSERT_NE(dladdr(reinterpret_cast<void*>(&control::races), &info), 0);
    ASSERT_NE(info.dli_fname, nullptr);
    library_path_ = info.dli_fname;
    library_ = dlopen(info.dli_fname, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << dlerror();
    attach_ = reinterpret_cast<accel_tool_attach_fn>(dlsym(library_, "accel_tool_attach"));
    name_queue_ =
        reinterpret_cast<accel_tool_name_queue_fn>(dlsym(library_, "accel_tool_name_queue"));
    memory_ = reinterpret_cast<accel_tool_memory_fn>(dlsym(library_, "accel_tool_memory"));
    ASSERT_NE(attach_, nullptr);
    ASSERT_NE(name_queue_, nullptr);
    ASSERT_NE(memory_, nullptr);
  }
  void TearDown() override {
    if (library_ != nullptr) dlclose(library_);
    StreamTest::TearDown();
  }

  // The file that defines `symbol` (so the lookup found libmockdev's, not another's).
  static std::string defined_in(const void* symbol) {
    Dl_info info{};
    if (dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "";
    return info.dli_fname;
  }

  std::string library_path_;
  void* library_ = nullptr;
  accel_tool_attach_fn attach_ = nullptr;
  accel_tool_name_queue_fn name_queue_ = nullptr;
  accel_tool_memory_fn memory_ = nullptr;
};

TEST_F(RuntimeTool, TheLibraryExportsTheInterfaceAndAttachesToItsVersionOnly) {
  EXPECT_EQ(defined_in(reinterpret_cast<const void*>(attach_)), library_path_);
  EXPECT_EQ(defined_in(reinterpret_cast<const void*>(name_queue_)), library_path_);
  EXPECT_EQ(defined_in(reinterpret_cast<const void*>(memory_)), library_path_);
  EXPECT_EQ(attach_(ACCEL_TOOL_INTERFACE_VERSION), 0);
  EXPECT_NE(attach_(ACCEL_TOOL_INTERFACE_VERSION + 1), 0);
  EXPECT_NE(attach_(0), 0);
}

TEST_F(RuntimeTool, ARaceNamesTheStreamByTheRuntimesName) {
  start(Schedule::kEager);
  ASSERT_EQ(attach_(ACCEL_TOOL_INTERFACE_VERSION), 0);
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream gone = make_stream(CU_STREAM_NON_BLOCKING);
  ASSERT_EQ(cu().cuStreamDestroy_v2(gone), CUDA_SUCCESS);
  name_queue_("cuda:0", a, "cuda:0 stream id=1 (priority 0)");
  // Handles the mock did not hand out, or no longer holds, name nothing and never crash:
  // another driver's queue, a destroyed stream, the special handles, null.
  int elsewhere = 0;
  name_queue_("xpu:0", &elsewhere, "xpu:0 stream id=1 (priority 0)");
  name_queue_("cuda:0", gone, "cuda:0 stream id=3 (priority 0)");
  name_queue_("cuda:0", reinterpret_cast<const void*>(0x1), "cuda:0 stream id=0 (priority 0)");
  name_queue_("cuda:0", nullptr, "cuda:0 stream id=0 (priority 0)");
  name_queue_("cuda:0", b, nullptr);
  const CUdeviceptr d = alloc(1024);
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(cu().cuMemsetD8Async(d, 1, 1024, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(d + 512, 2, 256, b), CUDA_SUCCESS);
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::vector<control::Race> races = control::races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].first.handle, handle_of(a));
  EXPECT_EQ(races[0].first.runtime_name, "cuda:0 stream id=1 (priority 0)");
  EXPECT_EQ(races[0].second.handle, handle_of(b));
  EXPECT_EQ(races[0].second.runtime_name, "");
  EXPECT_EQ(err, races[0].text);
  EXPECT_NE(err.find("  by op 1 \"cuMemsetD8Async\" on " + handle_of(a) +
                     " = \"cuda:0 stream id=1 (priority 0)\" (queue \"dev0/stream 1 "
                     "(non-blocking)\") at "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("  by op 2 \"cuMemsetD8Async\" on " + handle_of(b) +
                     " (queue \"dev0/stream 2 (non-blocking)\") at "),
            std::string::npos)
      << err;
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  cu().cuStreamDestroy_v2(a);
  cu().cuStreamDestroy_v2(b);
  cu().cuMemFree_v2(d);
}

TEST_F(RuntimeTool, TheTraceHasTheRuntimesTrackNameAndAllocatorCounters) {
  const std::string path =
      ::testing::TempDir() + "mockdev_tool_trace_" + std::to_string(getpid()) + ".json";
  setenv("MOCKDEV_TRACE", path.c_str(), 1);
  start(Schedule::kEager);
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  name_queue_("cuda:0", a, "cuda:0 stream id=1 (priority 0)");
  const CUdeviceptr d = alloc(1 << 20);
  memory_("cuda:0", 0, 1 << 20);
  memory_("cuda:0", 4096, 1 << 20);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 1, 1 << 20, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamSynchronize(a), CUDA_SUCCESS);  // the host clock moves
  const std::uint64_t after_sync_ns = streams::host_time_ns();
  memory_("cuda:0", 0, 1 << 20);
  control::reset(load_machine("1xa100"));  // flushes the trace of the machine above
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json trace = nlohmann::json::parse(text.str());
  std::vector<std::string> track_names;
  int runtime_pid = -1;
  std::vector<nlohmann::json> runtime_counters;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "thread_name") {
      track_names.push_back(event["args"]["name"]);
    }
    if (event["ph"] == "M" && event["name"] == "process_name" &&
        event["args"]["name"] == "accel runtime: caching allocator (4xh100)") {
      runtime_pid = event["pid"];
    }
    if (event["ph"] == "C" && event["pid"] == runtime_pid) runtime_counters.push_back(event);
  }
  EXPECT_NE(std::find(track_names.begin(), track_names.end(),
                      "cuda:0 stream id=1 (priority 0) = " + handle_of(a) +
                          ": dev0/stream 1 (non-blocking)"),
            track_names.end())
      << text.str();
  ASSERT_NE(runtime_pid, -1) << text.str();
  ASSERT_EQ(runtime_counters.size(), 3u) << text.str();
  const long long values[3][2] = {{0, 1 << 20}, {4096, 1 << 20}, {0, 1 << 20}};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(runtime_counters[i]["name"], "cuda:0");
    EXPECT_EQ(runtime_counters[i]["cat"], "memory");
    EXPECT_EQ(runtime_counters[i]["args"]["allocated_bytes"].get<long long>(), values[i][0]);
    EXPECT_EQ(runtime_counters[i]["args"]["reserved_bytes"].get<long long>(), values[i][1]);
  }
  // On the host's virtual clock: the first two before any wait, the last after the sync.
  EXPECT_EQ(runtime_counters[0]["ts"].get<double>(), runtime_counters[1]["ts"].get<double>());
  EXPECT_DOUBLE_EQ(runtime_counters[2]["ts"].get<double>(),
                   static_cast<double>(after_sync_ns) / 1000.0);
  EXPECT_GT(after_sync_ns, 0u);
  unsetenv("MOCKDEV_TRACE");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace mockdev::testing
