// The leak report at exit: Note [Leak report] in core/leak_report.h.

#include "core/leak_report.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <tuple>
#include <vector>

#include "core/engine.h"
#include "core/environment_choice.h"
#include "core/race_call_site.h"
#include "core/vendor_registry.h"
#include "mockdev/exit.h"

namespace mockdev::core {
namespace {

constexpr std::string_view kRule =
    "================================================================";

std::optional<std::string_view> leaks_variable() {
  const char* value = std::getenv(kLeaksVariable);
  if (value == nullptr || value[0] == '\0') return std::nullopt;
  return std::string_view(value);
}

std::string_view policy_name(LeakPolicy policy) {
  return policy == LeakPolicy::kFail ? "fail" : policy == LeakPolicy::kReport ? "report" : "off";
}

std::string objects_phrase(std::uint64_t count) {
  return std::to_string(count) + (count == 1 ? " driver object" : " driver objects");
}

// One line of the block: the objects of one kind, place and call site.
struct Group {
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
};
using GroupKey = std::tuple<std::string, std::string, std::string>;  // kind, where, site

// The pid whose report was printed (0: none yet); a forked child reports its own.
std::atomic<pid_t> g_reported_pid{0};

// The engine lock, waited for at most about a second (another thread may be stuck holding
// it while the process exits); false when it was not had.
bool lock_engine_bounded() MOCKDEV_TRY_ACQUIRE(true, g_engine_mutex) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (g_engine_mutex.try_lock()) return true;
    usleep(5000);
  }
  return false;
}

// The report's text for this process (engine lock held), or "" when no API was initialised
// here: nothing to report on.
std::string report_text(LeakPolicy policy, std::uint64_t& live) MOCKDEV_REQUIRES(g_engine_mutex) {
  if (!driver_used_here()) return "";
  const LiveObjects objects = live_objects();
  live = objects.size();
  return leak_report_text(objects, policy);
}

}  // namespace

std::optional<LeakPolicy> parse_leak_policy(std::string_view text) {
  if (text == "report") return LeakPolicy::kReport;
  if (text == "fail") return LeakPolicy::kFail;
  if (text == "off" || text.empty()) return LeakPolicy::kOff;
  return std::nullopt;
}

LeakPolicy leak_policy() {
  static const LeakPolicy policy = [] {
    const std::optional<std::string_view> text = leaks_variable();
    if (!text) return LeakPolicy::kOff;
    return parse_leak_policy(*text).value_or(LeakPolicy::kOff);
  }();
  return policy;
}

std::optional<std::string> leak_policy_environment_error() {
  const std::optional<std::string_view> text = leaks_variable();
  if (!text || parse_leak_policy(*text)) return std::nullopt;
  return environment_choice_error(kLeaksVariable, *text, {"report", "fail", "off"});
}

std::string leak_report_text(const LiveObjects& objects, LeakPolicy policy) {
  const std::string setting = std::string(kLeaksVariable) + "=" + std::string(policy_name(policy));
  if (objects.empty()) {
    return "mockdev: leak report: no driver object is live at exit (" + setting + ")\n";
  }
  std::map<GroupKey, Group> groups;
  for (const LiveObject& o : objects) {
    std::string site = describe_call_site(o.caller);
    if (site.empty()) site = "(call site unknown)";
    Group& g = groups[GroupKey{o.kind, o.where, std::move(site)}];
    ++g.count;
    g.bytes += o.bytes;
  }
  std::vector<std::pair<GroupKey, Group>> sorted(groups.begin(), groups.end());
  // Most objects first, then most bytes; ties in the key's order (stable output).
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return std::tie(b.second.count, b.second.bytes) < std::tie(a.second.count, a.second.bytes);
  });
  std::string text = "===================== mockdev: leak report =====================\n";
  text +=
      objects_phrase(objects.size()) + " live at exit (" + setting + "), by kind and call site:\n";
  std::size_t shown = 0;
  for (const auto& [key, group] : sorted) {
    if (shown++ == kLeakReportGroups) {
      text += "  ... and " + std::to_string(sorted.size() - kLeakReportGroups) + " more lines\n";
      break;
    }
    const auto& [kind, where, site] = key;
    std::string count = std::to_string(group.count);
    text += std::string(count.size() < 6 ? 6 - count.size() : 0, ' ') + count + "  " + kind;
    if (!where.empty()) text += " on " + where;
    if (group.bytes != 0) text += ", " + std::to_string(group.bytes) + " bytes";
    text += ": " + site + "\n";
  }
  text += std::string(kRule) + "\n";
  return text;
}

std::string failing_leaks_line(std::uint64_t count) {
  return "mockdev: " + objects_phrase(count) + " live at exit (" + kLeaksVariable +
         "=fail): exit status " + std::to_string(control::kLeakFailureExitStatus);
}

bool driver_used_here() {
  if (!engine_started()) return false;  // the program never touched the driver
  for (const ApiRow* row : registered_api_rows()) {
    if (row->initialized != nullptr && row->initialized()) return true;
  }
  return false;
}

LiveObjects live_objects() {
  LiveObjects out;
  if (!engine_started()) return out;
  for (const ApiRow* row : registered_api_rows()) {
    if (row->live_objects == nullptr || row->initialized == nullptr || !row->initialized()) {
      continue;
    }
    row->live_objects(out);
  }
  return out;
}

std::uint64_t report_leaks_once(std::FILE* out) noexcept {
  const LeakPolicy policy = leak_policy();
  if (policy == LeakPolicy::kOff) return 0;
  const pid_t self = current_pid();
  if (g_reported_pid.exchange(self) == self) return 0;
  try {
    if (!lock_engine_bounded()) {
      std::fputs(
          "mockdev: leak report skipped: another thread held the simulated hardware "
          "for a second at exit\n",
          out);
      std::fflush(out);
      return policy == LeakPolicy::kFail ? 1 : 0;
    }
    std::uint64_t live = 0;
    std::string text;
    try {
      text = report_text(policy, live);
    } catch (...) {
      g_engine_mutex.unlock();
      throw;
    }
    g_engine_mutex.unlock();
    if (text.empty()) return 0;  // nothing to report on: no API was initialised in this process
    std::fputs(text.c_str(), out);
    std::fflush(out);
    return policy == LeakPolicy::kFail ? live : 0;
  } catch (...) {
    std::fputs("mockdev: leak report failed: out of memory\n", out);
    std::fflush(out);
    return policy == LeakPolicy::kFail ? 1 : 0;
  }
}

}  // namespace mockdev::core
