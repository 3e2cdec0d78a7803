// Interprocess memory and event handles (declared in driver_api.h).
//
// Note [IPC handles]
// cuIpcGetMemHandle exports the base of a live cuMemAlloc allocation, cuIpcGetEventHandle
// an event created with CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING (cuda.h; otherwise
// CUDA_ERROR_INVALID_HANDLE, as the H100 answered: Recording 2). A pointer inside an
// allocation exports that allocation (the H100 accepted base + 256). A handle names the allocation
// or event, the process and the simulated machine that made it. Opening one is where the simulation
// stops short of the hardware: a handle is for another process ("Opens an interprocess memory
// handle exported from another process"), and each process has its own simulated machine, so no
// handle can be opened:
// - in the process that made it: CUDA_ERROR_INVALID_CONTEXT, what the real driver answers
//   there [inferred: public reports of cudaIpcOpenMemHandle in the exporting process,
//   "invalid device context"];
//   The H100 confirmed it for memory and event handles (Recording 2);
// - anywhere else, or a handle no simulated driver made: a memory handle
//   CUDA_ERROR_INVALID_VALUE, an event handle CUDA_ERROR_MAP_FAILED (what the H100 answered
//   for an all-zero handle of each; for another process's handle [inferred]).
// Flags other than CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS are CUDA_ERROR_INVALID_VALUE. As
// nothing can be opened, cuIpcCloseMemHandle of any address is CUDA_ERROR_INVALID_VALUE
// (confirmed on the H100 for an address no handle opened).

#include <cstring>

#include "core/engine.h"
#include "core/memory.h"
#include "cuda/cuda_state.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"
namespace mockdev::cuda {
namespace {

// What a handle holds: a tag, the exporting process and machine generation, and the
// object (an allocation's address, or an event's id).
struct HandleBody {
  char tag[8];
  std::uint64_t pid;
  std::uint64_t generation;
  std::uint64_t object;
};
static_assert(sizeof(HandleBody) <= kIpcHandleSize);

constexpr char kMemTag[8] = {'a', 'c', 'c', 'e', 'l', 'm', 'e', 'm'};
constexpr char kEventTag[8] = {'a', 'c', 'c', 'e', 'l', 'e', 'v', 't'};

void write_handle(char (&out)[kIpcHandleSize], const char (&tag)[8], std::uint64_t object)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  HandleBody body{};
  std::memcpy(body.tag, tag, sizeof body.tag);
  body.pid = static_cast<std::uint64_t>(core::current_pid());
  body.generation = core::engine().generation;
  body.object = object;
  std::memset(out, 0, kIpcHandleSize);
  std::memcpy(out, &body, sizeof body);
}

// The code for opening a handle (Note [IPC handles]).
CUresult open_code(const char (&in)[kIpcHandleSize], const char (&tag)[8], CUresult not_ours)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  HandleBody body{};
  std::memcpy(&body, in, sizeof body);
  const bool ours = std::memcmp(body.tag, tag, sizeof body.tag) == 0 &&
                    body.pid == static_cast<std::uint64_t>(core::current_pid()) &&
                    body.generation == core::engine().generation;
  return ours ? CUDA_ERROR_INVALID_CONTEXT : not_ours;
}

}  // namespace

namespace impl {

CUresult cuIpcGetMemHandle(CUipcMemHandle* handle, CUdeviceptr dptr) {
  if (handle == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  std::uint64_t base = 0;
  if (!core::find_containing(dptr, 1, &base) || !core::find_allocation(base)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  write_handle(handle->reserved, kMemTag, base);
  return CUDA_SUCCESS;
}

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr* pdptr, CUipcMemHandle handle, unsigned int flags) {
  if (pdptr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if ((flags & ~static_cast<unsigned>(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)) != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  return open_code(handle.reserved, kMemTag, CUDA_ERROR_INVALID_VALUE);
}

CUresult cuIpcCloseMemHandle(CUdeviceptr) {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuIpcGetEventHandle(CUipcEventHandle* handle, CUevent event) {
  if (handle == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!is_live_event(event)) return CUDA_ERROR_INVALID_HANDLE;
  constexpr unsigned kNeeded = CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING;
  if ((event->flags & kNeeded) != kNeeded) return CUDA_ERROR_INVALID_HANDLE;
  write_handle(handle->reserved, kEventTag, reinterpret_cast<std::uintptr_t>(event));
  return CUDA_SUCCESS;
}

CUresult cuIpcOpenEventHandle(CUevent* event, CUipcEventHandle handle) {
  if (event == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  return open_code(handle.reserved, kEventTag, CUDA_ERROR_MAP_FAILED);
}

}  // namespace impl
}  // namespace mockdev::cuda
