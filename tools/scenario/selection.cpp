#include "selection.h"

#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "accel_common/edit_distance.h"

namespace accel::scenario {
namespace {

bool has_tag(const Scenario& s, const std::string& tag) {
  return std::find(s.tags.begin(), s.tags.end(), tag) != s.tags.end();
}

bool name_matches(const Scenario& s, const std::string& pattern) {
  return fnmatch(pattern.c_str(), s.name.c_str(), 0) == 0;
}

// Up to three of `known` within the close distance of `typed`, nearest first.
std::vector<std::string> closest(const std::string& typed, const std::set<std::string>& known) {
  std::vector<std::pair<std::size_t, std::string>> near;
  const std::size_t limit = accel::common::close_distance_limit(typed);
  for (const std::string& k : known) {
    const std::size_t d = accel::common::edit_distance(typed, k);
    if (d <= limit) near.emplace_back(d, k);
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < near.size() && i < 3; ++i) out.push_back(near[i].second);
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

std::string tag_error(const std::string& tag, const std::vector<Scenario>& all) {
  std::set<std::string> tags;
  for (const Scenario& s : all) tags.insert(s.tags.begin(), s.tags.end());
  std::string message = "--tag '" + tag + "' matches no scenario";
  if (tags.empty()) {
    return message + ": none of the " + std::to_string(all.size()) + " scenario(s) has a tag";
  }
  const std::vector<std::string> near = closest(tag, tags);
  message += " (";
  if (!near.empty()) message += "closest: " + joined(near) + "; ";
  return message + "tags: " + joined({tags.begin(), tags.end()}) + ")";
}

std::string name_error(const std::string& pattern, const std::vector<Scenario>& all) {
  std::set<std::string> names;
  for (const Scenario& s : all) names.insert(s.name);
  std::string message = "--name '" + pattern + "' matches none of the " +
                        std::to_string(all.size()) + " scenario(s)";
  const std::vector<std::string> near = closest(pattern, names);
  if (!near.empty()) message += " (closest: " + joined(near) + ")";
  return message;
}

}  // namespace

std::vector<Scenario> select_scenarios(std::vector<Scenario> all, const Selection& selection) {
  std::vector<Scenario> picked;
  for (Scenario& s : all) {
    if (selection.tag && !has_tag(s, *selection.tag)) continue;
    if (selection.name && !name_matches(s, *selection.name)) continue;
    picked.push_back(std::move(s));  // `all` is read below only when nothing was picked
  }
  if (picked.empty() && !all.empty()) {
    const bool tag_alone = selection.tag && std::any_of(all.begin(), all.end(), [&](const auto& s) {
                             return has_tag(s, *selection.tag);
                           });
    const bool name_alone =
        selection.name && std::any_of(all.begin(), all.end(),
                                      [&](const auto& s) { return name_matches(s, *selection.name); });
    if (selection.tag && !tag_alone) throw SelectionError(tag_error(*selection.tag, all));
    if (selection.name && !name_alone) throw SelectionError(name_error(*selection.name, all));
    throw SelectionError("--tag '" + *selection.tag + "' and --name '" + *selection.name +
                         "' match no scenario together (each matches some on its own)");
  }
  // Shards take every count-th scenario of the sorted list, so they stay balanced.
  std::vector<Scenario> shard;
  for (std::size_t i = 0; i < picked.size(); ++i) {
    if (static_cast<int>(i % static_cast<std::size_t>(selection.shard.count)) ==
        selection.shard.index) {
      shard.push_back(std::move(picked[i]));
    }
  }
  if (shard.empty() && !picked.empty()) {
    throw SelectionError("--shard " + std::to_string(selection.shard.index) + "/" +
                         std::to_string(selection.shard.count) + " selects no scenario: " +
                         std::to_string(picked.size()) +
                         " scenario(s) to share, so at most " + std::to_string(picked.size()) +
                         " shard(s)");
  }
  return shard;
}

}  // namespace accel::scenario
