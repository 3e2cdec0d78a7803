#include "core/race_log.h"

#include <sys/types.h>

#include <atomic>

namespace mockdev::core {
namespace {

// The process's failing races: atomics, read without the lock by the exit hook. The pid
// tells a forked child that the count it inherited is its parent's.
std::atomic<std::uint64_t> g_failing_count{0};
std::atomic<pid_t> g_failing_pid{0};
std::atomic<bool> g_failing_by_variable{false};

class RaceLog final : public RaceListener {
 public:
  void on_race(const control::Race& race) override {
    ++count;
    if (races.size() < control::kMaxKeptRaces) races.push_back(race);
    if (policy == RacePolicy::kFail) {
      const pid_t self = current_pid();
      if (g_failing_pid.load() != self) {
        g_failing_count.store(0);
        g_failing_pid.store(self);
      }
      g_failing_by_variable.store(set_by_variable);
      g_failing_count.fetch_add(1);
    }
  }
  std::vector<control::Race> races;
  std::uint64_t count = 0;
  RacePolicy policy = RacePolicy::kReport;
  bool set_by_variable = false;
};

RaceLog& log_instance() {
  static RaceLog* instance = new RaceLog();  // never deleted: Note [Leaky state]
  return *instance;
}

}  // namespace

RaceListener& race_log() { return log_instance(); }

void begin_race_log(RacePolicy policy, bool set_by_variable) {
  clear_race_log();
  log_instance().policy = policy;
  log_instance().set_by_variable = set_by_variable;
}

std::vector<control::Race> logged_races() { return log_instance().races; }

std::uint64_t logged_race_count() { return log_instance().count; }

void clear_race_log() {
  log_instance().races.clear();
  log_instance().count = 0;
}

FailingRaces failing_races() noexcept {
  FailingRaces result;
  if (g_failing_pid.load() != current_pid()) return result;
  result.count = g_failing_count.load();
  result.set_by_variable = g_failing_by_variable.load();
  return result;
}

}  // namespace mockdev::core
