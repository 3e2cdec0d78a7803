#pragma once
// Opening a vendor library chosen at run time, for any backend.
//
// Backends find their libraries the same way (docs/decisions/001-driver-chosen-at-run-time.md): a
// file named by an environment variable, else the vendor's SONAME. The file is opened with
// RTLD_NODELETE and never closed, because glibc drops a library's atfork handlers when it
// is dlclose'd, and a vendor driver's own handlers are what keep a forked child of a
// process that used it from deadlocking; it also keeps every resolved entry point valid for
// the life of the process. Stateless; thread-safe.

#include <string>

namespace accel::detail {

// Opens `path` (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE), after checking that a path (a name
// with '/') is a regular file (Note [Bounded readers] in accel_common/bounded_file.h: a FIFO
// or device would block dlopen). On failure returns nullptr and sets *reason to
// "cannot load <what> '<path>': <dlerror, or what the path is> (<hint>)" (left empty if even
// that message cannot be built).
void* open_shared_object(const std::string& path, const char* what, const char* hint,
                         std::string* reason) noexcept;

}  // namespace accel::detail
