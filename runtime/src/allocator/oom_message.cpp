#include "allocator/oom_message.h"

#include <cctype>

#include "allocator/size_policy.h"

namespace accel::detail::alloc {

std::string upper_device_type(std::string_view device_type) {
  std::string name(device_type);
  for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return name;
}

namespace {

// "... GPU <d> has a total capacity of <T> of which <F> is free. [<A> allowed; ]": the
// part every wording shares.
std::string capacity_part(const OomFigures& f) {
  std::string text = upper_device_type(f.device_type) + " out of memory. Tried to allocate " +
                     format_size(f.allocation_bytes) + ". GPU " + std::to_string(f.device) +
                     " has a total capacity of " + format_size(f.total_bytes) + " of which " +
                     format_size(f.free_bytes) + " is free. ";
  if (f.allowed_bytes) text += format_size(*f.allowed_bytes) + " allowed; ";
  return text;
}

// XPUCachingAllocator's wording: private pools are not told apart.
std::string xpu_message(const OomFigures& f) {
  return capacity_part(f) + "Of the allocated memory " + format_size(f.allocated_bytes) +
         " is allocated by PyTorch, and " + format_size(f.reserved_bytes - f.allocated_bytes) +
         " is reserved by PyTorch but unallocated. Please use `empty_cache` to release all "
         "unoccupied cached memory.";
}

// CUDACachingAllocator's wording; `variable` is the settings variable its hint names.
std::string cuda_style_message(const OomFigures& f, std::string_view variable) {
  std::string text = capacity_part(f) + "Of the allocated memory " +
                     format_size(f.allocated_bytes + f.in_private_pools) +
                     " is allocated by PyTorch, ";
  if (f.in_private_pools > 0) {
    text += "with " + format_size(f.in_private_pools) + " allocated in private pools (e.g., " +
            upper_device_type(f.device_type) + " Graphs), ";
  }
  std::size_t unallocated = f.reserved_bytes - f.allocated_bytes - f.in_private_pools;
  text += "and " + format_size(unallocated) +
          " is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
          "try setting ";
  text += variable;
  text += "=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
          "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";
  return text;
}

}  // namespace

std::string oom_message(const OomFigures& f) {
  if (f.device_type == "xpu") return xpu_message(f);
  return cuda_style_message(f, f.device_type == "cuda" ? "PYTORCH_CUDA_ALLOC_CONF"
                                                       : "PYTORCH_ALLOC_CONF");
}

std::string oversize_message(std::string_view device_type) {
  return upper_device_type(device_type) + " out of memory. Tried to allocate more than 1EB memory.";
}

}  // namespace accel::detail::alloc
