// A fork at any moment of the runtime's first use (Note [Fork gate] in spi/fork_gate.h):
// a fresh process P — one that has never loaded a driver file, so nothing is preloaded —
// starts three threads that create the runtime and initialise it (loading the driver and
// NVML or the Level Zero loader, resolving entry points, counting, initialising) while
// its main thread forks once, at a delay swept across rounds. The child G must be correct
// whatever the fork caught:
//  - the parent had begun initialising (G is in a bad fork): init() throws ForkError with
//    PyTorch's message, and nothing hangs;
//  - it had not: G has a working runtime of its own — init() succeeds, the four devices
//    are counted and a device allocation round-trips.
// Before the gate and the simulated drivers' constant tables, a child could inherit a
// driver library loaded half-way ("lacks cuInit at version 2000
// (CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)") or a Level Zero loader initialised half-way.
//
// Each backend runs 1,000 rounds; every child is bounded by alarm(). The binary's
// environment names both backends' simulated drivers; P chooses one with ACCEL_BACKEND and
// a machine with four devices of that vendor with MOCKDEV_MACHINE.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <execinfo.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel/lazy_init.h"
#include "accel/memory.h"
#include "allocator_fork_safety.h"
#include "child_process.h"

namespace accel::test {
namespace {

// Exit codes of G (and P, which exits with G's verdict).
constexpr int kForkErrorMissing = 40;   // bad fork, yet init() did not throw ForkError
constexpr int kWrongForkMessage = 41;   // ForkError with another message
constexpr int kOtherError = 42;         // some other accel::Error
constexpr int kWrongCount = 43;         // working runtime, device_count() != 4
constexpr int kAllocationFailed = 44;   // working runtime, allocate() gave no memory
constexpr int kGrandchildHung = 45;     // G (or P) hit its alarm
constexpr int kGrandchildKilled = 46;   // G died of another signal
constexpr int kSetupFailed = 47;        // P could not start its threads
constexpr int kCrashed = 48;           // P or G crashed (SIGSEGV)
constexpr int kBadForkCorrect = 50;     // a correct bad-fork child (0: a correct working one)

constexpr int kDevices = 4;  // each backend's machine has four devices

// G's checks; returns its exit code. Any accel::Error is caught and named by code, its
// message on stderr so a failing round says what the child saw.
int check_child(const std::string& backend_name) {
  try {
    if (is_in_bad_fork()) {
      try {
        init();
      } catch (const ForkError& e) {
        const std::string expected = "Cannot re-initialize " + backend_name + " in forked subprocess";
        if (std::string(e.what()).rfind(expected, 0) != 0) {
          std::fprintf(stderr, "ForkError: %s\n", e.what());
          return kWrongForkMessage;
        }
        return kBadForkCorrect;
      }
      return kForkErrorMissing;
    }
    init();
    if (device_count() != kDevices) {
      std::fprintf(stderr, "device_count() = %d\n", device_count());
      return kWrongCount;
    }
    DataPtr block = allocate(4096);
    return block.get() != nullptr ? 0 : kAllocationFailed;
  } catch (const Error& e) {
    std::fprintf(stderr, "accel::Error: %s\n", e.what());
    return kOtherError;
  }
}

// Prints this thread's stack to stderr and exits with `code` when `signal_number` arrives.
// backtrace() is called once first, so the handler does not load libgcc.
void print_stack_on(int signal_number, int code) {
  static int exit_code[NSIG];
  exit_code[signal_number] = code;
  void* warm[1];
  (void)backtrace(warm, 1);
  signal(signal_number, [](int received) {
    void* frames[64];
    const int n = backtrace(frames, 64);
    backtrace_symbols_fd(frames, n, 2);
    _exit(exit_code[received]);
  });
}

// One round in a fresh child P of the test process.
[[noreturn]] void first_use_round(const char* backend, const char* machine,
                                  const std::string& backend_name, int round) {
  // A round that crashes or hangs prints where (G inherits the handlers): the stack is what
  // tells a copied-half-way library from a lock held by a vanished thread.
  print_stack_on(SIGSEGV, kCrashed);
  print_stack_on(SIGALRM, kGrandchildHung);
  alarm(60);
  if (setenv("ACCEL_BACKEND", backend, 1) != 0 || setenv("MOCKDEV_MACHINE", machine, 1) != 0) {
    _exit(kSetupFailed);
  }
  std::atomic<int> started{0};
  std::vector<std::thread> threads;
  // Three first uses at once. Even rounds only count (creation, the driver and NVML or
  // loader loads, the fork-safe count: the child is never in a bad fork and must have a
  // working runtime); odd rounds also initialise, explicitly and through a memory query.
  const bool initialising = round % 2 == 1;
  threads.emplace_back([&] {
    started.fetch_add(1);
    (void)device_count();
  });
  threads.emplace_back([&, initialising] {
    started.fetch_add(1);
    try {
      if (initialising) {
        init();
      } else {
        (void)is_available();
      }
    } catch (const Error&) {
    }
  });
  threads.emplace_back([&, initialising] {
    started.fetch_add(1);
    try {
      if (initialising) {
        (void)memory_allocated(0);
      } else {
        (void)device_count();
      }
    } catch (const Error&) {
    }
  });
  while (started.load() < 3) {
  }
  // The delay sweeps the fork across the whole first use: from before the runtime exists
  // to after initialisation finished.
  std::atomic<int> spin{0};
  const int delay = (round / 2 * 7919) % 200000;
  while (spin.fetch_add(1, std::memory_order_relaxed) < delay) {
  }
  const pid_t grandchild = fork();
  if (grandchild == 0) {
    alarm(10);
    _exit(check_child(backend_name));
  }
  int status = 0;
  while (waitpid(grandchild, &status, 0) < 0) {
  }
  for (std::thread& t : threads) t.join();
  if (WIFSIGNALED(status)) _exit(WTERMSIG(status) == SIGALRM ? kGrandchildHung : kGrandchildKilled);
  _exit(WEXITSTATUS(status));
}

void run_rounds(const char* backend, const char* machine, const std::string& backend_name) {
  if (const char* hazard = allocator_fork_hazard()) GTEST_SKIP() << hazard;
  constexpr int kRounds = 1000;
  int hung = 0;
  int bad_fork_children = 0;
  int working_children = 0;
  std::vector<std::string> failures;
  for (int round = 0; round < kRounds && hung < 3; ++round) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) first_use_round(backend, machine, backend_name, round);
    const ChildStatus child = wait_child(pid);
    if (child.timed_out() || (child.exited && child.exit_code == kGrandchildHung)) ++hung;
    if (child.exited && child.exit_code == kBadForkCorrect) {
      ++bad_fork_children;
    } else if (child.ok()) {
      ++working_children;
    } else {
      failures.push_back("round " + std::to_string(round) + ": " + child.describe());
    }
  }
  std::printf("%s: %d working children, %d bad-fork children, %zu failed rounds\n", backend,
              working_children, bad_fork_children, failures.size());
  EXPECT_EQ(hung, 0) << "children that hung after a fork during first use";
  // The sweep reaches both outcomes (even rounds never initialise, odd ones mostly have).
  EXPECT_GT(working_children, 0);
  EXPECT_GT(bad_fork_children, 0);
  EXPECT_TRUE(failures.empty())
      << failures.size() << " of " << kRounds << " rounds failed; first: "
      << (failures.empty() ? "" : failures.front())
      << " (40: no ForkError in a bad fork, 41: wrong ForkError message, 42: another error, "
         "43: wrong count, 44: no memory, 45: hung, 46: killed, 47: setup, 48: crashed; "
         "the child's stack is on stderr)";
}

TEST(FirstUseFork, CudaChildIsCorrectWhateverTheForkCaught) {
  run_rounds("cuda", "4xh100", "CUDA");
}

TEST(FirstUseFork, XpuChildIsCorrectWhateverTheForkCaught) {
  run_rounds("xpu", "2xmax1550", "XPU");  // two 2-tile cards: four FLAT devices
}

}  // namespace
}  // namespace accel::test
