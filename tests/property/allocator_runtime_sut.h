#pragma once
// The system under test of the allocator properties through the public API (accel/memory.h)
// on the simulated 2xa100 machine (allocator_commands.h drives it): 2 devices with the
// default stream and two pool streams each, where
//  * every block is written on the stream it was allocated for (a host function declaring a
//    write of its bytes, and a short cuMemsetD8Async), and read on each stream given to
//    record_stream after that stream waited for the allocation stream (a host function
//    declaring a read), so the race detector sees every use;
//  * "queue work" launches a host function on the stream; "complete work" synchronises it.
// After every command, per device: the allocator invariants (allocator_invariants.h) on
// memory_stats() and memory_snapshot(), the statistics' history included; the reference
// model's blocks (allocator_model.h: no address handed out twice, a block freed with pending
// work on another stream not handed out before that work ran; the model reconciles with the
// snapshot, as it cannot know when the allocator looked at its events); reserved bytes equal
// to the bytes the simulated driver has allocated for the process (the allocator is the only
// allocator here); an OOM only where the retry chain could find nothing. finish() frees
// everything, and the race detector must have stayed silent. Every program is written down as
// a scenario while it runs (allocator_scenario.h).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "accel/stream.h"
#include "accel_abi/cuda_driver.h"
#include "allocator_commands.h"
#include "allocator_model.h"
#include "allocator_scenario.h"
#include "mockdev/streams.h"

namespace accel::test::alloc_model {

inline constexpr int kRuntimeDevices = 2;
inline constexpr std::size_t kProgramCapacity = 160 * kMiB;  // per device, above the reserve

// The driver calls that queue work on the runtime's streams (Stream::native_handle()),
// resolved from the driver file the runtime was pointed at.
struct Driver {
  cuda_abi::PFN_cuMemsetD8Async_v3020 memset_d8_async = nullptr;
  cuda_abi::PFN_cuLaunchHostFunc_v10000 launch_host_func = nullptr;
  cuda_abi::PFN_cuDevicePrimaryCtxRetain_v7000 primary_ctx_retain = nullptr;
  cuda_abi::PFN_cuCtxSetCurrent_v4000 ctx_set_current = nullptr;
  std::string error;
};
Driver load_driver();

// One launched host function: counts itself on its stream's counter when it runs.
struct Work {
  std::atomic<std::uint64_t>* ran = nullptr;
};

// The machine's streams and counters, made once per process (the runtime is process-wide).
struct Machine {
  Driver driver;
  std::vector<std::vector<Stream>> streams;  // [device][0: default, 1, 2: pool streams]
  std::map<std::int64_t, int> index_of_id[kRuntimeDevices];
  std::atomic<std::uint64_t> ran[kRuntimeDevices][kStreams]{};
  std::uint64_t queued[kRuntimeDevices][kStreams]{};
  std::deque<Work> works;  // user data of every host function launched
  std::size_t capacity[kRuntimeDevices]{};
  std::size_t context_reserve[kRuntimeDevices]{};  // of capacity, taken by the context
  cuda_abi::CUcontext contexts[kRuntimeDevices]{};

  static Machine& get();
  Machine();
  // Driver calls act on the calling thread's current context.
  void use_device(int device);
  bool done(int device, std::int64_t stream_id, std::uint64_t work);
  // A host function on stream `s` of `device` that declares these accesses.
  void launch(int device, int s, const std::vector<mockdev::streams::Range>& reads,
              const std::vector<mockdev::streams::Range>& writes);
};

struct RuntimeCoverage {
  std::size_t programs = 0;
  std::size_t commands = 0;
  std::size_t allocations = 0;
  std::size_t ooms = 0;
  std::size_t pending_frees = 0;
  std::size_t host_functions = 0;
};

class RuntimeSut final : public AllocatorSut {
 public:
  RuntimeSut(Machine& m, RuntimeCoverage& coverage, bool expandable, ScenarioRecorder& recorder);
  // A program that failed leaves the process-wide runtime empty for the next one.
  ~RuntimeSut() override;
  RuntimeSut(const RuntimeSut&) = delete;
  RuntimeSut& operator=(const RuntimeSut&) = delete;

  Violations allocate(int handle, int device, int stream, std::size_t bytes) override;
  Violations allocate_and_free(int device, int stream, std::size_t bytes) override;
  Violations free(int handle) override;
  Violations record_stream(int handle, int stream) override;
  Violations queue_work(int device, int stream) override;
  Violations complete_work(int device, int stream) override;
  Violations empty_cache() override;
  Violations reset_peak(int device) override;
  Violations reset_accumulated(int device) override;
  Violations set_fraction(int device, double fraction) override;
  Violations check() override;
  void describe(const std::string& command) override;  // a comment in the scenario
  // Frees everything, waits for every stream, empties the cache; the race detector must
  // have stayed silent.
  Violations finish();

 private:
  CompletionOracle done();
  bool nothing_live(int device) const;
  std::size_t live_index(int handle) const;  // live().size() when the handle holds no block
  void free_live(std::size_t i);
  std::string name_of(std::size_t i) const;  // live block i's name in the scenario
  void allocate_block(const std::string& name, int device, int stream, std::size_t bytes,
                      const FlatStats& before, Violations& out);
  void check_all(Violations& out);

  Machine& m_;
  RuntimeCoverage& coverage_;
  AllocatorScenario scenario_;
  int made_and_freed_ = 0;  // allocate-and-free commands so far, naming their blocks
  bool expandable_ = false;
  bool finished_ = false;
  bool recording_ = true;  // false once a failed program is being cleaned up
  Model model_;  // the reference
  struct Placed {
    int device = 0;
    std::uint64_t address = 0;
  };
  std::map<int, Placed> blocks_;  // handle -> its live block
  std::vector<std::unique_ptr<StatHistory>> history_;
  double fraction_[kRuntimeDevices]{};
};

}  // namespace accel::test::alloc_model
