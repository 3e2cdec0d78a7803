#pragma once
// Clang thread-safety annotations (-Wthread-safety), spelled MOCKDEV_*. Under clang they let
// the compiler prove that engine state is touched only with the engine lock held (Note
// [Engine lock] in core/engine_lock.h); under other compilers they expand to nothing.
// Vocabulary as in clang's ThreadSafetyAnalysis documentation:
//   MOCKDEV_CAPABILITY(name)   a class that is a lock
//   MOCKDEV_SCOPED_CAPABILITY  an RAII holder of a lock
//   MOCKDEV_GUARDED_BY(m)      data readable and writable only with m held
//   MOCKDEV_REQUIRES(m)        a function callable only with m held
//   MOCKDEV_ACQUIRE(m) / MOCKDEV_RELEASE(m)  a function that takes / gives back m
//   MOCKDEV_EXCLUDES(m)        a function that takes m itself (must not be called holding it)
//   MOCKDEV_NO_THREAD_SAFETY_ANALYSIS  opt a function out (fork handlers: no other thread)

#if defined(__clang__)
#define MOCKDEV_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define MOCKDEV_THREAD_ANNOTATION(x)
#endif

#define MOCKDEV_CAPABILITY(name) MOCKDEV_THREAD_ANNOTATION(capability(name))
#define MOCKDEV_SCOPED_CAPABILITY MOCKDEV_THREAD_ANNOTATION(scoped_lockable)
#define MOCKDEV_GUARDED_BY(m) MOCKDEV_THREAD_ANNOTATION(guarded_by(m))
#define MOCKDEV_PT_GUARDED_BY(m) MOCKDEV_THREAD_ANNOTATION(pt_guarded_by(m))
#define MOCKDEV_REQUIRES(...) MOCKDEV_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define MOCKDEV_ACQUIRE(...) MOCKDEV_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define MOCKDEV_RELEASE(...) MOCKDEV_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define MOCKDEV_TRY_ACQUIRE(...) MOCKDEV_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define MOCKDEV_EXCLUDES(...) MOCKDEV_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define MOCKDEV_NO_THREAD_SAFETY_ANALYSIS MOCKDEV_THREAD_ANNOTATION(no_thread_safety_analysis)
