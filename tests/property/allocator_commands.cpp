#include "allocator_commands.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <ostream>
#include <sstream>

#include "allocator_model.h"

namespace accel::test::alloc_model {

const char* to_string(CommandKind kind) {
  switch (kind) {
    case CommandKind::kAllocate:
      return "allocate";
    case CommandKind::kAllocateAndFree:
      return "allocate and free";
    case CommandKind::kFree:
      return "free";
    case CommandKind::kRecordStream:
      return "record_stream";
    case CommandKind::kQueueWork:
      return "queue work";
    case CommandKind::kCompleteWork:
      return "complete work";
    case CommandKind::kEmptyCache:
      return "empty_cache";
    case CommandKind::kResetPeak:
      return "reset_peak_memory_stats";
    case CommandKind::kResetAccumulated:
      return "reset_accumulated_memory_stats";
    case CommandKind::kSetFraction:
      return "set_per_process_memory_fraction";
  }
  return "?";
}

rc::Gen<std::size_t> gen_request_bytes(std::size_t capacity_bytes) {
  using rc::gen::element;
  using rc::gen::inRange;
  using rc::gen::just;
  // Note [Allocator size mix]: see allocator_commands.h.
  return rc::gen::weightedOneOf<std::size_t>({
      {45,
       rc::gen::oneOf(inRange<std::size_t>(0, kMiB + 1),
                      element<std::size_t>(0, 1, 511, 512, 513, 4096, kMiB - 1, kMiB, kMiB + 1))},
      {25, inRange<std::size_t>(kMiB + 1, 10 * kMiB)},
      {22, rc::gen::oneOf(inRange<std::size_t>(10 * kMiB, 48 * kMiB),
                          element<std::size_t>(10 * kMiB, 20 * kMiB, 40 * kMiB))},
      {8, rc::gen::oneOf(inRange<std::size_t>(capacity_bytes / 2, capacity_bytes * 2),
                         just<std::size_t>(std::size_t{1} << 60),
                         just<std::size_t>((std::size_t{1} << 60) - 512))},
  });
}

namespace {

using Command = AllocatorCommand;

// rapidcheck scales gen::inRange (and elementOf) by the generation size: the range shrinks
// towards its minimum as the size falls towards 0, and the first programs of a run are drawn
// at the smallest sizes, so a device, stream or handle drawn that way is the first one in
// almost every early program. Every field of a command but its byte count is therefore
// drawn at the nominal size, whatever the size.
template <typename T>
T fixed_in_range(T min, T max) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(min, max));
}

// Performs `operation` (the command's call on the system under test) and fails the program,
// naming the command, if it or the checks after it found a violation.
void perform(const Command& command, AllocatorSut& sut,
             const std::function<Violations()>& operation) {
  std::ostringstream shown;
  command.show(shown);
  sut.describe(shown.str());
  Violations out;
  try {
    out = operation();
    const Violations after = sut.check();
    out.insert(out.end(), after.begin(), after.end());
  } catch (const std::exception& e) {
    out.push_back(std::string("threw: ") + e.what());
  }
  if (out.empty()) return;
  RC_FAIL("after '" + shown.str() + "':" + join_violations(out));
}

bool rejected_up_front(std::size_t bytes) { return bytes == 0 || bytes >= kOneExbibyte; }

// A command on one stream of one device.
class StreamCommand : public Command {
 public:
  explicit StreamCommand(const ProgramModel& model)
      : device_(fixed_in_range(0, model.limits.devices)), stream_(fixed_in_range(0, kStreams)) {}
  std::optional<int> stream() const override { return stream_; }

 protected:
  std::string where() const {
    return "device " + std::to_string(device_) + " stream " + std::to_string(stream_);
  }
  int device_;
  int stream_;
};

class Allocate : public StreamCommand {
 public:
  explicit Allocate(const ProgramModel& model)
      : StreamCommand(model),
        bytes_(*rc::gen::resize(model.byte_size, gen_request_bytes(model.limits.capacity_bytes))),
        id_(model.next_handle) {}
  CommandKind kind() const override { return CommandKind::kAllocate; }
  // Shrinking only removes commands before this one, so its id stays new.
  void checkPreconditions(const ProgramModel& model) const override {
    RC_PRE(id_ >= model.next_handle);
  }
  // Requests of 0 bytes and of 1 EiB or more never yield a block; any other may.
  void apply(ProgramModel& model) const override {
    model.next_handle = id_ + 1;
    if (!rejected_up_front(bytes_)) model.handles.push_back(id_);
  }
  void run(const ProgramModel&, AllocatorSut& sut) const override {
    perform(*this, sut, [&] { return sut.allocate(id_, device_, stream_, bytes_); });
  }
  void show(std::ostream& os) const override {
    os << "#" << id_ << " = allocate " << bytes_ << " bytes on " << where();
  }

 private:
  std::size_t bytes_;
  int id_;
};

class AllocateAndFree : public StreamCommand {
 public:
  explicit AllocateAndFree(const ProgramModel& model)
      : StreamCommand(model),
        bytes_(*rc::gen::resize(model.byte_size, gen_request_bytes(model.limits.capacity_bytes))) {}
  CommandKind kind() const override { return CommandKind::kAllocateAndFree; }
  void run(const ProgramModel&, AllocatorSut& sut) const override {
    perform(*this, sut, [&] { return sut.allocate_and_free(device_, stream_, bytes_); });
  }
  void show(std::ostream& os) const override {
    os << "allocate " << bytes_ << " bytes on " << where() << ", free it at once";
  }

 private:
  std::size_t bytes_;
};

// A command on one of the program's handles; none is drawn while the program holds none.
class HandleCommand : public Command {
 public:
  explicit HandleCommand(const ProgramModel& model) {
    RC_PRE(!model.handles.empty());
    handle_ = model.handles[fixed_in_range<std::size_t>(0, model.handles.size())];
  }
  // After shrinking removed commands, the handle must still be the program's.
  void checkPreconditions(const ProgramModel& model) const override {
    RC_PRE(std::find(model.handles.begin(), model.handles.end(), handle_) != model.handles.end());
  }

 protected:
  int handle_ = 0;
};

class Free : public HandleCommand {
 public:
  using HandleCommand::HandleCommand;
  CommandKind kind() const override { return CommandKind::kFree; }
  void apply(ProgramModel& model) const override { std::erase(model.handles, handle_); }
  void run(const ProgramModel&, AllocatorSut& sut) const override {
    perform(*this, sut, [&] { return sut.free(handle_); });
  }
  void show(std::ostream& os) const override { os << "free #" << handle_; }
};

class RecordStream : public HandleCommand {
 public:
  explicit RecordStream(const ProgramModel& model)
      : HandleCommand(model), stream_(fixed_in_range(0, kStreams)) {}
  CommandKind kind() const override { return CommandKind::kRecordStream; }
  std::optional<int> stream() const override { return stream_; }
  void run(const ProgramModel&, AllocatorSut& sut) const override {
    perform(*this, sut, [&] { return sut.record_stream(handle_, stream_); });
  }
  void show(std::ostream& os) const override {
    os << "record_stream #" << handle_ << " on stream " << stream_ << " (of its device)";
  }

 private:
  int stream_;
};

class QueueWork : public StreamCommand {
 public:
  using StreamCommand::StreamCommand;
  CommandKind kind() const override { return CommandKind::kQueueWork; }
  void run(const ProgramModel&, AllocatorSut& sut) const override {
    perform(*this, sut, [&] { return sut.queue_work(device_, stream_); });
  }
  void show(std::ostream& os) const override { os << "queue work on " << where(); }
};

class CompleteWork : public StreamCommand {
 public:
  using StreamCommand::StreamCommand;
  CommandKind kind() const override { return CommandKind::kCompleteWork; }
  void run(const ProgramModel&, AllocatorSut& sut) const override {
    perform(*this, sut, [&] { return sut.complete_work(device_, stream_); });
  }
  void show(std::ostream& os) const override { os << "complete the work queued on " << where(); }
};

class EmptyCache : public Command {
 public:
  CommandKind kind() const override { return CommandKind::kEmptyCache; }
  void run(const ProgramModel&, AllocatorSut& sut) const override {
    perform(*this, sut, [&] { return sut.empty_cache(); });
  }
  void show(std::ostream& os) const override { os << "empty_cache"; }
};

// A command on one device.
class DeviceCommand : public Command {
 public:
  explicit DeviceCommand(const ProgramModel& model)
      : device_(fixed_in_range(0, model.limits.devices)) {}

 protected:
  int device_;
};

class ResetPeak : public DeviceCommand {
 public:
  using DeviceCommand::DeviceCommand;
  CommandKind kind() const override { return CommandKind::kResetPeak; }
  void run(const ProgramModel&, AllocatorSut& sut) const override {
    perform(*this, sut, [&] { return sut.reset_peak(device_); });
  }
  void show(std::ostream& os) const override { os << "reset_peak_memory_stats device " << device_; }
};

class ResetAccumulated : public DeviceCommand {
 public:
  using DeviceCommand::DeviceCommand;
  CommandKind kind() const override { return CommandKind::kResetAccumulated; }
  void run(const ProgramModel&, AllocatorSut& sut) const override {
    perform(*this, sut, [&] { return sut.reset_accumulated(device_); });
  }
  void show(std::ostream& os) const override {
    os << "reset_accumulated_memory_stats device " << device_;
  }
};

class SetFraction : public DeviceCommand {
 public:
  explicit SetFraction(const ProgramModel& model)
      : DeviceCommand(model),
        fraction_(*rc::gen::resize(rc::kNominalSize, rc::gen::element(0.25, 0.5, 0.8, 1.0))) {}
  CommandKind kind() const override { return CommandKind::kSetFraction; }
  void run(const ProgramModel&, AllocatorSut& sut) const override {
    perform(*this, sut, [&] { return sut.set_fraction(device_, fraction_); });
  }
  void show(std::ostream& os) const override {
    os << "set_per_process_memory_fraction " << fraction_ << " device " << device_;
  }

 private:
  double fraction_;
};

}  // namespace

rc::Gen<Program> gen_program(const Limits& limits) {
  // rapidcheck's command sequences hold 1 to size + 1 commands: the sequence is drawn at the
  // size scaled to max_length, its byte counts at the size itself (ProgramModel::byte_size).
  return rc::gen::withSize([limits](int size) {
    const auto scaled = static_cast<int>(static_cast<std::size_t>(size) * (limits.max_length - 1) /
                                         rc::kNominalSize);
    // execOneOfWithArgs draws a command class uniformly (not scaled by the size); a class
    // listed n times is drawn n times as often: allocate 6 in 21, free 4, record_stream,
    // queue work and complete work 2 each, the rest 1 each (free and record_stream are
    // drawn again while the program holds no handle).
    auto commands = rc::state::gen::commands(
        ProgramModel{limits, size, 0, {}},
        rc::state::gen::execOneOfWithArgs<
            Allocate, Allocate, Allocate, Allocate, Allocate, Allocate, AllocateAndFree, Free, Free,
            Free, Free, RecordStream, RecordStream, QueueWork, QueueWork, CompleteWork,
            CompleteWork, EmptyCache, ResetPeak, ResetAccumulated, SetFraction>());
    return rc::gen::resize(scaled, std::move(commands));
  });
}

void run_program(const Program& program, const Limits& limits, AllocatorSut& sut) {
  rc::state::runAll(program, ProgramModel{limits, rc::kNominalSize, 0, {}}, sut);
}

}  // namespace accel::test::alloc_model
