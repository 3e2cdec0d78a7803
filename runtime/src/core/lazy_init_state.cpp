// The deferred-call queue and seed tracker of LazyInitState (Note [Deferred calls]).
#include "core/lazy_init_state.h"

#include <new>

namespace accel::detail {

void LazyInitState::enqueue(QueuedCall call, LazyCallKind kind) {
  std::lock_guard lock(queue_mutex_);
  switch (kind) {
    case LazyCallKind::kPlain:
      plain_.push_back(std::move(call));
      break;
    case LazyCallKind::kSeed:
      seed_ = std::move(call);
      seed_all_last_ = false;
      break;
    case LazyCallKind::kSeedAll:
      seed_all_ = std::move(call);
      seed_all_last_ = true;
      break;
  }
}

std::vector<QueuedCall> LazyInitState::calls_for_init() const {
  std::lock_guard lock(queue_mutex_);
  std::vector<QueuedCall> calls = plain_;
  const std::optional<QueuedCall>& first = seed_all_last_ ? seed_ : seed_all_;
  const std::optional<QueuedCall>& second = seed_all_last_ ? seed_all_ : seed_;
  if (first) calls.push_back(*first);
  if (second) calls.push_back(*second);
  return calls;
}

void LazyInitState::clear_queue() {
  std::lock_guard lock(queue_mutex_);
  plain_.clear();
  seed_.reset();
  seed_all_.reset();
  seed_all_last_ = false;
}

void LazyInitState::lock_for_fork() noexcept { queue_mutex_.lock(); }

void LazyInitState::unlock_after_fork() noexcept { queue_mutex_.unlock(); }

void LazyInitState::reset_after_fork_in_child() noexcept {
  // The forking thread took the queue lock in prepare, so the queue is whole; release it.
  queue_mutex_.unlock();
  // Note [Fork safety]: only lazy_call() can have held a non-poisoning state's init lock at
  // the fork (around its push, which the queue lock covered); its thread is gone, so the
  // lock is re-created. A poisoning state's init lock is never taken in the child.
  if (!fork_poisoning()) new (&init_mutex_) std::mutex();
}

}  // namespace accel::detail
