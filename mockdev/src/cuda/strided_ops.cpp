// Strided stream operations (strided_ops.h).

#include "cuda/strided_ops.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "core/engine.h"
#include "core/memory.h"
#include "core/timeline.h"

namespace mockdev::cuda {

using accel::cuda_abi::CUDA_SUCCESS;
namespace {

// A run of contiguous bytes: one row, or several rows merged when the pitch equals the width.
struct Run {
  std::uint64_t dst = 0;
  std::uint64_t src = 0;   // copies: source address; fills: unused
  std::uint64_t bytes = 0;
  std::uint64_t staged = 0;  // offset into Plan::staged when the source is staged
};

struct Plan {
  enum class Kind { kCopy, kFill };
  Kind kind = Kind::kCopy;
  StridedSide dst;
  StridedSide src;
  std::uint64_t dst_span = 0;  // checked live when the operation completes
  std::uint64_t src_span = 0;
  bool staged_source = false;
  std::vector<Run> runs;
  std::vector<std::byte> staged;  // a pageable host source as it was at the call
  std::vector<std::byte> pattern_row;  // fills: the widest run's bytes of the pattern
};

// The runs of `box`: rows merged into one run wherever both sides are contiguous.
std::vector<Run> runs_of(const StridedSide& dst, const StridedSide& src, const StridedBox& box,
                         bool fill) {
  std::vector<Run> runs;
  const bool rows_contiguous =
      dst.pitch == box.width && (fill || src.pitch == box.width);
  const bool slices_contiguous =
      rows_contiguous && dst.slice == box.width * box.height &&
      (fill || src.slice == box.width * box.height);
  std::uint64_t offset = 0;
  for (std::uint64_t z = 0; z < box.depth; ++z) {
    for (std::uint64_t y = 0; y < box.height; ++y) {
      const std::uint64_t d = dst.first + z * dst.slice + y * dst.pitch;
      const std::uint64_t s = fill ? 0 : src.first + z * src.slice + y * src.pitch;
      const bool merge = !runs.empty() && (y > 0 ? rows_contiguous : slices_contiguous);
      if (merge) {
        runs.back().bytes += box.width;
      } else {
        runs.push_back(Run{d, s, box.width, offset});
      }
      offset += box.width;
    }
  }
  return runs;
}

bool live(const StridedSide& side, std::uint64_t span) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return side.host || span == 0 || core::find_containing(side.first, span, nullptr).has_value();
}

// Runs when the operation completes (engine lock held). Note [Freed memory] in
// core/timeline.h: a device side freed meanwhile makes the operation move nothing.
MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
void run_plan(std::uintptr_t plan_address, std::uintptr_t, std::uintptr_t) {
  const Plan& p = *reinterpret_cast<const Plan*>(plan_address);
  if (!live(p.dst, p.dst_span)) return;
  if (p.kind == Plan::Kind::kFill) {
    for (const Run& r : p.runs) core::write_bytes(r.dst, p.pattern_row.data(), r.bytes);
    return;
  }
  if (!p.staged_source && !live(p.src, p.src_span)) return;
  for (const Run& r : p.runs) {
    if (p.staged_source) {
      core::write_bytes(r.dst, p.staged.data() + r.staged, r.bytes);
    } else if (p.src.host) {
      core::write_bytes(r.dst, reinterpret_cast<const void*>(r.src), r.bytes);
    } else if (p.dst.host) {
      core::read_bytes(r.src, reinterpret_cast<void*>(r.dst), r.bytes);
    } else {
      core::copy_bytes(r.dst, r.src, r.bytes);
    }
  }
}

void declare(std::vector<core::AccessRange>& out, const std::vector<Run>& runs, bool host,
             bool source) {
  for (const Run& r : runs) out.push_back(core::AccessRange{source ? r.src : r.dst, r.bytes, host});
}

core::OpDesc describe(std::shared_ptr<Plan> plan, core::OpKind kind, const char* name,
                      bool declare_reads) {
  core::OpDesc desc;
  desc.kind = kind;
  desc.name = name;
  std::vector<core::AccessRange> writes, reads;
  declare(writes, plan->runs, plan->dst.host, false);
  if (declare_reads) declare(reads, plan->runs, plan->src.host, true);
  if (!writes.empty()) {
    desc.write = writes.front();
    desc.more_writes.assign(writes.begin() + 1, writes.end());
  }
  if (!reads.empty()) {
    desc.read = reads.front();
    desc.more_reads.assign(reads.begin() + 1, reads.end());
  }
  desc.action.kind = core::ActionKind::kLockedCall;
  desc.action.call = &run_plan;
  desc.action.args[0] = reinterpret_cast<std::uintptr_t>(plan.get());
  desc.action.keep = std::move(plan);
  return desc;
}

}  // namespace

std::uint64_t strided_span(const StridedSide& side, const StridedBox& box) {
  if (box.width == 0 || box.height == 0 || box.depth == 0) return 0;
  return (box.depth - 1) * side.slice + (box.height - 1) * side.pitch + box.width;
}

CUresult submit_strided_copy(CUstream_st* stream, const StridedSide& dst, const StridedSide& src,
                             const StridedBox& box, bool sync, const char* name) {
  auto plan = std::make_shared<Plan>();
  plan->kind = Plan::Kind::kCopy;
  plan->dst = dst;
  plan->src = src;
  plan->dst_span = strided_span(dst, box);
  plan->src_span = strided_span(src, box);
  plan->runs = runs_of(dst, src, box, false);
  const std::uint64_t bytes = box.width * box.height * box.depth;
  if (dst.host && src.host) {
    for (const Run& r : plan->runs) {
      std::memmove(reinterpret_cast<void*>(r.dst), reinterpret_cast<const void*>(r.src), r.bytes);
    }
    return CUDA_SUCCESS;
  }
  const StreamSettings::Timing& timing = core::engine().machine.streams.timing;
  bool wait = false;
  double rate = timing.dtod_gb_per_s;
  if (src.host) {
    rate = timing.htod_gb_per_s;
    if (src.pinned) {
      wait = sync;
    } else {
      plan->staged_source = true;
      plan->staged.resize(bytes);
      std::uint64_t offset = 0;
      for (const Run& r : plan->runs) {
        std::memcpy(plan->staged.data() + offset, reinterpret_cast<const void*>(r.src), r.bytes);
        offset += r.bytes;
      }
    }
  } else if (dst.host) {
    rate = timing.dtoh_gb_per_s;
    wait = sync || !dst.pinned;
  } else if (dst.device != src.device) {
    rate = timing.peer_gb_per_s;
  }
  // A staged source no longer reads the host's buffer (the host may reuse it at once).
  const bool declare_reads = !plan->staged_source;
  core::OpDesc desc = describe(std::move(plan), core::OpKind::kCopy, name, declare_reads);
  desc.duration_ns = core::transfer_ns(bytes, rate);
  const Submitted s = submit(stream, std::move(desc));
  if (s.code != CUDA_SUCCESS || !wait || s.op == 0) return s.code;
  const core::OpId ops[] = {s.op};
  return host_wait(ops, name);
}

CUresult submit_strided_fill(CUstream_st* stream, const StridedSide& dst, const StridedBox& box,
                             std::uint32_t pattern, unsigned pattern_size, const char* name) {
  auto plan = std::make_shared<Plan>();
  plan->kind = Plan::Kind::kFill;
  plan->dst = dst;
  plan->dst_span = strided_span(dst, box);
  plan->runs = runs_of(dst, StridedSide{}, box, true);
  std::uint64_t widest = 0;
  for (const Run& r : plan->runs) widest = std::max(widest, r.bytes);
  plan->pattern_row.resize(widest);
  for (std::uint64_t i = 0; i < widest; ++i) {
    plan->pattern_row[i] = static_cast<std::byte>((pattern >> (8 * (i % pattern_size))) & 0xffu);
  }
  const std::uint64_t bytes = box.width * box.height * box.depth;
  core::OpDesc desc = describe(std::move(plan), core::OpKind::kMemset, name, false);
  desc.duration_ns =
      core::transfer_ns(bytes, core::engine().machine.streams.timing.memset_gb_per_s);
  return submit(stream, std::move(desc)).code;
}

}  // namespace mockdev::cuda
