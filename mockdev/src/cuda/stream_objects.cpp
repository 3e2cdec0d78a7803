// Stream and event objects, the legacy-stream rules and the submit path (stream_objects.h).

#include "cuda/stream_objects.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>

#include "core/engine.h"
#include "core/keep_forever.h"
#include "core/race_call_site.h"
#include "core/pinned_host.h"
#include "cuda/capture_streams.h"
#include "cuda/pool_model.h"
namespace mockdev::cuda {
namespace {

using namespace accel::cuda_abi;  // NOLINT

// A key per thread for the per-thread default streams; never reused.
std::uint64_t thread_key() {
  static std::atomic<std::uint64_t> next{1};
  thread_local const std::uint64_t key = next.fetch_add(1);
  return key;
}

// How the program names the stream (QueueInfo::handle): the CUstream value it passes.
std::string handle_text(const CUstream_st& s) {
  if (s.kind == CUstream_st::Kind::kLegacy) return "CUstream 0 (the legacy default stream)";
  if (s.kind == CUstream_st::Kind::kPerThread) return "CUstream 0x2 (CU_STREAM_PER_THREAD)";
  char text[48];
  std::snprintf(text, sizeof text, "CUstream %p", static_cast<const void*>(&s));
  return text;
}

}  // namespace

ContextStreams& streams_of(const CUctx_st* ctx) { return stream_registry().contexts[ctx->id]; }

CUstream_st* new_stream(CUctx_st* ctx, CUstream_st::Kind kind, unsigned flags, int priority,
                        std::string label) {
  StreamRegistry& r = stream_registry();
  auto* s = new CUstream_st{};  // never freed: stream_objects.h
  core::keep_forever(s);
  s->kind = kind;
  s->ctx = ctx;
  s->flags = flags;
  s->priority = priority;
  s->id = r.next_stream_id++;
  s->caller = core::current_caller();
  s->queue = core::create_queue(ctx->physical_device, std::move(label), handle_text(*s));
  ContextStreams& cs = streams_of(ctx);
  cs.queues.push_back(s->queue);
  if (kind != CUstream_st::Kind::kLegacy && (flags & CU_STREAM_NON_BLOCKING) == 0) {
    cs.blocking.push_back(s);
  }
  r.live_streams.insert(s);
  return s;
}

std::optional<std::uint64_t> created_stream_queue(const void* handle) {
  const StreamRegistry& r = stream_registry();
  auto it = r.live_streams.find(static_cast<const CUstream_st*>(handle));
  if (it == r.live_streams.end() || (*it)->kind != CUstream_st::Kind::kCreated) {
    return std::nullopt;
  }
  return (*it)->queue;
}

StreamRegistry& stream_registry() {
  static StreamRegistry* const state = new StreamRegistry();  // Note [Leaky state]
  const core::Engine& e = core::engine();
  if (state->generation != e.generation) {
    *state = StreamRegistry{};
    state->generation = e.generation;
  }
  return *state;
}

CUstream_st* legacy_stream(CUctx_st* ctx) {
  ContextStreams& cs = streams_of(ctx);
  if (cs.legacy == nullptr) {
    cs.legacy = new_stream(ctx, CUstream_st::Kind::kLegacy, 0, 0,
                           "dev" + std::to_string(ctx->physical_device) + "/legacy");
  }
  return cs.legacy;
}

namespace {
thread_local bool t_per_thread_default = false;
}  // namespace

PerThreadDefaultStream::PerThreadDefaultStream() : saved_(t_per_thread_default) {
  t_per_thread_default = true;
}
PerThreadDefaultStream::~PerThreadDefaultStream() { t_per_thread_default = saved_; }
bool per_thread_default_stream() { return t_per_thread_default; }

ResolvedStream resolve_stream(CUstream handle) {
  auto value = reinterpret_cast<std::uintptr_t>(handle);
  if (value == 0 && t_per_thread_default) value = kStreamPerThread;
  if (value == 0 || value == kStreamLegacy || value == kStreamPerThread) {
    const WorkContext current = context_for_work();
    if (current.ctx == nullptr) return {nullptr, current.error};
    if (value != kStreamPerThread) return {legacy_stream(current.ctx), CUDA_SUCCESS};
    ContextStreams& cs = streams_of(current.ctx);
    CUstream_st*& s = cs.per_thread[thread_key()];
    if (s == nullptr) {
      s = new_stream(current.ctx, CUstream_st::Kind::kPerThread, 0, 0,
                     "dev" + std::to_string(current.ctx->physical_device) + "/per-thread " +
                         std::to_string(thread_key()));
    }
    return {s, CUDA_SUCCESS};
  }
  if (stream_registry().live_streams.count(handle) == 0)
    return {nullptr, CUDA_ERROR_INVALID_HANDLE};
  return {handle, CUDA_SUCCESS};
}

bool is_live_event(const CUevent_st* event) {
  return event != nullptr && stream_registry().live_events.count(event) != 0;
}

std::vector<core::OpId> stream_targets(const CUstream_st* stream) {
  std::vector<core::OpId> ops{core::queue_tail(stream->queue)};
  if (stream->kind == CUstream_st::Kind::kLegacy) {
    const ContextStreams& cs = streams_of(stream->ctx);
    for (const CUstream_st* b : cs.blocking) ops.push_back(core::queue_tail(b->queue));
    for (std::uint64_t q : cs.retired_blocking) ops.push_back(core::queue_tail(q));
  }
  return ops;
}

bool host_memory_target(std::uint64_t address) { return core::device_accessible_host(address, 1); }

std::vector<core::OpId> all_work() {
  std::vector<core::OpId> ops;
  for (const auto& [id, cs] : stream_registry().contexts) {
    for (std::uint64_t q : cs.queues) ops.push_back(core::queue_tail(q));
  }
  return ops;
}

std::vector<core::OpId> context_targets(const CUctx_st* ctx) {
  std::vector<core::OpId> ops;
  for (std::uint64_t q : streams_of(ctx).queues) ops.push_back(core::queue_tail(q));
  return ops;
}

Submitted submit(CUstream_st* stream, core::OpDesc&& desc, std::span<const core::OpId> extra) {
  // Capture hook: a capturing stream's work becomes a graph node instead of an operation;
  // the legacy stream next to a blocking capture answers 906 (Note [Capture rules]).
  if (capture::any_capture()) {
    bool captured = false;
    const CUresult rc = capture::submit(capture::ref_of(stream), desc, &captured);
    if (rc != CUDA_SUCCESS || captured) return {rc, 0};
  }
  std::vector<core::OpId> deps{core::queue_tail(stream->queue)};
  ContextStreams& cs = streams_of(stream->ctx);
  if (stream->kind == CUstream_st::Kind::kLegacy) {
    for (const CUstream_st* b : cs.blocking) deps.push_back(core::queue_tail(b->queue));
    std::vector<std::uint64_t> still_running;
    for (std::uint64_t q : cs.retired_blocking) {
      const core::OpId tail = core::queue_tail(q);
      if (core::is_complete(tail)) continue;
      deps.push_back(tail);
      still_running.push_back(q);
    }
    cs.retired_blocking = std::move(still_running);
  } else if ((stream->flags & CU_STREAM_NON_BLOCKING) == 0 && cs.legacy != nullptr) {
    deps.push_back(core::queue_tail(cs.legacy->queue));
  }
  deps.insert(deps.end(), extra.begin(), extra.end());
  const core::OpId op = core::enqueue(stream->queue, std::move(desc), deps);
  return {CUDA_SUCCESS, op};
}

CUresult host_wait(std::span<const core::OpId> ops, const char* caller) {
  const std::size_t sticky_before = core::engine().sticky.size();
  if (core::wait_for(ops, caller) != core::WaitResult::kDone) return kDeadlockResult;
  pools_after_host_wait();  // Note [Pool release] in pool_model.h
  // A kernel that faulted while this wait completed it (Note [Illegal addresses] in
  // driver_module.cpp): the wait reports its sticky error.
  const std::vector<core::ActiveSticky>& sticky = core::engine().sticky;
  for (std::size_t i = sticky_before; i < sticky.size(); ++i) {
    if (sticky[i].api == Api::kCuda && sticky[i].after_calls == 0) {
      return static_cast<CUresult>(sticky[i].code);
    }
  }
  return CUDA_SUCCESS;
}

void kill_context_streams(CUctx_st* ctx) {
  StreamRegistry& r = stream_registry();
  ContextStreams& cs = streams_of(ctx);
  for (std::uint64_t q : cs.queues) core::cancel_queue(q);
  capture::device_streams_killed(ctx->physical_device);  // capture hook
  for (auto it = r.live_streams.begin(); it != r.live_streams.end();) {
    it = (*it)->ctx == ctx ? r.live_streams.erase(it) : std::next(it);
  }
  for (const CUevent_st* e : cs.events) r.live_events.erase(e);
  r.contexts.erase(ctx->id);
}

}  // namespace mockdev::cuda
