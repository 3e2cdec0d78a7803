// Property: the pinned host caching allocator against a model. Random programs of
// allocate / free / record_use / event completion / empty_cache / peak and accumulated
// resets / capture begin and end (plus bad frees, bad record_use and unmatched end_capture)
// run over a fake provider with a small capacity (so OOM happens); after every step:
//   * the host invariants: active_requests.current <= allocations.current,
//     active_bytes.current <= allocated_bytes.current, every block a power of two and the
//     byte statistics their sums, num_host_alloc == allocations.allocated and
//     num_host_free == allocations.freed since the last reset, peak >= current;
//   * no live pointer is handed out twice, and a block freed with recorded streams is never
//     handed out again before the events of those streams have completed;
//   * a request is served from its bucket exactly when the model has a ready block there,
//     OOM exactly when it has none and the provider is full;
//   * every statistic equals the model's, and the provider's live memory and outstanding
//     events equal the model's.

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "accel/error.h"
#include "allocator/host_caching_allocator.h"
#include "fake_host_provider.h"

namespace accel::detail::alloc {
namespace {

using accel::test::FakeHostProvider;

constexpr std::size_t kCapacityBytes = 512 * 1024;
constexpr std::int64_t kAllocateCostUs = 3;
constexpr std::int64_t kFreeCostUs = 2;
constexpr int kDevices = 2;
constexpr int kStreams = 3;

enum class Op {
  kAllocate,
  kFree,
  kRecordUse,
  kCompleteStream,
  kCompleteAll,
  kEmptyCache,
  kResetPeak,
  kResetAccumulated,
  kBeginCapture,
  kEndCapture,
  kFreeFreed,       // free a block that is not checked out: kValue
  kRecordOnFreed,   // record_use on a block that is not checked out: kValue
};

struct Command {
  Op op = Op::kAllocate;
  std::size_t bytes = 1;
  std::size_t pick = 0;  // which block (modulo the candidates)
  int device = 0;
  StreamId stream = 0;
};

const char* op_name(Op op) {
  switch (op) {
    case Op::kAllocate: return "allocate";
    case Op::kFree: return "free";
    case Op::kRecordUse: return "record_use";
    case Op::kCompleteStream: return "complete_stream";
    case Op::kCompleteAll: return "complete_all";
    case Op::kEmptyCache: return "empty_cache";
    case Op::kResetPeak: return "reset_peak";
    case Op::kResetAccumulated: return "reset_accumulated";
    case Op::kBeginCapture: return "begin_capture";
    case Op::kEndCapture: return "end_capture";
    case Op::kFreeFreed: return "free_freed";
    case Op::kRecordOnFreed: return "record_on_freed";
  }
  return "?";
}

// How rapidcheck prints a counterexample.
void showValue(const Command& c, std::ostream& os) {
  os << op_name(c.op) << "(bytes=" << c.bytes << ", pick=" << c.pick << ", device=" << c.device
     << ", stream=" << c.stream << ")";
}

rc::Gen<Command> command_gen() {
  return rc::gen::build<Command>(
      rc::gen::set(&Command::op,
                   rc::gen::weightedElement<Op>({{8, Op::kAllocate},
                                                 {6, Op::kFree},
                                                 {5, Op::kRecordUse},
                                                 {3, Op::kCompleteStream},
                                                 {1, Op::kCompleteAll},
                                                 {2, Op::kEmptyCache},
                                                 {1, Op::kResetPeak},
                                                 {1, Op::kResetAccumulated},
                                                 {1, Op::kBeginCapture},
                                                 {1, Op::kEndCapture},
                                                 {1, Op::kFreeFreed},
                                                 {1, Op::kRecordOnFreed}})),
      rc::gen::set(&Command::bytes,
                   rc::gen::oneOf(rc::gen::element<std::size_t>(1, 64, 100, 4096, 5000),
                                  rc::gen::inRange<std::size_t>(1, 200001))),
      rc::gen::set(&Command::pick, rc::gen::inRange<std::size_t>(0, 1000)),
      rc::gen::set(&Command::device, rc::gen::inRange(0, kDevices)),
      rc::gen::set(&Command::stream, rc::gen::inRange<StreamId>(0, kStreams)));
}

// ---- the model ----

struct ModelStat {
  std::int64_t current = 0, peak = 0, allocated = 0, freed = 0;
  void up(std::int64_t n) {
    current += n;
    allocated += n;
    peak = std::max(peak, current);
  }
  void down(std::int64_t n) {
    current -= n;
    freed += n;
  }
};

struct ModelDuration {
  std::int64_t total = 0, count = 0;
  bool seen = false;  // a call since the last peak reset: min == max == the fixed cost
};

enum class State { kLive, kCached, kPending, kDeferred };

struct PendingUse {
  int device;
  StreamId stream;
  std::uint64_t ticket;  // position in that stream's record order
};

struct ModelBlock {
  std::size_t size = 0;
  State state = State::kLive;
  bool during_capture = false;
  std::set<std::pair<int, StreamId>> streams;
  std::vector<PendingUse> events;  // recorded at free, not yet processed
};

struct Model {
  std::map<std::uintptr_t, ModelBlock> blocks;
  std::map<std::pair<int, StreamId>, std::uint64_t> recorded;   // tickets handed out
  std::map<std::pair<int, StreamId>, std::uint64_t> completed;  // tickets completed
  int capture_depth = 0;
  ModelStat allocations, allocated_bytes, active_requests, active_bytes;
  std::int64_t num_host_alloc = 0, num_host_free = 0;
  ModelDuration alloc_time, free_time;

  void record_events(ModelBlock& block) {
    for (const auto& key : block.streams) {
      block.events.push_back(PendingUse{key.first, key.second, ++recorded[key]});
    }
    block.streams.clear();
    block.state = State::kPending;
  }
  bool done(const PendingUse& use) const {
    auto found = completed.find({use.device, use.stream});
    return found != completed.end() && found->second >= use.ticket;
  }
  // What allocate and empty_cache do first outside a capture.
  void process() {
    for (auto& [address, block] : blocks) {
      if (block.state == State::kDeferred) record_events(block);
    }
    for (auto& [address, block] : blocks) {
      if (block.state != State::kPending) continue;
      // Each completed event is seen (and destroyed) on its own; the block waits for all.
      std::erase_if(block.events, [&](const PendingUse& use) { return done(use); });
      if (block.events.empty()) block.state = State::kCached;
    }
  }
  std::size_t outstanding_events() const {
    std::size_t count = 0;
    for (const auto& [address, block] : blocks) count += block.events.size();
    return count;
  }
  std::vector<std::uintptr_t> in_state(State state) const {
    std::vector<std::uintptr_t> out;
    for (const auto& [address, block] : blocks) {
      if (block.state == state) out.push_back(address);
    }
    return out;
  }
  std::int64_t owned_bytes() const {
    std::int64_t sum = 0;
    for (const auto& [address, block] : blocks) sum += static_cast<std::int64_t>(block.size);
    return sum;
  }

  std::map<std::string, std::int64_t> stats() const {
    std::map<std::string, std::int64_t> out;
    const auto put = [&](const std::string& name, const ModelStat& s) {
      out[name + ".current"] = s.current;
      out[name + ".peak"] = s.peak;
      out[name + ".allocated"] = s.allocated;
      out[name + ".freed"] = s.freed;
    };
    put("allocations", allocations);
    put("allocated_bytes", allocated_bytes);
    put("active_requests", active_requests);
    put("active_bytes", active_bytes);
    out["num_host_alloc"] = num_host_alloc;
    out["num_host_free"] = num_host_free;
    const auto put_time = [&](const std::string& name, const ModelDuration& d, std::int64_t cost) {
      out[name + ".total"] = d.total;
      out[name + ".count"] = d.count;
      out[name + ".avg"] = d.count == 0 ? 0 : d.total / d.count;
      out[name + ".min"] = d.seen ? cost : 0;
      out[name + ".max"] = d.seen ? cost : 0;
    };
    put_time("host_alloc_time", alloc_time, kAllocateCostUs);
    put_time("host_free_time", free_time, kFreeCostUs);
    return out;
  }
};

ErrorKind thrown_kind(const std::function<void()>& call, std::string* message = nullptr) {
  try {
    call();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.kind();
  }
  RC_FAIL("the call did not throw");
}

// ---- one program ----

// How often the interesting paths ran, so a generator change that stops reaching one shows.
struct Coverage {
  std::size_t reuses = 0;          // served from a bucket
  std::size_t waits = 0;           // new memory while a same-size block waited for events
  std::size_t ooms = 0;
  std::size_t event_frees = 0;     // frees that recorded events
  std::size_t deferred_frees = 0;  // frees during capture that deferred their events
};

void run_program(const std::vector<Command>& program, Coverage& coverage) {
  auto owned = std::make_unique<FakeHostProvider>(kCapacityBytes);
  FakeHostProvider* fake = owned.get();
  fake->set_costs_us(kAllocateCostUs, kFreeCostUs);
  HostCachingAllocator allocator(std::move(owned), AllocatorConfig{},
                                 [fake] { return fake->now_us(); });
  Model model;

  for (const Command& c : program) {
    switch (c.op) {
      case Op::kAllocate: {
        const std::size_t size = host_block_size(c.bytes);
        if (model.capture_depth == 0) model.process();
        std::set<std::uintptr_t> ready;
        for (const auto& [address, block] : model.blocks) {
          if (block.state == State::kCached && block.size == size) ready.insert(address);
        }
        const bool fits = model.owned_bytes() + static_cast<std::int64_t>(size) <=
                          static_cast<std::int64_t>(kCapacityBytes);
        if (ready.empty() && !fits) {
          RC_ASSERT(thrown_kind([&] { allocator.allocate(c.bytes); }) ==
                    ErrorKind::kOutOfMemory);
          ++coverage.ooms;
          break;
        }
        for (const auto& [address, block] : model.blocks) {
          if (ready.empty() && block.size == size &&
              (block.state == State::kPending || block.state == State::kDeferred)) {
            ++coverage.waits;
            break;
          }
        }
        coverage.reuses += ready.empty() ? 0 : 1;
        const auto address = reinterpret_cast<std::uintptr_t>(allocator.allocate(c.bytes));
        if (!ready.empty()) {
          // Reused: a ready block of this bucket, never a live or event-pending one.
          RC_ASSERT(ready.contains(address));
        } else {
          // New memory: an address the model has never seen as a block now.
          RC_ASSERT(!model.blocks.contains(address));
          model.blocks[address].size = size;
          model.allocations.up(1);
          model.allocated_bytes.up(static_cast<std::int64_t>(size));
          ++model.num_host_alloc;
          model.alloc_time.total += kAllocateCostUs;
          ++model.alloc_time.count;
          model.alloc_time.seen = true;
        }
        ModelBlock& block = model.blocks.at(address);
        block.state = State::kLive;
        block.during_capture = model.capture_depth > 0;
        model.active_requests.up(1);
        model.active_bytes.up(static_cast<std::int64_t>(size));
        break;
      }
      case Op::kFree: {
        const auto live = model.in_state(State::kLive);
        if (live.empty()) break;
        const std::uintptr_t address = live[c.pick % live.size()];
        allocator.free(reinterpret_cast<void*>(address));
        ModelBlock& block = model.blocks.at(address);
        if (block.streams.empty() || block.during_capture) {
          block.streams.clear();
          block.state = State::kCached;
        } else if (model.capture_depth > 0) {
          block.state = State::kDeferred;
          ++coverage.deferred_frees;
        } else {
          model.record_events(block);
          ++coverage.event_frees;
        }
        model.active_requests.down(1);
        model.active_bytes.down(static_cast<std::int64_t>(block.size));
        break;
      }
      case Op::kRecordUse: {
        const auto live = model.in_state(State::kLive);
        if (live.empty()) break;
        const std::uintptr_t address = live[c.pick % live.size()];
        ModelBlock& block = model.blocks.at(address);
        const std::size_t offset = c.pick % block.size;  // any address inside the block
        allocator.record_use(reinterpret_cast<void*>(address + offset), c.device, c.stream);
        block.streams.emplace(c.device, c.stream);
        break;
      }
      case Op::kCompleteStream:
        fake->complete_stream(c.device, c.stream);
        model.completed[{c.device, c.stream}] = model.recorded[{c.device, c.stream}];
        break;
      case Op::kCompleteAll:
        fake->complete_all();
        for (const auto& [key, ticket] : model.recorded) model.completed[key] = ticket;
        break;
      case Op::kEmptyCache:
        allocator.empty_cache();
        if (model.capture_depth > 0) break;
        model.process();
        for (const std::uintptr_t address : model.in_state(State::kCached)) {
          const auto size = static_cast<std::int64_t>(model.blocks.at(address).size);
          model.blocks.erase(address);
          model.allocations.down(1);
          model.allocated_bytes.down(size);
          ++model.num_host_free;
          model.free_time.total += kFreeCostUs;
          ++model.free_time.count;
          model.free_time.seen = true;
        }
        break;
      case Op::kResetPeak:
        allocator.reset_peak_stats();
        for (ModelStat* s : {&model.allocations, &model.allocated_bytes, &model.active_requests,
                             &model.active_bytes}) {
          s->peak = s->current;
        }
        model.alloc_time.seen = model.free_time.seen = false;
        break;
      case Op::kResetAccumulated:
        allocator.reset_accumulated_stats();
        for (ModelStat* s : {&model.allocations, &model.allocated_bytes, &model.active_requests,
                             &model.active_bytes}) {
          s->allocated = s->freed = 0;
        }
        model.num_host_alloc = model.num_host_free = 0;
        model.alloc_time.total = model.alloc_time.count = 0;
        model.free_time.total = model.free_time.count = 0;
        break;
      case Op::kBeginCapture:
        if (model.capture_depth >= 2) break;
        allocator.begin_capture();
        ++model.capture_depth;
        break;
      case Op::kEndCapture:
        if (model.capture_depth == 0) {
          RC_ASSERT(thrown_kind([&] { allocator.end_capture(); }) == ErrorKind::kRuntime);
          break;
        }
        allocator.end_capture();
        if (--model.capture_depth == 0) {
          for (auto& [address, block] : model.blocks) {
            if (block.state == State::kDeferred) model.record_events(block);
          }
        }
        break;
      case Op::kFreeFreed:
      case Op::kRecordOnFreed: {
        std::vector<std::uintptr_t> freed;
        for (const auto& [address, block] : model.blocks) {
          if (block.state != State::kLive) freed.push_back(address);
        }
        if (freed.empty()) break;
        const std::uintptr_t address = freed[c.pick % freed.size()];
        const auto before = allocator.stats();
        std::string message;
        if (c.op == Op::kFreeFreed) {
          RC_ASSERT(thrown_kind([&] { allocator.free(reinterpret_cast<void*>(address)); },
                                &message) == ErrorKind::kValue);
          RC_ASSERT(message == "free: pointer " + accel::test::hex_address(address) +
                                   " was already freed");
        } else {
          RC_ASSERT(thrown_kind([&] {
            allocator.record_use(reinterpret_cast<void*>(address), c.device, c.stream);
          }) == ErrorKind::kValue);
        }
        RC_ASSERT(allocator.stats() == before);
        break;
      }
    }

    // ---- after every step ----
    const auto stats = allocator.stats();
    RC_ASSERT(stats == model.stats());
    RC_ASSERT(stats.at("active_requests.current") <= stats.at("allocations.current"));
    RC_ASSERT(stats.at("active_bytes.current") <= stats.at("allocated_bytes.current"));
    RC_ASSERT(stats.at("num_host_alloc") == stats.at("allocations.allocated"));
    RC_ASSERT(stats.at("num_host_free") == stats.at("allocations.freed"));
    for (const char* name : {"allocations", "allocated_bytes", "active_requests", "active_bytes"}) {
      RC_ASSERT(stats.at(std::string(name) + ".peak") >= stats.at(std::string(name) + ".current"));
    }
    std::int64_t provider_bytes = 0;
    for (const auto& [address, size] : fake->live()) {
      RC_ASSERT((size & (size - 1)) == 0);  // a power of two
      provider_bytes += static_cast<std::int64_t>(size);
    }
    RC_ASSERT(provider_bytes == stats.at("allocated_bytes.current"));
    RC_ASSERT(fake->live().size() == model.blocks.size());
    RC_ASSERT(fake->undestroyed_events() == model.outstanding_events());
  }
}

TEST(HostAllocatorProperty, MatchesTheModelAfterEveryStep) {
  std::size_t programs = 0;
  std::size_t commands = 0;
  Coverage coverage;
  const bool ok = rc::check("pinned host allocator programs against the model", [&] {
    const auto program =
        *rc::gen::resize(100, rc::gen::container<std::vector<Command>>(command_gen()));
    run_program(program, coverage);
    ++programs;
    commands += program.size();
  });
  EXPECT_TRUE(ok);
  std::cout << "[ property ] pinned host allocator: " << programs << " programs, " << commands
            << " commands; " << coverage.reuses << " reuses, " << coverage.waits
            << " allocations while a same-size block waited for events, " << coverage.event_frees
            << " frees with events, " << coverage.deferred_frees << " deferred during capture, "
            << coverage.ooms << " OOMs" << std::endl;
  EXPECT_GT(coverage.reuses, 0u);
  EXPECT_GT(coverage.waits, 0u);
  EXPECT_GT(coverage.event_frees, 0u);
  EXPECT_GT(coverage.deferred_frees, 0u);
  EXPECT_GT(coverage.ooms, 0u);
  const int wanted = rc::detail::configuration().testParams.maxSuccess;
  EXPECT_GE(programs, static_cast<std::size_t>(wanted))
      << "fewer generated programs ran than RC_PARAMS max_success asks for";
}

}  // namespace
}  // namespace accel::detail::alloc
