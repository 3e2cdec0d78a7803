#include "allocator/allocator_config.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "accel_common/edit_distance.h"
#include "accel_common/environment_variables.h"
#include "spi/environment.h"

namespace accel::detail::alloc {
namespace {

constexpr std::size_t kMiB = 1024 * 1024;
// Index of the interval that holds sizes up to `mib` MiB (a power of two): 2^20 bytes is
// index 20.
constexpr std::size_t kMiBIndex = 20;

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Splits at commas outside brackets: "a:1,b:[1:2,>:4]" -> "a:1", "b:[1:2,>:4]". An
// unbalanced bracket is reported by the caller's value parser.
std::vector<std::string_view> split_top_level(std::string_view text) {
  std::vector<std::string_view> tokens;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']') --depth;
    if (text[i] == ',' && depth == 0) {
      tokens.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  tokens.push_back(text.substr(start));
  return tokens;
}

std::optional<std::size_t> parse_unsigned(std::string_view text) {
  text = trim(text);
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::optional<bool> parse_bool(std::string_view text) {
  text = trim(text);
  if (text == "True") return true;
  if (text == "False") return false;
  return std::nullopt;
}

// Every key apply() knows, in the order docs/MEMORY.md lists them.
constexpr std::string_view kKeys[] = {
    "max_split_size_mb",           "max_non_split_rounding_mb",
    "roundup_power2_divisions",    "garbage_collection_threshold",
    "expandable_segments",         "release_lock_on_cudamalloc",
    "pinned_use_cuda_host_register", "pinned_num_register_threads",
    "pinned_use_background_threads", "backend"};

// " (closest: expandable_segments)" for a key a few edits from known ones (the nearest,
// ties in kKeys order, at most three), else " (known keys: ...)" listing them all, so the
// message always says what would have been accepted.
std::string suggestion(std::string_view key) {
  const std::size_t limit = common::close_distance_limit(key);
  std::size_t best = limit + 1;
  std::string close;
  std::size_t count = 0;
  for (std::string_view known : kKeys) {
    // The lengths alone bound the distance from below: skip the table when they differ by
    // more than the limit (a long mistyped token costs nothing then).
    const std::size_t longer = std::max(key.size(), known.size());
    if (longer - std::min(key.size(), known.size()) > limit) continue;
    const std::size_t d = common::edit_distance(key, known);
    if (d > limit || d > best) continue;
    if (d < best) {
      best = d;
      close.clear();
      count = 0;
    }
    if (count < 3) close += (count == 0 ? "" : ", ") + std::string(known);
    ++count;
  }
  if (!close.empty()) return " (closest: " + close + ")";
  std::string all;
  for (std::string_view known : kKeys) all += (all.empty() ? "" : ", ") + std::string(known);
  return " (known keys: " + all + ")";
}

class Parser {
 public:
  Parser(std::string_view source, AllocatorConfig config) : source_(source), config_(config) {}

  Status fail(std::string_view what, std::string_view token) const {
    return Status(ErrorKind::kConfig, std::string(source_) + ": " + std::string(what) + " in '" +
                                          std::string(token) + "'");
  }

  // One comma-separated setting of `text` (the whole value, named when the setting cannot
  // be: an empty one, or a key given twice).
  Status apply(std::string_view token, std::string_view text) {
    std::string_view trimmed = trim(token);
    if (trimmed.empty()) return fail("empty setting", text);
    std::size_t colon = trimmed.find(':');
    if (colon == std::string_view::npos) return fail("expected key:value", trimmed);
    std::string_view key = trim(trimmed.substr(0, colon));
    std::string_view value = trim(trimmed.substr(colon + 1));
    // A key given twice is refused rather than letting the last one win unseen (PyTorch
    // takes the last).
    if (std::find(seen_.begin(), seen_.end(), key) != seen_.end()) {
      return fail("'" + std::string(key) + "' given twice", text);
    }
    seen_.push_back(key);
    if (key == "max_split_size_mb") return max_split_size(value, trimmed);
    if (key == "max_non_split_rounding_mb") return max_non_split_rounding(value, trimmed);
    if (key == "roundup_power2_divisions") return roundup(value, trimmed);
    if (key == "garbage_collection_threshold") return gc_threshold(value, trimmed);
    if (key == "expandable_segments") return flag(config_.expandable_segments, key, value, trimmed);
    if (key == "release_lock_on_cudamalloc") {
      return flag(config_.release_lock_on_device_malloc, key, value, trimmed);
    }
    if (key == "pinned_use_cuda_host_register") {
      return flag(config_.pinned_use_host_register, key, value, trimmed);
    }
    if (key == "pinned_use_background_threads") {
      return flag(config_.pinned_use_background_threads, key, value, trimmed);
    }
    if (key == "pinned_num_register_threads") return register_threads(value, trimmed);
    if (key == "backend") {
      if (value != "native") {
        return fail("backend must be native (the runtime has one allocator), got '" +
                        std::string(value) + "'",
                    trimmed);
      }
      return {};
    }
    return fail("unknown key '" + std::string(key) + "'" + suggestion(key), trimmed);
  }

  const AllocatorConfig& config() const { return config_; }

 private:
  Status max_split_size(std::string_view value, std::string_view token) {
    if (value == "unlimited") {  // what to_string writes for the default
      config_.max_split_size = static_cast<std::size_t>(-1);
      return {};
    }
    auto mib = parse_unsigned(value);
    if (!mib) return fail("max_split_size_mb expects a whole number of MiB", token);
    if (*mib <= 20) return fail("max_split_size_mb must be > 20, got " + std::string(value), token);
    config_.max_split_size =
        *mib >= static_cast<std::size_t>(-1) / kMiB ? static_cast<std::size_t>(-1) : *mib * kMiB;
    return {};
  }

  Status max_non_split_rounding(std::string_view value, std::string_view token) {
    auto mib = parse_unsigned(value);
    if (!mib) return fail("max_non_split_rounding_mb expects a whole number of MiB", token);
    if (*mib < 20) {
      return fail("max_non_split_rounding_mb must be >= 20, got " + std::string(value), token);
    }
    if (*mib >= static_cast<std::size_t>(-1) / kMiB) {
      return fail("max_non_split_rounding_mb is too large", token);
    }
    config_.max_non_split_rounding = *mib * kMiB;
    return {};
  }

  Status divisions(std::string_view value, std::string_view token, std::size_t& out) {
    auto n = parse_unsigned(value);
    if (!n || !std::has_single_bit(*n)) {
      return fail("roundup_power2_divisions: divisions must be a power of two, got '" +
                      std::string(trim(value)) + "'",
                  token);
    }
    out = *n;
    return {};
  }

  Status roundup(std::string_view value, std::string_view token) {
    auto& table = config_.roundup_power2_divisions;
    if (value.empty() || value.front() != '[') {
      std::size_t n = 0;
      if (Status s = divisions(value, token, n); !s.ok()) return s;
      table.fill(n);
      return {};
    }
    if (value.back() != ']') return fail("roundup_power2_divisions: missing ']'", token);
    std::array<std::size_t, kRoundupPower2Intervals> result{};
    std::size_t next_index = 0;  // first index the next entry fills
    bool closed = false;
    for (std::string_view entry : split_top_level(value.substr(1, value.size() - 2))) {
      entry = trim(entry);
      if (closed) return fail("roundup_power2_divisions: '>' must be the last entry", token);
      std::size_t colon = entry.find(':');
      if (colon == std::string_view::npos) {
        return fail("roundup_power2_divisions: expected size_mb:divisions, got '" +
                        std::string(entry) + "'",
                    token);
      }
      std::size_t n = 0;
      if (Status s = divisions(entry.substr(colon + 1), token, n); !s.ok()) return s;
      std::string_view size = trim(entry.substr(0, colon));
      if (size == ">") {
        for (std::size_t i = next_index; i < kRoundupPower2Intervals; ++i) result[i] = n;
        closed = true;
        continue;
      }
      auto mib = parse_unsigned(size);
      if (!mib || !std::has_single_bit(*mib)) {
        return fail("roundup_power2_divisions: size must be a power of two in MiB, got '" +
                        std::string(size) + "'",
                    token);
      }
      std::size_t index = kMiBIndex + static_cast<std::size_t>(std::countr_zero(*mib));
      if (index >= kRoundupPower2Intervals || index < next_index) {
        return fail("roundup_power2_divisions: sizes must increase, got '" + std::string(size) + "'",
                    token);
      }
      for (std::size_t i = next_index; i <= index; ++i) result[i] = n;
      next_index = index + 1;
    }
    table = result;
    return {};
  }

  Status gc_threshold(std::string_view value, std::string_view token) {
    double t = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), t);
    if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
      return fail("garbage_collection_threshold expects a number", token);
    }
    if (!(t > 0.0 && t < 1.0)) {
      return fail("garbage_collection_threshold must be in (0, 1), got " + std::string(value),
                  token);
    }
    config_.garbage_collection_threshold = t;
    return {};
  }

  Status flag(bool& out, std::string_view key, std::string_view value, std::string_view token) {
    auto b = parse_bool(value);
    if (!b) {
      return fail(std::string(key) + " must be True or False, got '" + std::string(value) + "'",
                  token);
    }
    out = *b;
    return {};
  }

  Status register_threads(std::string_view value, std::string_view token) {
    auto n = parse_unsigned(value);
    if (!n || !std::has_single_bit(*n) || *n > 128) {
      return fail("pinned_num_register_threads must be a power of two <= 128, got '" +
                      std::string(value) + "'",
                  token);
    }
    config_.pinned_num_register_threads = *n;
    return {};
  }

  std::string_view source_;
  AllocatorConfig config_;
  std::vector<std::string_view> seen_;  // the keys of this text so far
};

std::string format_double(double value) {
  char text[64];
  auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return ec == std::errc() ? std::string(text, end) : std::string("0");
}

const char* bool_text(bool value) { return value ? "True" : "False"; }

}  // namespace

std::size_t AllocatorConfig::divisions_for(std::size_t bytes) const noexcept {
  if (bytes <= 1) return roundup_power2_divisions[0];
  // Interval k holds (2^(k-1), 2^k]: k = ceil(log2(bytes)).
  std::size_t index = static_cast<std::size_t>(std::bit_width(bytes - 1));
  return roundup_power2_divisions[index < kRoundupPower2Intervals ? index
                                                                  : kRoundupPower2Intervals - 1];
}

Result<AllocatorConfig> parse_allocator_config(std::string_view text, std::string_view source,
                                               const AllocatorConfig& base) {
  Parser parser(source, base);
  if (trim(text).empty()) return base;
  int depth = 0;
  for (char ch : text) {
    depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
    if (depth < 0 || depth > 1) return parser.fail("unbalanced brackets", text);
  }
  if (depth != 0) return parser.fail("unbalanced brackets", text);
  for (std::string_view token : split_top_level(text)) {
    if (Status s = parser.apply(token, text); !s.ok()) return s;
  }
  return parser.config();
}

Result<AllocatorConfig> allocator_config_from_environment() {
  for (const char* name : {::accel::common::environment_variable_name("ACCEL_ALLOC_CONF"),
                           ::accel::common::environment_variable_name("PYTORCH_ALLOC_CONF")}) {
    const char* value = ::accel::detail::environment_variable(name);
    if (value != nullptr && *value != '\0') return parse_allocator_config(value, name);
  }
  return AllocatorConfig{};
}

std::string to_string(const AllocatorConfig& config) {
  std::string out = "max_split_size_mb:";
  out += config.max_split_size == static_cast<std::size_t>(-1)
             ? std::string("unlimited")
             : std::to_string(config.max_split_size / kMiB);
  out += ",max_non_split_rounding_mb:" + std::to_string(config.max_non_split_rounding / kMiB);
  // Divisions: indices 0..20 always share one value (entries are in MiB), so the runs from
  // index 20 upwards describe the whole table.
  const auto& table = config.roundup_power2_divisions;
  auto shown = [](std::size_t n) { return n == 0 ? std::size_t{1} : n; };
  bool uniform = true;
  for (std::size_t i = 0; i < kRoundupPower2Intervals; ++i) {
    uniform = uniform && shown(table[i]) == shown(table[0]);
  }
  out += ",roundup_power2_divisions:";
  if (uniform) {
    out += std::to_string(shown(table[0]));
  } else {
    out += "[";
    for (std::size_t i = kMiBIndex; i < kRoundupPower2Intervals; ++i) {
      bool run_ends = i + 1 == kRoundupPower2Intervals || shown(table[i + 1]) != shown(table[i]);
      if (!run_ends) continue;
      if (i + 1 == kRoundupPower2Intervals) {
        out += ">:" + std::to_string(shown(table[i]));
      } else {
        out += std::to_string(std::size_t{1} << (i - kMiBIndex)) + ":" +
               std::to_string(shown(table[i])) + ",";
      }
    }
    out += "]";
  }
  if (config.garbage_collection_threshold > 0.0) {
    out += ",garbage_collection_threshold:" + format_double(config.garbage_collection_threshold);
  }
  out += ",expandable_segments:";
  out += bool_text(config.expandable_segments);
  out += ",release_lock_on_cudamalloc:";
  out += bool_text(config.release_lock_on_device_malloc);
  out += ",pinned_use_cuda_host_register:";
  out += bool_text(config.pinned_use_host_register);
  out += ",pinned_num_register_threads:" + std::to_string(config.pinned_num_register_threads);
  out += ",pinned_use_background_threads:";
  out += bool_text(config.pinned_use_background_threads);
  out += ",backend:native";
  return out;
}

}  // namespace accel::detail::alloc
