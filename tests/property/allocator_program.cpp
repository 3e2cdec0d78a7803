#include "allocator_program.h"

#include <sstream>

namespace accel::test::alloc_model {

std::string Settings::text() const {
  std::string t = std::string("expandable_segments:") + (expandable ? "True" : "False");
  if (max_split_size_mb != 0) t += ",max_split_size_mb:" + std::to_string(max_split_size_mb);
  if (roundup_divisions != 0) {
    t += ",roundup_power2_divisions:" + std::to_string(roundup_divisions);
  }
  return t;
}

std::string describe(const Op& op) {
  std::ostringstream out;
  const std::string where = "device " + std::to_string(op.device) + " stream " +
                            std::to_string(op.stream);
  switch (op.kind) {
    case OpKind::kAllocate:
      out << "allocate " << op.bytes << " bytes on " << where;
      break;
    case OpKind::kAllocateAndFree:
      out << "allocate " << op.bytes << " bytes on " << where << ", free it at once";
      break;
    case OpKind::kFree:
      out << "free live allocation #" << op.index << " (modulo the number live)";
      break;
    case OpKind::kRecordStream:
      out << "record_stream live allocation #" << op.index << " on stream " << op.stream
          << " (of its device)";
      break;
    case OpKind::kQueueWork:
      out << "queue work on " << where;
      break;
    case OpKind::kCompleteWork:
      out << "complete the work queued on " << where;
      break;
    case OpKind::kEmptyCache:
      out << "empty_cache";
      break;
    case OpKind::kResetPeak:
      out << "reset_peak_memory_stats device " << op.device;
      break;
    case OpKind::kResetAccumulated:
      out << "reset_accumulated_memory_stats device " << op.device;
      break;
    case OpKind::kSetFraction:
      out << "set_per_process_memory_fraction " << op.fraction << " device " << op.device;
      break;
  }
  return out.str();
}

void showValue(const Op& op, std::ostream& os) { os << describe(op); }
void showValue(const Settings& settings, std::ostream& os) { os << settings.text(); }

std::string describe(const Program& program) {
  std::string text;
  for (std::size_t i = 0; i < program.size(); ++i) {
    text += "  " + std::to_string(i) + ": " + describe(program[i]) + "\n";
  }
  return text;
}

rc::Gen<std::size_t> gen_request_bytes(std::size_t capacity_bytes) {
  using rc::gen::element;
  using rc::gen::inRange;
  using rc::gen::just;
  // Note [Allocator size mix]: see allocator_program.h.
  return rc::gen::weightedOneOf<std::size_t>({
      {45, rc::gen::oneOf(inRange<std::size_t>(0, kMiB + 1),
                          element<std::size_t>(0, 1, 511, 512, 513, 4096, kMiB - 1, kMiB,
                                               kMiB + 1))},
      {25, inRange<std::size_t>(kMiB + 1, 10 * kMiB)},
      {22, rc::gen::oneOf(inRange<std::size_t>(10 * kMiB, 48 * kMiB),
                          element<std::size_t>(10 * kMiB, 20 * kMiB, 40 * kMiB))},
      {8, rc::gen::oneOf(inRange<std::size_t>(capacity_bytes / 2, capacity_bytes * 2),
                         just<std::size_t>(std::size_t{1} << 60),
                         just<std::size_t>((std::size_t{1} << 60) - 512))},
  });
}

namespace {

// rapidcheck scales gen::inRange by the generation size (the range shrinks towards its
// minimum as the size falls towards 0, and the first programs of a run are drawn at the
// smallest sizes): a command kind drawn that way is an allocation in almost every early
// program, and only large sizes reach the last kinds or a second stream. Every field of a
// command but its byte count is therefore drawn at the nominal size, whatever the size.
template <typename T>
T fixed_in_range(T min, T max) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(min, max));
}

}  // namespace

rc::Gen<Program> gen_program(int devices, std::size_t capacity_bytes, std::size_t max_length) {
  using rc::gen::inRange;
  auto gen_op = rc::gen::exec([devices, capacity_bytes] {
    Op op;
    op.device = fixed_in_range(0, devices);
    op.stream = fixed_in_range(0, kStreams);
    op.index = fixed_in_range<std::size_t>(0, 16);
    const int pick = fixed_in_range(0, 100);
    if (pick < 30) {
      op.kind = OpKind::kAllocate;
      op.bytes = *gen_request_bytes(capacity_bytes);
    } else if (pick < 34) {
      op.kind = OpKind::kAllocateAndFree;
      op.bytes = *gen_request_bytes(capacity_bytes);
    } else if (pick < 54) {
      op.kind = OpKind::kFree;
    } else if (pick < 66) {
      op.kind = OpKind::kRecordStream;
    } else if (pick < 78) {
      op.kind = OpKind::kQueueWork;
    } else if (pick < 86) {
      op.kind = OpKind::kCompleteWork;
    } else if (pick < 90) {
      op.kind = OpKind::kEmptyCache;
    } else if (pick < 94) {
      op.kind = OpKind::kResetPeak;
    } else if (pick < 97) {
      op.kind = OpKind::kResetAccumulated;
    } else {
      op.kind = OpKind::kSetFraction;
      op.fraction = *rc::gen::resize(rc::kNominalSize, rc::gen::element(0.25, 0.5, 0.8, 1.0));
    }
    return op;
  });
  return rc::gen::exec([gen_op, max_length] {
    const auto length = *inRange<std::size_t>(1, max_length + 1);
    return *rc::gen::container<Program>(length, gen_op);
  });
}

rc::Gen<Settings> gen_settings(bool expandable, bool with_limits) {
  return rc::gen::exec([expandable, with_limits] {
    Settings s;
    s.expandable = expandable;
    if (with_limits) {
      s.max_split_size_mb = *rc::gen::element<std::size_t>(0, 24, 40);
      s.roundup_divisions = *rc::gen::element<std::size_t>(0, 2, 4, 8);
    }
    return s;
  });
}

}  // namespace accel::test::alloc_model
