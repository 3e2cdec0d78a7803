// Conformance: the caching allocator through the whole stack (public API -> allocator ->
// backend -> driver), once per backend profile. Restates the memory tests of
// PyTorch's test/test_accelerator.py, test_cuda.py and test_cuda_multigpu.py with exact
// byte counts: sizes follow PyTorch's CUDACachingAllocator.cpp (512-byte rounding, 2 MiB small
// segments, 20 MiB large segments), so every delta below is computed, not observed.
// Stream-ordering tests run under the simulated hardware's adversarial schedule (nothing
// completes until something waits for it), so reuse before the recorded work is done would
// show every time.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "accel/accel.h"
#include "accel/memory.h"
#include "child_process.h"
#include "conformance_test.h"
#include "error_check.h"
#include "memory_checks.h"
#include "mockdev/control.h"
#include "runtime_work.h"

namespace accel::test {
namespace {

using Memory = ConformanceTest;

std::uintptr_t address(const DataPtr& data) { return reinterpret_cast<std::uintptr_t>(data.get()); }

// Fills `bytes` of device memory at `pointer` with `value` through the runtime and reads them
// back: the memory is usable (test_out_of_memory: "a pre-existing tensor is still usable").
void expect_usable(void* pointer, std::size_t bytes, unsigned char value) {
  const Stream stream = current_stream();
  fill(pointer, value, bytes, stream);
  EXPECT_EQ(read_back(pointer, bytes, stream), Bytes(bytes, value));
}

// Everything the test allocated is freed and the cache emptied: the driver holds nothing.
void expect_driver_empty(const BackendProfile& p) {
  empty_cache();
  EXPECT_EQ(memory_reserved(0), 0);
  if (p.on_mock) {
    EXPECT_EQ(mockdev::control::live_objects().allocations, 0u);
  }
}

TEST_P(Memory, StatsBeforeInitialisationAreEmptyAndInitialiseNothing) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    EXPECT_FALSE(is_allocator_initialized());
    EXPECT_EQ(memory_stats(), MemoryStats{});
    EXPECT_EQ(memory_stats(3), MemoryStats{}) << "no device resolution before init";
    EXPECT_EQ(memory_allocated(), 0);
    EXPECT_EQ(max_memory_allocated(), 0);
    EXPECT_EQ(memory_reserved(), 0);
    EXPECT_EQ(max_memory_reserved(), 0);
    EXPECT_EQ(host_memory_stats(), MemoryStats{});
    empty_cache();
    empty_host_cache();  // test_empty_host_cache: callable before any allocation
    EXPECT_TRUE(memory_snapshot().segments.empty());
    EXPECT_FALSE(is_initialized());
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::call_count(p.init_entry_point), 0u);
    }
  });
}

TEST_P(Memory, ResetWithAnExplicitIndexBeforeInitialisationAsksForInit) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    EXPECT_TRUE(is_error(catch_error([] { reset_peak_memory_stats(1); }), ErrorKind::kRuntime,
                         "Invalid device argument 1: did you call init?"));
    EXPECT_TRUE(is_error(catch_error([] { reset_accumulated_memory_stats(0); }),
                         ErrorKind::kRuntime, "Invalid device argument 0: did you call init?"));
    EXPECT_FALSE(is_initialized());
    reset_peak_memory_stats();  // the current device: initialises
    EXPECT_TRUE(is_initialized());
    EXPECT_TRUE(is_allocator_initialized());
    reset_accumulated_memory_stats(0);  // an explicit index works once initialised
  });
}

// test_accelerator.test_memory_stats.
TEST_P(Memory, AcceleratorMemoryStatsKeysAndExactActiveBytes) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    {
      DataPtr warm = allocate(4);
    }
    EXPECT_TRUE(is_allocator_initialized());
    const MemoryStats stats = memory_stats();
    EXPECT_EQ(stats.size(), 122u);
    for (const char* family : {"allocated_bytes", "reserved_bytes", "active_bytes", "requested_bytes"}) {
      for (const char* pool : {"all", "small_pool", "large_pool"}) {
        for (const char* field : {"peak", "current", "allocated", "freed"}) {
          const std::string key = std::string(family) + "." + pool + "." + field;
          EXPECT_EQ(stats.count(key), 1u) << key;
        }
      }
    }
    for (const char* key : {"num_alloc_retries", "num_ooms", "max_split_size",
                            "num_sync_all_streams", "num_device_alloc", "num_device_free",
                            "oversize_allocations.current", "oversize_segments.freed",
                            "inactive_split_bytes.small_pool.peak", "segment.large_pool.allocated"}) {
      EXPECT_EQ(stats.count(key), 1u) << key;
    }
    EXPECT_EQ(stats.at("max_split_size"), -1);
    const std::int64_t prev_allocated = memory_allocated();
    const std::int64_t prev_reserved = memory_reserved();
    const std::int64_t prev_max_allocated = max_memory_allocated();
    const std::int64_t prev_max_reserved = max_memory_reserved();
    EXPECT_GE(prev_allocated, 0);
    EXPECT_GE(prev_reserved, 0);
    EXPECT_EQ(prev_max_allocated, 512) << "the 4-byte tensor, rounded to 512";
    EXPECT_EQ(prev_max_reserved, 2 * kMiB) << "one small segment";
    {
      DataPtr ones = allocate(256 * 4);
      EXPECT_EQ(memory_allocated(), prev_allocated + 1024);
      EXPECT_GE(memory_reserved(), prev_reserved);
    }
    empty_cache();
    reset_peak_memory_stats();
    EXPECT_EQ(memory_allocated(), prev_allocated);
    EXPECT_EQ(memory_reserved(), 0);
    reset_accumulated_memory_stats();
    const std::int64_t max_allocated_after_reset = max_memory_allocated();
    const std::int64_t max_reserved_after_reset = max_memory_reserved();
    const std::int64_t active_before = memory_stats().at("active_bytes.all.current");
    {
      DataPtr randn = allocate(256 * 4);
      const MemoryStats during = memory_stats();
      EXPECT_EQ(during.at("active_bytes.all.current"), active_before + 1024);
      EXPECT_EQ(during.at("active_bytes.all.freed"), 0);
    }
    empty_cache();
    const MemoryStats after = memory_stats();
    EXPECT_EQ(after.at("active_bytes.all.current"), active_before);
    EXPECT_EQ(after.at("active_bytes.all.freed"), 1024);
    reset_peak_memory_stats();
    EXPECT_EQ(max_memory_allocated(), max_allocated_after_reset);
    EXPECT_EQ(max_memory_reserved(), max_reserved_after_reset);
    expect_driver_empty(p);
  });
}

// test_cuda.test_memory_allocation.
TEST_P(Memory, RawAllocAndDeleteMoveAllocatedByTheRoundedSize) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    init();
    const std::int64_t before = memory_allocated();
    void* pointer = raw_alloc(1);
    EXPECT_NE(pointer, nullptr);
    EXPECT_EQ(memory_allocated(), before + 512);
    EXPECT_EQ(memory_stats().at("requested_bytes.all.current"), 1);
    raw_delete(pointer);
    EXPECT_EQ(memory_allocated(), before);
    EXPECT_EQ(raw_alloc(0), nullptr);
    EXPECT_EQ(memory_allocated(), before) << "0 bytes change nothing";
    DataPtr none = allocate(0);
    EXPECT_FALSE(none);
    EXPECT_EQ(memory_stats().at("allocation.all.allocated"), 1) << "only the 1-byte request";
    expect_driver_empty(p);
  });
}

// test_cuda.test_memory_stats: after empty_cache and both resets the peaks equal the
// current values.
TEST_P(Memory, PeaksEqualCurrentAfterEmptyCacheAndResets) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    DataPtr kept = allocate(3 * kMiB);  // large pool: one 20 MiB segment
    {
      DataPtr gone = allocate(30 * kMiB);  // its own 30 MiB segment
    }
    EXPECT_EQ(max_memory_reserved(), 50 * kMiB);
    empty_cache();
    reset_peak_memory_stats();
    reset_accumulated_memory_stats();
    EXPECT_EQ(memory_allocated(), 3 * kMiB);
    EXPECT_EQ(memory_allocated(), max_memory_allocated());
    EXPECT_EQ(memory_reserved(), 20 * kMiB);
    EXPECT_EQ(memory_reserved(), max_memory_reserved());
    const std::int64_t active_before = memory_stats().at("active_bytes.all.current");
    {
      DataPtr small = allocate(1024);
      EXPECT_EQ(memory_stats().at("active_bytes.all.current"), active_before + 1024);
      EXPECT_EQ(memory_stats().at("active_bytes.all.freed"), 0);
    }
    EXPECT_EQ(memory_stats().at("active_bytes.all.current"), active_before);
    EXPECT_EQ(memory_stats().at("active_bytes.all.freed"), 1024);
    kept.reset();
    expect_driver_empty(p);
  });
}

// test_cuda.test_out_of_memory.
TEST_P(Memory, OutOfMemoryMessageReportAndTheDeviceStaysUsable) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    DataPtr existing = allocate(1024);
    const std::size_t huge = std::size_t{800000000} * 1024 * 1024 * 1024;
    try {
      DataPtr never = allocate(huge);
      ADD_FAILURE() << "800000000 GiB were allocated";
    } catch (const OutOfMemoryError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("Tried to allocate 800000000.00 GiB. GPU 0 has a total capacity of"),
                std::string::npos)
          << what;
      EXPECT_EQ(e.kind(), ErrorKind::kOutOfMemory);
      EXPECT_EQ(e.report().device, 0);
      EXPECT_EQ(e.report().requested_bytes, huge);
      EXPECT_EQ(e.report().allocation_bytes, huge);
      EXPECT_EQ(e.report().total_bytes, get_memory_info(0).total_bytes);
      EXPECT_EQ(e.report().allocated_bytes, 1024u);
      EXPECT_EQ(e.report().reserved_bytes, static_cast<std::size_t>(2 * kMiB));
    }
    EXPECT_EQ(memory_stats().at("num_ooms"), 1);
    const std::size_t exa = std::size_t{8000000000} * 1024 * 1024 * 1024;
    EXPECT_TRUE(is_error_containing(catch_error([&] { DataPtr never = allocate(exa); }),
                                    ErrorKind::kOutOfMemory,
                                    "Tried to allocate more than 1EB memory"));
    expect_usable(existing.get(), 1024, 0x5A);
    EXPECT_EQ(memory_allocated(), 1024) << "the OOM lost no live allocation";
    EXPECT_TRUE(memory_stats_match_snapshot(0));
    existing.reset();
    expect_driver_empty(p);
  });
}

// The OOM message names the visible index ("GPU 1"), not the physical one.
TEST_P(Memory, OutOfMemoryNamesTheVisibleIndex) {
  const BackendProfile& p = profile();
  run_isolated(
      [&p] {
        require_physical_devices(p, 4);
        const std::size_t huge = std::size_t{800000000} * 1024 * 1024 * 1024;
        EXPECT_TRUE(is_error_containing(
            catch_error([&] { DataPtr never = allocate(huge, Stream::default_stream(1)); }),
            ErrorKind::kOutOfMemory, "Tried to allocate 800000000.00 GiB. GPU 1 has a total capacity of"));
      },
      {{p.visibility_variable, "3,2"}});
}

// The OOM is worded for the backend's device type (Note [Out-of-memory wording per device
// type] in runtime/src/allocator/oom_message.h): CUDA's names PYTORCH_CUDA_ALLOC_CONF,
// XPU's ends by pointing at empty_cache; 1 EiB or more is refused in the backend's words.
TEST_P(Memory, OutOfMemoryIsWordedForTheBackendsDeviceType) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    const std::size_t huge = std::size_t{800000000} * 1024 * 1024 * 1024;
    try {
      DataPtr never = allocate(huge);
      ADD_FAILURE() << "800000000 GiB were allocated";
    } catch (const OutOfMemoryError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(p.error_name + " out of memory. Tried to allocate 800000000.00 GiB. "
                                          "GPU 0 has a total capacity of ",
                           0),
                0u)
          << what;
      const std::string tail =
          p.device_type_name == "xpu"
              ? " is reserved by PyTorch but unallocated. Please use `empty_cache` to release "
                "all unoccupied cached memory."
              : " is reserved by PyTorch but unallocated. If reserved but unallocated memory is "
                "large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
                "fragmentation.  See documentation for Memory Management  "
                "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";
      ASSERT_GE(what.size(), tail.size()) << what;
      EXPECT_EQ(what.substr(what.size() - tail.size()), tail) << what;
    }
    const std::size_t exa = std::size_t{1} << 60;
    try {
      DataPtr never = allocate(exa);
      ADD_FAILURE() << "1 EiB was allocated";
    } catch (const OutOfMemoryError& e) {
      EXPECT_EQ(std::string(e.what()),
                p.error_name + " out of memory. Tried to allocate more than 1EB memory.");
      EXPECT_EQ(e.device(), 0);
    }
    EXPECT_EQ(memory_stats().at("num_ooms"), 1) << "the 1 EiB refusal is not an OOM of a pool";
  });
}

// test_cuda.test_out_of_memory_retry, with the retry made visible: the second request does
// not fit next to the cached block, so the allocator releases the cache and retries.
TEST_P(Memory, OutOfMemoryRetryReleasesTheCacheAndRetries) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    init();
    const std::size_t total = get_memory_info(0).total_bytes;
    const std::size_t sixty = (total / 10 * 6) / (2 * kMiB) * (2 * kMiB);
    const std::size_t seventy = (total / 10 * 7) / (2 * kMiB) * (2 * kMiB);
    DataPtr first = allocate(sixty);
    EXPECT_TRUE(is_error_containing(catch_error([&] { DataPtr second = allocate(sixty); }),
                                    ErrorKind::kOutOfMemory, "Tried to allocate"));
    EXPECT_EQ(memory_stats().at("num_ooms"), 1);
    EXPECT_EQ(memory_allocated(), static_cast<std::int64_t>(sixty));
    first.reset();
    EXPECT_EQ(memory_reserved(), static_cast<std::int64_t>(sixty)) << "cached, not released";
    const std::int64_t retries_before = memory_stats().at("num_alloc_retries");
    DataPtr second = allocate(seventy);
    EXPECT_TRUE(second);
    EXPECT_EQ(memory_stats().at("num_alloc_retries"), retries_before + 1);
    EXPECT_EQ(memory_reserved(), static_cast<std::int64_t>(seventy));
    EXPECT_EQ(memory_stats().at("num_device_free"), 1);
    EXPECT_TRUE(memory_stats_match_snapshot(0));
    second.reset();
    expect_driver_empty(p);
  });
}

// test_cuda.test_set_per_process_memory_fraction.
TEST_P(Memory, SetPerProcessMemoryFraction) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    EXPECT_TRUE(is_error(catch_error([] { set_per_process_memory_fraction(-0.1); }),
                         ErrorKind::kValue, "Invalid fraction value: -0.1. Allowed range: 0~1"));
    EXPECT_TRUE(is_error(catch_error([] { set_per_process_memory_fraction(2.0); }),
                         ErrorKind::kValue, "Invalid fraction value: 2.0. Allowed range: 0~1"));
    EXPECT_TRUE(is_error(catch_error([] { set_per_process_memory_fraction(std::nan("")); }),
                         ErrorKind::kValue, "Invalid fraction value: nan. Allowed range: 0~1"));
    EXPECT_FALSE(is_initialized()) << "a bad value has no side effect";
    set_device_index(0);
    DataPtr prior = allocate(1024);
    set_per_process_memory_fraction(0.5, 0);
    const double total = static_cast<double>(get_memory_info(0).total_bytes);
    const auto fits = static_cast<std::size_t>(0.499 * total) -
                      static_cast<std::size_t>(max_memory_reserved(0));
    {
      DataPtr tmp = allocate(fits);
      EXPECT_TRUE(tmp);
    }
    empty_cache();
    EXPECT_TRUE(is_error_containing(
        catch_error([&] { DataPtr over = allocate(static_cast<std::size_t>(0.5 * total)); }),
        ErrorKind::kOutOfMemory, "out of memory"));
    expect_usable(prior.get(), 1024, 0x11);
    prior.reset();
    expect_driver_empty(p);
  });
}

// test_cuda.test_get_per_process_memory_fraction.
TEST_P(Memory, GetPerProcessMemoryFractionReturnsWhatWasSet) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 2);
    EXPECT_EQ(get_per_process_memory_fraction(), 1.0);
    for (double fraction : {0.0, 0.25, 0.7331, 1.0, 0.123456789}) {
      set_per_process_memory_fraction(fraction);
      EXPECT_EQ(get_per_process_memory_fraction(), fraction);
      EXPECT_EQ(get_per_process_memory_fraction(0), fraction);
    }
    set_per_process_memory_fraction(0.3, 1);
    EXPECT_EQ(get_per_process_memory_fraction(1), 0.3);
    EXPECT_EQ(get_per_process_memory_fraction(0), 0.123456789) << "per device";
    EXPECT_TRUE(is_error_containing(catch_error([&] { get_per_process_memory_fraction(count); }),
                                    ErrorKind::kDriver, "invalid device ordinal"));
  });
}

// test_cuda.test_record_stream: a block used on a side stream is not handed out again
// until the side stream's work queued at free time has completed, and then it is.
void record_stream_case(const BackendProfile& p, std::size_t offset) {
  require_physical_devices(p, 1);
  schedule_from_environment(p);
  set_device_index(0);
  const Stream side(0);
  DataPtr x = allocate(1024);
  const std::uintptr_t old = address(x);
  fill_async(x.get(), 1, 1024, side);
  record_stream(static_cast<char*>(x.get()) + offset, side);
  x.reset();
  EXPECT_EQ(memory_allocated(), 0);
  EXPECT_EQ(memory_stats().at("active_bytes.all.current"), 1024) << "pending its event";
  EXPECT_TRUE(memory_stats_match_snapshot(0));
  DataPtr y = allocate(1024);
  EXPECT_NE(address(y), old) << "reused while the side stream's work may still run";
  EXPECT_FALSE(side.query()) << "the adversarial schedule held the side work back";
  side.synchronize();
  DataPtr z = allocate(1024);
  EXPECT_EQ(address(z), old) << "the block came back once the work was done";
  y.reset();
  z.reset();
  empty_cache();
  EXPECT_EQ(memory_reserved(0), 0);
}

TEST_P(Memory, RecordStreamDelaysReuseUntilTheStreamsWorkIsDone) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds the side stream's work back with the adversarial schedule");
  run_isolated([&p] { record_stream_case(p, 0); }, kAdversarial);
}

// test_cuda.test_record_stream_on_shifted_view.
TEST_P(Memory, RecordStreamOnAShiftedViewProtectsTheWholeBlock) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds the side stream's work back with the adversarial schedule");
  run_isolated([&p] { record_stream_case(p, 256); }, kAdversarial);
}

TEST_P(Memory, BadPointersAndStreamsNameTheValue) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 2);
    int local = 0;
    char text[32];
    std::snprintf(text, sizeof text, "%p", static_cast<void*>(&local));
    EXPECT_TRUE(is_error(catch_error([&] { raw_delete(&local); }), ErrorKind::kValue,
                         "raw_delete: pointer " + std::string(text) +
                             " is not a live allocation of the caching allocator (nothing was "
                             "allocated: the runtime is not initialised)"));
    void* pointer = raw_alloc(4096);
    char name[32];
    std::snprintf(name, sizeof name, "%p", pointer);
    EXPECT_TRUE(is_error(catch_error([&] { record_stream(pointer, Stream::unchecked(0, 2)); }),
                         ErrorKind::kValue,
                         "stream: no stream with id 2 exists on device 0 (stream_id=2)"));
    const Stream other(1);
    EXPECT_TRUE(is_error(catch_error([&] { record_stream(pointer, other); }), ErrorKind::kValue,
                         "record_stream: stream " + std::to_string(other.id()) +
                             " belongs to device 1 but pointer " + name +
                             " is memory of device 0"));
    raw_delete(pointer);
    EXPECT_TRUE(is_error(catch_error([&] { raw_delete(pointer); }), ErrorKind::kValue,
                         "raw_delete: pointer " + std::string(name) +
                             " is not a live allocation of the caching allocator (never "
                             "allocated by it, or already freed)"));
    EXPECT_TRUE(is_error(catch_error([&] { record_stream(pointer, Stream(0)); }),
                         ErrorKind::kValue,
                         "record_stream: pointer " + std::string(name) +
                             " is not inside a live block of the caching allocator"));
    EXPECT_TRUE(is_error(catch_error([&] { record_stream(DataPtr(), Stream(0)); }),
                         ErrorKind::kValue, "record_stream: the DataPtr is null (owns no memory)"));
    raw_delete(nullptr);  // does nothing
    expect_driver_empty(p);
  });
}

// A DataPtr whose block was freed behind its back warns once on stderr when destroyed,
// never throws.
TEST_P(Memory, DataPtrDestructorFailureIsAWarning) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    ::testing::internal::CaptureStderr();
    {
      DataPtr data = allocate(1024);
      raw_delete(data.get());
    }
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("accel: warning: DataPtr destructor: DataPtr::reset: pointer 0x"),
              std::string::npos)
        << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    expect_driver_empty(p);
  });
}

// test_cuda.test_caching_allocator_record_stream_oom: blocks waiting for a busy stream's
// events must not make the allocator run out of memory; the OOM path waits for them.
TEST_P(Memory, RecordStreamOomWaitsForPendingBlocks) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds the side stream's work back with the adversarial schedule");
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        set_device_index(0);
        const double total = static_cast<double>(get_memory_info(0).total_bytes);
        set_per_process_memory_fraction(static_cast<double>(1024 * kMiB) / total, 0);
        const Stream side(0);
        for (int i = 0; i < 100; ++i) {
          DataPtr x = allocate(160 * kMiB);
          fill_async(x.get(), 1, 1, side);
          record_stream(x, side);
        }
        const MemoryStats stats = memory_stats();
        EXPECT_EQ(stats.at("num_ooms"), 0);
        EXPECT_GE(stats.at("num_sync_all_streams"), 1) << "the pending blocks were waited for";
        EXPECT_LE(stats.at("reserved_bytes.all.peak"), 1024 * kMiB);
        side.synchronize();
        expect_driver_empty(p);
      },
      kAdversarial);
}

// "Two 1 MiB tensors": PyTorch's size policy puts a 1 MiB request in the small pool, whose
// segment is 2 MiB and whose blocks split at any remainder >= 512 bytes. So two 1 MiB
// tensors on one stream share one segment (+2 MiB); on two streams (blocks are never
// shared across streams) each takes its own (+4 MiB, the figure of the XPU test).
TEST_P(Memory, TwoOneMiBTensorsReserveOneSegmentPerStream) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    init();
    const std::int64_t before = memory_reserved(0);
    {
      DataPtr a = allocate(kMiB);
      DataPtr b = allocate(kMiB);
      EXPECT_EQ(memory_reserved(0) - before, 2 * kMiB);
      EXPECT_EQ(memory_stats().at("segment.small_pool.current"), 1);
    }
    empty_cache();
    {
      DataPtr a = allocate(kMiB, Stream::default_stream(0));
      DataPtr b = allocate(kMiB, Stream(0));
      EXPECT_EQ(memory_reserved(0) - before, 4 * kMiB);
      EXPECT_EQ(memory_stats().at("segment.small_pool.current"), 2);
      EXPECT_TRUE(memory_stats_match_snapshot(0));
    }
    expect_driver_empty(p);
  });
}

// test_cuda_multigpu._test_memory_stats_generator: a scripted sequence on one device,
// checking after every step the expected direction of memory_allocated(), the peak and
// reserved rules, and _check_memory_stat_consistency (snapshot == stats).
class StatsGenerator {
 public:
  explicit StatsGenerator(int device) : device_(device) {}

  // The steps, each with the expected change of memory_allocated(): +1 up, -1 down, 0 equal.
  std::vector<std::pair<std::function<void()>, int>> steps() {
    std::vector<std::pair<std::function<void()>, int>> out;
    auto alloc = [this](std::size_t bytes) {
      return [this, bytes] { live_.push_back(allocate(bytes, Stream::default_stream(device_))); };
    };
    auto free_at = [this](std::size_t index) { return [this, index] { live_[index].reset(); }; };
    out.push_back({alloc(1 * 4), +1});
    out.push_back({alloc(10 * 20 * 4), +1});
    out.push_back({alloc(200 * 300 * 2000 * 4), +1});
    out.push_back({alloc(0), 0});
    constexpr int kN = 7;
    for (int i = 0; i < kN / 2; ++i) out.push_back({alloc(static_cast<std::size_t>(i + 1) * 4096), +1});
    for (int i = 0; i < kN - kN / 2; ++i) {
      out.push_back({alloc(static_cast<std::size_t>(i + 1) * 3 * kMiB + 100), +1});
    }
    // Free in a permuted order, with an allocation, an empty_cache and a peak reset
    // between.
    for (std::size_t index : {5u, 0u, 8u}) out.push_back({free_at(index), -1});
    out.push_back({[this] { empty_cache_step(); }, 0});
    out.push_back({alloc(7 * kMiB), +1});
    out.push_back({[this] { reset_peak_step(); }, 0});
    for (std::size_t index : {1u, 2u, 3u, 4u, 6u, 7u, 9u, 10u, 11u}) {
      out.push_back({free_at(index), index == 3 ? 0 : -1});  // index 3 is the 0-byte one
    }
    out.push_back({[this] { empty_cache_step(); }, 0});
    return out;
  }

  void empty_cache_step() {
    const MemoryStats before = memory_stats(device_);
    empty_cache();
    const MemoryStats after = memory_stats(device_);
    EXPECT_EQ(after.at("num_sync_all_streams"), before.at("num_sync_all_streams") + 1);
    EXPECT_GE(after.at("num_device_alloc"), before.at("num_device_alloc"));
    EXPECT_GE(after.at("num_device_free"), before.at("num_device_free"));
    EXPECT_LE(after.at("reserved_bytes.all.current"), before.at("reserved_bytes.all.current"));
    EXPECT_EQ(after.at("reserved_bytes.all.peak"), before.at("reserved_bytes.all.peak"));
  }

  void reset_peak_step() {
    reset_peak_memory_stats(device_);
    EXPECT_EQ(max_memory_allocated(device_), memory_allocated(device_));
    EXPECT_EQ(max_memory_reserved(device_), memory_reserved(device_));
    last_max_allocated_ = max_memory_allocated(device_);
    last_max_reserved_ = max_memory_reserved(device_);
  }

  // The checks after a step that moved memory_allocated() in `direction`.
  void check(int direction, std::int64_t allocated_before) {
    const std::int64_t allocated = memory_allocated(device_);
    if (direction > 0) {
      EXPECT_GT(allocated, allocated_before);
    }
    if (direction < 0) {
      EXPECT_LT(allocated, allocated_before);
    }
    if (direction == 0) {
      EXPECT_EQ(allocated, allocated_before);
    }
    EXPECT_LE(allocated, max_memory_allocated(device_));
    EXPECT_LE(memory_reserved(device_), max_memory_reserved(device_));
    EXPECT_GE(max_memory_allocated(device_), last_max_allocated_) << "peaks never decrease";
    EXPECT_GE(max_memory_reserved(device_), last_max_reserved_);
    last_max_allocated_ = max_memory_allocated(device_);
    last_max_reserved_ = max_memory_reserved(device_);
    if (allocated > 0) {
      EXPECT_GE(memory_stats(device_).at("num_device_alloc"), 1);
    }
    EXPECT_TRUE(memory_stats_match_snapshot(device_));
  }

  int device() const { return device_; }

 private:
  int device_;
  std::vector<DataPtr> live_;
  std::int64_t last_max_allocated_ = 0;
  std::int64_t last_max_reserved_ = 0;
};

TEST_P(Memory, StatsGeneratorKeepsStatsConsistentWithTheSnapshot) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    init();
    const std::int64_t initial = memory_allocated(0);
    StatsGenerator generator(0);
    for (auto& [step, direction] : generator.steps()) {
      const std::int64_t before = memory_allocated(0);
      step();
      generator.check(direction, before);
    }
    EXPECT_EQ(memory_allocated(0), initial);
    expect_driver_empty(p);
  });
}

// test_cuda_multigpu.test_memory_stats_multigpu: the generator on two devices, regular
// interleaving; the statistics are per device and independent.
TEST_P(Memory, StatsGeneratorInterleavedOnTwoDevices) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 2);
    init();
    StatsGenerator g0(0);
    StatsGenerator g1(1);
    auto s0 = g0.steps();
    auto s1 = g1.steps();
    for (std::size_t i = 0; i < s0.size() || i < s1.size(); ++i) {
      for (auto [gen, steps] : {std::pair{&g0, &s0}, std::pair{&g1, &s1}}) {
        if (i >= steps->size()) continue;
        const int other = 1 - gen->device();
        const std::int64_t before = memory_allocated(gen->device());
        const std::int64_t other_allocated = memory_allocated(other);
        (*steps)[i].first();
        gen->check((*steps)[i].second, before);
        EXPECT_EQ(memory_allocated(other), other_allocated) << "device " << other << " moved";
        EXPECT_TRUE(memory_stats_match_snapshot(other));
      }
    }
    EXPECT_EQ(memory_allocated(0), 0);
    EXPECT_EQ(memory_allocated(1), 0);
    empty_cache();
    EXPECT_EQ(memory_reserved(1), 0);
    expect_driver_empty(p);
  });
}

TEST_P(Memory, MalformedAllocConfFailsInitialisationNamingTheToken) {
  const BackendProfile& p = profile();
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        EXPECT_TRUE(is_error(catch_error([] { init(); }), ErrorKind::kConfig,
                             "ACCEL_ALLOC_CONF: max_split_size_mb expects a whole number of MiB "
                             "in 'max_split_size_mb:lots'"));
        EXPECT_FALSE(is_initialized());
        EXPECT_FALSE(is_allocator_initialized());
        if (p.on_mock) {
          EXPECT_EQ(mockdev::control::call_count(p.init_entry_point), 0u);
        }
      },
      {{"ACCEL_ALLOC_CONF", "max_split_size_mb:lots"}, {"PYTORCH_ALLOC_CONF", std::nullopt}});
}

TEST_P(Memory, PyTorchAllocConfIsReadWhenAccelAllocConfIsUnset) {
  const BackendProfile& p = profile();
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        init();
        EXPECT_EQ(memory_stats().at("max_split_size"), 64 * kMiB);
        EXPECT_NE(get_allocator_settings().find("max_split_size_mb:64"), std::string::npos)
            << get_allocator_settings();
      },
      {{"ACCEL_ALLOC_CONF", std::nullopt}, {"PYTORCH_ALLOC_CONF", "max_split_size_mb:64"}});
}

TEST_P(Memory, SetAllocatorSettingsAppliesOrChangesNothing) {
  const BackendProfile& p = profile();
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        const std::string before = get_allocator_settings();
        EXPECT_TRUE(is_error_containing(
            catch_error([] { set_allocator_settings("max_split_size_mb:128,bogus_key:1"); }),
            ErrorKind::kConfig, "bogus_key"));
        EXPECT_EQ(get_allocator_settings(), before) << "nothing changed";
        set_allocator_settings("max_split_size_mb:128");
        EXPECT_EQ(memory_stats().at("max_split_size"), 128 * kMiB);
      },
      {{"ACCEL_ALLOC_CONF", std::nullopt}, {"PYTORCH_ALLOC_CONF", std::nullopt}});
}

TEST_P(Memory, SnapshotHistoryAndDump) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    record_memory_history(true);
    const int line = __LINE__ + 1;
    DataPtr data = allocate(4096);
    data.reset();
    const MemorySnapshot snapshot = memory_snapshot();
    ASSERT_GE(snapshot.device_traces.size(), 1u);
    std::vector<std::string> actions;
    for (const TraceEntry& entry : snapshot.device_traces[0]) actions.push_back(entry.action);
    EXPECT_EQ(actions, (std::vector<std::string>{"segment_alloc", "alloc", "free_requested",
                                                 "free_completed"}));
    const TraceEntry& alloc_entry = snapshot.device_traces[0][1];
    EXPECT_EQ(alloc_entry.size, 4096u);
    ASSERT_FALSE(alloc_entry.frames.empty());
    EXPECT_NE(alloc_entry.frames[0].filename.find("memory_test.cpp"), std::string::npos);
    EXPECT_EQ(alloc_entry.frames[0].line, line);
    ASSERT_EQ(snapshot.segments.size(), 1u);
    EXPECT_EQ(snapshot.segments[0].total_size, static_cast<std::size_t>(2 * kMiB));
    EXPECT_EQ(snapshot.segments[0].segment_type, "small");
    char path[] = "/tmp/accel_snapshot_XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    dump_snapshot(path);
    std::ifstream in(path);
    std::stringstream json;
    json << in.rdbuf();
    std::remove(path);
    EXPECT_EQ(json.str(), memory_snapshot_json(memory_snapshot()));
    EXPECT_NE(json.str().find("\"segments\""), std::string::npos);
    EXPECT_TRUE(is_error_containing(
        catch_error([] { dump_snapshot("/nonexistent-accel-dir/snapshot.json"); }),
        ErrorKind::kRuntime,
        "dump_snapshot '/nonexistent-accel-dir/snapshot.json': cannot open for writing: No such "
        "file or directory"));
    // A FIFO nobody reads is refused at once instead of blocking the program (Note [Bounded
    // readers]); a directory is named as one.
    char dir[] = "/tmp/accel_snapshot_dir_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string fifo = std::string(dir) + "/snapshot.json";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_TRUE(is_error(catch_error([&] { dump_snapshot(fifo); }), ErrorKind::kRuntime,
                         "dump_snapshot '" + fifo + "': is a FIFO (named pipe) that nobody reads"));
    EXPECT_TRUE(is_error(catch_error([&] { dump_snapshot(dir); }), ErrorKind::kRuntime,
                         "dump_snapshot '" + std::string(dir) +
                             "': is a directory, not a regular file"));
    unlink(fifo.c_str());
    rmdir(dir);
    expect_driver_empty(p);
  });
}

// expandable_segments:True end to end: the allocator reserves an address range per pool
// and stream and maps 2 MiB pages of physical memory into it through the driver's
// virtual-memory API; empty_cache unmaps and releases them.
TEST_P(Memory, ExpandableSegmentsMapPagesThroughTheDriver) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("counts the simulated driver's virtual-memory calls");
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        DataPtr small = allocate(kMiB);
        DataPtr large = allocate(30 * kMiB);
        EXPECT_EQ(memory_reserved(0), 32 * kMiB) << "one page + fifteen pages";
        EXPECT_EQ(memory_stats().at("num_device_alloc"), 16);
        EXPECT_EQ(mockdev::control::call_count(p.reserve_entry_point), 2u) << "small and large";
        EXPECT_EQ(mockdev::control::call_count(p.device_alloc_entry_point), 0u);
        const MemorySnapshot snapshot = memory_snapshot();
        ASSERT_EQ(snapshot.segments.size(), 2u);
        EXPECT_TRUE(snapshot.segments[0].is_expandable);
        EXPECT_TRUE(snapshot.segments[1].is_expandable);
        EXPECT_TRUE(memory_stats_match_snapshot(0));
        expect_usable(large.get(), 30 * kMiB, 0x42);
        small.reset();
        large.reset();
        empty_cache();
        EXPECT_EQ(memory_reserved(0), 0);
        EXPECT_EQ(memory_stats().at("num_device_free"), 16);
        EXPECT_EQ(mockdev::control::live_objects().allocations, 0u);
        EXPECT_GE(mockdev::control::call_count(p.unmap_entry_point), 1u);
      },
      {{"ACCEL_ALLOC_CONF", "expandable_segments:True"}, {"PYTORCH_ALLOC_CONF", std::nullopt}});
}

// Note [Fork safety]: in a child forked after the parent initialised, every call that
// touches memory throws ForkError before reaching the driver.
TEST_P(Memory, MemoryCallsInAPoisonedChildThrowForkError) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    DataPtr parent = allocate(1024);
    const auto fork_error = [&p](const CaughtError& caught) {
      return is_error(caught, ErrorKind::kFork, p.fork_message);
    };
    const ChildStatus child = run_in_child([&] {
      EXPECT_TRUE(fork_error(catch_error([] { DataPtr x = allocate(16); })));
      EXPECT_TRUE(fork_error(catch_error([] { memory_stats(); })));
      EXPECT_TRUE(fork_error(catch_error([] { empty_cache(); })));
      EXPECT_TRUE(fork_error(catch_error([] { set_per_process_memory_fraction(0.5); })));
      EXPECT_FALSE(is_allocator_initialized());
      EXPECT_TRUE(fork_error(catch_error([&] { parent.reset(); })));
    });
    EXPECT_TRUE(child.ok()) << child.describe();
    parent.reset();
    expect_driver_empty(p);
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(Memory);

}  // namespace
}  // namespace accel::test
