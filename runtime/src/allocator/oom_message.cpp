#include "allocator/oom_message.h"

#include "allocator/size_policy.h"

namespace accel::detail::alloc {

std::string oom_message(const OomFigures& f) {
  std::string text = "CUDA out of memory. Tried to allocate " + format_size(f.allocation_bytes) +
                     ". GPU " + std::to_string(f.device) + " has a total capacity of " +
                     format_size(f.total_bytes) + " of which " + format_size(f.free_bytes) +
                     " is free. ";
  if (f.allowed_bytes) text += format_size(*f.allowed_bytes) + " allowed; ";
  text += "Of the allocated memory " + format_size(f.allocated_bytes + f.in_private_pools) +
          " is allocated by PyTorch, ";
  if (f.in_private_pools > 0) {
    text += "with " + format_size(f.in_private_pools) +
            " allocated in private pools (e.g., CUDA Graphs), ";
  }
  std::size_t unallocated = f.reserved_bytes - f.allocated_bytes - f.in_private_pools;
  text += "and " + format_size(unallocated) +
          " is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
          "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
          "fragmentation.  See documentation for Memory Management  "
          "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";
  return text;
}

}  // namespace accel::detail::alloc
