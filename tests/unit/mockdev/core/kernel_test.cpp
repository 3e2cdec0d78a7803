// Kernels in the mock (mockdev/kernels.h, Notes [Loading modules] and [Launches] in cuda/):
// module images and names, registered kernels run on their stream in virtual time with
// their arguments, their declared ranges reach the race detector, unregistered kernels are
// opaque with unknown accesses, and every bad input gets its code.

#include <cstdint>
#include <string>
#include <vector>

#include "mockdev/kernels.h"
#include "mockdev/races.h"
#include "stream_test.h"

namespace mockdev::testing {
namespace {

constexpr const char* kPtx =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry opaque()\n{\n  ret;\n}\n"
    ".visible .entry\tsecond()\n{ ret; }\n"
    "// .entryfoo is not a directive\n";

// fill(ptr, n, value): writes `value` to n bytes at ptr; declares that write.
kernels::KernelSpec fill_kernel(std::uint64_t duration_ns = 0) {
  kernels::KernelSpec spec;
  spec.name = "fill";
  spec.param_sizes = {sizeof(CUdeviceptr), sizeof(std::uint64_t), sizeof(std::uint32_t)};
  spec.body = [](const kernels::Launch& l, kernels::DeviceMemory& memory) {
    const auto ptr = l.arg<CUdeviceptr>(0);
    const auto n = l.arg<std::uint64_t>(1);
    const std::vector<unsigned char> bytes(n, static_cast<unsigned char>(l.arg<std::uint32_t>(2)));
    memory.write(ptr, bytes.data(), n);
  };
  spec.accesses = [](const kernels::Launch& l) {
    return kernels::Accesses{{}, {{l.arg<CUdeviceptr>(0), l.arg<std::uint64_t>(1)}}};
  };
  spec.duration_ns = duration_ns;
  return spec;
}

class KernelTest : public StreamTest {
 protected:
  void SetUp() override {
    StreamTest::SetUp();
    kernels::clear_kernels();
  }
  void TearDown() override {
    kernels::clear_kernels();
    StreamTest::TearDown();
  }
  static CUmodule load(const char* image = kPtx) {
    CUmodule m = nullptr;
    EXPECT_EQ(cu().cuModuleLoadData(&m, image), CUDA_SUCCESS);
    return m;
  }
  static CUfunction function(CUmodule m, const char* name) {
    CUfunction f = nullptr;
    EXPECT_EQ(cu().cuModuleGetFunction(&f, m, name), CUDA_SUCCESS) << name;
    return f;
  }
  static CUresult launch_fill(CUfunction f, CUstream s, CUdeviceptr ptr, std::uint64_t n,
                              std::uint32_t value) {
    void* params[] = {&ptr, &n, &value};
    return cu().cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, s, params, nullptr);
  }
};

TEST_F(KernelTest, ModulesDeclareEntriesAndFindRegisteredKernels) {
  start(Schedule::kEager);
  CUmodule m = load();
  CUfunction opaque = function(m, "opaque");
  EXPECT_EQ(function(m, "opaque"), opaque);  // one handle per name
  EXPECT_NE(function(m, "second"), nullptr);
  CUfunction f = nullptr;
  EXPECT_EQ(cu().cuModuleGetFunction(&f, m, "fill"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cu().cuModuleGetFunction(&f, m, "foo"), CUDA_ERROR_NOT_FOUND);  // ".entryfoo"
  EXPECT_EQ(cu().cuModuleGetFunction(&f, m, "opaq"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(f, nullptr);
  kernels::register_kernel(fill_kernel());
  EXPECT_NE(function(m, "fill"), nullptr);
  // An image that declares nothing still finds registered kernels.
  CUmodule binary = load(".version 8.0\n.target sm_90\n");
  EXPECT_NE(function(binary, "fill"), nullptr);
  EXPECT_EQ(cu().cuModuleGetFunction(&f, binary, "opaque"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cu().cuModuleUnload(binary), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(KernelTest, ModuleCallsRejectBadInput) {
  start(Schedule::kEager);
  CUmodule m = nullptr;
  EXPECT_EQ(cu().cuModuleLoadData(nullptr, kPtx), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuModuleLoadData(&m, nullptr), CUDA_ERROR_INVALID_VALUE);
  m = load();
  CUfunction f = nullptr;
  EXPECT_EQ(cu().cuModuleGetFunction(nullptr, m, "opaque"), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuModuleGetFunction(&f, m, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuModuleGetFunction(&f, nullptr, "opaque"), CUDA_ERROR_INVALID_HANDLE);
  CUfunction opaque = function(m, "opaque");
  EXPECT_EQ(cu().cuModuleUnload(m), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuModuleUnload(nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuModuleGetFunction(&f, m, "opaque"), CUDA_ERROR_INVALID_HANDLE);
  // A function of an unloaded module is no function any more.
  EXPECT_EQ(cu().cuLaunchKernel(opaque, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  // Without a current context.
  ASSERT_EQ(cu().cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuModuleLoadData(&m, kPtx), CUDA_ERROR_INVALID_CONTEXT);
}

TEST_F(KernelTest, ARegisteredKernelRunsOnItsStreamInVirtualTimeWithItsArguments) {
  start(Schedule::kAdversarial);
  kernels::register_kernel(fill_kernel(50000));
  CUfunction f = function(load(), "fill");
  CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
  const CUdeviceptr d = alloc(256);
  ASSERT_EQ(launch_fill(f, s, d + 16, 100, 0x42), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 1u);  // adversarial: nothing ran yet
  // Reading before synchronising sees the old bytes, and is a race the detector reports.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(byte_at(d + 16), 0);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(control::race_count(), 1u);
  ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 0u);
  unsigned char host[256] = {};
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(host, d, 256), CUDA_SUCCESS);
  EXPECT_EQ(host[15], 0);
  EXPECT_EQ(host[16], 0x42);
  EXPECT_EQ(host[115], 0x42);
  EXPECT_EQ(host[116], 0);
  // Its duration is the registered one: two back-to-back launches between events.
  CUevent a = nullptr, b = nullptr;
  ASSERT_EQ(cu().cuEventCreate(&a, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventCreate(&b, 0), CUDA_SUCCESS);
  ASSERT_EQ(launch_fill(f, s, d, 1, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(a, s), CUDA_SUCCESS);
  ASSERT_EQ(launch_fill(f, s, d, 1, 2), CUDA_SUCCESS);
  ASSERT_EQ(launch_fill(f, s, d, 1, 3), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(b, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventSynchronize(b), CUDA_SUCCESS);
  float ms = 0;
  ASSERT_EQ(cu().cuEventElapsedTime_v2(&ms, a, b), CUDA_SUCCESS);
  EXPECT_FLOAT_EQ(ms, 0.1f);  // 2 x 50 us, queued back to back
  EXPECT_EQ(byte_at(d), 3);
  EXPECT_EQ(control::race_count(), 1u);  // only the early read above
}

TEST_F(KernelTest, TheMachinesKernelDurationIsTheDefault) {
  MachineSpec m = load_machine("4xh100");
  m.streams.timing.kernel_ns = 7000;
  control::reset(m);
  init_and_make_current(0);
  kernels::register_kernel(fill_kernel());
  CUfunction f = function(load(), "fill");
  CUfunction opaque = function(load(), "opaque");
  CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
  const CUdeviceptr d = alloc(8);
  CUevent a = nullptr, b = nullptr;
  ASSERT_EQ(cu().cuEventCreate(&a, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventCreate(&b, 0), CUDA_SUCCESS);
  ASSERT_EQ(launch_fill(f, s, d, 1, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(a, s), CUDA_SUCCESS);
  ASSERT_EQ(launch_fill(f, s, d, 1, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuLaunchKernel(opaque, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(b, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventSynchronize(b), CUDA_SUCCESS);
  float ms = 0;
  ASSERT_EQ(cu().cuEventElapsedTime_v2(&ms, a, b), CUDA_SUCCESS);
  EXPECT_FLOAT_EQ(ms, 0.014f);
}

TEST_F(KernelTest, DeclaredRangesReachTheRaceDetector) {
  start(Schedule::kEager);
  kernels::register_kernel(fill_kernel());
  CUfunction f = function(load(), "fill");
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  const CUdeviceptr d = alloc(256);
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(launch_fill(f, a, d, 128, 1), CUDA_SUCCESS);
  ASSERT_EQ(launch_fill(f, b, d + 128, 128, 2), CUDA_SUCCESS);  // disjoint: no race
  EXPECT_EQ(control::race_count(), 0u);
  ASSERT_EQ(launch_fill(f, b, d + 64, 16, 3), CUDA_SUCCESS);  // overlaps a's range
  ::testing::internal::GetCapturedStderr();
  const std::vector<control::Race> races = control::races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].kind, control::RaceKind::kDataRace);
  EXPECT_EQ(races[0].first.name, "kernel fill");
  EXPECT_EQ(races[0].second.name, "kernel fill");
  EXPECT_EQ(races[0].first.queue, "dev0/stream 1 (non-blocking)");
  EXPECT_EQ(races[0].begin, d + 64);
  EXPECT_EQ(races[0].bytes, 16u);
}

TEST_F(KernelTest, AnUnregisteredKernelIsOpaqueWithUnknownAccesses) {
  start(Schedule::kEager);
  CUfunction opaque = function(load(), "opaque");
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  const CUdeviceptr d = alloc(64);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 7, 64, a), CUDA_SUCCESS);
  ::testing::internal::CaptureStderr();
  CUdeviceptr arg = d;
  void* params[] = {&arg};  // not read: `opaque` declares no parameters
  ASSERT_EQ(cu().cuLaunchKernel(opaque, 4, 1, 1, 32, 1, 1, 0, b, params, nullptr), CUDA_SUCCESS);
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::vector<control::Race> races = control::races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].kind, control::RaceKind::kUnknownAccesses);
  EXPECT_EQ(races[0].first.name, "cuMemsetD8Async");
  EXPECT_EQ(races[0].second.name, "kernel opaque");
  EXPECT_TRUE(races[0].second.unknown);
  EXPECT_NE(err.find("possible race: unknown accesses"), std::string::npos);
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(byte_at(d), 7);  // no effect on memory
  // Ordered with everything: no report.
  ASSERT_EQ(cu().cuLaunchKernel(opaque, 1, 1, 1, 1, 1, 1, 0, b, nullptr, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(control::race_count(), 1u);
}

TEST_F(KernelTest, LaunchRejectsBadInput) {
  start(Schedule::kEager);
  kernels::register_kernel(fill_kernel());
  CUfunction f = function(load(), "fill");
  const CUdeviceptr d = alloc(64);
  CUdeviceptr ptr = d;
  std::uint64_t n = 8;
  std::uint32_t v = 1;
  void* params[] = {&ptr, &n, &v};
  auto launch = [&](CUfunction fn, unsigned gx, unsigned bx, unsigned by, unsigned bz, CUstream s,
                    void** p, void** extra) {
    return cu().cuLaunchKernel(fn, gx, 1, 1, bx, by, bz, 0, s, p, extra);
  };
  EXPECT_EQ(launch(nullptr, 1, 1, 1, 1, nullptr, params, nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(launch(reinterpret_cast<CUfunction>(&ptr), 1, 1, 1, 1, nullptr, params, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(launch(f, 0, 1, 1, 1, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(f, 1, 0, 1, 1, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(f, 1, 1025, 1, 1, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(f, 1, 32, 32, 2, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(f, 1, 1, 1, 65, nullptr, params, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuLaunchKernel(f, 1, 65536, 1, 1, 1, 1, 0, nullptr, params, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  void* extra[] = {nullptr};
  EXPECT_EQ(launch(f, 1, 1, 1, 1, nullptr, params, extra), CUDA_ERROR_INVALID_VALUE);
  // `extra` without its buffer and size (a packed buffer that works: module_api_test.cpp).
  EXPECT_EQ(launch(f, 1, 1, 1, 1, nullptr, nullptr, extra), CUDA_ERROR_INVALID_VALUE);
  // A registered kernel's declared parameters must be there.
  EXPECT_EQ(launch(f, 1, 1, 1, 1, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  void* holes[] = {&ptr, nullptr, &v};
  EXPECT_EQ(launch(f, 1, 1, 1, 1, nullptr, holes, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(f, 1, 1024, 1, 1, nullptr, params, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(launch(f, 2147483647, 1, 1, 1, nullptr, params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(control::live_objects().allocations, 1u);
}

TEST_F(KernelTest, ALaunchOnAStreamOfAnotherContextIsAnInvalidHandle) {
  start(Schedule::kEager);
  kernels::register_kernel(fill_kernel());
  CUfunction f = function(load(), "fill");  // device 0's context
  const CUdeviceptr d = alloc(64);
  CUcontext other = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&other, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(other), CUDA_SUCCESS);
  CUstream s1 = make_stream(0);
  EXPECT_EQ(launch_fill(f, s1, d, 8, 1), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(launch_fill(f, nullptr, d, 8, 1), CUDA_ERROR_INVALID_HANDLE);  // dev1's legacy
  cu().cuStreamDestroy_v2(s1);
}

// Note [Illegal addresses]: declared ranges outside every allocation launch, and the kernel
// faults when it runs: the synchronisation that completes it answers 700, and the error
// stays (every later call touching the device answers it), under every schedule.
TEST_F(KernelTest, AKernelOutsideItsMemoryFaultsAtTheNextSynchronisation) {
  for (Schedule schedule : {Schedule::kEager, Schedule::kAdversarial}) {
    SCOPED_TRACE(static_cast<int>(schedule));
    start(schedule);
    kernels::register_kernel(fill_kernel());
    CUfunction f = function(load(), "fill");
    const CUdeviceptr d = alloc(64);
    ASSERT_EQ(cu().cuMemsetD8_v2(d, 0, 64), CUDA_SUCCESS);
    EXPECT_EQ(launch_fill(f, nullptr, d, 65, 7), CUDA_SUCCESS);  // one byte too many
    EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    CUdeviceptr more = 0;
    EXPECT_EQ(cu().cuMemAlloc_v2(&more, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    control::clear_faults();
    std::vector<unsigned char> host(64, 1);
    ASSERT_EQ(cu().cuMemcpyDtoH_v2(host.data(), d, host.size()), CUDA_SUCCESS);
    EXPECT_EQ(host, std::vector<unsigned char>(64, 0));  // the faulting kernel wrote nothing
  }
}

TEST_F(KernelTest, AThrowingAccessFunctionFailsTheLaunchAndAStrayBodyAccessFaults) {
  start(Schedule::kEager);
  kernels::KernelSpec spec;
  spec.name = "throws";
  spec.accesses = [](const kernels::Launch&) -> kernels::Accesses {
    throw std::runtime_error("no ranges today");
  };
  kernels::register_kernel(spec);
  kernels::KernelSpec stray;
  stray.name = "stray";
  stray.body = [](const kernels::Launch&, kernels::DeviceMemory& memory) {
    memory.store<std::uint32_t>(0x10, 5);  // no allocation there
  };
  kernels::register_kernel(stray);
  CUmodule m = load();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(
      cu().cuLaunchKernel(function(m, "throws"), 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr),
      CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(
      cu().cuLaunchKernel(function(m, "stray"), 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr),
      CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);  // Note [Illegal addresses]
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "mockdev: kernel throws: the access function threw: no ranges today\n"
            "mockdev: kernel stray: write of [0x10, +4 bytes) is outside every allocation: "
            "an illegal address (700)\n");
}

TEST_F(KernelTest, RegistrationsAreCheckedListedAndSurviveAReset) {
  kernels::KernelSpec unnamed;
  try {
    kernels::register_kernel(unnamed);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "mockdev::kernels::register_kernel: expected a kernel name, got ''");
  }
  kernels::KernelSpec zero = fill_kernel();
  zero.param_sizes[1] = 0;
  try {
    kernels::register_kernel(zero);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "mockdev::kernels::register_kernel: kernel 'fill': parameter 1: expected a "
                 "size in bytes, got 0");
  }
  kernels::register_kernel(fill_kernel());
  kernels::KernelSpec other;
  other.name = "a";
  kernels::register_kernel(other);
  EXPECT_EQ(kernels::registered_kernels(), (std::vector<std::string>{"a", "fill"}));
  control::reset(load_machine("2xa100"));
  EXPECT_EQ(kernels::registered_kernels(), (std::vector<std::string>{"a", "fill"}));
  EXPECT_TRUE(kernels::unregister_kernel("a"));
  EXPECT_FALSE(kernels::unregister_kernel("a"));
  EXPECT_EQ(kernels::registered_kernels(), (std::vector<std::string>{"fill"}));
  kernels::clear_kernels();
  EXPECT_TRUE(kernels::registered_kernels().empty());
}

TEST(KernelLaunch, ArgThrowsForAMissingOrMisSizedParameter) {
  kernels::Launch launch;
  launch.args.push_back(std::vector<std::byte>(4));
  EXPECT_EQ(launch.arg<std::uint32_t>(0), 0u);
  EXPECT_THROW(launch.arg<std::uint64_t>(0), std::out_of_range);
  EXPECT_THROW(launch.arg<std::uint32_t>(1), std::out_of_range);
}

}  // namespace
}  // namespace mockdev::testing
