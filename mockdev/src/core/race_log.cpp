#include "core/race_log.h"

#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <utility>

namespace mockdev::core {
namespace {

// The process's failing races: atomics, read without the lock by the exit hook. The pid
// tells a forked child that the count it inherited is its parent's.
std::atomic<std::uint64_t> g_failing_count{0};
std::atomic<pid_t> g_failing_pid{0};
std::atomic<bool> g_failing_by_variable{false};

// Note [Race summary]: the counts per pair of call sites, for this process (pid).
struct Summary {
  std::mutex mutex;
  pid_t owner = 0;
  std::uint64_t races = 0;
  std::map<std::pair<std::string, std::string>, std::uint64_t> pairs;
  std::vector<std::pair<std::string, std::string>> order;  // first seen first
  bool printed = false;
};

Summary& summary() {
  static Summary* instance = new Summary();  // never deleted: Note [Leaky state]
  return *instance;
}

std::string site_or_unknown(const std::string& site) {
  return site.empty() ? "(call site unknown)" : site;
}

void add_to_summary(const control::Race& race) {
  Summary& s = summary();
  std::lock_guard<std::mutex> lock(s.mutex);
  const pid_t self = current_pid();
  if (s.owner != self) {  // a forked child starts from none
    s.owner = self;
    s.races = 0;
    s.pairs.clear();
    s.order.clear();
    s.printed = false;
  }
  ++s.races;
  auto key =
      std::make_pair(site_or_unknown(race.first.call_site), site_or_unknown(race.second.call_site));
  if (s.pairs[key]++ == 0) s.order.push_back(std::move(key));
}

__attribute__((destructor)) void print_race_summary_at_exit() { print_race_summary_once(stderr); }

class RaceLog final : public RaceListener {
 public:
  void on_race(const control::Race& race) override {
    ++count;
    if (policy == RacePolicy::kReport) add_to_summary(race);
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

std::string race_summary() {
  Summary& s = summary();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.owner != current_pid() || s.races == 0) return "";
  std::vector<std::pair<std::string, std::string>> pairs = s.order;
  std::stable_sort(pairs.begin(), pairs.end(),
                   [&](const auto& a, const auto& b) { return s.pairs.at(a) > s.pairs.at(b); });
  std::string text = "==================== mockdev: race summary ====================\n" +
                     std::to_string(s.races) + (s.races == 1 ? " race" : " races") +
                     " found (race policy 'report'), by call sites (earlier operation -> "
                     "later one):\n";
  for (std::size_t i = 0; i < pairs.size() && i < kSummaryPairs; ++i) {
    char count[32];
    std::snprintf(count, sizeof count, "%6llu  ",
                  static_cast<unsigned long long>(s.pairs.at(pairs[i])));
    text += count + pairs[i].first + " -> " + pairs[i].second + "\n";
  }
  if (pairs.size() > kSummaryPairs) {
    text +=
        "  ... and " + std::to_string(pairs.size() - kSummaryPairs) + " more pairs of call sites\n";
  }
  return text + "===============================================================\n";
}

void print_race_summary_once(std::FILE* out) noexcept {
  try {
    std::string text;
    {
      Summary& s = summary();
      std::lock_guard<std::mutex> lock(s.mutex);
      if (s.printed || s.owner != current_pid()) return;
      s.printed = true;
    }
    // A process failing on races ends with the failing line alone (Note [Failing on races]).
    if (failing_races().count > 0) return;
    text = race_summary();
    if (text.empty()) return;
    std::fflush(stdout);
    std::fputs(text.c_str(), out);
    std::fflush(out);
  } catch (...) {
    // Out of memory at exit: the race blocks were printed already.
  }
}

}  // namespace mockdev::core
