#pragma once
// Random multi-stream programs and the happens-before model that predicts what the simulated
// driver must do with them, whatever its scheduler does.
//
// A program runs on kDevices devices, each with the legacy default stream and kStreamsPerDevice
// created streams (blocking and non-blocking), over small device buffers, pinned host buffers
// and events. Its commands are the stream work of the CUDA driver API (memsets, device-to-
// device, peer, host-to-device and device-to-host copies, host functions, event record and
// wait) and host waits (stream, event and context synchronisation), plus checkpoints where the
// test reads the pinned host buffers and the host-function log directly.
//
// The model is written from the CUDA rules (the legacy default stream, cuStreamWaitEvent,
// cuEventRecord, cuLaunchHostFunc: CUDA Driver API reference), not from the simulation: vector
// clocks over the streams plus one host clock (Note [Happens-before] in
// mockdev/src/core/op_observer.h), the legacy stream's implicit barriers against blocking streams,
// event snapshots. From them it predicts
//  * whether the program has a data race (two accesses to overlapping bytes from different
//    streams, at least one a write, neither ordered before the other);
//  * for a race-free program, every byte of every buffer at the end (after a context
//    synchronisation of every device);
//  * at each checkpoint, which values each pinned host chunk may hold and which host functions
//    may have run: exactly the work ordered before the host under the adversarial scheduler,
//    everything under the eager one, anything in between (each chunk one of the values its
//    unordered writes could leave) under the random one.
//
// Buffers are split into kChunks equal chunks, and every access covers whole chunks, so one
// byte value per chunk describes a buffer's contents.

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <rapidcheck.h>

namespace accel::test::stream_model {

inline constexpr int kDevices = 2;
inline constexpr int kStreamsPerDevice = 4;  // 0 = legacy default stream, then created ones
inline constexpr int kDeviceBuffersPerDevice = 3;
inline constexpr int kHostBuffers = 3;
inline constexpr int kEventsPerDevice = 3;
inline constexpr int kChunks = 2;
inline constexpr std::size_t kChunkBytes = 128;
inline constexpr std::size_t kBufferBytes = kChunks * kChunkBytes;

// Stream `s` of device `d` is stream d * kStreamsPerDevice + s. Created streams 1 and 2 are
// blocking (CU_STREAM_DEFAULT), 3 is CU_STREAM_NON_BLOCKING.
constexpr int device_of_stream(int stream) { return stream / kStreamsPerDevice; }
constexpr bool is_legacy(int stream) { return stream % kStreamsPerDevice == 0; }
constexpr bool is_blocking(int stream) {
  return !is_legacy(stream) && stream % kStreamsPerDevice != 3;
}

// Buffers: device buffers first (device d owns d * kDeviceBuffersPerDevice + i), then the
// pinned host buffers.
inline constexpr int kDeviceBuffers = kDevices * kDeviceBuffersPerDevice;
inline constexpr int kBuffers = kDeviceBuffers + kHostBuffers;
constexpr bool is_host_buffer(int buffer) { return buffer >= kDeviceBuffers; }
constexpr int device_of_buffer(int buffer) { return buffer / kDeviceBuffersPerDevice; }

enum class Kind {
  kMemset,      // stream, dst (device buffer), chunks, value
  kCopy,        // stream, src, dst, chunks: device/host combinations as the buffers say
  kHostFunction,// stream, id (logged when it runs)
  kRecord,      // stream, event (an event of the stream's device)
  kWait,        // stream waits on event (any device's)
  kStreamSync,  // stream (never the legacy stream: see Note [Legacy sync] in the .cpp)
  kEventSync,   // event
  kDeviceSync,  // device (cuCtxSynchronize on its primary context)
  kCheckpoint,  // read the pinned host buffers and the host-function log
};

struct Command {
  Kind kind = Kind::kMemset;
  int stream = 0;
  int src = 0;
  int dst = 0;
  int first_chunk = 0;  // chunks [first_chunk, last_chunk)
  int last_chunk = kChunks;
  int event = 0;  // global: device * kEventsPerDevice + i
  int device = 0;
  std::uint8_t value = 0;
  int id = 0;  // host function id (its position among the program's host functions)
};

using Program = std::vector<Command>;

std::string describe(const Command& command);
std::string describe(const Program& program);

// A generator of valid programs of up to `max_commands` commands.
rc::Gen<Program> gen_program(int max_commands);

enum class Schedule { kEager, kRandom, kAdversarial };

// What a checkpoint may observe.
struct CheckpointExpectation {
  // Per host buffer and chunk, the values it may hold.
  std::array<std::array<std::set<std::uint8_t>, kChunks>, kHostBuffers> allowed;
  std::set<int> host_functions_required;  // must have run
  std::set<int> host_functions_allowed;   // may have run (a superset of required)
};

struct Prediction {
  bool racy = false;
  std::vector<std::string> races;  // one line per racing pair, for messages
  // Final contents per buffer and chunk (meaningful only when !racy).
  std::array<std::array<std::uint8_t, kChunks>, kBuffers> final_contents{};
  std::vector<CheckpointExpectation> checkpoints;  // one per kCheckpoint, in order
  // Pairs (a, b) of host functions where a must run before b.
  std::vector<std::pair<int, int>> host_function_order;
};

// Initial contents: device buffers are zero; host buffer h holds 0xA0 + h in every byte.
std::uint8_t initial_value(int buffer);

Prediction predict(const Program& program, Schedule schedule);

}  // namespace accel::test::stream_model
