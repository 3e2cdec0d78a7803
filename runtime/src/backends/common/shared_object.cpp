// Opening run-time-chosen vendor libraries (shared_object.h).
#include "backends/common/shared_object.h"

#include <dlfcn.h>

#include <cstdlib>

namespace accel::detail {

void* open_shared_object(const std::string& path, const char* what, const char* hint,
                         std::string* reason) noexcept {
  try {
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
