// Properties of the device caching allocator through the public API (accel/memory.h) on the
// simulated 2xa100 machine, under the adversarial scheduler (ctest sets
// MOCKDEV_SCHEDULE=adversarial): the programs of allocator_program.h on 2 devices with the
// default stream and two pool streams each, where
//  * every block is written on the stream it was allocated for (a host function declaring a
//    write of its bytes, and a short cuMemsetD8Async), and read on each stream given to
//    record_stream after that stream waited for the allocation stream (a host function
//    declaring a read), so the race detector sees every use;
//  * "queue work" launches a host function on the stream; "complete work" synchronises it.
// After every command, per device: the allocator invariants (allocator_invariants.h) on
// memory_stats() and memory_snapshot() (stats rebuilt from the snapshot equal the live
// ones), the block model (allocator_model.h: no address handed out twice, a block freed with
// pending work on another stream not handed out before that work ran), reserved bytes equal
// to the bytes the simulated driver has allocated for the process (the allocator is the
// only allocator here), an OOM only where the retry chain could find nothing; and at the
// end of each program the race detector has stayed silent. Run twice: with the default
// settings and with expandable_segments:True (the mock's virtual-memory entry points).

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <atomic>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel/memory.h"
#include "accel/stream.h"
#include "accel_abi/cuda_driver.h"
#include "allocator_invariants.h"
#include "allocator_model.h"
#include "allocator_program.h"
#include "device_index_model.h"
#include "mockdev/memory.h"
#include "mockdev/races.h"
#include "mockdev/streams.h"

namespace accel::test::alloc_model {
namespace {

constexpr int kDevices = 2;
constexpr std::size_t kProgramCapacity = 160 * kMiB;  // per device, above the context reserve
constexpr std::size_t kProgramLength = 40;
constexpr std::size_t kMemsetBytes = 512;

// The driver calls that queue work on the runtime's streams (Stream::native_handle()),
// resolved from the driver file the runtime was pointed at.
struct Driver {
  cuda_abi::PFN_cuMemsetD8Async_v3020 memset_d8_async = nullptr;
  cuda_abi::PFN_cuLaunchHostFunc_v10000 launch_host_func = nullptr;
  cuda_abi::PFN_cuDevicePrimaryCtxRetain_v7000 primary_ctx_retain = nullptr;
  cuda_abi::PFN_cuCtxSetCurrent_v4000 ctx_set_current = nullptr;
  std::string error;
};

Driver load_driver() {
  Driver d;
  const char* path = std::getenv("ACCEL_CUDA_DRIVER");
  void* library = dlopen(path != nullptr && *path != '\0' ? path : "libcuda.so.1", RTLD_NOW);
  if (library == nullptr) {
    d.error = dlerror();
    return d;
  }
  d.memset_d8_async = reinterpret_cast<cuda_abi::PFN_cuMemsetD8Async_v3020>(
      dlsym(library, "cuMemsetD8Async"));
  d.launch_host_func = reinterpret_cast<cuda_abi::PFN_cuLaunchHostFunc_v10000>(
      dlsym(library, "cuLaunchHostFunc"));
  d.primary_ctx_retain = reinterpret_cast<cuda_abi::PFN_cuDevicePrimaryCtxRetain_v7000>(
      dlsym(library, "cuDevicePrimaryCtxRetain"));
  d.ctx_set_current =
      reinterpret_cast<cuda_abi::PFN_cuCtxSetCurrent_v4000>(dlsym(library, "cuCtxSetCurrent"));
  if (d.memset_d8_async == nullptr || d.launch_host_func == nullptr ||
      d.primary_ctx_retain == nullptr || d.ctx_set_current == nullptr) {
    d.error = "a driver entry point the test needs is missing";
  }
  return d;
}

// One launched host function: counts itself on its stream's counter when it runs.
struct Work {
  std::atomic<std::uint64_t>* ran = nullptr;
};

void run_work(void* user_data) { static_cast<Work*>(user_data)->ran->fetch_add(1); }

struct Coverage {
  std::size_t programs = 0;
  std::size_t commands = 0;
  std::size_t allocations = 0;
  std::size_t ooms = 0;
  std::size_t pending_frees = 0;
  std::size_t host_functions = 0;
};

// The machine's streams and counters, made once per process (the runtime is process-wide).
struct Machine {
  Driver driver;
  std::vector<std::vector<Stream>> streams;  // [device][0: default, 1, 2: pool streams]
  std::map<std::int64_t, int> index_of_id[kDevices];
  std::atomic<std::uint64_t> ran[kDevices][kStreams]{};
  std::uint64_t queued[kDevices][kStreams]{};
  std::deque<Work> works;  // user data of every host function launched
  std::size_t capacity[kDevices]{};
  cuda_abi::CUcontext contexts[kDevices]{};

  static Machine& get() {
    static Machine machine;
    return machine;
  }

  Machine() {
    driver = load_driver();
    for (int d = 0; d < kDevices; ++d) {
      std::vector<Stream> s;
      s.push_back(Stream::default_stream(d));
      s.push_back(Stream(d, 0));
      s.push_back(Stream(d, -1));
      for (int i = 0; i < kStreams; ++i) index_of_id[d][s[i].id()] = i;
      streams.push_back(s);
      if (driver.primary_ctx_retain != nullptr) driver.primary_ctx_retain(&contexts[d], d);
      // A first allocation creates the device's context; then the device gets a capacity
      // small enough for programs to run out of memory.
      raw_delete(raw_alloc(512, s[0]));
      empty_cache();
      const auto usage = mockdev::control::memory_usage(d);
      capacity[d] = usage.context_reserve_bytes + kProgramCapacity;
      mockdev::control::set_capacity(d, capacity[d]);
    }
  }

  // Driver calls act on the calling thread's current context.
  void use_device(int device) {
    set_device_index(device);
    driver.ctx_set_current(contexts[device]);
  }

  bool done(int device, std::int64_t stream_id, std::uint64_t work) {
    return ran[device][index_of_id[device].at(stream_id)].load() >= work;
  }

  // A host function on stream `s` of `device` that declares these accesses.
  void launch(int device, int s, const std::vector<mockdev::streams::Range>& reads,
              const std::vector<mockdev::streams::Range>& writes) {
    works.push_back(Work{&ran[device][s]});
    Work* w = &works.back();
    if (!reads.empty() || !writes.empty()) {
      mockdev::streams::declare_host_function_accesses(w, reads, writes);
    }
    use_device(device);
    const auto stream = reinterpret_cast<cuda_abi::CUstream>(streams[device][s].native_handle());
    const auto status = driver.launch_host_func(stream, run_work, w);
    if (status != cuda_abi::CUDA_SUCCESS) {
      throw std::runtime_error("cuLaunchHostFunc failed: " + std::to_string(status));
    }
    ++queued[device][s];
  }
};

class RuntimeRun {
 public:
  RuntimeRun(Machine& m, Coverage& coverage, bool expandable)
      : m_(m), coverage_(coverage), expandable_(expandable) {
    // Nothing is cached between programs, so the setting shapes every segment of this one.
    set_allocator_settings(expandable ? "expandable_segments:True" : "expandable_segments:False");
    for (int d = 0; d < kDevices; ++d) {
      set_per_process_memory_fraction(1.0, d);
      fraction_[d] = 1.0;
      history_.emplace_back(std::make_unique<StatHistory>(memory_stats(d)));
    }
    mockdev::control::clear_races();
  }

  CompletionOracle done() {
    return [this](int device, int stream_id, std::uint64_t work) {
      return m_.done(device, stream_id, work);
    };
  }

  Violations step(const Op& op) {
    Violations out;
    const int d = op.device;
    const FlatStats before = memory_stats(d);
    switch (op.kind) {
      case OpKind::kAllocate:
      case OpKind::kAllocateAndFree: {
        const std::size_t live = model_.live().size();
        allocate(op, before, out);
        if (op.kind == OpKind::kAllocateAndFree && model_.live().size() > live) {
          const Violations v = history_[d]->observe(memory_stats(d));
          out.insert(out.end(), v.begin(), v.end());
          free_live(model_.live().size() - 1);
          const FlatStats after = memory_stats(d);
          if (stat_bytes(after, "allocated_bytes.all.current") !=
              stat_bytes(before, "allocated_bytes.all.current")) {
            out.emplace_back("invariant 13: allocated bytes differ after allocating and freeing");
          }
        }
        break;
      }
      case OpKind::kFree:
        if (model_.live().empty()) return out;
        free_live(model_.pick(op.index));
        break;
      case OpKind::kRecordStream: {
        if (model_.live().empty()) return out;
        LiveBlock& block = model_.live()[model_.pick(op.index)];
        const int bd = block.device;
        const Stream& user = m_.streams[bd][op.stream];
        const int owner = m_.index_of_id[bd].at(block.stream);
        if (op.stream != owner) {
          // The user's pattern: the side stream waits for the allocation stream, reads.
          user.wait_stream(m_.streams[bd][owner]);
          m_.launch(bd, op.stream, {{block.address, block.requested, false}}, {});
          ++coverage_.host_functions;
          block.used_on.insert(static_cast<int>(user.id()));
        }
        record_stream(reinterpret_cast<void*>(block.address + block.requested / 2), user);
        break;
      }
      case OpKind::kQueueWork:
        m_.launch(d, op.stream, {}, {});
        ++coverage_.host_functions;
        break;
      case OpKind::kCompleteWork:
        m_.streams[d][op.stream].synchronize();
        break;
      case OpKind::kEmptyCache: {
        FlatStats befores[kDevices];
        for (int x = 0; x < kDevices; ++x) befores[x] = memory_stats(x);
        empty_cache();
        for (int x = 0; x < kDevices; ++x) {
          model_.synchronize_all(x);
          const FlatStats after = memory_stats(x);
          if (stat_bytes(after, "num_sync_all_streams") != stat_bytes(befores[x], "num_sync_all_streams") + 1) {
            out.push_back("invariant 12: empty_cache did not move num_sync_all_streams of device " +
                          std::to_string(x) + " by one");
          }
          if (stat_bytes(after, "reserved_bytes.all.peak") != stat_bytes(befores[x], "reserved_bytes.all.peak")) {
            out.emplace_back("invariant 12: empty_cache changed reserved_bytes.all.peak");
          }
          if (nothing_live(x) && stat_bytes(after, "reserved_bytes.all.current") != 0) {
            out.push_back("invariant 11: device " + std::to_string(x) +
                          " keeps reserved bytes after empty_cache with nothing live");
          }
        }
        break;
      }
      case OpKind::kResetPeak: {
        reset_peak_memory_stats(d);
        const Violations v = history_[d]->after_reset_peak(memory_stats(d));
        out.insert(out.end(), v.begin(), v.end());
        break;
      }
      case OpKind::kResetAccumulated: {
        reset_accumulated_memory_stats(d);
        const Violations v = history_[d]->after_reset_accumulated(memory_stats(d));
        out.insert(out.end(), v.begin(), v.end());
        break;
      }
      case OpKind::kSetFraction:
        set_per_process_memory_fraction(op.fraction, d);
        fraction_[d] = op.fraction;
        if (get_per_process_memory_fraction(d) != op.fraction) {
          out.emplace_back("get_per_process_memory_fraction differs from what was set");
        }
        break;
    }
    ++coverage_.commands;
    check_all(out);
    return out;
  }

  // Frees everything, waits for every stream, empties the cache; the race detector must
  // have stayed silent.
  Violations finish() {
    Violations out;
    while (!model_.live().empty()) {
      const int d = model_.live().back().device;
      free_live(model_.live().size() - 1);
      const Violations v = history_[d]->observe(memory_stats(d));
      out.insert(out.end(), v.begin(), v.end());
    }
    for (int d = 0; d < kDevices; ++d) {
      for (int s = 0; s < kStreams; ++s) m_.streams[d][s].synchronize();
    }
    empty_cache();
    for (int d = 0; d < kDevices; ++d) model_.synchronize_all(d);
    check_all(out);
    for (int d = 0; d < kDevices; ++d) {
      if (mockdev::control::memory_usage(d).allocation_bytes != 0) {
        out.push_back("device " + std::to_string(d) + " still has driver allocations");
      }
    }
    if (mockdev::control::race_count() != 0) {
      out.push_back("the race detector found " + std::to_string(mockdev::control::race_count()) +
                    " race(s): " + mockdev::control::races().front().text);
    }
    return out;
  }

 private:
  bool nothing_live(int device) const {
    for (const LiveBlock& l : model_.live()) {
      if (l.device == device) return false;
    }
    return true;
  }

  void free_live(std::size_t i) {
    const LiveBlock& block = model_.live()[i];
    if (!block.used_on.empty()) ++coverage_.pending_frees;
    raw_delete(reinterpret_cast<void*>(block.address));
    model_.free(i, [this](int device, int stream_id) {
      return m_.queued[device][m_.index_of_id[device].at(stream_id)];
    });
  }

  void allocate(const Op& op, const FlatStats& before, Violations& out) {
    const int d = op.device;
    const Stream& stream = m_.streams[d][op.stream];
    void* pointer = nullptr;
    try {
      pointer = raw_alloc(op.bytes, stream);
    } catch (const OutOfMemoryError& e) {
      if (op.bytes < kOneExbibyte) {
        ++coverage_.ooms;
        model_.synchronize_all(d);
      }
      const auto usage = mockdev::control::memory_usage(d);
      OomFacts facts;
      facts.bytes = op.bytes;
      facts.device = d;
      facts.stream = static_cast<int>(stream.id());
      facts.free_bytes = usage.capacity_bytes - usage.used_bytes;
      facts.allowed_bytes =
          static_cast<std::size_t>(fraction_[d] * static_cast<double>(usage.capacity_bytes));
      facts.nothing_live = nothing_live(d);
      facts.expandable = expandable_;
      facts.granularity = usage.granularity_bytes;
      const Violations v =
          check_oom(facts, e, before, memory_stats(d), memory_snapshot().segments);
      out.insert(out.end(), v.begin(), v.end());
      return;
    } catch (const Error& e) {
      out.push_back(std::string("raw_alloc threw an unexpected error: ") + e.what());
      return;
    }
    if (op.bytes == 0) {
      if (pointer != nullptr) out.emplace_back("raw_alloc(0) returned a non-null pointer");
      if (memory_stats(d) != before) out.emplace_back("raw_alloc(0) changed the statistics");
      return;
    }
    if (pointer == nullptr) {
      out.emplace_back("raw_alloc returned null");
      return;
    }
    ++coverage_.allocations;
    const auto address = reinterpret_cast<std::uint64_t>(pointer);
    std::size_t size = 0;
    for (const SegmentSnapshot& seg : memory_snapshot().segments) {
      for (const BlockSnapshot& b : seg.blocks) {
        if (seg.device == d && b.address == address) size = b.size;
      }
    }
    const LiveBlock block{address, op.bytes, size, d, static_cast<int>(stream.id()), {}};
    const Violations v = model_.hand_out(block, done());
    out.insert(out.end(), v.begin(), v.end());
    if (stat_bytes(memory_stats(d), "num_sync_all_streams") > stat_bytes(before, "num_sync_all_streams")) {
      model_.synchronize_all(d);
    }
    // The block is used on its own stream: a write of all of it (declared by a host
    // function) and a real memset of its first bytes.
    m_.launch(d, op.stream, {}, {{address, op.bytes, false}});
    ++coverage_.host_functions;
    m_.use_device(d);
    const auto native = reinterpret_cast<cuda_abi::CUstream>(stream.native_handle());
    if (m_.driver.memset_d8_async(address, 0x5a, std::min(op.bytes, kMemsetBytes), native) !=
        cuda_abi::CUDA_SUCCESS) {
      out.emplace_back("cuMemsetD8Async on the new block failed");
    }
  }

  void check_all(Violations& out) {
    const MemorySnapshot snapshot = memory_snapshot();
    for (int d = 0; d < kDevices; ++d) {
      const FlatStats now = memory_stats(d);
      LayoutRules rules;
      rules.device = d;
      rules.expandable = expandable_;
      for (const Violations& v :
           {model_.reconcile(d, snapshot.segments, done()), check_stats(now, rules),
            check_snapshot(now, snapshot.segments, rules), history_[d]->observe(now),
            model_.check_blocks(d, snapshot.segments)}) {
        for (const std::string& line : v) out.push_back("device " + std::to_string(d) + ": " + line);
      }
      const auto driver_bytes = mockdev::control::memory_usage(d).allocation_bytes;
      if (stat_bytes(now, "reserved_bytes.all.current") != driver_bytes) {
        out.push_back("device " + std::to_string(d) + ": reserved_bytes.all.current " +
                      std::to_string(stat_bytes(now, "reserved_bytes.all.current")) +
                      " != the driver's allocation bytes " + std::to_string(driver_bytes));
      }
    }
  }

  Machine& m_;
  Coverage& coverage_;
  bool expandable_ = false;
  Model model_;
  std::vector<std::unique_ptr<StatHistory>> history_;
  double fraction_[kDevices]{};
};

void run_program(const Program& program, Coverage& coverage, bool expandable) {
  RC_LOG() << "settings: expandable_segments:" << (expandable ? "True" : "False")
           << "\nprogram:\n" << describe(program);
  Machine& machine = Machine::get();
  RuntimeRun run(machine, coverage, expandable);
  for (std::size_t i = 0; i < program.size(); ++i) {
    Violations v;
    try {
      v = run.step(program[i]);
    } catch (const std::exception& e) {
      v.push_back(std::string("threw: ") + e.what());
    }
    if (!v.empty()) {
      (void)run.finish();  // leave the process-wide runtime empty for the next program
      RC_FAIL("after command " + std::to_string(i) + " (" + describe(program[i]) + "):" +
              join_violations(v));
    }
  }
  const Violations v = run.finish();
  if (!v.empty()) RC_FAIL("after freeing everything and emptying the cache:" + join_violations(v));
  ++coverage.programs;
}

void run_property(const char* name, bool expandable) {
  ASSERT_EQ(device_count(), kDevices)
      << "this test runs on the simulated 2xa100 machine (ctest sets MOCKDEV_MACHINE)";
  const Driver driver = load_driver();
  ASSERT_TRUE(driver.error.empty()) << driver.error;
  device_model::apply_property_scale();
  Coverage coverage;
  const bool ok = rc::check(std::string("device allocator through the public API, ") + name, [&] {
    run_program(*gen_program(kDevices, kProgramCapacity, kProgramLength), coverage, expandable);
  });
  set_allocator_settings("expandable_segments:False");
  std::cout << "[ property ] device allocator through the public API (2xa100, adversarial, "
            << name << "): " << coverage.programs << " programs, " << coverage.commands
            << " commands, " << coverage.allocations << " allocations, " << coverage.ooms
            << " OOMs (each justified), " << coverage.pending_frees
            << " frees pending other streams, " << coverage.host_functions
            << " host functions, no race" << std::endl;
  EXPECT_TRUE(ok);
  const int wanted = rc::detail::configuration().testParams.maxSuccess;
  EXPECT_GE(coverage.programs, static_cast<std::size_t>(wanted))
      << "fewer generated programs ran than RC_PARAMS max_success asks for";
}

TEST(AllocatorRuntimeProperty, TwoDevicesUnderAdversarialSchedule) {
  run_property("default settings", false);
}
TEST(AllocatorRuntimeProperty, ExpandableSegmentsUnderAdversarialSchedule) {
  run_property("expandable segments", true);
}

}  // namespace
}  // namespace accel::test::alloc_model
