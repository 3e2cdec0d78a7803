#pragma once
// Device memory: the caching allocator's public face (torch.accelerator.memory and the
// torch.cuda.memory functions users reach for; PyTorch's c10/cuda/CUDACachingAllocator.cpp).
//
//   accel::DataPtr x = accel::allocate(1024);          // current device, current stream
//   accel::record_stream(x, side);                      // x is also used on `side`
//   x.reset();                                          // reused only after `side` is done
//   auto stats = accel::memory_stats();                 // 122 keys, sorted, PyTorch's names
//
// One caching allocator serves every backend (Note [Caching allocator] in
// runtime/src/allocator/device_caching_allocator.h): memory is taken from the driver in
// segments, split into blocks, cached on free and reused by later allocations on the same
// stream. It is configured by ACCEL_ALLOC_CONF in PyTorch's syntax (PYTORCH_ALLOC_CONF is
// read when ACCEL_ALLOC_CONF is unset), read when the runtime initialises, or by
// set_allocator_settings(). docs/MEMORY.md documents the keys.
//
// Initialisation: allocate(), raw_alloc() and the device-resolving calls initialise the
// runtime; memory_stats() and the max/current getters before initialisation answer empty / 0
// without initialising (as PyTorch's). In a forked child of an initialised parent every call
// that touches memory throws ForkError. Thread-safe.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include "accel/call_site.h"
#include <string>
#include <string_view>
#include <vector>

#include "accel/accelerator.h"
#include "accel/graph.h"
#include "accel/stream.h"

namespace accel {

// ---- allocation -----------------------------------------------------------------------

// An owning handle to device memory from the caching allocator: frees on destruction (a
// failure there is a warning on stderr, never an exception). Move-only. A null DataPtr
// (from allocate(0) or after reset()/release()) owns nothing.
class DataPtr {
 public:
  DataPtr() noexcept = default;
  DataPtr(void* pointer, std::size_t bytes, int device) noexcept
      : pointer_(pointer), bytes_(bytes), device_(device) {}
  DataPtr(DataPtr&& other) noexcept;
  DataPtr& operator=(DataPtr&& other) noexcept;
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  ~DataPtr();

  void* get() const noexcept { return pointer_; }
  // The size that was asked for (the block may be larger: rounding).
  std::size_t size() const noexcept { return bytes_; }
  int device() const noexcept { return device_; }
  explicit operator bool() const noexcept { return pointer_ != nullptr; }

  // Frees now (raw_delete semantics: throws on failure) and becomes null.
  void reset(CallSite site = CallSite::current());
  // Gives up ownership: the caller frees the pointer with raw_delete().
  void* release() noexcept;

 private:
  void* pointer_ = nullptr;
  std::size_t bytes_ = 0;
  int device_ = -1;
};

// `bytes` of device memory on the current stream of the current device (or on `stream`,
// which names the device). 0 bytes: a null DataPtr, no statistic changes. Throws
// OutOfMemoryError (PyTorch's message, plus OutOfMemoryError::report()) when no block fits
// after the whole retry chain; kValue for requests of 1 EiB or more ("Tried to allocate
// more than 1EB memory", as an OutOfMemoryError). `site` is kept in the memory history.
DataPtr allocate(std::size_t bytes, CallSite site = CallSite::current());
DataPtr allocate(std::size_t bytes, const Stream& stream,
                 CallSite site = CallSite::current());

// The raw-pointer form (torch.cuda.caching_allocator_alloc / caching_allocator_delete).
// raw_delete of a pointer the allocator did not hand out, or already freed: kValue naming
// the pointer. raw_delete(nullptr) does nothing.
void* raw_alloc(std::size_t bytes, CallSite site = CallSite::current());
void* raw_alloc(std::size_t bytes, const Stream& stream,
                CallSite site = CallSite::current());
void raw_delete(void* pointer, CallSite site = CallSite::current());

// Marks the block holding `pointer` (any address inside a live block: a shifted view
// protects the whole block) as used on `stream`: when it is freed it is not reused until
// the work queued on `stream` at that moment has completed (torch.Tensor.record_stream). The
// allocation stream itself is ignored. Errors (kValue, naming the pointer or stream): a pointer in
// no live block, a stream of another device or of a backend other than the allocator's.
void record_stream(void* pointer, const Stream& stream);
void record_stream(const DataPtr& data, const Stream& stream);

// ---- cache control and statistics -----------------------------------------------------

// True once the runtime has initialised (the allocator is created with it).
bool is_allocator_initialized();

// Releases every cached, wholly free segment of every device to the driver (after waiting
// for the events of blocks freed with record_stream). No-op before initialisation.
void empty_cache();

// Flat statistics, keys sorted: the 122 keys of torch.cuda.memory_stats
// ("active_bytes.all.current", ..., "num_ooms", "max_split_size" = -1 when unlimited). Empty before
// initialisation, without resolving `device` or initialising.
using MemoryStats = std::map<std::string, std::int64_t>;
MemoryStats memory_stats(DeviceArg device = {});
// memory_stats(device)["allocated_bytes.all.current"] etc., 0 before initialisation.
std::int64_t memory_allocated(DeviceArg device = {});
std::int64_t max_memory_allocated(DeviceArg device = {});
std::int64_t memory_reserved(DeviceArg device = {});
std::int64_t max_memory_reserved(DeviceArg device = {});
// As torch.cuda.reset_peak_memory_stats. With an explicit index before initialisation: kRuntime
// "Invalid device argument <d>: did you call init?"; with none, the current device (which
// initialises).
void reset_peak_memory_stats(DeviceArg device = {});
void reset_accumulated_memory_stats(DeviceArg device = {});

// The share of the device's total memory this process may reserve
// (torch.cuda.set_per_process_memory_fraction): an
// allocation that would take reserved bytes above fraction * total fails as OOM. A fraction
// outside [0, 1] (or NaN): kValue "Invalid fraction value: <f>. Allowed range: 0~1".
// Initialises. The getter answers 1.0 until a fraction is set.
void set_per_process_memory_fraction(double fraction, DeviceArg device = {});
double get_per_process_memory_fraction(DeviceArg device = {});

// Applies allocator settings in ACCEL_ALLOC_CONF syntax ("max_split_size_mb:128,
// expandable_segments:True"), over the ones in force; a malformed setting throws kConfig
// naming the bad token and changes nothing. Keys that shape existing segments
// (expandable_segments) apply to segments created afterwards. Initialises.
void set_allocator_settings(std::string_view settings);
// The settings in force, in the same syntax, every key listed. Before initialisation:
// the settings initialisation would apply (ACCEL_ALLOC_CONF, else PYTORCH_ALLOC_CONF;
// kConfig when malformed), without initialising.
std::string get_allocator_settings();

// torch.cuda.memory_summary(device, abbreviated): PyTorch's table of the statistics of
// `device`, row for row and column for column (the same labels, 75-character lines, sizes in
// B/KiB/MiB/GiB/TiB/PiB and counts in K/M, each pool row in the unit of its "all" row);
// `abbreviated` leaves out the large- and small-pool rows. Initialises the runtime (PyTorch
// resolves the current device, which initialises; with an explicit index before
// initialisation its memory_stats() is empty and the call fails with KeyError, where this
// one initialises first). Errors: the device's, as memory_stats().
std::string memory_summary(DeviceArg device = {}, bool abbreviated = false);
// The same table from flat statistics (memory_stats()'s keys; a dumped snapshot's stats),
// headed "device ID <device>". kValue naming the first key the table needs and `stats`
// lacks; other keys are ignored. Initialises nothing.
std::string format_memory_summary(const MemoryStats& stats, int device, bool abbreviated = false);

// ---- snapshots and memory history (the shape of PyTorch's _snapshot()) -----------------

struct HostFrame {  // a host call site
  std::string filename;
  int line = 0;
  std::string name;  // the function
};

struct BlockSnapshot {
  std::uint64_t address = 0;
  std::size_t size = 0;
  std::size_t requested_size = 0;
  // "active_allocated" (handed out), "active_pending_free" (freed, waiting for the events
  // of its recorded streams), "inactive" (free, cached)
  std::string state;
  std::vector<HostFrame> frames;  // where it was allocated (memory history on)
};

struct SegmentSnapshot {
  int device = 0;
  std::uint64_t address = 0;
  std::size_t total_size = 0;
  std::int64_t stream = 0;  // Stream::id() of the stream it was allocated for
  std::string segment_type;  // "small" or "large"
  std::size_t allocated_size = 0;
  std::size_t active_size = 0;
  std::size_t requested_size = 0;
  bool is_expandable = false;
  MempoolId segment_pool_id{0, 0};  // (0, 0) unless it belongs to a graph's private pool
  std::vector<BlockSnapshot> blocks;  // by address
};

struct TraceEntry {
  // "alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
  // "segment_map", "segment_unmap", "snapshot", "oom"
  std::string action;
  std::uint64_t addr = 0;  // for "oom": the free bytes the driver reported
  std::size_t size = 0;
  std::int64_t stream = 0;
  std::uint64_t time_us = 0;  // microseconds since the epoch (host clock)
  std::vector<HostFrame> frames;
};

struct MemorySnapshot {
  std::vector<SegmentSnapshot> segments;  // every device, by device then address
  std::vector<std::vector<TraceEntry>> device_traces;  // per device, oldest first
};

// The allocator's state now (rebuilding the stats from it gives the live stats). Empty before
// initialisation.
MemorySnapshot memory_snapshot();
// Starts (enabled) or stops recording allocator events into a per-device ring of
// `max_entries` (oldest dropped first); stopping keeps what was recorded until the next
// start. PyTorch: torch.cuda.memory._record_memory_history.
void record_memory_history(bool enabled, std::size_t max_entries = 100000);
// The snapshot as JSON in the shape of PyTorch's pickled snapshot ({"segments": [...],
// "device_traces": [[...]]}), which memory-viz tools read after a pickle->JSON step.
std::string memory_snapshot_json(const MemorySnapshot& snapshot);
// Writes memory_snapshot_json(memory_snapshot()) to `path` (created or truncated; a FIFO
// only when a reader is there, never waited on); kRuntime naming the path and the reason
// when it cannot be written ("dump_snapshot '<path>': is a directory, not a regular file").
void dump_snapshot(const std::string& path);

// ---- pinned host memory ---------------------------------------------------------------

// Page-locked host memory from the pinned host caching allocator (PyTorch's
// CachingHostAllocator): sizes
// rounded up to a power of two, never split, reused only after every stream that used a
// block (record_host_use) has finished that work. Freed by raw_host_delete() or the
// HostPtr destructor.
class HostPtr {
 public:
  HostPtr() noexcept = default;
  HostPtr(void* pointer, std::size_t bytes) noexcept : pointer_(pointer), bytes_(bytes) {}
  HostPtr(HostPtr&& other) noexcept;
  HostPtr& operator=(HostPtr&& other) noexcept;
  HostPtr(const HostPtr&) = delete;
  HostPtr& operator=(const HostPtr&) = delete;
  ~HostPtr();

  void* get() const noexcept { return pointer_; }
  std::size_t size() const noexcept { return bytes_; }
  explicit operator bool() const noexcept { return pointer_ != nullptr; }
  void reset();
  void* release() noexcept;

 private:
  void* pointer_ = nullptr;
  std::size_t bytes_ = 0;
};

// 0 bytes: null. Initialises. OutOfMemoryError when the driver has no pinned memory left.
HostPtr allocate_host(std::size_t bytes);
void* raw_host_alloc(std::size_t bytes);
// kValue naming the pointer when it is not a live pinned block.
void raw_host_delete(void* pointer);
// The block holding `pointer` is used by work on `stream` (PyTorch: record_event).
void record_host_use(void* pointer, const Stream& stream);
// Releases every cached, unused pinned block to the driver. Safe before any allocation and
// before initialisation (then a no-op).
void empty_host_cache();
// torch.cuda.host_memory_stats's keys, flattened and sorted; times in microseconds (avg = total /
// count, integer division). Empty before initialisation.
MemoryStats host_memory_stats();
void reset_peak_host_memory_stats();
void reset_accumulated_host_memory_stats();

}  // namespace accel
