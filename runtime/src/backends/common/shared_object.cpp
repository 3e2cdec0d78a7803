// Opening run-time-chosen vendor libraries (shared_object.h).
#include "backends/common/shared_object.h"

#include <dlfcn.h>

#include <cstdlib>

#include "accel_common/bounded_file.h"
#include "spi/fork_gate.h"

namespace accel::detail {

void* open_shared_object(const std::string& path, const char* what, const char* hint,
                         std::string* reason) noexcept {
  try {
    // Note [Bounded readers]: dlopen of a FIFO blocks until a writer appears and of a
    // device reads without end, so a path is checked to be a regular file first. A bare
    // name is the dynamic linker's search and is left to it.
    if (std::string problem = common::check_library_file(path, common::kMaxLibraryBytes, what);
        !problem.empty()) {
      *reason = "cannot load " + problem + " (" + hint + ")";
      return nullptr;
    }
    // Note [Fork gate]: a fork never copies the library loaded half-way.
    ForkGateSection gate;
    dlerror();  // clear a stale error so the one we report is ours
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == nullptr) {
      const char* error = dlerror();
      *reason = std::string("cannot load ") + what + " '" + path +
                "': " + (error ? error : "unknown dlopen error") + " (" + hint + ")";
    }
    return handle;
  } catch (...) {  // std::bad_alloc while building the reason
    return nullptr;
  }
}

}  // namespace accel::detail
