#include "allocator_runtime_sut.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel/memory.h"
#include "mockdev/memory.h"
#include "mockdev/races.h"

namespace accel::test::alloc_model {
namespace {

constexpr std::size_t kMemsetBytes = 512;

void run_work(void* user_data) { static_cast<Work*>(user_data)->ran->fetch_add(1); }

void append(Violations& out, const Violations& more) {
  out.insert(out.end(), more.begin(), more.end());
}

}  // namespace

Driver load_driver() {
  Driver d;
  const char* path = std::getenv("ACCEL_CUDA_DRIVER");
  void* library = dlopen(path != nullptr && *path != '\0' ? path : "libcuda.so.1", RTLD_NOW);
  if (library == nullptr) {
    d.error = dlerror();
    return d;
  }
  d.memset_d8_async =
      reinterpret_cast<cuda_abi::PFN_cuMemsetD8Async_v3020>(dlsym(library, "cuMemsetD8Async"));
  d.launch_host_func =
      reinterpret_cast<cuda_abi::PFN_cuLaunchHostFunc_v10000>(dlsym(library, "cuLaunchHostFunc"));
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

Machine& Machine::get() {
  static Machine machine;
  return machine;
}

Machine::Machine() {
  driver = load_driver();
  for (int d = 0; d < kRuntimeDevices; ++d) {
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
    accel::empty_cache();
    const auto usage = mockdev::control::memory_usage(d);
    context_reserve[d] = usage.context_reserve_bytes;
    capacity[d] = usage.context_reserve_bytes + kProgramCapacity;
    mockdev::control::set_capacity(d, capacity[d]);
  }
}

void Machine::use_device(int device) {
  set_device_index(device);
  driver.ctx_set_current(contexts[device]);
}

bool Machine::done(int device, std::int64_t stream_id, std::uint64_t work) {
  return ran[device][index_of_id[device].at(stream_id)].load() >= work;
}

void Machine::launch(int device, int s, const std::vector<mockdev::streams::Range>& reads,
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

RuntimeSut::RuntimeSut(Machine& m, RuntimeCoverage& coverage, bool expandable,
                       ScenarioRecorder& recorder)
    : m_(m),
      coverage_(coverage),
      scenario_(recorder, kRuntimeDevices, kStreams),
      expandable_(expandable) {
  scenario_.setup(expandable);
  // Nothing is cached between programs, so the setting shapes every segment of this one.
  set_allocator_settings(expandable ? "expandable_segments:True" : "expandable_segments:False");
  for (int d = 0; d < kRuntimeDevices; ++d) {
    set_per_process_memory_fraction(1.0, d);
    fraction_[d] = 1.0;
    history_.emplace_back(std::make_unique<StatHistory>(memory_stats(d)));
  }
  mockdev::control::clear_races();
}

RuntimeSut::~RuntimeSut() {
  if (finished_) return;
  recording_ = false;  // the scenario ends at the step that failed
  try {
    (void)finish();
  } catch (...) {  // the program already failed; its own failure is what rapidcheck reports
  }
}

CompletionOracle RuntimeSut::done() {
  return [this](int device, int stream_id, std::uint64_t work) {
    return m_.done(device, stream_id, work);
  };
}

bool RuntimeSut::nothing_live(int device) const {
  return std::none_of(model_.live().begin(), model_.live().end(),
                      [&](const LiveBlock& l) { return l.device == device; });
}

std::size_t RuntimeSut::live_index(int handle) const {
  const auto it = blocks_.find(handle);
  std::size_t i = 0;
  while (i < model_.live().size() &&
         (it == blocks_.end() || model_.live()[i].device != it->second.device ||
          model_.live()[i].address != it->second.address)) {
    ++i;
  }
  return i;
}

Violations RuntimeSut::allocate(int handle, int device, int stream, std::size_t bytes) {
  Violations out;
  const std::size_t live = model_.live().size();
  allocate_block("a" + std::to_string(handle), device, stream, bytes, memory_stats(device), out);
  if (model_.live().size() > live) {
    blocks_[handle] = Placed{device, model_.live().back().address};
  }
  return out;
}

Violations RuntimeSut::allocate_and_free(int device, int stream, std::size_t bytes) {
  Violations out;
  const FlatStats before = memory_stats(device);
  const std::size_t live = model_.live().size();
  const std::string name = "t" + std::to_string(made_and_freed_++);
  allocate_block(name, device, stream, bytes, before, out);
  if (model_.live().size() == live) return out;
  // The allocation is a state of its own: the peaks must see it.
  append(out, history_[device]->observe(memory_stats(device)));
  scenario_.free(name);
  free_live(model_.live().size() - 1);
  if (stat_bytes(memory_stats(device), "allocated_bytes.all.current") !=
      stat_bytes(before, "allocated_bytes.all.current")) {
    out.emplace_back("invariant 13: allocated bytes differ after allocating and freeing");
  }
  return out;
}

Violations RuntimeSut::free(int handle) {
  const std::size_t i = live_index(handle);
  if (i == model_.live().size()) {  // its allocation was refused
    scenario_.comment("its allocation was refused: no call");
    return {};
  }
  scenario_.free(name_of(i));
  free_live(i);
  blocks_.erase(handle);
  return {};
}

Violations RuntimeSut::record_stream(int handle, int stream) {
  const std::size_t i = live_index(handle);
  if (i == model_.live().size()) {
    scenario_.comment("its allocation was refused: no call");
    return {};
  }
  LiveBlock& block = model_.live()[i];
  const int bd = block.device;
  const Stream& user = m_.streams[bd][stream];
  const int owner = m_.index_of_id[bd].at(block.stream);
  scenario_.record_stream(name_of(i), bd, owner, stream);
  if (stream != owner) {
    // The user's pattern: the side stream waits for the allocation stream, reads.
    user.wait_stream(m_.streams[bd][owner]);
    m_.launch(bd, stream, {{block.address, block.requested, false}}, {});
    ++coverage_.host_functions;
    block.used_on.insert(static_cast<int>(user.id()));
  }
  accel::record_stream(reinterpret_cast<void*>(block.address + block.requested / 2), user);
  return {};
}

Violations RuntimeSut::queue_work(int device, int stream) {
  scenario_.queue_work(device, stream);
  m_.launch(device, stream, {}, {});
  ++coverage_.host_functions;
  return {};
}

Violations RuntimeSut::complete_work(int device, int stream) {
  scenario_.complete_work(device, stream);
  m_.streams[device][stream].synchronize();
  return {};
}

Violations RuntimeSut::empty_cache() {
  Violations out;
  FlatStats befores[kRuntimeDevices];
  for (int x = 0; x < kRuntimeDevices; ++x) befores[x] = memory_stats(x);
  scenario_.empty_cache();
  accel::empty_cache();
  for (int x = 0; x < kRuntimeDevices; ++x) {
    model_.synchronize_all(x);
    const FlatStats after = memory_stats(x);
    if (stat_bytes(after, "num_sync_all_streams") !=
        stat_bytes(befores[x], "num_sync_all_streams") + 1) {
      out.push_back("invariant 12: empty_cache did not move num_sync_all_streams of device " +
                    std::to_string(x) + " by one");
    }
    if (stat_bytes(after, "reserved_bytes.all.peak") !=
        stat_bytes(befores[x], "reserved_bytes.all.peak")) {
      out.emplace_back("invariant 12: empty_cache changed reserved_bytes.all.peak");
    }
    if (nothing_live(x) && stat_bytes(after, "reserved_bytes.all.current") != 0) {
      out.push_back("invariant 11: device " + std::to_string(x) +
                    " keeps reserved bytes after empty_cache with nothing live");
    }
  }
  return out;
}

Violations RuntimeSut::reset_peak(int device) {
  scenario_.reset_peak(device);
  reset_peak_memory_stats(device);
  return history_[device]->after_reset_peak(memory_stats(device));
}

Violations RuntimeSut::reset_accumulated(int device) {
  scenario_.reset_accumulated(device);
  reset_accumulated_memory_stats(device);
  return history_[device]->after_reset_accumulated(memory_stats(device));
}

Violations RuntimeSut::set_fraction(int device, double fraction) {
  scenario_.set_fraction(device, fraction);
  set_per_process_memory_fraction(fraction, device);
  fraction_[device] = fraction;
  if (get_per_process_memory_fraction(device) != fraction) {
    return {"get_per_process_memory_fraction differs from what was set"};
  }
  return {};
}

Violations RuntimeSut::check() {
  ++coverage_.commands;
  Violations out;
  check_all(out);
  scenario_.expect_model(model_);
  return out;
}

void RuntimeSut::describe(const std::string& command) { scenario_.comment(command); }

Violations RuntimeSut::finish() {
  finished_ = true;
  Violations out;
  if (recording_) scenario_.comment("the end: everything freed, the streams synchronised");
  while (!model_.live().empty()) {
    const int d = model_.live().back().device;
    if (recording_) scenario_.free(name_of(model_.live().size() - 1));
    free_live(model_.live().size() - 1);
    append(out, history_[d]->observe(memory_stats(d)));
  }
  blocks_.clear();
  for (int d = 0; d < kRuntimeDevices; ++d) {
    for (int s = 0; s < kStreams; ++s) m_.streams[d][s].synchronize();
  }
  accel::empty_cache();
  for (int d = 0; d < kRuntimeDevices; ++d) model_.synchronize_all(d);
  check_all(out);
  if (recording_) {
    scenario_.synchronize_all();
    scenario_.empty_cache();
    scenario_.expect_model(model_);
    scenario_.expect_driver_holds_nothing(m_.context_reserve);
    scenario_.expect_no_race();
  }
  for (int d = 0; d < kRuntimeDevices; ++d) {
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

void RuntimeSut::free_live(std::size_t i) {
  const LiveBlock& block = model_.live()[i];
  if (!block.used_on.empty()) ++coverage_.pending_frees;
  raw_delete(reinterpret_cast<void*>(block.address));
  model_.free(i, [this](int device, int stream_id) {
    return m_.queued[device][m_.index_of_id[device].at(stream_id)];
  });
}

std::string RuntimeSut::name_of(std::size_t i) const {
  const LiveBlock& block = model_.live()[i];
  for (const auto& [handle, placed] : blocks_) {
    if (placed.device == block.device && placed.address == block.address) {
      return "a" + std::to_string(handle);
    }
  }
  return "unnamed";  // not a handle's block: the scenario names no such allocation
}

void RuntimeSut::allocate_block(const std::string& name, int d, int s, std::size_t bytes,
                                const FlatStats& before, Violations& out) {
  const Stream& stream = m_.streams[d][s];
  void* pointer = nullptr;
  // The step, with the outcome the property expects: an OOM it judged unavoidable, else the
  // block (a block is then used on its stream).
  const auto record = [&](bool oom, bool used) {
    scenario_.allocate(name, d, s, bytes, oom, used);
  };
  try {
    pointer = raw_alloc(bytes, stream);
  } catch (const OutOfMemoryError& e) {
    if (bytes < kOneExbibyte) {
      ++coverage_.ooms;
      model_.synchronize_all(d);
    }
    const auto usage = mockdev::control::memory_usage(d);
    OomFacts facts;
    facts.bytes = bytes;
    facts.device = d;
    facts.stream = static_cast<int>(stream.id());
    facts.free_bytes = usage.capacity_bytes - usage.used_bytes;
    facts.allowed_bytes =
        static_cast<std::size_t>(fraction_[d] * static_cast<double>(usage.capacity_bytes));
    facts.nothing_live = nothing_live(d);
    facts.expandable = expandable_;
    facts.granularity = usage.granularity_bytes;
    const Violations judged =
        check_oom(facts, e, before, memory_stats(d), memory_snapshot().segments);
    record(judged.empty(), false);
    append(out, judged);
    return;
  } catch (const Error& e) {
    record(false, false);
    out.push_back(std::string("raw_alloc threw an unexpected error: ") + e.what());
    return;
  }
  if (bytes == 0) {
    record(false, false);
    if (pointer != nullptr) out.emplace_back("raw_alloc(0) returned a non-null pointer");
    if (memory_stats(d) != before) out.emplace_back("raw_alloc(0) changed the statistics");
    return;
  }
  record(false, true);
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
  const LiveBlock block{address, bytes, size, d, static_cast<int>(stream.id()), {}};
  append(out, model_.hand_out(block, done()));
  if (stat_bytes(memory_stats(d), "num_sync_all_streams") >
      stat_bytes(before, "num_sync_all_streams")) {
    model_.synchronize_all(d);
  }
  // The block is used on its own stream: a write of all of it (declared by a host
  // function) and a real memset of its first bytes.
  m_.launch(d, s, {}, {{address, bytes, false}});
  ++coverage_.host_functions;
  m_.use_device(d);
  const auto native = reinterpret_cast<cuda_abi::CUstream>(stream.native_handle());
  if (m_.driver.memset_d8_async(address, 0x5a, std::min(bytes, kMemsetBytes), native) !=
      cuda_abi::CUDA_SUCCESS) {
    out.emplace_back("cuMemsetD8Async on the new block failed");
  }
}

void RuntimeSut::check_all(Violations& out) {
  const MemorySnapshot snapshot = memory_snapshot();
  for (int d = 0; d < kRuntimeDevices; ++d) {
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

}  // namespace accel::test::alloc_model
