#include "worker_thread.h"

namespace accel::test {

WorkerThread::WorkerThread() : thread_([this] { loop(); }) {}

WorkerThread::~WorkerThread() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void WorkerThread::run(const std::function<void()>& task) {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [this] { return task_ == nullptr; });
  task_ = &task;
  done_ = false;
  error_ = nullptr;
  cv_.notify_all();
  cv_.wait(lock, [this] { return done_; });
  task_ = nullptr;
  std::exception_ptr error = error_;
  error_ = nullptr;
  cv_.notify_all();
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

void WorkerThread::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || (task_ != nullptr && !done_); });
    if (task_ == nullptr || done_) return;  // stop requested and nothing pending
    const std::function<void()>* task = task_;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*task)();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    done_ = true;
    cv_.notify_all();
  }
}

}  // namespace accel::test
