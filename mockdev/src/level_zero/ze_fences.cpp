// Fences of the mock Level Zero driver (zeFenceCreate, zeFenceDestroy, zeFenceHostSynchronize,
// zeFenceQueryStatus, zeFenceReset): made on a command queue, signalled when the work of the
// execution that carried them completes in virtual time (Note [Level Zero fences] in
// ze_objects.h), reset only by the host. Waits follow Note [Level Zero virtual time].

#include "core/timeline.h"
#include "level_zero/ze_objects.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {
namespace {

// The only flag is ZE_FENCE_FLAG_SIGNALED (0x1).
ze_result_t zeFenceCreate(ze_command_queue_handle_t hqueue, const ze_fence_desc_t* desc,
                          ze_fence_handle_t* out) {
  return call("zeFenceCreate", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_command_queue_handle_t* queue = find_handle(hqueue, HandleKind::kCommandQueue);
    if (queue == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == nullptr || out == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->flags > ZE_FENCE_FLAG_SIGNALED) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    auto* fence = new _ze_fence_handle_t();
    fence->queue = queue;
    fence->signalled = (desc->flags & ZE_FENCE_FLAG_SIGNALED) != 0;
    add_handle(fence, HandleKind::kFence);
    queue->fences.push_back(fence);
    *out = fence;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeFenceDestroy(ze_fence_handle_t handle) {
  return call("zeFenceDestroy", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_fence_handle_t* fence = find_handle(handle, HandleKind::kFence);
    if (fence == nullptr) {
      return destroy_orphan(handle, HandleKind::kFence) ? ZE_RESULT_SUCCESS
                                                        : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    std::erase(fence->queue->fences, fence);
    destroy_fence(fence);
    return ZE_RESULT_SUCCESS;
  });
}

// SUCCESS once the awaited execution's work completed (or the fence was created signalled),
// NOT_READY before; never forces progress.
ze_result_t zeFenceQueryStatus(ze_fence_handle_t handle) {
  return call("zeFenceQueryStatus", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_fence_handle_t* fence = find_handle(handle, HandleKind::kFence);
    if (fence == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (fence->signalled) return ZE_RESULT_SUCCESS;
    if (fence->awaited == 0 || fence->op == 0) return ZE_RESULT_NOT_READY;
    const core::OpId ops[] = {fence->op};
    return core::query(ops) ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
  });
}

// Timeouts in virtual time. A fence no execution carries answers NOT_READY at once, whatever
// the timeout (Intel's driver: a fence reset to "not ready" is never waited for); one whose
// execution is held behind an event nothing signals is a deadlock for UINT64_MAX.
ze_result_t zeFenceHostSynchronize(ze_fence_handle_t handle, std::uint64_t timeout) {
  return call("zeFenceHostSynchronize", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_fence_handle_t* fence = find_handle(handle, HandleKind::kFence);
    if (fence == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (fence->signalled) return ZE_RESULT_SUCCESS;
    if (fence->awaited == 0) return ZE_RESULT_NOT_READY;
    const int card = fence->queue->stream.card;
    std::vector<core::OpId> ops;
    if (fence->op != 0) ops.push_back(fence->op);
    return timed_wait(ops, ops.empty(), timeout, card, "zeFenceHostSynchronize",
                      "a fence whose execution waits for an event");
  });
}

// Back to not signalled; a pending execution no longer signals it.
ze_result_t zeFenceReset(ze_fence_handle_t handle) {
  return call("zeFenceReset", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_fence_handle_t* fence = find_handle(handle, HandleKind::kFence);
    if (fence == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    fence->signalled = false;
    fence->awaited = 0;
    fence->op = 0;
    return ZE_RESULT_SUCCESS;
  });
}

}  // namespace

void destroy_fence(_ze_fence_handle_t* fence) {
  fence->awaited = 0;
  fence->op = 0;
  remove_handle(fence);
}

MOCKDEV_ZE_FILL_FUNCTION(fill_fence_table, ze_fence_dditable_t, ACCEL_ZE_FENCE_ENTRY_POINTS)

}  // namespace mockdev::level_zero
