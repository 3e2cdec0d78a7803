#pragma once
// WorkerThread: one long-lived thread that runs tasks handed to it, one at a time, while
// the caller waits. Lets a single-threaded property test drive several threads in a
// deterministic order: every step runs on the thread it names and finishes before the
// next step starts, so thread-local state (the current device, guards on that thread's
// stack) lives on a real, persistent thread.
//
// Thread safety: run() may be called from any thread; tasks run strictly in order.

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace accel::test {

class WorkerThread {
 public:
  WorkerThread();
  // Stops the thread after the queued task (if any) has run.
  ~WorkerThread();
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;

  // Runs `task` on the worker and waits for it; rethrows what it threw.
  void run(const std::function<void()>& task);

  std::thread::id id() const { return thread_.get_id(); }

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable cv_;
  const std::function<void()>* task_ = nullptr;  // owned by the caller of run()
  bool done_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace accel::test
