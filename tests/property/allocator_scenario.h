#pragma once
// AllocatorScenario: the allocator property through the public API (allocator_runtime_sut.h)
// written down as a scenario while it runs (Note [Counterexamples as scenarios] in
// scenario_recorder.h). RuntimeSut calls it once per runtime call it makes; each becomes the
// step that makes the same call:
//  * the machine: an inline copy of the simulated 2xa100 with each device's memory the
//    capacity the property gave it, its scheduler and race settings, `invariants:
//    memory_stats` (the allocator invariants the property checks, one shared copy);
//  * the streams d<D>_s0 (default), d<D>_s1, d<D>_s2 (pool streams of priority 0 and -1), and
//    one pinned byte w_d<D>_s<S> per stream;
//  * allocate / free / record_stream / empty_cache / the resets / the fraction as the steps
//    of the same names (allocation #N is aN; an allocate-and-free's is tN), an allocation's
//    expectation its outcome as the property judged it (the block, or an OOM that the retry
//    chain could not avoid);
//  * work the property queues on a stream (a host function; at an allocation, also a memset
//    of the block) as fill_async of the stream's pinned byte, and the stream's wait for the
//    allocation stream before a record_stream as wait_stream: the same work on the same
//    streams as far as the allocator can see (it waits on events of the streams), though not
//    the same driver call (under the adversarial schedule ctest runs, an event completes only
//    on a host wait, work or none, so there the allocator cannot tell the two apart at all);
//  * after every command, memory_stats of each device expecting the reference model's live
//    blocks (allocation count, allocated bytes) and its live plus pending blocks (active
//    count, active and requested bytes: a pending block's bytes stay requested until its
//    free completes).
// Not thread-safe: one program at a time, as RuntimeSut.

#include <cstddef>
#include <string>

#include "allocator_model.h"
#include "scenario_recorder.h"

namespace accel::test::alloc_model {

// The scenario kind of the property, for a machine whose devices hold `capacity` bytes each
// (Machine::capacity), `context_reserve` of them taken by each device's context.
ScenarioKind allocator_scenario_kind(const std::size_t* capacity,
                                     const std::size_t* context_reserve, int devices);

class AllocatorScenario {
 public:
  AllocatorScenario(ScenarioRecorder& recorder, int devices, int streams)
      : recorder_(recorder), devices_(devices), streams_(streams) {}

  // The streams, the pinned bytes, the settings and the fractions every program starts with.
  void setup(bool expandable);
  void comment(const std::string& text) { recorder_.comment(text); }
  // An allocation of `bytes` on stream `stream` of `device`, kept as `name`; `oom`: the
  // property expects the OOM it got, else the block. A block is then used on its stream.
  void allocate(const std::string& name, int device, int stream, std::size_t bytes, bool oom,
                bool used);
  void free(const std::string& name);
  // `name`'s block (on `owner` of `device`) used on `stream`: after a wait for `owner` and
  // work there unless stream == owner.
  void record_stream(const std::string& name, int device, int owner, int stream);
  void queue_work(int device, int stream);
  void complete_work(int device, int stream);
  void empty_cache();
  void reset_peak(int device);
  void reset_accumulated(int device);
  void set_fraction(int device, double fraction);
  // The reference model's blocks of every device as memory_stats expectations.
  void expect_model(const Model& model);
  // The end of a program: every stream synchronised, the race detector silent.
  void synchronize_all();
  // The driver holds no allocation: each device's memory in use is its context's reserve.
  void expect_driver_holds_nothing(const std::size_t* context_reserve);
  void expect_no_race();

 private:
  ScenarioRecorder& recorder_;
  int devices_;
  int streams_;
};

}  // namespace accel::test::alloc_model
