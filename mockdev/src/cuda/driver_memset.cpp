// Memsets of the simulated driver (declared in driver_api.h): D8 and D32, sync and async,
// through the submit path (stream_objects.h). The bytes are written when the operation
// completes in virtual time. The synchronous forms run on the legacy stream and return
// without waiting (the CUDA Driver API's "API synchronization behavior": asynchronous to
// the host for device memory).

#include "core/engine.h"
#include "core/memory.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda::impl {
namespace {

CUresult memset_on(CUstream handle, bool sync, CUdeviceptr dst, std::uint32_t value, unsigned size,
                   std::size_t count, const char* name) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const ResolvedStream r = resolve_stream(handle);
  if (r.stream == nullptr) return r.error;
  if (count == 0) return CUDA_SUCCESS;  // nothing to write; the address is not checked
  if (size == 4 && dst % 4 != 0) return CUDA_ERROR_INVALID_VALUE;
  const std::uint64_t bytes = static_cast<std::uint64_t>(count) * size;
  if (bytes / size != count) return CUDA_ERROR_INVALID_VALUE;
  std::optional<core::Allocation> target = core::find_containing(dst, bytes, nullptr);
  if (!target) return CUDA_ERROR_INVALID_VALUE;
  if (auto sticky = sticky_error(r.stream->ctx->physical_device)) return *sticky;
  core::OpDesc desc;
  desc.kind = core::OpKind::kMemset;
  desc.name = name;
  desc.write = core::AccessRange{dst, bytes, false};
  desc.duration_ns =
      core::transfer_ns(bytes, core::engine().machine.streams.timing.memset_gb_per_s);
  desc.action.kind = core::ActionKind::kFill;
  desc.action.dst = dst;
  desc.action.bytes = bytes;
  desc.action.pattern = value;
  desc.action.pattern_size = static_cast<std::uint8_t>(size);
  const Submitted s = submit(r.stream, std::move(desc));
  if (s.code != CUDA_SUCCESS || !sync || s.op == 0 || !host_memory_target(dst)) return s.code;
  // A synchronous memset of host memory is fully synchronous (host_memory_target).
  const core::OpId ops[] = {s.op};
  return host_wait(ops, name);
}

}  // namespace

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, std::size_t count) {
  return memset_on(nullptr, true, dst, value, 1, count, "cuMemsetD8_v2");
}

CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int value, std::size_t count) {
  return memset_on(nullptr, true, dst, value, 4, count, "cuMemsetD32_v2");
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, std::size_t count, CUstream stream) {
  return memset_on(stream, false, dst, value, 1, count, "cuMemsetD8Async");
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, std::size_t count, CUstream stream) {
  return memset_on(stream, false, dst, value, 4, count, "cuMemsetD32Async");
}

}  // namespace mockdev::cuda::impl
