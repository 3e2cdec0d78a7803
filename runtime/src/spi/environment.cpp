// Environment reads and writes under one lock (Note [Environment reads] in environment.h).
#include "spi/environment.h"

#include <pthread.h>

#include <cstdlib>

namespace accel::detail {

namespace {

// Constant-initialised, never destroyed: usable from static initialisers and at exit.
constinit pthread_mutex_t g_environment = PTHREAD_MUTEX_INITIALIZER;

}  // namespace

const char* environment_variable(const char* name) noexcept {
  pthread_mutex_lock(&g_environment);
  const char* value = std::getenv(name);
  pthread_mutex_unlock(&g_environment);
  return value;
}

void set_environment_default(const char* name, const char* value) noexcept {
  pthread_mutex_lock(&g_environment);
  (void)setenv(name, value, 0);
  pthread_mutex_unlock(&g_environment);
}

void lock_environment_for_fork() noexcept { pthread_mutex_lock(&g_environment); }

void unlock_environment_after_fork() noexcept { pthread_mutex_unlock(&g_environment); }

}  // namespace accel::detail
