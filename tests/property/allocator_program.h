#pragma once
// Random programs for the device allocator's properties: the commands a user of the caching
// allocator issues (allocate, free, record_stream, empty_cache, the resets, the memory
// fraction) interleaved with stream work that the test queues and completes, plus the
// allocator settings each program runs under.
//
// Commands name live allocations by position (`index` modulo the number live when the
// command runs), so every generated program is valid whatever the allocator returned, and
// rapidcheck can shrink a program by dropping commands. describe() prints a program as the
// numbered list a failing property shows.
//
// Size mix (Note [Allocator size mix]): small (0-1 MiB, with the 512 and 1 MiB edges),
// medium (1-10 MiB: 20 MiB segments, splitting), large (10-48 MiB: own segments, the
// max_split_size cut) and huge (more than the device holds, or 1 EiB and more, rejected up
// front), weighted 45/25/22/8 so that segments fill, split, coalesce and run out.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <rapidcheck.h>

namespace accel::test::alloc_model {

inline constexpr int kStreams = 3;  // per device: 0 (the default stream), 1, 2
inline constexpr std::size_t kMiB = 1 << 20;

enum class OpKind {
  kAllocate,         // device, stream, bytes
  kAllocateAndFree,  // device, stream, bytes: allocate, then free at once (invariant 13)
  kFree,             // index
  kRecordStream,     // index, stream (the block is also used on `stream`)
  kQueueWork,        // device, stream: work queued on the stream (a host function / memset)
  kCompleteWork,     // device, stream: everything queued on the stream so far completes
  kEmptyCache,
  kResetPeak,         // device
  kResetAccumulated,  // device
  kSetFraction,       // device, fraction
};

struct Op {
  OpKind kind = OpKind::kAllocate;
  int device = 0;
  int stream = 0;
  std::size_t bytes = 0;
  std::size_t index = 0;
  double fraction = 1.0;
};
using Program = std::vector<Op>;

// The settings a program runs under (printed as ACCEL_ALLOC_CONF text).
struct Settings {
  bool expandable = false;
  std::size_t max_split_size_mb = 0;  // 0 = unlimited
  std::size_t roundup_divisions = 0;  // 0 = none; else one count for every size
  std::string text() const;  // "expandable_segments:False,max_split_size_mb:40,..."
};

std::string describe(const Op& op);
// How rapidcheck prints a counterexample's values.
void showValue(const Op& op, std::ostream& os);
void showValue(const Settings& settings, std::ostream& os);
std::string describe(const Program& program);

// Programs of up to `max_length` commands on `devices` devices; huge requests are sized
// against `capacity_bytes`. A command's kind, device, stream, index and fraction are drawn
// at rapidcheck's nominal size whatever the generation size, so the first programs of a run
// already hold every kind of command (only byte counts and the length grow with the size).
rc::Gen<Program> gen_program(int devices, std::size_t capacity_bytes, std::size_t max_length);
rc::Gen<std::size_t> gen_request_bytes(std::size_t capacity_bytes);
// Settings: `expandable` fixed by the caller; max_split_size and roundup drawn when
// `with_limits`.
rc::Gen<Settings> gen_settings(bool expandable, bool with_limits);

}  // namespace accel::test::alloc_model
