#include "selection.h"

#include <fnmatch.h>

#include <algorithm>
#include <functional>
#include <set>

#include "accel_common/edit_distance.h"

namespace accel::scenario {
namespace {

bool has_tag(const Scenario& s, const std::string& tag) {
  return std::find(s.tags.begin(), s.tags.end(), tag) != s.tags.end();
}

// The scenario's own name or the case id: `--name guard_nesting` keeps every machine's case.
bool name_matches(const Scenario& s, const std::string& pattern) {
  return fnmatch(pattern.c_str(), s.name.c_str(), 0) == 0 ||
         fnmatch(pattern.c_str(), s.base_name.c_str(), 0) == 0;
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
  // Each filter given, with how it is named in messages and the error when it alone
  // matches nothing.
  struct Filter {
    std::string shown;
    std::function<bool(const Scenario&)> keeps;
    std::function<std::string()> alone_error;
  };
  std::vector<Filter> filters;
  if (selection.tag) {
    const std::string& tag = *selection.tag;
    filters.push_back({"--tag '" + tag + "'", [&](const Scenario& s) { return has_tag(s, tag); },
                       [&] { return tag_error(tag, all); }});
  }
  if (selection.name) {
    const std::string& pattern = *selection.name;
    filters.push_back({"--name '" + pattern + "'",
                       [&](const Scenario& s) { return name_matches(s, pattern); },
                       [&] { return name_error(pattern, all); }});
  }
  if (selection.keyword) {
    const KeywordExpression& k = *selection.keyword;
    filters.push_back({"-k '" + k.text() + "'",
                       [&](const Scenario& s) { return k.matches(s.name, s.tags); },
                       [&] {
                         return "-k '" + k.text() + "' matches none of the " +
                                std::to_string(all.size()) + " scenario(s)";
                       }});
  }
  std::vector<Scenario> picked;
  for (const Scenario& s : all) {
    if (std::all_of(filters.begin(), filters.end(), [&](const Filter& f) { return f.keeps(s); })) {
      picked.push_back(s);
    }
  }
  if (picked.empty() && !all.empty()) {
    for (const Filter& f : filters) {
      if (std::none_of(all.begin(), all.end(), f.keeps)) throw SelectionError(f.alone_error());
    }
    std::string shown;
    for (std::size_t i = 0; i < filters.size(); ++i) {
      shown += (i == 0 ? "" : i + 1 == filters.size() ? " and " : ", ") + filters[i].shown;
    }
    throw SelectionError(shown + " match no scenario together (each matches some on its own)");
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
