// The public memory API over a mocked backend (no driver): initialisation creates one
// allocator per device after reading ACCEL_ALLOC_CONF, a malformed setting stops
// initialisation before the backend is touched, device arguments are resolved and checked
// as elsewhere, the backend memory provider maps stream ids to the runtime's stream
// handles, and backend failures surface with their kind.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include "accel/accelerator.h"
#include "accel/lazy_init.h"
#include "accel/memory.h"
#include "core/backend_override.h"
#include "error_check.h"
#include "fake_machine.h"
#include "mock_backend.h"
#include "scoped_env.h"

namespace accel::test {
namespace {

using ::testing::_;
using ::testing::AnyNumber;
using ::testing::NiceMock;

constexpr std::size_t kMiB = 1024 * 1024;

// MockBackend with the raw memory group: bump-pointer addresses per device, or a scripted
// failure.
class MemoryBackend : public NiceMock<MockBackend> {
 public:
  detail::Result<detail::DevicePointer> allocate(int index, std::size_t bytes) noexcept override {
    ++allocations;
    last_allocation = bytes;
    if (failure) return *failure;
    const std::uintptr_t address = next[index] == 0 ? base(index) : next[index];
    next[index] = address + bytes;
    return detail::DevicePointer{address};
  }
  detail::Status deallocate(int, detail::DevicePointer) noexcept override {
    ++deallocations;
    return {};
  }

  static std::uintptr_t base(int index) {
    return (static_cast<std::uintptr_t>(index) + 1) << 40;
  }

  std::optional<detail::Status> failure;
  std::map<int, std::uintptr_t> next;
  int allocations = 0;
  int deallocations = 0;
  std::size_t last_allocation = 0;
};

class MemoryApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto backend = std::make_unique<MemoryBackend>();
    backend->install_defaults(std::make_shared<FakeMachine>(4));
    backend_ = backend.get();
    override_.emplace(std::move(backend));
  }
  void TearDown() override {
    ::testing::Mock::VerifyAndClearExpectations(backend_);
    override_.reset();
  }
  MemoryBackend& backend() { return *backend_; }

 private:
  MemoryBackend* backend_ = nullptr;
  std::optional<detail::ScopedBackendOverride> override_;
};

TEST_F(MemoryApiTest, InitialisationCreatesOneAllocatorPerDevice) {
  EXPECT_FALSE(is_allocator_initialized());
  init();
  EXPECT_TRUE(is_allocator_initialized());
  for (int device = 0; device < 4; ++device) {
    EXPECT_EQ(memory_stats(device).size(), 122u) << device;
  }
  EXPECT_TRUE(is_error(catch_error([] { memory_stats(4); }), ErrorKind::kDriver,
                       "CUDA error: invalid device ordinal (memory_stats: device=4, "
                       "device_count=4)"));
  EXPECT_TRUE(is_error(catch_error([] { memory_allocated(-1); }), ErrorKind::kIndex,
                       "Device index -1 is out of range for DeviceIndex [0, 127]"));
  EXPECT_EQ(backend().allocations, 0) << "creating the allocators takes no memory";
}

TEST_F(MemoryApiTest, MalformedAllocConfStopsInitialisationBeforeTheBackend) {
  ScopedEnv conf("ACCEL_ALLOC_CONF", "max_split_size_mb:128,bogus:1");
  EXPECT_CALL(backend(), initialize()).Times(0);
  // No known key is close to 'bogus', so the message lists them all.
  const std::string message =
      "ACCEL_ALLOC_CONF: unknown key 'bogus' (known keys: max_split_size_mb, "
      "max_non_split_rounding_mb, roundup_power2_divisions, garbage_collection_threshold, "
      "expandable_segments, release_lock_on_cudamalloc, pinned_use_cuda_host_register, "
      "pinned_num_register_threads, pinned_use_background_threads, backend) in 'bogus:1'";
  EXPECT_TRUE(is_error(catch_error([] { init(); }), ErrorKind::kConfig, message));
  EXPECT_FALSE(is_initialized());
  EXPECT_TRUE(is_error(catch_error([] { DataPtr x = allocate(16); }), ErrorKind::kConfig, message))
      << "every initialising call reports it";
}

TEST_F(MemoryApiTest, SegmentsComeFromTheBackendOfTheStreamsDevice) {
  DataPtr small = allocate(100, Stream::default_stream(2));
  EXPECT_EQ(backend().allocations, 1);
  EXPECT_EQ(backend().last_allocation, 2 * kMiB);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.get()), MemoryBackend::base(2));
  EXPECT_EQ(small.device(), 2);
  EXPECT_EQ(small.size(), 100u);
  EXPECT_EQ(memory_allocated(2), 512);
  EXPECT_EQ(memory_allocated(0), 0);
  small.reset();
  empty_cache();
  EXPECT_EQ(backend().deallocations, 1);
  EXPECT_EQ(memory_reserved(2), 0);
}

TEST_F(MemoryApiTest, RecordStreamRecordsAnEventOnThatStreamsHandle) {
  const Stream side(1);
  DataPtr data = allocate(4096, Stream::default_stream(1));
  record_stream(data, side);
  EXPECT_CALL(backend(), create_event(1, _)).Times(1);
  EXPECT_CALL(backend(), record_event(1, _, detail::StreamHandle{side.native_handle()}))
      .Times(1);
  data.reset();
  EXPECT_EQ(memory_stats(1).at("active_bytes.all.current"), 4096) << "pending its event";
}

TEST_F(MemoryApiTest, ADriverFailureOtherThanOutOfMemoryIsRaisedAsItIs) {
  init();
  backend().failure = detail::Status(ErrorKind::kDriver, "allocate: cuMemAlloc: CUDA error: "
                                                         "an illegal memory access was "
                                                         "encountered (device=0)");
  EXPECT_TRUE(is_error(catch_error([] { DataPtr x = allocate(1024); }), ErrorKind::kDriver,
                       "allocate: cuMemAlloc: CUDA error: an illegal memory access was "
                       "encountered (device=0)"));
  EXPECT_EQ(backend().allocations, 1) << "no retry for a non-OOM failure";
  EXPECT_EQ(memory_stats(0).at("num_ooms"), 0);
}

TEST_F(MemoryApiTest, ABackendWithoutTheMemoryGroupSaysSo) {
  // The mock's base class answers kUnsupported for raw memory.
  ScopedEnv conf("ACCEL_ALLOC_CONF", std::nullopt);
  detail::ScopedBackendOverride plain([] {
    auto b = std::make_unique<NiceMock<MockBackend>>();
    b->install_defaults(std::make_shared<FakeMachine>(1));
    return b;
  }());
  EXPECT_TRUE(is_error_containing(catch_error([] { DataPtr x = allocate(16); }),
                                  ErrorKind::kUnsupported, "does not support"));
}

TEST_F(MemoryApiTest, FractionValuesAreWrittenAsPythonWritesThem) {
  EXPECT_TRUE(is_error(catch_error([] { set_per_process_memory_fraction(1.5); }),
                       ErrorKind::kValue, "Invalid fraction value: 1.5. Allowed range: 0~1"));
  EXPECT_TRUE(is_error(catch_error([] { set_per_process_memory_fraction(-1e-20); }),
                       ErrorKind::kValue, "Invalid fraction value: -1e-20. Allowed range: 0~1"));
  EXPECT_TRUE(is_error(catch_error([] { set_per_process_memory_fraction(-INFINITY); }),
                       ErrorKind::kValue, "Invalid fraction value: -inf. Allowed range: 0~1"));
  EXPECT_FALSE(is_initialized());
  set_per_process_memory_fraction(0.0, 3);
  EXPECT_EQ(get_per_process_memory_fraction(3), 0.0);
  EXPECT_TRUE(is_error_containing(catch_error([] { DataPtr x = allocate(16, Stream(3)); }),
                                  ErrorKind::kOutOfMemory, "Tried to allocate 2.00 MiB. GPU 3"));
}

TEST_F(MemoryApiTest, AllocatorSettingsBeforeInitialisationAreTheEnvironmentsAndInitialiseNothing) {
  ScopedEnv conf("ACCEL_ALLOC_CONF", "max_split_size_mb:64");
  const std::string settings = get_allocator_settings();
  EXPECT_NE(settings.find("max_split_size_mb:64"), std::string::npos) << settings;
  EXPECT_FALSE(is_initialized());
  set_allocator_settings("max_split_size_mb:256");
  EXPECT_TRUE(is_initialized());
  EXPECT_EQ(memory_stats().at("max_split_size"), static_cast<std::int64_t>(256 * kMiB));
}

}  // namespace
}  // namespace accel::test
