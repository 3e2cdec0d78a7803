#include "level_zero/ze_affinity.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

namespace mockdev::level_zero {
namespace {

// One number as strtoul reads it in base 0, the whole text consumed (Note [Affinity mask
// grammar]: a sign negates in unsigned arithmetic, an overflow is the largest value, both out
// of every range); nullopt when the text is not a number.
std::optional<unsigned long long> parse_number(std::string_view text) {
  std::string copy(text);
  while (!copy.empty() && std::isspace(static_cast<unsigned char>(copy.back()))) copy.pop_back();
  std::size_t first = 0;
  while (first < copy.size() && std::isspace(static_cast<unsigned char>(copy[first]))) ++first;
  if (first == copy.size()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(copy.c_str() + first, &end, 0);
  if (end == copy.c_str() + first || *end != '\0') return std::nullopt;
  if (errno == ERANGE) return ULLONG_MAX;
  return value;
}

struct Entry {
  unsigned long long index = 0;
  std::optional<unsigned long long> tile;
};

// Splits the mask into entries; error text names the first malformed entry.
std::vector<Entry> parse_entries(std::string_view mask, std::string& error) {
  std::vector<Entry> entries;
  std::size_t start = 0;
  while (start <= mask.size()) {
    std::size_t comma = mask.find(',', start);
    std::string_view item =
        mask.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    start = comma == std::string_view::npos ? mask.size() + 1 : comma + 1;
    bool blank = true;
    for (char c : item) blank = blank && std::isspace(static_cast<unsigned char>(c));
    if (blank) continue;
    std::size_t dot = item.find('.');
    Entry entry;
    std::optional<unsigned long long> index = parse_number(item.substr(0, dot));
    if (dot != std::string_view::npos && item.find('.', dot + 1) != std::string_view::npos) {
      error = "ZE_AFFINITY_MASK entry '" + std::string(item) +
              "': expected N or N.M (card.tile), got three levels";
      return {};
    }
    if (dot != std::string_view::npos) entry.tile = parse_number(item.substr(dot + 1));
    if (!index || (dot != std::string_view::npos && !entry.tile)) {
      error = "ZE_AFFINITY_MASK entry '" + std::string(item) +
              "': expected a number or number.number";
      return {};
    }
    entry.index = *index;
    entries.push_back(entry);
  }
  return entries;
}

}  // namespace

std::optional<Hierarchy> parse_hierarchy(std::string_view text) {
  if (text == "COMPOSITE") return Hierarchy::kComposite;
  if (text == "FLAT") return Hierarchy::kFlat;
  if (text == "COMBINED") return Hierarchy::kCombined;
  return std::nullopt;
}

std::string_view hierarchy_name(Hierarchy hierarchy) {
  switch (hierarchy) {
    case Hierarchy::kComposite:
      return "COMPOSITE";
    case Hierarchy::kFlat:
      return "FLAT";
    case Hierarchy::kCombined:
      return "COMBINED";
  }
  return "COMPOSITE";
}

Hierarchy resolve_hierarchy(const char* env_value, Hierarchy machine_default) {
  if (env_value == nullptr) return machine_default;
  return parse_hierarchy(env_value).value_or(machine_default);
}

Exposure expose_devices(const std::vector<int>& tiles_per_card, Hierarchy hierarchy,
                        std::optional<std::string_view> mask) {
  Exposure out;
  const bool all = !mask || mask->empty();
  std::vector<Entry> entries;
  if (!all) {
    entries = parse_entries(*mask, out.error);
    if (!out.error.empty()) return out;
  }
  const int cards = static_cast<int>(tiles_per_card.size());
  if (hierarchy == Hierarchy::kComposite) {
    // card -> tiles named (empty set + whole = the card as a whole). N is a card, N.M a
    // tile of card N; M out of range is skipped (an untiled card has no tile 0).
    std::map<int, std::set<int>> named;
    std::set<int> whole;
    for (int c = 0; all && c < cards; ++c) whole.insert(c);
    for (const Entry& e : entries) {
      if (e.index >= static_cast<unsigned long long>(cards)) continue;
      const int card = static_cast<int>(e.index);
      if (!e.tile) {
        whole.insert(card);
      } else if (*e.tile < static_cast<unsigned long long>(tiles_per_card[card])) {
        named[card].insert(static_cast<int>(*e.tile));
      }
    }
    for (int c = 0; c < cards; ++c) {
      std::vector<int> tiles;
      if (whole.count(c) != 0) {
        for (int t = 0; t < tiles_per_card[c]; ++t) tiles.push_back(t);
      } else if (named.count(c) != 0) {
        tiles.assign(named[c].begin(), named[c].end());
      } else {
        continue;
      }
      // A root never has exactly one sub-device: one named tile is a device of its own.
      if (whole.count(c) == 0 && tiles.size() == 1) {
        out.devices.push_back(Exposed{c, tiles[0], {}});
      } else {
        out.devices.push_back(Exposed{c, -1, tiles});
      }
    }
    return out;
  }
  // FLAT / COMBINED: the flattened list, card-major, tile-minor; untiled cards as-is.
  std::vector<Exposed> flat;
  for (int c = 0; c < cards; ++c) {
    if (tiles_per_card[c] == 0) {
      flat.push_back(Exposed{c, -1, {}});
    } else {
      for (int t = 0; t < tiles_per_card[c]; ++t) flat.push_back(Exposed{c, t, {}});
    }
  }
  std::set<std::size_t> keep;
  for (std::size_t i = 0; all && i < flat.size(); ++i) keep.insert(i);
  for (const Entry& e : entries) {
    if (e.tile) continue;  // N.M is invalid in FLAT and COMBINED
    if (e.index < flat.size()) keep.insert(static_cast<std::size_t>(e.index));
  }
  for (std::size_t i : keep) out.devices.push_back(flat[i]);
  return out;
}

}  // namespace mockdev::level_zero
