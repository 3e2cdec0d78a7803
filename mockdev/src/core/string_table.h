#pragma once
// Interned strings for observers: operation names and call sites repeat (a loop enqueues
// the same call a million times), so each is kept once and referred to by index. Index 0
// is "". A value type; not thread-safe.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mockdev::core {

class StringTable {
 public:
  StringTable() { strings_.emplace_back(); }
  std::uint32_t intern(std::string_view text) {
    if (text.empty()) return 0;
    if (text == strings_[last_]) return last_;  // the common case: the same call again
    auto it = index_.find(text);
    if (it == index_.end()) {
      strings_.emplace_back(text);
      it = index_.emplace(strings_.back(), static_cast<std::uint32_t>(strings_.size() - 1)).first;
    }
    last_ = it->second;
    return last_;
  }
  const std::string& get(std::uint32_t index) const { return strings_[index]; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> strings_;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index_;
  std::uint32_t last_ = 0;
};

}  // namespace mockdev::core
