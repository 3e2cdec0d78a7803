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

std::size_t LazyInitState::queued_call_count() const {
  std::lock_guard lock(queue_mutex_);
  return plain_.size() + (seed_ ? 1 : 0) + (seed_all_ ? 1 : 0);
}

void LazyInitState::reset_mutexes_in_child() noexcept {
  // Only the forking thread exists in the child; a mutex a vanished thread held would
  // stay locked forever. Re-creating it in place is the usual atfork remedy. The init
  // mutex of a poisoning state is never taken in the child (init() throws ForkError
  // first), so it is left alone.
  new (&queue_mutex_) std::mutex();
  if (!fork_poisoning()) new (&init_mutex_) std::mutex();
}

}  // namespace accel::detail
