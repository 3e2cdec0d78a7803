#include "core/race_log.h"

namespace mockdev::core {
namespace {

class RaceLog final : public RaceListener {
 public:
  void on_race(const control::Race& race) override {
    ++count;
    if (races.size() < control::kMaxKeptRaces) races.push_back(race);
  }
  std::vector<control::Race> races;
  std::uint64_t count = 0;
};

RaceLog& log_instance() {
  static RaceLog* instance = new RaceLog();  // never deleted: Note [Leaky state]
  return *instance;
}

}  // namespace

RaceListener& race_log() { return log_instance(); }

std::vector<control::Race> logged_races() { return log_instance().races; }

std::uint64_t logged_race_count() { return log_instance().count; }

void clear_race_log() {
  log_instance().races.clear();
  log_instance().count = 0;
}

}  // namespace mockdev::core
