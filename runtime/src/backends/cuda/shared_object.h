#pragma once
// Opening a vendor library chosen at run time (Note [Run-time driver selection]).
//
// The CUDA driver and NVML are both found the same way: a file named by an environment
// variable, else the vendor's SONAME, opened with RTLD_NODELETE and never closed (glibc
// drops a library's atfork handlers when it is dlclose'd, and the driver's handlers are
// what keep a forked child from deadlocking). Stateless; thread-safe.

#include <string>

namespace accel::detail::cuda {

// The value of `variable` when set and non-empty, else `default_name`.
std::string library_path_from_environment(const char* variable, const char* default_name);

// Opens `path` (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE). On failure returns nullptr and sets
// *reason to "cannot load <what> '<path>': <dlerror> (<hint>)".
void* open_shared_object(const std::string& path, const char* what, const char* hint,
                         std::string* reason) noexcept;

}  // namespace accel::detail::cuda
