// Mapped virtual memory (Note [Virtual memory] in core/virtual_memory.h) under the stream
// simulation: kernels and async memsets reach it across adjacent mappings, the race
// detector sees it, and a launch touching memory without access is refused.

#include <cstdint>
#include <cstring>
#include <vector>

#include "mockdev/kernels.h"
#include "mockdev/races.h"

#include "stream_test.h"

namespace mockdev::testing {
namespace {

constexpr std::uint64_t kPage = 2ULL << 20;

constexpr const char* kPtx =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry fill(\n  .param .u64 p,\n  .param .u64 n,\n  .param .u32 v\n)\n{\n  ret;\n}\n";

// fill(ptr, n, value): writes `value` to n bytes at ptr; declares that write.
kernels::KernelSpec fill_kernel() {
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
  return spec;
}

class VmmStreams : public StreamTest {
 protected:
  void SetUp() override {
    StreamTest::SetUp();
    kernels::clear_kernels();
  }
  void TearDown() override {
    kernels::clear_kernels();
    StreamTest::TearDown();
  }
  // Two adjacent 2 MiB mappings on device 0 in a fresh reservation; access granted when
  // `grant`.
  static CUdeviceptr two_mappings(bool grant) {
    CUdeviceptr va = 0;
    EXPECT_EQ(cu().cuMemAddressReserve(&va, 2 * kPage, 0, 0, 0), CUDA_SUCCESS);
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    for (int i = 0; i < 2; ++i) {
      CUmemGenericAllocationHandle h = 0;
      EXPECT_EQ(cu().cuMemCreate(&h, kPage, &prop, 0), CUDA_SUCCESS);
      EXPECT_EQ(cu().cuMemMap(va + i * kPage, kPage, 0, h, 0), CUDA_SUCCESS);
      EXPECT_EQ(cu().cuMemRelease(h), CUDA_SUCCESS);  // as expandable segments do
    }
    if (grant) {
      CUmemAccessDesc desc{};
      desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      desc.location.id = 0;
      desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      EXPECT_EQ(cu().cuMemSetAccess(va, 2 * kPage, &desc, 1), CUDA_SUCCESS);
    }
    return va;
  }
  static CUresult launch_fill(CUfunction f, CUstream s, CUdeviceptr ptr, std::uint64_t n,
                              std::uint32_t value) {
    void* params[] = {&ptr, &n, &value};
    return cu().cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, s, params, nullptr);
  }
  static CUfunction fill_function() {
    kernels::register_kernel(fill_kernel());
    CUmodule m = nullptr;
    EXPECT_EQ(cu().cuModuleLoadData(&m, kPtx), CUDA_SUCCESS);
    CUfunction f = nullptr;
    EXPECT_EQ(cu().cuModuleGetFunction(&f, m, "fill"), CUDA_SUCCESS);
    return f;
  }
};

TEST_F(VmmStreams, AKernelWritesAcrossAdjacentMappingsWhenItRuns) {
  start(Schedule::kAdversarial);
  const CUfunction f = fill_function();
  CUstream s = make_stream(CU_STREAM_NON_BLOCKING);
  const CUdeviceptr va = two_mappings(true);
  const CUdeviceptr at = va + kPage - 10;
  ASSERT_EQ(launch_fill(f, s, at, 20, 0x5a), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 1u);
  ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  std::vector<unsigned char> host(22, 0);
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(host.data(), at - 1, host.size()), CUDA_SUCCESS);
  std::vector<unsigned char> expected(22, 0x5a);
  expected.front() = 0;
  expected.back() = 0;
  EXPECT_EQ(host, expected);
  EXPECT_EQ(control::race_count(), 0u);
}

// A memset into mapped memory without access is refused at the call, as the H100 refused a
// copy (Recording 2); a kernel faults when it runs (Note [Illegal addresses]).
TEST_F(VmmStreams, MemoryWithoutAccessRefusesAMemsetAndFaultsAKernel) {
  start(Schedule::kEager);
  const CUfunction f = fill_function();
  const CUdeviceptr va = two_mappings(false);
  EXPECT_EQ(cu().cuMemsetD8Async(va, 1, 16, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch_fill(f, nullptr, va, 16, 1), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
  control::clear_faults();
}

TEST_F(VmmStreams, TwoStreamsWritingMappedMemoryRace) {
  start(Schedule::kEager);
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  const CUdeviceptr va = two_mappings(true);
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(cu().cuMemsetD8Async(va, 1, 2 * kPage, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(va + kPage + 64, 2, 128, b), CUDA_SUCCESS);
  ::testing::internal::GetCapturedStderr();
  const std::vector<control::Race> races = control::races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].kind, control::RaceKind::kDataRace);
  EXPECT_EQ(races[0].begin, va + kPage + 64);
  EXPECT_EQ(races[0].bytes, 128u);
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(byte_at(va + kPage + 64), 2);
  EXPECT_EQ(byte_at(va + kPage + 192), 1);
}

// Note [Freed memory] in core/timeline.h: work on memory unmapped while it was pending
// (cuMemUnmap does not wait) moves nothing when it completes: the host buffer keeps its
// bytes and nothing is written back to life.
TEST_F(VmmStreams, WorkOnMemoryUnmappedMeanwhileMovesNothing) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  const CUdeviceptr va = two_mappings(true);
  void* raw = nullptr;
  ASSERT_EQ(cu().cuMemAllocHost_v2(&raw, 4), CUDA_SUCCESS);
  std::memset(raw, 0x11, 4);
  ASSERT_EQ(cu().cuMemsetD8Async(va, 9, 4, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemcpyDtoHAsync_v2(raw, va, 4, s), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 2u);
  ASSERT_EQ(cu().cuMemUnmap(va, kPage), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(static_cast<unsigned char*>(raw)[0], 0x11);
  ASSERT_EQ(cu().cuMemFreeHost(raw), CUDA_SUCCESS);
}

}  // namespace
}  // namespace mockdev::testing
