#pragma once
// Whether this test process's allocator survives fork() while another thread is inside it.
//
// glibc's malloc takes its arena locks in an atfork handler, so a child forked while another
// thread allocates gets a consistent heap. The sanitizers' allocators of GCC 12 do not: a
// child forked while another thread holds the sanitizer allocator's lock waits for it
// forever. Seen here under AddressSanitizer (3 of 844 first-use children hung inside its
// operator new) and under ThreadSanitizer (grandchildren of the runtime-creation race hung in
// __sanitizer::SizeClassAllocator64::GetFromAllocator, under operator new, with no report;
// children of the lazy-call queue race in SizeClassAllocator64::ReturnToAllocator, under
// operator delete, 2 of 4 runs of ForkSafety.LazyCallQueueRacingFork).
// A test whose point is forking while other threads work skips, saying so, where the result
// would measure the sanitizer rather than the runtime; the plain and clang builds run it.

namespace accel::test {

// nullptr when fork() during another thread's allocation is safe; otherwise the reason, for
// GTEST_SKIP.
constexpr const char* allocator_fork_hazard() {
#if defined(__SANITIZE_ADDRESS__)
  return "not run under AddressSanitizer: its allocator is not fork-safe, so a child forked "
         "while another thread allocates can hang in the sanitizer's own lock";
#elif defined(__SANITIZE_THREAD__)
  return "not run under ThreadSanitizer: its allocator is not fork-safe, so a child forked "
         "while another thread allocates can hang in the sanitizer's own lock";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return "not run under a sanitizer whose allocator is not fork-safe: a child forked while "
         "another thread allocates can hang in the sanitizer's own lock";
#else
  return nullptr;
#endif
#else
  return nullptr;
#endif
}

}  // namespace accel::test
