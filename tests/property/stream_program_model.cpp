// The happens-before model of stream programs (stream_program_model.h).
//
// Note [Legacy sync]
// Programs never synchronise the legacy stream itself: whether cuStreamSynchronize(NULL)
// also waits for the blocking streams' work is stated loosely by the documentation (spec
// cuda_streams section 1.5) and is not what this property is about. Legacy-stream *work*
// is generated, with the documented barrier rule (section 1.3): a legacy action first waits
// for everything enqueued so far in every blocking stream of its device, and the next action
// of every blocking stream of that device then waits for it. The barrier applies to a
// blocking stream's next action (an operation, an event record or a wait), never to a
// synchronisation of that stream that comes before it.

#include "stream_program_model.h"

#include <algorithm>
#include <sstream>

namespace accel::test::stream_model {
namespace {

inline constexpr int kStreams = kDevices * kStreamsPerDevice;
inline constexpr int kEvents = kDevices * kEventsPerDevice;

// A vector clock over the streams: entry s is the number of stream s's actions known to be
// complete before (or, for an action's own clock, up to and including it).
using Clock = std::array<int, kStreams>;

void join(Clock& into, const Clock& other) {
  for (int s = 0; s < kStreams; ++s) into[s] = std::max(into[s], other[s]);
}

struct Action {
  int stream = 0;
  int seq = 0;  // 1-based position in its stream
  Clock clock{};
  std::string text;
};

bool ordered_before(const Action& a, const Clock& later) { return later[a.stream] >= a.seq; }

struct ChunkState {
  std::uint8_t value = 0;                 // in enqueue order (exact for race-free programs)
  std::optional<int> last_write;          // action index
  std::vector<int> reads;                 // action indices since the last write
  std::vector<std::pair<int, std::uint8_t>> writers;  // every write: action, value written
};

struct Model {
  std::vector<Action> actions;
  std::array<Clock, kStreams> tail{};     // clock of each stream's last action
  std::array<Clock, kStreams> pending{};  // legacy barriers for a blocking stream's next action
  std::array<int, kStreams> count{};
  Clock host{};
  std::array<std::optional<Clock>, kEvents> events;
  std::array<std::array<ChunkState, kChunks>, kBuffers> chunks;
  std::vector<std::pair<int, int>> host_functions;  // (id, action)
  Prediction prediction;

  Model() {
    for (int b = 0; b < kBuffers; ++b) {
      for (auto& c : chunks[b]) c.value = initial_value(b);
    }
  }

  // Enqueues an action on `stream` with extra dependencies `extra`; returns its index.
  int enqueue(int stream, const Clock* extra, std::string text) {
    const int device = device_of_stream(stream);
    Clock clock = tail[stream];
    join(clock, host);
    if (extra != nullptr) join(clock, *extra);
    if (is_legacy(stream)) {
      for (int s = device * kStreamsPerDevice; s < (device + 1) * kStreamsPerDevice; ++s) {
        if (is_blocking(s)) join(clock, tail[s]);
      }
    } else if (is_blocking(stream)) {
      join(clock, pending[stream]);
      pending[stream] = Clock{};
    }
    clock[stream] = ++count[stream];
    tail[stream] = clock;
    if (is_legacy(stream)) {
      for (int s = device * kStreamsPerDevice; s < (device + 1) * kStreamsPerDevice; ++s) {
        if (is_blocking(s)) join(pending[s], clock);
      }
    }
    actions.push_back(Action{stream, clock[stream], clock, std::move(text)});
    return static_cast<int>(actions.size()) - 1;
  }

  void race(int earlier, int later, int buffer, int chunk) {
    prediction.racy = true;
    std::ostringstream out;
    out << "buffer " << buffer << " chunk " << chunk << ": '" << actions[earlier].text
        << "' and '" << actions[later].text << "'";
    prediction.races.push_back(out.str());
  }

  void read(int action, int buffer, int chunk) {
    ChunkState& c = chunks[buffer][chunk];
    const Clock& clock = actions[action].clock;
    if (c.last_write && !ordered_before(actions[*c.last_write], clock)) {
      race(*c.last_write, action, buffer, chunk);
    }
    c.reads.push_back(action);
  }

  void write(int action, int buffer, int chunk, std::uint8_t value) {
    ChunkState& c = chunks[buffer][chunk];
    const Clock& clock = actions[action].clock;
    if (c.last_write && !ordered_before(actions[*c.last_write], clock)) {
      race(*c.last_write, action, buffer, chunk);
    }
    for (int r : c.reads) {
      if (r != action && !ordered_before(actions[r], clock)) race(r, action, buffer, chunk);
    }
    c.last_write = action;
    c.reads.clear();
    c.value = value;
    c.writers.emplace_back(action, value);
  }

  void apply(const Command& cmd, Schedule schedule) {
    switch (cmd.kind) {
      case Kind::kMemset: {
        const int a = enqueue(cmd.stream, nullptr, describe(cmd));
        for (int k = cmd.first_chunk; k < cmd.last_chunk; ++k) write(a, cmd.dst, k, cmd.value);
        return;
      }
      case Kind::kCopy: {
        const int a = enqueue(cmd.stream, nullptr, describe(cmd));
        for (int k = cmd.first_chunk; k < cmd.last_chunk; ++k) {
          const std::uint8_t v = chunks[cmd.src][k].value;  // enqueue-order value
          read(a, cmd.src, k);
          write(a, cmd.dst, k, v);
        }
        return;
      }
      case Kind::kHostFunction: {
        const int a = enqueue(cmd.stream, nullptr, describe(cmd));
        for (const auto& [id, other] : host_functions) {
          if (ordered_before(actions[other], actions[a].clock)) {
            prediction.host_function_order.emplace_back(id, cmd.id);
          }
        }
        host_functions.emplace_back(cmd.id, a);
        return;
      }
      case Kind::kRecord: {
        const int a = enqueue(cmd.stream, nullptr, describe(cmd));
        events[cmd.event] = actions[a].clock;
        return;
      }
      case Kind::kWait: {
        if (!events[cmd.event]) return;  // a never-recorded event stands for no work
        const Clock snapshot = *events[cmd.event];
        enqueue(cmd.stream, &snapshot, describe(cmd));
        return;
      }
      case Kind::kStreamSync:
        join(host, tail[cmd.stream]);
        return;
      case Kind::kEventSync:
        if (events[cmd.event]) join(host, *events[cmd.event]);
        return;
      case Kind::kDeviceSync:
        for (int s = cmd.device * kStreamsPerDevice; s < (cmd.device + 1) * kStreamsPerDevice;
             ++s) {
          join(host, tail[s]);
        }
        return;
      case Kind::kCheckpoint:
        prediction.checkpoints.push_back(checkpoint(schedule));
        return;
    }
  }

  CheckpointExpectation checkpoint(Schedule schedule) const {
    CheckpointExpectation e;
    for (int h = 0; h < kHostBuffers; ++h) {
      for (int k = 0; k < kChunks; ++k) {
        const ChunkState& c = chunks[kDeviceBuffers + h][k];
        // The writers are in enqueue order; in a race-free program that is also their
        // happens-before order. The host must see at least the last one ordered before it.
        std::size_t required = 0;  // writers[0, required) are ordered before the host
        for (std::size_t i = 0; i < c.writers.size(); ++i) {
          if (ordered_before(actions[c.writers[i].first], host)) required = i + 1;
        }
        const std::uint8_t floor =
            required == 0 ? initial_value(kDeviceBuffers + h) : c.writers[required - 1].second;
        auto& allowed = e.allowed[h][k];
        switch (schedule) {
          case Schedule::kAdversarial:
            allowed.insert(floor);
            break;
          case Schedule::kEager:
            allowed.insert(c.writers.empty() ? floor : c.writers.back().second);
            break;
          case Schedule::kRandom:
            allowed.insert(floor);
            for (std::size_t i = required; i < c.writers.size(); ++i) {
              allowed.insert(c.writers[i].second);
            }
            break;
        }
      }
    }
    for (const auto& [id, action] : host_functions) {
      const bool before_host = ordered_before(actions[action], host);
      if (before_host || schedule == Schedule::kEager) e.host_functions_required.insert(id);
      if (before_host || schedule != Schedule::kAdversarial) e.host_functions_allowed.insert(id);
    }
    return e;
  }
};

}  // namespace

std::uint8_t initial_value(int buffer) {
  return is_host_buffer(buffer) ? static_cast<std::uint8_t>(0xA0 + (buffer - kDeviceBuffers))
                                : std::uint8_t{0};
}

std::string describe(const Command& c) {
  std::ostringstream out;
  auto chunks = [&] { return "[" + std::to_string(c.first_chunk) + "," +
                             std::to_string(c.last_chunk) + ")"; };
  switch (c.kind) {
    case Kind::kMemset:
      out << "memset b" << c.dst << chunks() << "=" << int{c.value} << " on s" << c.stream;
      break;
    case Kind::kCopy:
      out << "copy b" << c.src << "->b" << c.dst << chunks() << " on s" << c.stream;
      break;
    case Kind::kHostFunction:
      out << "host function #" << c.id << " on s" << c.stream;
      break;
    case Kind::kRecord:
      out << "record e" << c.event << " on s" << c.stream;
      break;
    case Kind::kWait:
      out << "s" << c.stream << " waits e" << c.event;
      break;
    case Kind::kStreamSync:
      out << "synchronize s" << c.stream;
      break;
    case Kind::kEventSync:
      out << "synchronize e" << c.event;
      break;
    case Kind::kDeviceSync:
      out << "synchronize device " << c.device;
      break;
    case Kind::kCheckpoint:
      out << "checkpoint";
      break;
  }
  return out.str();
}

std::string describe(const Program& program) {
  std::string text;
  for (std::size_t i = 0; i < program.size(); ++i) {
    text += std::to_string(i) + ": " + describe(program[i]) + "\n";
  }
  return text;
}

namespace {

rc::Gen<Command> gen_command() {
  using rc::gen::inRange;
  return rc::gen::exec([] {
    Command c;
    c.stream = *inRange(0, kStreams);
    const int device = device_of_stream(c.stream);
    const int local_buffer = device * kDeviceBuffersPerDevice;
    c.first_chunk = *inRange(0, kChunks);
    c.last_chunk = *inRange(c.first_chunk + 1, kChunks + 1);
    c.value = *inRange<std::uint8_t>(1, 100);
    const int pick = *inRange(0, 100);
    if (pick < 10) {
      c.kind = Kind::kMemset;
      c.dst = local_buffer + *inRange(0, kDeviceBuffersPerDevice);
    } else if (pick < 32) {
      c.kind = Kind::kCopy;
      const int shape = *inRange(0, 4);
      const int mine = local_buffer + *inRange(0, kDeviceBuffersPerDevice);
      const int other_device = (device + 1) % kDevices;
      const int theirs = other_device * kDeviceBuffersPerDevice + *inRange(0, kDeviceBuffersPerDevice);
      const int host = kDeviceBuffers + *inRange(0, kHostBuffers);
      switch (shape) {
        case 0: {  // device to device, same device
          c.src = mine;
          c.dst = local_buffer + (mine - local_buffer + *inRange(1, kDeviceBuffersPerDevice)) %
                                     kDeviceBuffersPerDevice;
          break;
        }
        case 1:  // peer: from the other device into this one, or the reverse
          if (*rc::gen::arbitrary<bool>()) {
            c.src = theirs;
            c.dst = mine;
          } else {
            c.src = mine;
            c.dst = theirs;
          }
          break;
        case 2:  // host to device
          c.src = host;
          c.dst = mine;
          break;
        default:  // device to host
          c.src = mine;
          c.dst = host;
          break;
      }
    } else if (pick < 40) {
      c.kind = Kind::kHostFunction;
    } else if (pick < 56) {
      c.kind = Kind::kRecord;
      c.event = device * kEventsPerDevice + *inRange(0, kEventsPerDevice);
    } else if (pick < 76) {
      c.kind = Kind::kWait;
      c.event = *inRange(0, kEvents);
    } else if (pick < 85) {
      c.kind = Kind::kStreamSync;
      if (is_legacy(c.stream)) c.stream += *inRange(1, kStreamsPerDevice);  // Note [Legacy sync]
    } else if (pick < 90) {
      c.kind = Kind::kEventSync;
      c.event = *inRange(0, kEvents);
    } else if (pick < 93) {
      c.kind = Kind::kDeviceSync;
      c.device = *inRange(0, kDevices);
    } else {
      c.kind = Kind::kCheckpoint;
    }
    return c;
  });
}

}  // namespace

rc::Gen<Program> gen_program(int max_commands) {
  return rc::gen::map(
      // rapidcheck scales gen::inRange by the size parameter; the commands' choices must span
      // their whole ranges whatever the program length, so they are generated at full size.
      rc::gen::resize(max_commands,
                      rc::gen::container<Program>(rc::gen::resize(100, gen_command()))),
      [](Program program) {
        int id = 0;
        for (Command& c : program) {
          if (c.kind == Kind::kHostFunction) c.id = id++;
        }
        return program;
      });
}

Prediction predict(const Program& program, Schedule schedule) {
  Model model;
  for (const Command& c : program) model.apply(c, schedule);
  for (int b = 0; b < kBuffers; ++b) {
    for (int k = 0; k < kChunks; ++k) {
      model.prediction.final_contents[b][k] = model.chunks[b][k].value;
    }
  }
  return model.prediction;
}

}  // namespace accel::test::stream_model
