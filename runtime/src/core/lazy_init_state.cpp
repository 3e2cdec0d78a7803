// The deferred-call queue and seed tracker of LazyInitState (Note [Deferred calls]).
#include "core/lazy_init_state.h"

#include <thread>

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

void LazyInitState::lock_for_fork() noexcept {
  // Note [Fork safety]: the init lock of a state that is not fork-poisoning is only ever
  // held by lazy_call() around its push, briefly, so wait for it; once the state is
  // poisoning the lock may be held across initialisation and user callbacks, so never wait
  // for it then (the child is poisoned and never takes it). Init lock before queue lock.
  holds_init_for_fork_ = false;
  while (!fork_poisoning()) {
    if (init_mutex_.try_lock()) {
      holds_init_for_fork_ = true;
      break;
    }
    std::this_thread::yield();
  }
  queue_mutex_.lock();
}

void LazyInitState::unlock_after_fork() noexcept {
  queue_mutex_.unlock();
  if (holds_init_for_fork_) init_mutex_.unlock();
}

}  // namespace accel::detail
