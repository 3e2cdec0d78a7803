#pragma once
// Reading and setting environment variables from any thread. Callers name a variable
// through accel::common::environment_variable_name() (accel_common/environment_variables.h),
// so every variable the runtime reads is a row of the one environment table.
//
// Note [Environment reads]
// glibc's setenv() may move the environment array and free the old one while getenv() in
// another thread walks it: a crash, found by threads counting Level Zero devices while
// another initialised it (the backend sets ZES_ENABLE_SYSMAN=1 before the first zeInit when
// the loader has no zesInit: the legacy Sysman route). Every read and write the runtime makes goes
// through one lock, which the runtime's atfork prepare handler also takes, so a child never
// inherits it held. Reads by other libraries (a driver's own getenv) are outside it: the
// one write is made once per process, before the driver it is for is initialised.

namespace accel::detail {

// std::getenv under the environment lock. The pointer stays valid until that variable is
// set again (setenv never frees the strings, only the array that lists them).
const char* environment_variable(const char* name) noexcept;

// setenv(name, value, 0) under the same lock: sets `name` only if unset.
void set_environment_default(const char* name, const char* value) noexcept;

// For the runtime's atfork handlers (Note [Fork safety] in runtime.cpp).
void lock_environment_for_fork() noexcept;
void unlock_environment_after_fork() noexcept;

}  // namespace accel::detail
