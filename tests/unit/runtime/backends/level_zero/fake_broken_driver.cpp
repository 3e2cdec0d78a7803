// A "driver" for ZE_ENABLE_ALT_DRIVERS that breaks the process that loads it, for the
// probe child's bounded wait: the loader dlopens drivers inside the first zeInit, i.e. only in the
// probe child, never in the test's own process, which never calls zeInit in these tests.
// ACCEL_TEST_BROKEN_DRIVER says how:
//   hang   the loading thread sleeps forever (the parent must kill and reap it)
//   abort  the process dies of SIGABRT (the parent must report the signal)
// Anything else: the library does nothing (the loader then rejects it: no getters).
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace {

__attribute__((constructor)) void break_the_loading_process() {
  const char* mode = std::getenv("ACCEL_TEST_BROKEN_DRIVER");
  if (mode == nullptr) return;
  if (std::strcmp(mode, "hang") == 0) {
    while (true) pause();
  }
  if (std::strcmp(mode, "abort") == 0) std::abort();
}

}  // namespace
