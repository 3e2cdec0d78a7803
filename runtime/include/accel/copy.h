#pragma once
// Copies and fills: bytes moved and set on a stream, so that stream ordering, races and
// stale reads can be exercised through the runtime alone (decision 210).
//
// Addresses are the driver's unified addresses: device memory of any device (from
// allocate() / raw_alloc() or the driver), pinned host memory (allocate_host() /
// raw_host_alloc(); CUDA also cuMemHostAlloc / cuMemHostRegister, Level Zero zeMemAllocHost)
// and pageable host memory (malloc, new, the stack). The driver tells them apart; the
// runtime never guesses.
//
// Note [Copy ordering]
// copy_async / fill_async queue one operation on `stream`: it starts after the work queued
// on that stream before it and before the work queued after it. Other streams are not
// ordered with it (pool streams never synchronise implicitly, accel/stream.h): order them
// with Event::record / Stream::wait_event / Stream::wait_stream, or the race detector of the
// simulated hardware reports the pair. When the host may touch the memory (the drivers'
// rules: CUDA Driver API "API synchronization behavior"; Level Zero spec, "Appending" and
// zeCommandListAppendMemoryCopy):
//   * device memory and pinned host memory are read and written when the operation runs:
//     the host must not write a source or read a destination before the stream has passed
//     the operation (Stream::synchronize, Event::synchronize). A pinned destination read
//     early holds the old bytes: a stale read.
//   * pageable host memory is finished with when the call returns: a pageable source may be
//     reused at once and a pageable destination holds the bytes. CUDA stages a pageable
//     source at the call and returns from a copy into pageable memory once it is complete;
//     Level Zero reads and writes host memory only when the command runs, so the backend
//     waits for the command (and the stream's earlier work) before returning there.
//   * host to host: CUDA copies at the call; Level Zero queues it like any other copy.
// fill_async targets device memory or pinned host memory; pageable host memory is the
// driver's call (CUDA refuses it with CUDA_ERROR_INVALID_VALUE, Level Zero on Intel fills
// it, waiting as for a pageable copy).
//
// Errors (accel::Error; every message names the values: "(dst=0x.., src=0x.., bytes=N)"):
//   * bytes == 0: nothing at all happens (no check, no initialisation), as PyTorch's copy_
//     of an empty tensor.
//   * a null pointer with bytes > 0, a range that wraps around the address space, or a copy
//     whose source and destination overlap (memcpy's undefined case): kValue, before
//     anything else.
//   * the stream must be this runtime's: its device index in range (kIndex "Device index
//     value <i> is out of index range [0, <count>)") and its id one of the device's pool
//     streams (kValue "stream: no stream with id ..."). A Stream value is a device index
//     and an id of the accelerator serving the process, so a stream of another device
//     type cannot reach here except as such an id.
//   * what the driver refuses (a range past the end of a device allocation, an unknown
//     device address, pageable memory CUDA cannot fill): the driver's error (kDriver, with
//     its code and name) plus the values.
//   * a child forked after initialisation: ForkError. All four initialise the runtime
//     when bytes > 0.
// Thread safety: as Stream; concurrent calls on one stream are queued in some order.

#include <cstddef>
#include <cstdint>
#include <optional>

#include "accel/stream.h"

namespace accel {

// Queues a copy of `bytes` from `src` to `dst` on `stream` (Note [Copy ordering]). Returns
// without waiting for device and pinned memory; see the Note for pageable memory.
void copy_async(void* dst, const void* src, std::size_t bytes, const Stream& stream);

// Queues setting `bytes` bytes at `ptr` to `value` on `stream` (Note [Copy ordering]).
void fill_async(void* ptr, std::uint8_t value, std::size_t bytes, const Stream& stream);

// copy_async on `stream` (the current stream of the current device when none), then waits
// for the stream: on return the copy and every earlier operation of the stream are
// complete and visible to the host. This is ATen's copy with non_blocking=False
// (at::cuda::memcpy_and_sync: the async copy, then a stream synchronize).
void copy(void* dst, const void* src, std::size_t bytes,
          const std::optional<Stream>& stream = std::nullopt);

// fill_async, then waits for the stream, as copy().
void fill(void* ptr, std::uint8_t value, std::size_t bytes,
          const std::optional<Stream>& stream = std::nullopt);

}  // namespace accel
