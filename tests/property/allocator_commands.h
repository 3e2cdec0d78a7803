#pragma once
// The device allocator's properties as a rapidcheck state machine (rapidcheck/state.h), the
// idiom of the device-index properties: a model, one command class per thing a user of the
// caching allocator does (allocate, allocate-and-free, free, record_stream, empty_cache,
// the resets, the memory fraction) or does to its streams (queue work, complete work), and
// programs drawn by rc::state::gen::execOneOfWithArgs. Each command's run() performs its
// operation on the allocator under test and then checks everything that holds between
// commands; a failing program prints as rapidcheck's shrunk command list.
//
// Note [Allocator state machine]
// rapidcheck applies commands to its model while it generates and shrinks programs, with no
// allocator in sight, so that model (ProgramModel) holds only what the program decides: the
// allocations it made and has not freed, each a handle (an id the allocation command drew,
// shown as "#id" in a counterexample, which shrinking never changes). What the
// allocator answers (addresses, out-of-memory errors) is learnt while a program runs, by the
// system under test (AllocatorSut): it holds the reference model (allocator_model.h: live and
// pending blocks, PyTorch's size policy) and the statistics' history (allocator_invariants.h),
// and holds the allocator to both, exactly, after every command. An allocation that ran out
// of memory keeps its handle in the ProgramModel (which cannot know); freeing it or using it
// on another stream then does nothing.
//
// Note [Allocator size mix]: requests are small (0-1 MiB, with the 512 and 1 MiB edges),
// medium (1-10 MiB: 20 MiB segments, splitting), large (10-48 MiB: own segments, the
// max_split_size cut) and huge (more than the device holds, or 1 EiB and more, rejected up
// front), weighted 45/25/22/8 so that segments fill, split, coalesce and run out.

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "allocator_invariants.h"

namespace accel::test::alloc_model {

inline constexpr int kStreams = 3;  // per device: 0 (the default stream), 1, 2
inline constexpr std::size_t kMiB = 1 << 20;

enum class CommandKind {
  kAllocate,
  kAllocateAndFree,  // allocate, then free at once (invariant 13)
  kFree,
  kRecordStream,  // the block is also used on another stream of its device
  kQueueWork,     // work queued on a stream (a host function / memset)
  kCompleteWork,  // everything queued on a stream so far completes
  kEmptyCache,
  kResetPeak,
  kResetAccumulated,
  kSetFraction,
};
inline constexpr CommandKind kAllCommandKinds[] = {
    CommandKind::kAllocate,     CommandKind::kAllocateAndFree, CommandKind::kFree,
    CommandKind::kRecordStream, CommandKind::kQueueWork,       CommandKind::kCompleteWork,
    CommandKind::kEmptyCache,   CommandKind::kResetPeak,       CommandKind::kResetAccumulated,
    CommandKind::kSetFraction};
const char* to_string(CommandKind kind);

// What a run's programs are drawn for.
struct Limits {
  int devices = 1;
  std::size_t capacity_bytes = 0;  // per device; huge requests are sized against it
  std::size_t max_length = 1;      // commands per program, at most
};

struct ProgramModel {
  Limits limits;
  // The generation size byte counts are drawn at (programs are drawn at a size scaled down
  // to bound their length; byte counts grow with the unscaled one). Unused when running.
  int byte_size = rc::kNominalSize;
  // Handle ids only grow (removing an allocation while shrinking keeps the later ones apart).
  int next_handle = 0;
  // The allocations the program made and has not freed (Note [Allocator state machine]).
  std::vector<int> handles;
};

// The allocator under test with its reference model. Each operation performs one command,
// updates the reference with what the allocator answered and returns the violations of
// that command's own rules; check() returns those of every rule that holds between commands.
// Handles are ids of ProgramModel::handles; streams are indices 0 .. kStreams - 1 of a device.
class AllocatorSut {
 public:
  virtual ~AllocatorSut() = default;
  virtual Violations allocate(int handle, int device, int stream, std::size_t bytes) = 0;
  virtual Violations allocate_and_free(int device, int stream, std::size_t bytes) = 0;
  virtual Violations free(int handle) = 0;
  virtual Violations record_stream(int handle, int stream) = 0;
  virtual Violations queue_work(int device, int stream) = 0;
  virtual Violations complete_work(int device, int stream) = 0;
  virtual Violations empty_cache() = 0;
  virtual Violations reset_peak(int device) = 0;
  virtual Violations reset_accumulated(int device) = 0;
  virtual Violations set_fraction(int device, double fraction) = 0;
  virtual Violations check() = 0;
  // The command about to run, as rapidcheck shows it (for a system under test that writes
  // the program down: allocator_scenario.h).
  virtual void describe(const std::string& command) { (void)command; }
};

// Every command class derives from this; kind() and stream() let the generator's own test
// see what was drawn.
class AllocatorCommand : public rc::state::Command<ProgramModel, AllocatorSut> {
 public:
  virtual CommandKind kind() const = 0;
  virtual std::optional<int> stream() const { return std::nullopt; }
};
using Program = rc::state::Commands<rc::state::Command<ProgramModel, AllocatorSut>>;

// Programs of 1 to limits.max_length commands. A command's kind is drawn at a fixed
// frequency, and its device, stream, handle and fraction at rapidcheck's nominal size,
// whatever the generation size, so the first programs of a run already hold every kind of
// command and every stream (only byte counts and the length grow with the size).
rc::Gen<Program> gen_program(const Limits& limits);
// Runs `program` on `sut` from the empty model (rc::state::runAll).
void run_program(const Program& program, const Limits& limits, AllocatorSut& sut);
rc::Gen<std::size_t> gen_request_bytes(std::size_t capacity_bytes);

}  // namespace accel::test::alloc_model
